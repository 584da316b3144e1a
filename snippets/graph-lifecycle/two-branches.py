import torch

from measured import glue

T = 2.0
glue("branch_t", T)


def f(t, double):
    return t * 2 if double else t ** 3  # one function, two possible graphs


for double in (True, False):
    t = torch.tensor([T], requires_grad=True)
    out = f(t, double)
    out.backward()
    node = type(out.grad_fn).__name__
    print(f"double={double!s:5}  grad_fn={node:13}  t.grad={t.grad.item()}")
    glue(f"branch_grad_{'double' if double else 'cube'}", t.grad)
