# expect: loss_fn was called 0 times: use the loss function you are given
# Micro-batches done right, but with mse_loss written in instead of the loss_fn it is given.
import torch.nn.functional as F


def accumulate(model, loss_fn, x, y, steps):
    for x_part, y_part in zip(x.chunk(steps), y.chunk(steps)):
        (F.mse_loss(model(x_part), y_part) / steps).backward()
