# expect: the call changed model.weight
# The right gradients, then an optimizer step and weights of its own: .grad passes every check on
# gradients, but the exercise asks for accumulation only, and the model comes back changed.
import torch


def accumulate(model, loss_fn, x, y, steps):
    for x_part, y_part in zip(x.chunk(steps), y.chunk(steps)):
        (loss_fn(model(x_part), y_part) / steps).backward()
    torch.optim.SGD(model.parameters(), lr=0.1).step()
    with torch.no_grad():
        for parameter in model.parameters():
            parameter.mul_(100.0)
