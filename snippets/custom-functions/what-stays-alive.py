import gc
import weakref

import torch


class SiLUSaved(torch.autograd.Function):
    """y = x * sigmoid(x); backward needs the intermediate sigmoid(x): saved."""

    @staticmethod
    def forward(ctx, x):
        s = torch.sigmoid(x)
        ctx.save_for_backward(x, s)
        probe["s"] = weakref.ref(s)
        return x * s

    @staticmethod
    def backward(ctx, grad_y):
        x, s = ctx.saved_tensors
        return grad_y * s * (1 + x * (1 - s))


class SiLUAttribute(torch.autograd.Function):
    """The same, but x and sigmoid(x) kept as plain attributes of ctx."""

    @staticmethod
    def forward(ctx, x):
        s = torch.sigmoid(x)
        ctx.x, ctx.s = x, s
        probe["s"] = weakref.ref(s)
        return x * s

    @staticmethod
    def backward(ctx, grad_y):
        return grad_y * ctx.s * (1 + ctx.x * (1 - ctx.s))


class ExpSaved(torch.autograd.Function):
    """y = exp(x); backward needs y itself, the Function's own output."""

    @staticmethod
    def forward(ctx, x):
        y = x.exp()
        ctx.save_for_backward(y)
        return y

    @staticmethod
    def backward(ctx, grad_y):
        (y,) = ctx.saved_tensors
        return grad_y * y


class ExpAttribute(ExpSaved):
    @staticmethod
    def forward(ctx, x):
        y = x.exp()
        ctx.y = y  # the output refers to ctx (grad_fn), ctx refers to the output: a cycle
        return y

    @staticmethod
    def backward(ctx, grad_y):
        return grad_y * ctx.y


def alive(ref):
    return "alive" if ref() is not None else "freed"


torch.manual_seed(0)
x = torch.randn(1000, requires_grad=True)
probe = {}
print("sigmoid(x), saved inside forward:")
for function in (SiLUSaved, SiLUAttribute):
    y = function.apply(x)
    y.sum().backward()  # y is still held: only backward has run
    after_backward = alive(probe["s"])
    del y
    after_del = alive(probe["s"])
    print(f"  {function.__name__:14} after backward: {after_backward}; after del y: {after_del}")

print("the output y, needed by backward:")
gc.disable()  # only reference counting frees anything below
for function in (ExpSaved, ExpAttribute):
    y = function.apply(x)
    output = weakref.ref(y)
    del y
    after_del = alive(output)
    gc.collect()
    after_gc = alive(output)
    print(f"  {function.__name__:14} after del y: {after_del}; after gc.collect(): {after_gc}")
gc.enable()
