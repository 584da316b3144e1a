import torch

from measured import glue

torch.manual_seed(0)
x = torch.randn(4, requires_grad=True)
glue("so_ones_n", x.numel())


def grad_of(run):
    x.grad = None
    run(torch.sin(x) * x)  # any vector output will do
    return x.grad.clone()


by_ones = grad_of(lambda out: out.backward(torch.ones_like(out)))
by_sum = grad_of(lambda out: out.sum().backward())
# What backward() fills in for a one-element output: a 1.
by_one = grad_of(lambda out: out.sum().backward(torch.tensor(1.0)))
by_scaled = grad_of(
    lambda out: out.backward(torch.full_like(out, 1 / out.numel())))
by_mean = grad_of(lambda out: out.mean().backward())

print("how it was called                  x.grad")
for label, grad in [("out.backward(ones_like(out))", by_ones),
                    ("out.sum().backward()", by_sum),
                    ("out.sum().backward(tensor(1.))", by_one),
                    ("out.backward(full_like(out, 1/n))", by_scaled),
                    ("out.mean().backward()", by_mean)]:
    print(f"{label:34} {' '.join(f'{g:+.4f}' for g in grad.tolist())}")

print("ones_like == sum:", torch.equal(by_ones, by_sum))
print("1/n weights == mean:", torch.allclose(by_scaled, by_mean))
