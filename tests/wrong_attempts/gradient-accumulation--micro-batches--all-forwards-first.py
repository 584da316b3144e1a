# expect: expected: forward, backward(), forward, backward(), forward, backward(), forward, backward()
# Every forward first, then one backward() per loss: the numbers are right, but all the micro-batches'
# graphs are alive at once, the memory of the whole batch that accumulation is meant to save.


def accumulate(model, loss_fn, x, y, steps):
    losses = [loss_fn(model(x_part), y_part) for x_part, y_part in zip(x.chunk(steps), y.chunk(steps))]
    for loss in losses:
        (loss / steps).backward()
