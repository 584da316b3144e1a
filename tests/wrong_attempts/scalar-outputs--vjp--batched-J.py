# expect: a batched gradient reached f's output
# Builds all of J in one torch.autograd.grad call with is_grads_batched=True, then multiplies.
import torch


def vjp(f, x, v):
    leaf = x.detach().requires_grad_()
    out = f(leaf)
    one_hots = torch.eye(out.numel()).reshape(out.numel(), *out.shape)
    (jacobian,) = torch.autograd.grad(out, leaf, one_hots, is_grads_batched=True)
    return v @ jacobian
