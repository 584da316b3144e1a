# expect: found:    forward, forward, forward, forward, backward(), backward(), backward(), backward()
# One graph of the summed losses, with backward(retain_graph=True) called `steps` times on a
# steps-th of it: as many backward() calls as micro-batches, but none of them is a micro-batch's own.


def accumulate(model, loss_fn, x, y, steps):
    total = sum(loss_fn(model(x_part), y_part) for x_part, y_part in zip(x.chunk(steps), y.chunk(steps)))
    for i in range(steps):
        (total / steps / steps).backward(retain_graph=i < steps - 1)
