import torch

from measured import glue

EPS = 1e-4
glue("gcheck_one_eps", EPS)


def f(t):
    return (t * t.cos()).sum()


def central_difference(f, t, eps):
    """(f(t + eps e_i) - f(t - eps e_i)) / 2 eps for each coordinate i."""
    grad = torch.empty_like(t)
    for i in range(t.numel()):
        step = torch.zeros_like(t)
        step[i] = eps
        grad[i] = (f(t + step) - f(t - step)) / (2 * eps)
    return grad


torch.manual_seed(0)
point = torch.randn(4, dtype=torch.float64)
glue("gcheck_one_n", point.numel())

for dtype in (torch.float32, torch.float64):
    t = point.to(dtype).requires_grad_()
    f(t).backward()
    with torch.no_grad():
        numeric = central_difference(f, t, EPS)
    gap = (numeric - t.grad).abs().max().item()
    name = str(dtype).removeprefix("torch.")
    print(f"{name}  autograd     {[f'{g:.4f}' for g in t.grad.tolist()]}")
    print(f"{'':9}central diff {[f'{g:.4f}' for g in numeric.tolist()]}")
    print(f"{'':9}max |central diff - autograd| = {gap:.1e}")
    glue(f"gcheck_one_{name}", float(f"{gap:.2g}"))  # as printed
