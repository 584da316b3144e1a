# expect: model.bias.grad differs from the one-batch gradient (the weight's is right)
# Divides the weight's gradient afterwards instead of each loss: the bias keeps steps times its gradient.


def accumulate(model, loss_fn, x, y, steps):
    for x_part, y_part in zip(x.chunk(steps), y.chunk(steps)):
        loss_fn(model(x_part), y_part).backward()
    model.weight.grad /= steps
