# expect: ran no backward pass: vᵀJ did not come from backward(v)
# One call of f on a batch of columns in forward mode (for these f's, f(X)[:, j] = f(X[:, j])):
# the tangent is J, built without any backward pass, and v @ J is returned.
import torch
from torch.autograd import forward_ad


def vjp(f, x, v):
    n = x.numel()
    columns = x.detach()[:, None].expand(n, n).contiguous()
    with forward_ad.dual_level():
        jacobian = forward_ad.unpack_dual(f(forward_ad.make_dual(columns, torch.eye(n)))).tangent
    return v @ jacobian
