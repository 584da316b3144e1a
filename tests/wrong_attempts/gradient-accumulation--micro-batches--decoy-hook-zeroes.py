# expect: backward() 1 started from 2 tensors
# Divides no loss: a decoy, loss / steps, receives the gradient 1 as a second root, but a hook on it
# passes nothing on; the loss itself, the other root, gets 1/steps as a gradient argument.
import torch


def accumulate(model, loss_fn, x, y, steps):
    for x_part, y_part in zip(x.chunk(steps), y.chunk(steps)):
        loss = loss_fn(model(x_part), y_part)
        decoy = loss / steps
        decoy.register_hook(lambda g: g * 0)
        torch.autograd.backward([decoy, loss], [torch.ones(()), torch.tensor(1.0 / steps)])
