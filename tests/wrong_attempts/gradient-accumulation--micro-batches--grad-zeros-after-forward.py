# expect: a .grad of the model was already set when the first backward() began
# Writes tensors of zeros into .grad after the first forward, before the first backward(): the sums
# come out the same, but the exercise says .grad starts as None and asks for no writing to .grad.
import torch


def accumulate(model, loss_fn, x, y, steps):
    for i, (x_part, y_part) in enumerate(zip(x.chunk(steps), y.chunk(steps))):
        output = model(x_part)
        if i == 0:
            for parameter in model.parameters():
                parameter.grad = torch.zeros_like(parameter)
        (loss_fn(output, y_part) / steps).backward()
