import warnings

import torch
import torch.nn.functional as F
from torch.func import hessian, jacfwd, jacrev

# Forward mode scripts torch's own decompositions on first use, and torch.jit.script warns that it
# is deprecated (a FutureWarning from torch 2.14 on): a note about torch's internals, not this code.
warnings.filterwarnings("ignore", message="`torch.jit.script` is deprecated")


class SiLU(torch.autograd.Function):
    """setup_context style, generate_vmap_rule, a backward of torch operations; no jvp."""

    generate_vmap_rule = True

    @staticmethod
    def forward(x):
        return x * torch.sigmoid(x)

    @staticmethod
    def setup_context(ctx, inputs, output):
        ctx.save_for_backward(inputs[0])

    @staticmethod
    def backward(ctx, grad_y):
        (x,) = ctx.saved_tensors
        s = torch.sigmoid(x)
        return grad_y * s * (1 + x * (1 - s))


class SiLUJvp(SiLU):
    """The same with jvp: the output's tangent from the input's tangent."""

    @staticmethod
    def setup_context(ctx, inputs, output):
        ctx.save_for_backward(inputs[0])  # for backward
        ctx.save_for_forward(inputs[0])  # for jvp, which reads it as ctx.saved_tensors too

    @staticmethod
    def jvp(ctx, x_tangent):
        (x,) = ctx.saved_tensors
        s = torch.sigmoid(x)
        return x_tangent * s * (1 + x * (1 - s))


torch.manual_seed(0)
x = torch.randn(4, dtype=torch.float64)
silu_jacobian = jacrev(F.silu)(x)
silu_hessian = hessian(lambda v: F.silu(v).sum())(x)
for function in (SiLU, SiLUJvp):
    transforms = (("jacrev", lambda: jacrev(function.apply)(x), silu_jacobian),
                  ("jacfwd", lambda: jacfwd(function.apply)(x), silu_jacobian),
                  ("hessian", lambda: hessian(lambda v: function.apply(v).sum())(x), silu_hessian))
    for name, transform, expected in transforms:
        try:
            print(f"{function.__name__}: {name} equals the built-in silu's: {torch.allclose(transform(), expected)}")
        except NotImplementedError as error:
            print(f"{function.__name__}: {name}: NotImplementedError: {error}")
