# A right solution that runs f and the backward pass in float64 and returns vᵀJ in x's dtype: the
# gradient that reaches f's output is v converted to float64, still one plain backward(v).
import torch


def vjp(f, x, v):
    leaf = x.detach().double().requires_grad_()
    f(leaf).backward(v.double())
    return leaf.grad.to(x.dtype)
