# expect: the gradient that reached micro-batch 1's loss in its backward() was 1
# Divides no loss: a hook on every parameter divides each gradient by steps on its way into .grad.
# The numbers come out right, but the hooks stay on the model and shrink every later backward().


def accumulate(model, loss_fn, x, y, steps):
    for parameter in model.parameters():
        parameter.register_hook(lambda grad: grad / steps)
    for x_part, y_part in zip(x.chunk(steps), y.chunk(steps)):
        loss_fn(model(x_part), y_part).backward()
