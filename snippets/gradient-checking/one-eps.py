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


def over_step_taken(f, t, eps):
    """The same differences, divided by the step the dtype actually took, (t + eps) - (t - eps)
    rounded to t's grid, instead of by 2 eps; and that step in units of 2 eps."""
    grad, taken = torch.empty(t.numel(), dtype=torch.float64), []
    for i in range(t.numel()):
        step = torch.zeros_like(t)
        step[i] = eps
        up, down = t + step, t - step
        width = up[i].double() - down[i].double()  # exact: both are on t's grid
        grad[i] = (f(up) - f(down)).double() / width
        taken.append(width.item() / (2 * eps))
    return grad, taken


torch.manual_seed(0)
point = torch.randn(4, dtype=torch.float64)
glue("gcheck_one_n", point.numel())

for dtype in (torch.float32, torch.float64):
    t = point.to(dtype).requires_grad_()
    f(t).backward()
    with torch.no_grad():
        numeric = central_difference(f, t, EPS)
        by_taken, taken = over_step_taken(f, t, EPS)
    gap = (numeric - t.grad).abs().max().item()
    gap_taken = (by_taken - t.grad.double()).abs().max().item()
    name = str(dtype).removeprefix("torch.")
    print(f"{name}  autograd     {[f'{g:.4f}' for g in t.grad.tolist()]}")
    print(f"{'':9}central diff {[f'{g:.4f}' for g in numeric.tolist()]}")
    print(f"{'':9}max |central diff - autograd| = {gap:.1e}")
    print(f"{'':9}step taken / 2eps {[f'{w:.4f}' for w in taken]}")
    print(f"{'':9}divided by the step taken: max gap {gap_taken:.1e}")
    glue(f"gcheck_one_{name}", float(f"{gap:.2g}"))  # as printed
    if dtype == torch.float32:
        off = max(abs(float(f"{w:.4f}") - 1) for w in taken)  # as printed
        glue("gcheck_one_step_off", float(f"{off:.2g}"))
        glue("gcheck_one_float32_taken", float(f"{gap_taken:.2g}"))
