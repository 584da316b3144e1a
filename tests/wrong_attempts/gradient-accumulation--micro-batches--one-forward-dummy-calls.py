# expect: found:    no gradient: nothing computed from it reached a backward()
# One forward of the whole batch, outside the module's call, its graph alive until the end; the
# micro-batch model(x_part) calls only run to be counted, and their outputs are thrown away.
import torch


def accumulate(model, loss_fn, x, y, steps):
    out_all = torch.nn.functional.linear(x, model.weight, model.bias)
    for x_part, y_part, out_part in zip(x.chunk(steps), y.chunk(steps), out_all.chunk(steps)):
        model(x_part)
        (loss_fn(out_part, y_part) / steps).backward(retain_graph=True)
