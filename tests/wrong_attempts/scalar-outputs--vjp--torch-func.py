# expect: vjp called torch.func.grad_and_value
# A ready-made transform that the statement rules out: every public function of torch.func is refused.
import torch.func


def vjp(f, x, v):
    grad, _ = torch.func.grad_and_value(lambda t: (v * f(t)).sum())(x.detach())
    return grad
