# expect: a .grad of the model was already set when the first backward() began
# Writes tensors of zeros into .grad before the loop: the sums come out the same, but the exercise
# says .grad starts as None and asks for no writing to .grad.
import torch


def accumulate(model, loss_fn, x, y, steps):
    for parameter in model.parameters():
        parameter.grad = torch.zeros_like(parameter)
    for x_part, y_part in zip(x.chunk(steps), y.chunk(steps)):
        (loss_fn(model(x_part), y_part) / steps).backward()
