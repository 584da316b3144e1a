# expect: vjp returned a float64 tensor, while x is float32
# Runs f and backward(v) in float64, right, but returns the float64 .grad instead of x's dtype.
import torch


def vjp(f, x, v):
    leaf = x.detach().double().requires_grad_()
    f(leaf).backward(v.double())
    return leaf.grad
