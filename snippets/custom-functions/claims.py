"""Checks behind custom-functions' sentences that no output on the page shows (tests/test_claims.py
runs each on every supported torch; {claim}`custom-functions/<name>` on a page names one)."""

import gc
import weakref

import torch
from torch.autograd.function import once_differentiable


def _scale(record):
    """y = w * x in the current style; setup_context records what it was given."""

    class Scale(torch.autograd.Function):
        @staticmethod
        def forward(x, w):
            return w * x

        @staticmethod
        def setup_context(ctx, inputs, output):
            record.append((inputs, output, torch.is_grad_enabled()))
            ctx.save_for_backward(*inputs)

        @staticmethod
        def backward(ctx, grad_y):
            x, w = ctx.saved_tensors
            return grad_y * w, (grad_y * x).sum()

    return Scale


def setup_context_gets_the_inputs_as_a_tuple_and_the_output():
    """setup_context(ctx, inputs, output) receives forward's arguments as one tuple and forward's
    return value, which is the tensor the caller gets."""
    record = []
    x, w = torch.ones(3), torch.tensor(2.0, requires_grad=True)
    y = _scale(record).apply(x, w)
    (inputs, output, _), = record
    assert isinstance(inputs, tuple) and inputs[0] is x and inputs[1] is w
    assert output is y


def a_gradient_returned_for_an_input_that_needs_none_is_dropped():
    """When backward returns a tensor for an input that does not require grad, autograd drops it:
    the input's .grad stays None and nothing raises."""
    x, w = torch.ones(3), torch.tensor(2.0, requires_grad=True)
    _scale([]).apply(x, w).sum().backward()
    assert x.grad is None and w.grad.item() == 3.0


def returning_none_for_an_input_that_needs_grad_leaves_its_grad_none():
    """Returning None for an input that does require grad is allowed: that leaf's .grad stays None."""

    class ZeroForX(torch.autograd.Function):
        @staticmethod
        def forward(ctx, x):
            return x * 2

        @staticmethod
        def backward(ctx, grad_y):
            return None

    x = torch.ones(3, requires_grad=True)
    ZeroForX.apply(x).sum().backward()
    assert x.grad is None


def saved_tensors_are_released_after_backward():
    """After a backward without retain_graph, reading ctx.saved_tensors raises: what save_for_backward
    kept has been freed; a tensor kept as a ctx attribute is still there."""

    class Keep(torch.autograd.Function):
        @staticmethod
        def forward(ctx, x):
            s = torch.sigmoid(x)
            ctx.save_for_backward(s)
            ctx.s = s
            return s

        @staticmethod
        def backward(ctx, grad_y):
            (s,) = ctx.saved_tensors
            return grad_y * s * (1 - s)

    x = torch.randn(4, requires_grad=True)
    y = Keep.apply(x)
    y.sum().backward()
    try:
        y.grad_fn.saved_tensors
    except RuntimeError as error:
        assert "freed" in str(error)
    else:
        raise AssertionError("saved_tensors was still readable after backward")
    assert isinstance(y.grad_fn.s, torch.Tensor)


def an_output_kept_as_attribute_lives_until_the_cycle_collector_runs():
    """A Function's output kept as a ctx attribute forms a reference cycle (output → grad_fn → output):
    after `del`, reference counting does not free it and gc.collect() does; saved with
    save_for_backward it is freed at once."""

    class ExpAttribute(torch.autograd.Function):
        @staticmethod
        def forward(ctx, x):
            y = x.exp()
            ctx.y = y
            return y

        @staticmethod
        def backward(ctx, grad_y):
            return grad_y * ctx.y

    class ExpSaved(torch.autograd.Function):
        @staticmethod
        def forward(ctx, x):
            y = x.exp()
            ctx.save_for_backward(y)
            return y

        @staticmethod
        def backward(ctx, grad_y):
            return grad_y * ctx.saved_tensors[0]

    x = torch.randn(4, requires_grad=True)
    was_enabled = gc.isenabled()
    gc.disable()
    try:
        y = ExpAttribute.apply(x)
        ref = weakref.ref(y)
        del y
        assert ref() is not None
        gc.collect()
        assert ref() is None
        y = ExpSaved.apply(x)
        ref = weakref.ref(y)
        del y
        assert ref() is None
    finally:
        if was_enabled:
            gc.enable()


def needs_input_grad_follows_requires_grad_of_each_input():
    """ctx.needs_input_grad holds one bool per forward argument: True where that argument is a tensor
    that requires grad, False for tensors that do not and for non-tensor arguments."""
    seen = []

    class Mix(torch.autograd.Function):
        @staticmethod
        def forward(ctx, x, w, factor):
            seen.append(ctx.needs_input_grad)
            return x * w * factor

        @staticmethod
        def backward(ctx, grad_y):
            return None, None, None

    Mix.apply(torch.ones(2), torch.ones(2, requires_grad=True), 3.0)
    Mix.apply(torch.ones(2, requires_grad=True), torch.ones(2, requires_grad=True), 3.0)
    assert seen == [(False, True, False), (True, True, False)]


def gradients_are_materialized_as_zeros_by_default():
    """Without set_materialize_grads(False), backward receives zeros, not None, for an output that got
    no gradient."""
    seen = []

    class Two(torch.autograd.Function):
        @staticmethod
        def forward(ctx, x):
            return x * 2, x * 3

        @staticmethod
        def backward(ctx, grad_a, grad_b):
            seen.append(grad_b)
            return 2 * grad_a + 3 * grad_b

    x = torch.ones(3, requires_grad=True)
    a, _ = Two.apply(x)
    a.sum().backward()
    assert isinstance(seen[0], torch.Tensor) and not seen[0].any()


def once_differentiable_runs_backward_under_no_grad():
    """A backward decorated with once_differentiable runs with grad mode off, even under create_graph=True."""
    modes = []

    class Square(torch.autograd.Function):
        @staticmethod
        def forward(ctx, x):
            ctx.save_for_backward(x)
            return x * x

        @staticmethod
        @once_differentiable
        def backward(ctx, grad_y):
            modes.append(torch.is_grad_enabled())
            (x,) = ctx.saved_tensors
            return 2 * x * grad_y

    x = torch.ones(3, requires_grad=True)
    torch.autograd.grad(Square.apply(x).sum(), x, create_graph=True)
    assert modes == [False]


def once_differentiable_raises_only_when_grad_output_requires_grad():
    """With a grad_output that requires grad, once_differentiable hands back a gradient whose backward
    raises "trying to differentiate twice"; with a plain grad_output the gradient requires no grad."""

    class Square(torch.autograd.Function):
        @staticmethod
        def forward(ctx, x):
            ctx.save_for_backward(x)
            return x * x

        @staticmethod
        @once_differentiable
        def backward(ctx, grad_y):
            (x,) = ctx.saved_tensors
            return 2 * x * grad_y

    x = torch.ones(3, requires_grad=True)
    y = Square.apply(x)
    (plain,) = torch.autograd.grad(y.sum(), x, create_graph=True)
    assert not plain.requires_grad
    v = torch.ones(3, requires_grad=True)
    (first,) = torch.autograd.grad(Square.apply(x), x, v, create_graph=True)
    assert first.requires_grad
    try:
        first.sum().backward()
    except RuntimeError as error:
        assert "trying to differentiate twice" in str(error)
    else:
        raise AssertionError("no error from the second backward")


def mark_dirty_returns_the_same_tensor_object():
    """With mark_dirty, apply returns the very input object, now with the Function's node as grad_fn;
    without it, apply returns a different tensor object and the input keeps its old grad_fn."""

    def make(dirty):
        class ReLUInPlace(torch.autograd.Function):
            @staticmethod
            def forward(ctx, x):
                x.clamp_(min=0)
                if dirty:
                    ctx.mark_dirty(x)
                return x

            @staticmethod
            def backward(ctx, grad_y):
                return grad_y

        return ReLUInPlace

    a = torch.randn(4, requires_grad=True)
    h = a * 1
    assert make(True).apply(h) is h and type(h.grad_fn).__name__ == "ReLUInPlaceBackward"
    h = a * 1
    assert make(False).apply(h) is not h and type(h.grad_fn).__name__ == "MulBackward0"


def a_gradient_shaped_like_x_is_summed_down_to_a_scalar_input():
    """When backward returns, for a 0-dim input, a gradient with the shape of another input, autograd
    does not raise: it sums it down to the input's shape."""

    class Scale(torch.autograd.Function):
        @staticmethod
        def forward(ctx, x, w):
            ctx.save_for_backward(x)
            return w * x

        @staticmethod
        def backward(ctx, grad_y):
            (x,) = ctx.saved_tensors
            return None, grad_y * x  # not summed

    x, w = torch.arange(4.0), torch.tensor(2.0, requires_grad=True)
    Scale.apply(x, w).sum().backward()
    assert w.grad.shape == () and w.grad.item() == 6.0
