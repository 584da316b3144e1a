# expect: the 1/4 came from elsewhere (a gradient argument, a hook), the loss was not divided
# Divides no loss: a view of the loss receives the gradient 1 and a hook on it divides that by steps
# on its way to the loss. The numbers are the same, but the view holds the loss, not loss / steps.
import torch


def accumulate(model, loss_fn, x, y, steps):
    for x_part, y_part in zip(x.chunk(steps), y.chunk(steps)):
        loss = loss_fn(model(x_part), y_part)
        view = loss.view_as(loss)
        view.register_hook(lambda grad: grad / steps)
        (view + loss * 0).backward()
