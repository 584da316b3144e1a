import torch

from measured import figure, glue


def rounded(value, digits=2):
    """Glue what the table shows, not float32 noise another CPU may change."""
    return float(f"{value:.{digits}g}")


def f(t):
    return (t * t.cos()).sum()


def central_difference(f, t, eps):
    grad = torch.empty_like(t)
    for i in range(t.numel()):
        step = torch.zeros_like(t)
        step[i] = eps
        grad[i] = (f(t + step) - f(t - step)) / (2 * eps)
    return grad


torch.manual_seed(0)
point = torch.randn(4, dtype=torch.float64)  # the same point as before
exponents = [k / 2 for k in range(2, 13)]  # eps = 1e-1, 3.2e-2, ..., 1e-6
glue("gcheck_eps_largest", 10 ** -exponents[0])
glue("gcheck_eps_smallest", 10 ** -exponents[-1])
errors = {}
for dtype in (torch.float32, torch.float64):
    t = point.to(dtype).requires_grad_()
    f(t).backward()
    with torch.no_grad():
        errors[dtype] = [
            (central_difference(f, t, 10 ** -k) - t.grad).abs().max().item()
            for k in exponents]
e32, e64 = errors[torch.float32], errors[torch.float64]

print(f"{'eps':>8}{'float64 error':>15}{'float32 error':>15}"
      f"{'float32 / float64':>19}")
for k, a, b in zip(exponents, e64, e32):
    print(f"{10 ** -k:8.1e}{a:15.1e}{b:15.1e}{b / a:19.3g}")

best = min(range(len(exponents)), key=lambda i: e32[i])
print(f"float32 is closest at eps = {10 ** -exponents[best]:.1e} "
      f"(error {e32[best]:.1e})")
glue("gcheck_best_eps32", rounded(10 ** -exponents[best]))
glue("gcheck_best_err32", rounded(e32[best]))
best64 = min(range(len(exponents)), key=lambda i: e64[i])
glue("gcheck_best_eps64", rounded(10 ** -exponents[best64]))
glue("gcheck_best_err64", rounded(e64[best64]))
for k in (1, 2, 3, 4, 6):
    i = exponents.index(k)
    glue(f"gcheck_err32_e{k}", rounded(e32[i]))
    glue(f"gcheck_err64_e{k}", rounded(e64[i]))
small = exponents.index(4)  # eps from 1e-4 down to 1e-6
glue("gcheck_err64_worst_small", rounded(max(e64[small:])))
glue("gcheck_ratio_e1", rounded(e32[0] / e64[0]))
glue("gcheck_ratio_e4", rounded(e32[small] / e64[small]))

# Rounding grows like (machine epsilon) / eps, truncation like eps**2:
# they meet near the cube root of machine epsilon.
for dtype in (torch.float32, torch.float64):
    name, machine = str(dtype).removeprefix("torch."), torch.finfo(dtype).eps
    print(f"{name}: machine epsilon {machine:.1e}, "
          f"its cube root {machine ** (1 / 3):.1e}")
    glue(f"gcheck_machine_{name}", rounded(machine))
    glue(f"gcheck_cuberoot_{name}", rounded(machine ** (1 / 3)))

fig, ax = figure()
eps = [10 ** -k for k in exponents]
ax.loglog(eps, e32, "o-", label="float32")
ax.loglog(eps, e64, "s-", label="float64")
ax.invert_xaxis()  # smaller steps to the right, in the order one tries them
ax.set_xlabel("eps (step of the central difference)")
ax.set_ylabel("max |central difference - autograd|")
ax.legend()
glue("gcheck_sweep_fig", fig)
