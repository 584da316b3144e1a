# expect: the backward pass was run by torch.func, not by your code
# A ready-made transform that the statement rules out, under a name the judge's list of banned functions lacks.
import torch.func


def vjp(f, x, v):
    grad, _ = torch.func.grad_and_value(lambda t: (v * f(t)).sum())(x.detach())
    return grad
