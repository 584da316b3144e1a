"""Reference solution: divide each micro-batch loss by the number of micro-batches."""

import torch


def accumulate(model, loss_fn, x, y, steps):
    for x_part, y_part in zip(x.chunk(steps), y.chunk(steps)):
        # Each part's loss is a mean over len(x) / steps samples: dividing by `steps` makes
        # the sum of the parts the mean over the whole batch.
        (loss_fn(model(x_part), y_part) / steps).backward()


if __name__ == "__main__":
    torch.manual_seed(0)
    model = torch.nn.Linear(5, 1)
    accumulate(model, torch.nn.functional.mse_loss, torch.randn(64, 5), torch.randn(64, 1), steps=4)
    print(model.weight.grad)
