# expect: the 1/4 came from elsewhere (a gradient argument, a hook), the loss was not divided
# Divides no loss: hands backward() a gradient of 1/steps instead. The numbers are the same, but the
# exercise asks for each loss divided by steps.
import torch


def accumulate(model, loss_fn, x, y, steps):
    for x_part, y_part in zip(x.chunk(steps), y.chunk(steps)):
        loss_fn(model(x_part), y_part).backward(torch.tensor(1.0 / steps))
