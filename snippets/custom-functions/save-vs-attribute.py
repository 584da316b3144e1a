import torch
from measured import glue


class ScaleSaved(torch.autograd.Function):
    """y = w * x; backward needs x for w's gradient, kept with save_for_backward."""

    @staticmethod
    def forward(x, w):
        return w * x

    @staticmethod
    def setup_context(ctx, inputs, output):
        ctx.save_for_backward(*inputs)

    @staticmethod
    def backward(ctx, grad_y):
        x, w = ctx.saved_tensors
        return grad_y * w, (grad_y * x).sum()


class ScaleAttribute(ScaleSaved):
    """The same, but x and w kept as plain attributes of ctx."""

    @staticmethod
    def setup_context(ctx, inputs, output):
        ctx.x, ctx.w = inputs

    @staticmethod
    def backward(ctx, grad_y):
        return grad_y * ctx.w, (grad_y * ctx.x).sum()


torch.manual_seed(0)
w = torch.tensor(2.0, requires_grad=True)
right = None
for function in (ScaleSaved, ScaleAttribute):
    x = torch.ones(3)  # a data buffer, no grad
    y = function.apply(x, w)
    if right is None:
        (right,) = torch.autograd.grad(y.sum(), w, retain_graph=True)
    x.mul_(10)  # the buffer is reused before backward: x's version counter goes 0 -> 1
    try:
        (grad_w,) = torch.autograd.grad(y.sum(), w)
        print(f"{function.__name__}: grad w = {grad_w.item()} (right: {right.item()})")
        glue("cf_attr_grad_w", grad_w)
    except RuntimeError as error:
        # Up to the anomaly-detection hint that follows, whose wording varies by torch version.
        message = str(error).split(" Hint:")[0]
        print(f"{function.__name__}: RuntimeError: {message}")
glue("cf_right_grad_w", right)
