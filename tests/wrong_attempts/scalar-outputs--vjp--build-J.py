# expect: autograd ran 3 backward passes in vjp(f_mix, x, v=[1.0, 0.5, -2.0]): expected exactly one backward(v)
# Builds J row by row, one one-hot backward per output, then multiplies: what vjp is meant to avoid.
import torch


def vjp(f, x, v):
    leaf = x.detach().requires_grad_()
    out = f(leaf)
    rows = []
    for i in range(out.numel()):
        leaf.grad = None
        out[i].backward(retain_graph=True)
        rows.append(leaf.grad.clone())
    return v @ torch.stack(rows)
