import torch


class ReLUInPlace(torch.autograd.Function):
    """relu_ as a Function: clamps its input in place and returns that same tensor."""

    @staticmethod
    def forward(ctx, x):
        x.clamp_(min=0)
        ctx.mark_dirty(x)  # x's old value is gone: x is now this Function's output
        ctx.save_for_backward(x)
        return x

    @staticmethod
    def backward(ctx, grad_y):
        (y,) = ctx.saved_tensors
        return grad_y * (y > 0)


class ReLUInPlaceUnmarked(ReLUInPlace):
    """The same edit without mark_dirty."""

    @staticmethod
    def forward(ctx, x):
        x.clamp_(min=0)
        ctx.save_for_backward(x)
        return x


torch.manual_seed(0)
a = torch.randn(5, requires_grad=True)
mask = (a > 0).float()
print("true gradient of relu(a).sum():", mask)
for function in (ReLUInPlace, ReLUInPlaceUnmarked):
    h = a * 1  # a non-leaf, so an in-place edit is allowed
    out = function.apply(h)
    # Code that keeps using h, as it would after h.relu_():
    (grad_a,) = torch.autograd.grad(h.sum(), a)
    print(f"{function.__name__}: out is h: {out is h}; out is a view of h: {out._base is h}; "
          f"h.grad_fn: {type(h.grad_fn).__name__}; grad through h: {grad_a}")

# A leaf that requires grad, as a parameter is: forward runs before autograd decides anything.
for function in (ReLUInPlace, ReLUInPlaceUnmarked):
    leaf = a.detach().clone().requires_grad_()
    try:
        out = function.apply(leaf)
        outcome = f"no error; out is a view of the leaf: {out._base is leaf}"
    except RuntimeError as error:
        outcome = f"RuntimeError: {error}"
    print(f"on a leaf, {function.__name__}: {outcome}")
    print(f"  leaf changed: {not torch.equal(leaf.detach(), a.detach())} | leaf = {leaf.detach()}")
