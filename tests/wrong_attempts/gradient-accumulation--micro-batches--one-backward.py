# expect: expected one backward() per micro-batch (4) and no other backward pass
# A forward on each micro-batch, but the losses are summed, with one backward() at the end: every
# micro-batch's graph stays alive until then, which is the memory accumulation is meant to save.


def accumulate(model, loss_fn, x, y, steps):
    total = sum(loss_fn(model(x_part), y_part) for x_part, y_part in zip(x.chunk(steps), y.chunk(steps)))
    (total / steps).backward()
