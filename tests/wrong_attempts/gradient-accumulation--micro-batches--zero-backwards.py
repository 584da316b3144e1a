# expect: backward() 1 added 0.00× micro-batch 1's share of the gradient to model.weight.grad
# One backward() after each forward, in order, but they add nothing (the loss times 0, the graph kept):
# the last one, on the sum of every loss so far, does all the work, with every graph alive until then.


def accumulate(model, loss_fn, x, y, steps):
    losses = []
    for number, (x_part, y_part) in enumerate(zip(x.chunk(steps), y.chunk(steps)), start=1):
        losses.append(loss_fn(model(x_part), y_part))
        if number < steps:
            (0 * losses[-1]).backward(retain_graph=True)
        else:
            (sum(losses) / steps).backward()
