import torch
from measured import glue


class ScaleOld(torch.autograd.Function):
    """y = w * x, older style: forward receives ctx and saves for backward."""

    @staticmethod
    def forward(ctx, x, w):
        ctx.save_for_backward(x, w)
        return w * x

    @staticmethod
    def backward(ctx, grad_y):
        x, w = ctx.saved_tensors
        return grad_y * w, (grad_y * x).sum()


class Scale(torch.autograd.Function):
    """The same, current style: forward computes, setup_context saves."""

    @staticmethod
    def forward(x, w):
        return w * x

    @staticmethod
    def setup_context(ctx, inputs, output):
        x, w = inputs
        ctx.save_for_backward(x, w)

    @staticmethod
    def backward(ctx, grad_y):
        x, w = ctx.saved_tensors
        calls.append(ctx.needs_input_grad)
        # No work for an input nobody wants a gradient for: None says so.
        grad_x = grad_y * w if ctx.needs_input_grad[0] else None
        grad_w = (grad_y * x).sum() if ctx.needs_input_grad[1] else None
        return grad_x, grad_w


torch.manual_seed(0)
x = torch.randn(4)
w = torch.tensor(2.0, requires_grad=True)
calls = []

grads = {}
for name, function in (("old style", ScaleOld), ("setup_context", Scale)):
    (grad_w,) = torch.autograd.grad(function.apply(x, w).sum(), w)
    grads[name] = grad_w
    print(f"{name:14} grad w = {grad_w.item():.4f}")
(expected,) = torch.autograd.grad((w * x).sum(), w)
print(f"{'plain autograd':14} grad w = {expected.item():.4f}")
print("all three equal:", all(torch.equal(g, expected) for g in grads.values()))

# x is data (no grad), w is a weight: backward is told which gradients anybody needs.
print("needs_input_grad, x data:      ", calls[-1])
x_leaf = x.clone().requires_grad_()
Scale.apply(x_leaf, w).sum().backward()
print("needs_input_grad, x a leaf too:", calls[-1])
glue("cf_scale_grad_w", grads["setup_context"])
