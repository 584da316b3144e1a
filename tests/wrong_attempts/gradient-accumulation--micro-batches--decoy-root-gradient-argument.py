# expect: the 1/4 came from elsewhere (a gradient argument, a hook), the loss was not divided
# Divides no loss: a backward() with two roots hands a decoy, loss * 0, the gradient 1 and the loss
# itself 1/steps. The numbers are the same, but no tensor holding loss / steps received the 1.
import torch


def accumulate(model, loss_fn, x, y, steps):
    for x_part, y_part in zip(x.chunk(steps), y.chunk(steps)):
        loss = loss_fn(model(x_part), y_part)
        torch.autograd.backward([loss * 0, loss], [torch.tensor(1.0), torch.tensor(1.0 / steps)])
