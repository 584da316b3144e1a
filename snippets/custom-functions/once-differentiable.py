import torch
from torch.autograd import gradcheck, gradgradcheck
from torch.autograd.function import once_differentiable
from torch.autograd.gradcheck import GradcheckError


class SiLU(torch.autograd.Function):
    """y = x * sigmoid(x); backward written with torch ops, so autograd can record it too."""

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


class SiLUOnce(SiLU):
    """The same backward, marked once_differentiable: it runs under no_grad."""

    @staticmethod
    @once_differentiable
    def backward(ctx, grad_y):
        (x,) = ctx.saved_tensors
        s = torch.sigmoid(x)
        return grad_y * s * (1 + x * (1 - s))


torch.manual_seed(0)
x = torch.randn(4, dtype=torch.float64, requires_grad=True)
for function in (SiLU, SiLUOnce):
    print(f"{function.__name__}: gradcheck {gradcheck(function.apply, (x,))}")
    try:
        print(f"{function.__name__}: gradgradcheck {gradgradcheck(function.apply, (x,))}")
    except GradcheckError as error:
        print(f"{function.__name__}: gradgradcheck raised GradcheckError: {error}")

# The usual second derivative: grad with create_graph, then grad again.
for function in (SiLU, SiLUOnce):
    (first,) = torch.autograd.grad(function.apply(x).sum(), x, create_graph=True)
    try:
        (second,) = torch.autograd.grad(first.sum(), x)
        print(f"{function.__name__}: second derivative {second}")
    except RuntimeError as error:
        print(f"{function.__name__}: first.requires_grad {first.requires_grad};",
              f"RuntimeError: {error}")

# x reaching the loss by a second path as well: the first derivative requires grad again.
for function in (SiLU, SiLUOnce):
    (first,) = torch.autograd.grad((function.apply(x) + x**3).sum(), x, create_graph=True)
    (second,) = torch.autograd.grad(first.sum(), x)
    print(f"{function.__name__} + x**3: second derivative {second};",
          f"only the 6x of x**3: {torch.allclose(second, 6 * x)}")

# A gradient penalty: a Linear layer after the Function, then .backward() on the penalty.
layer = torch.nn.Linear(4, 1, dtype=torch.float64)
for function in (SiLU, SiLUOnce):
    (g,) = torch.autograd.grad(layer(function.apply(x)).sum(), x, create_graph=True)
    penalty = (g.norm() - 1) ** 2
    try:
        penalty.backward()
        print(f"{function.__name__} in a gradient penalty: penalty.backward() ran")
    except RuntimeError as error:
        print(f"{function.__name__} in a gradient penalty: RuntimeError: {error}")
