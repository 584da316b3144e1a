# expect: steps = 2: the model ran on batches of 16, 16, 16, 16 samples: expected 2 micro-batches of 32
# Four micro-batches whatever `steps` says: the gradient is still right, because how the batch is
# split does not change it; only the number of forwards shows that `steps` was ignored.


def accumulate(model, loss_fn, x, y, steps):
    for x_part, y_part in zip(x.chunk(4), y.chunk(4)):
        (loss_fn(model(x_part), y_part) / 4).backward()
