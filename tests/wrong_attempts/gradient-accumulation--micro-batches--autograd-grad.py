# expect: found:    4 × torch.autograd.grad
# Micro-batches one after the other, each loss divided by steps, but the gradients taken with
# torch.autograd.grad and added into .grad by hand: no backward() accumulates anything.
import torch


def accumulate(model, loss_fn, x, y, steps):
    parameters = list(model.parameters())
    for x_part, y_part in zip(x.chunk(steps), y.chunk(steps)):
        gradients = torch.autograd.grad(loss_fn(model(x_part), y_part) / steps, parameters)
        for parameter, gradient in zip(parameters, gradients):
            parameter.grad = gradient if parameter.grad is None else parameter.grad + gradient
