# expect: 4.00× the one-batch gradient
# The usual first try: call backward() on every micro-batch's loss as if it were the whole batch's.


def accumulate(model, loss_fn, x, y, steps):
    for x_part, y_part in zip(x.chunk(steps), y.chunk(steps)):
        loss_fn(model(x_part), y_part).backward()
