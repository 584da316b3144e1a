# expect: expected one backward per micro-batch (4)
# Forward on each micro-batch, but the losses are summed and backwarded once: every micro-batch's graph
# stays alive until the end, which is the memory accumulation is meant to save.


def accumulate(model, loss_fn, x, y, steps):
    total = sum(loss_fn(model(x_part), y_part) for x_part, y_part in zip(x.chunk(steps), y.chunk(steps)))
    (total / steps).backward()
