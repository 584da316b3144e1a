# expect: autograd ran 3 backward passes in vjp(f_mix
# One backward(v) when f has at most two outputs, J row by row otherwise.
import torch


def vjp(f, x, v):
    leaf = x.detach().requires_grad_()
    out = f(leaf)
    if out.numel() <= 2:
        out.backward(v)
        return leaf.grad
    rows = []
    for i in range(out.numel()):
        leaf.grad = None
        out[i].backward(retain_graph=True)
        rows.append(leaf.grad.clone())
    return v @ torch.stack(rows)
