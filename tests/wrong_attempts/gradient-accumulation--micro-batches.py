# expect: 4.00× the one-batch gradient
# The usual first try: backward every micro-batch as if it were the whole batch.


def accumulate(model, loss_fn, x, y, steps):
    for x_part, y_part in zip(x.chunk(steps), y.chunk(steps)):
        loss_fn(model(x_part), y_part).backward()
