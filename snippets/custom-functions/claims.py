"""Checks behind custom-functions' sentences that no output on the page shows (tests/test_claims.py
runs each on every supported torch; {claim}`custom-functions/<name>` on a page names one)."""

import contextlib
import gc
import warnings
import weakref

import torch
from torch.autograd import gradcheck, gradgradcheck
from torch.autograd.function import once_differentiable
from torch.autograd.gradcheck import GradcheckError


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
    """When backward returns a tensor for a tensor input that does not require grad, autograd drops
    it unchecked and without a word: even one of the wrong shape and dtype raises and warns nothing,
    and the other input's gradient is right."""

    class Scale(torch.autograd.Function):
        @staticmethod
        def forward(x, w):
            return w * x

        @staticmethod
        def setup_context(ctx, inputs, output):
            ctx.save_for_backward(*inputs)

        @staticmethod
        def backward(ctx, grad_y):
            x, w = ctx.saved_tensors
            # For x, which requires no grad: a tensor autograd would refuse for an input that did.
            return torch.ones(7, 7, dtype=torch.float16), (grad_y * x).sum()

    x, w = torch.ones(3), torch.tensor(2.0, requires_grad=True)
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        Scale.apply(x, w).sum().backward()
    assert x.grad is None and w.grad.item() == 3.0
    # The same gradient for an x that requires grad is refused: the check above is not vacuous.
    x.requires_grad_()
    try:
        Scale.apply(x, w).sum().backward()
    except RuntimeError as error:
        assert "invalid gradient" in str(error)
    else:
        raise AssertionError("a wrong-shaped gradient for an input that requires grad was accepted")


def a_gradient_returned_for_a_non_tensor_input_raises():
    """For an argument of forward that is not a tensor, backward must return None: a tensor there
    makes backward raise."""

    class Times(torch.autograd.Function):
        @staticmethod
        def forward(ctx, x, factor):
            ctx.factor = factor
            return x * factor

        @staticmethod
        def backward(ctx, grad_y):
            return grad_y * ctx.factor, torch.zeros(())

    x = torch.ones(3, requires_grad=True)
    try:
        Times.apply(x, 3.0).sum().backward()
    except RuntimeError as error:
        assert "was not a Variable" in str(error)
    else:
        raise AssertionError("a gradient for a float argument did not raise")


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


def torch_autograd_grad_treats_an_input_given_none_as_unused():
    """When backward returns None for an input that requires grad and this Function is its only use,
    torch.autograd.grad raises that the input was not used in the graph, unless allow_unused=True,
    which gives None, or materialize_grads=True, which gives zeros."""

    class NoneForX(torch.autograd.Function):
        @staticmethod
        def forward(ctx, x):
            return x * 2

        @staticmethod
        def backward(ctx, grad_y):
            return None

    x = torch.ones(3, requires_grad=True)
    try:
        torch.autograd.grad(NoneForX.apply(x).sum(), x)
    except RuntimeError as error:
        assert "appears to not have been used in the graph" in str(error)
    else:
        raise AssertionError("torch.autograd.grad did not raise")
    assert torch.autograd.grad(NoneForX.apply(x).sum(), x, allow_unused=True) == (None,)
    (zeros,) = torch.autograd.grad(NoneForX.apply(x).sum(), x, materialize_grads=True)
    assert zeros.shape == x.shape and not zeros.any()


def saved_tensors_are_released_after_a_backward_that_does_not_retain_the_graph():
    """After a backward without retain_graph (nor create_graph, which implies it), reading
    ctx.saved_tensors raises: what save_for_backward kept has been freed, while a tensor kept as a ctx
    attribute is still there; after a backward with either flag, the saved tensors are still readable."""

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
    for flags in ({"retain_graph": True}, {"create_graph": True}):
        y = Keep.apply(x)
        torch.autograd.grad(y.sum(), x, **flags)
        assert len(y.grad_fn.saved_tensors) == 1, flags
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
    after `del`, reference counting frees neither the tensor nor its memory and gc.collect() does;
    saved with save_for_backward, both are freed at once."""

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
        # The tensor object, and its memory: a storage's Python object lives as long as the storage.
        y = ExpAttribute.apply(x)
        ref, memory = weakref.ref(y), weakref.ref(y.untyped_storage())
        del y
        assert ref() is not None and memory() is not None
        gc.collect()
        assert ref() is None and memory() is None
        y = ExpSaved.apply(x)
        ref, memory = weakref.ref(y), weakref.ref(y.untyped_storage())
        del y
        assert ref() is None and memory() is None
    finally:
        if was_enabled:
            gc.enable()


def a_pack_hook_that_keeps_the_output_itself_keeps_it_alive():
    """An output saved with save_for_backward is freed at `del` unless a saved-tensor pack hook keeps
    the output itself: save_on_cpu with its default pin_memory=False does for a tensor already on the
    CPU (it packs tensor.cpu(), the same tensor), as does a hook returning t; the output then survives
    gc.collect(). save_on_cpu(pin_memory=True) packs a copy, and a hook that returns t.detach() keeps
    no reference to the output: with either, the output is freed at once."""

    class ExpSaved(torch.autograd.Function):
        @staticmethod
        def forward(ctx, x):
            y = x.exp()
            ctx.save_for_backward(y)
            return y

        @staticmethod
        def backward(ctx, grad_y):
            return grad_y * ctx.saved_tensors[0]

    def identity():
        return torch.autograd.graph.saved_tensors_hooks(lambda t: t, lambda t: t)

    def detached():
        return torch.autograd.graph.saved_tensors_hooks(lambda t: t.detach(), lambda t: t)

    x = torch.randn(4, requires_grad=True)
    alive = {}
    def pinned():
        return torch.autograd.graph.save_on_cpu(pin_memory=True)

    for name, hooks in (("save_on_cpu", torch.autograd.graph.save_on_cpu), ("pin_memory=True", pinned),
                        ("t", identity), ("t.detach()", detached)):
        with hooks():
            y = ExpSaved.apply(x)
        ref = weakref.ref(y)
        del y
        gc.collect()
        alive[name] = ref() is not None
    assert alive == {"save_on_cpu": True, "pin_memory=True": False, "t": True, "t.detach()": False}, alive


def save_for_backward_records_the_version_when_forward_returns():
    """save_for_backward records the version of what it saves when forward (or setup_context)
    returns: an in-place edit after that makes backward raise; one later inside forward or
    setup_context itself, after the save_for_backward call, is not caught."""

    class EditInForward(torch.autograd.Function):
        @staticmethod
        def forward(ctx, x):
            s = torch.sigmoid(x)
            ctx.save_for_backward(s)
            s.mul_(2)  # after save_for_backward, before forward returns
            return x * 1

        @staticmethod
        def backward(ctx, grad_y):
            (s,) = ctx.saved_tensors
            return grad_y * s

    class EditInSetupContext(torch.autograd.Function):
        @staticmethod
        def forward(x):
            return x * 2

        @staticmethod
        def setup_context(ctx, inputs, output):
            ctx.save_for_backward(inputs[0])
            inputs[0].mul_(1)  # after save_for_backward, before setup_context returns

        @staticmethod
        def backward(ctx, grad_y):
            ctx.saved_tensors
            return grad_y * 2

    x = torch.randn(3, requires_grad=True)
    EditInForward.apply(x).sum().backward()
    EditInSetupContext.apply(x * 1).sum().backward()
    h = x * 1
    y = EditInSetupContext.apply(h)
    with torch.no_grad():
        h.mul_(1)  # after apply has returned
    try:
        y.sum().backward()
    except RuntimeError as error:
        assert "modified by an inplace operation" in str(error)
    else:
        raise AssertionError("an edit after forward returned was not caught")


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


def needs_input_grad_is_set_when_forward_runs():
    """ctx.needs_input_grad comes from requires_grad of the inputs when forward runs: backward still
    sees True for an x that requires grad when the pass asks only for w's gradient, by
    torch.autograd.grad(loss, w) or by backward(inputs=[w]); x.grad stays None."""
    seen = []

    class Scale(torch.autograd.Function):
        @staticmethod
        def forward(x, w):
            return w * x

        @staticmethod
        def setup_context(ctx, inputs, output):
            ctx.save_for_backward(*inputs)

        @staticmethod
        def backward(ctx, grad_y):
            seen.append(ctx.needs_input_grad)
            x, w = ctx.saved_tensors
            return grad_y * w, (grad_y * x).sum()

    x, w = torch.ones(3, requires_grad=True), torch.tensor(2.0, requires_grad=True)
    torch.autograd.grad(Scale.apply(x, w).sum(), w)
    Scale.apply(x, w).sum().backward(inputs=[w])
    assert seen == [(True, True), (True, True)] and x.grad is None and w.grad.item() == 3.0
    Scale.apply(x.detach(), w).sum().backward()
    assert seen[-1] == (False, True)


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


class _OnceDifferentiableSquare(torch.autograd.Function):
    """x², its backward decorated with once_differentiable; records whether grad mode was on in it."""

    grad_modes: list[bool] = []

    @staticmethod
    def forward(ctx, x):
        ctx.save_for_backward(x)
        return x * x

    @staticmethod
    @once_differentiable
    def backward(ctx, grad_y):
        _OnceDifferentiableSquare.grad_modes.append(torch.is_grad_enabled())
        (x,) = ctx.saved_tensors
        return 2 * x * grad_y


def once_differentiable_runs_backward_under_no_grad():
    """A backward decorated with once_differentiable runs with grad mode off, even under create_graph=True."""
    _OnceDifferentiableSquare.grad_modes.clear()
    x = torch.ones(3, requires_grad=True)
    torch.autograd.grad(_OnceDifferentiableSquare.apply(x).sum(), x, create_graph=True)
    assert _OnceDifferentiableSquare.grad_modes == [False]


def once_differentiable_raises_its_own_error_only_from_backward_with_a_grad_output_that_requires_grad():
    """once_differentiable's "trying to differentiate twice" error needs a grad_output that requires
    grad and a second pass by .backward() without inputs=. A plain .sum() after the Function gives a
    grad_output that requires nothing; a product with a weight that requires grad (no nonlinearity)
    gives one that does. torch.autograd.grad(first, x) and .backward(inputs=[x]) never reach the node
    that would raise: the first raises another error, the second nothing, and x.grad stays None."""

    x = torch.ones(3, requires_grad=True)
    (plain,) = torch.autograd.grad(_OnceDifferentiableSquare.apply(x).sum(), x, create_graph=True)
    assert not plain.requires_grad
    # A grad_output that requires grad: a nonlinear operation after the Function, or a learnable weight.
    w = torch.tensor(3.0, requires_grad=True)
    for after in (lambda y: y.pow(2).sum(), lambda y: (y * w).sum()):
        (first,) = torch.autograd.grad(after(_OnceDifferentiableSquare.apply(x)), x, create_graph=True)
        assert first.requires_grad
        try:
            torch.autograd.grad(first.sum(), x)
        except RuntimeError as error:
            assert "differentiate twice" not in str(error) and "not have been used" in str(error)
        else:
            raise AssertionError("torch.autograd.grad did not raise")
        first.sum().backward(inputs=[x])
        assert x.grad is None
        try:
            first.sum().backward()
        except RuntimeError as error:
            assert "trying to differentiate twice" in str(error)
        else:
            raise AssertionError("no error from the second backward")
        w.grad = None


def once_differentiable_last_before_the_sum_drops_its_term_from_a_penalty_silently():
    """A gradient penalty over x -> Linear -> Function -> .sum(), backward once_differentiable: the
    Function's grad_output (ones) requires nothing, so penalty.backward() raises nothing, and the
    layer's weight gets the gradient in which the Function's derivative is a constant."""

    class SiLUOnce(torch.autograd.Function):
        @staticmethod
        def forward(x):
            return x * torch.sigmoid(x)

        @staticmethod
        def setup_context(ctx, inputs, output):
            ctx.save_for_backward(inputs[0])

        @staticmethod
        @once_differentiable
        def backward(ctx, grad_y):
            (z,) = ctx.saved_tensors
            s = torch.sigmoid(z)
            return grad_y * s * (1 + z * (1 - s))

    def silu_slope(z):
        s = torch.sigmoid(z)
        return s * (1 + z * (1 - s))

    torch.manual_seed(0)
    x = torch.randn(3, 4, dtype=torch.float64, requires_grad=True)
    layer = torch.nn.Linear(4, 4, dtype=torch.float64)
    weight_grads = {}
    for name, after_layer in (("once", SiLUOnce.apply), ("true", torch.nn.functional.silu),
                              ("constant slope", lambda z: z * silu_slope(z).detach())):
        layer.weight.grad = None
        (g,) = torch.autograd.grad(after_layer(layer(x)).sum(), x, create_graph=True)
        ((g.norm() - 1) ** 2).backward()
        weight_grads[name] = layer.weight.grad
    assert torch.allclose(weight_grads["once"], weight_grads["constant slope"])
    assert not torch.allclose(weight_grads["once"], weight_grads["true"])


def a_tensor_saved_in_forward_leaves_its_derivative_out_of_the_second_derivative():
    """forward runs with grad mode off (in both styles), so a tensor it computes and saves carries no
    graph: under create_graph=True, the second derivative through a backward that reads it leaves out
    that tensor's own derivative, without any error. For sigmoid(x) the result is wrong, and
    gradgradcheck reports it; for a 0/1 mask (x > 0), whose derivative is zero, it equals relu's and
    gradgradcheck passes."""
    modes = []

    class SiLUSavedSigmoid(torch.autograd.Function):
        @staticmethod
        def forward(ctx, x):
            modes.append(torch.is_grad_enabled())
            s = torch.sigmoid(x)
            ctx.save_for_backward(x, s)
            return x * s

        @staticmethod
        def backward(ctx, grad_y):
            x, s = ctx.saved_tensors
            return grad_y * s * (1 + x * (1 - s))

    class Record(torch.autograd.Function):
        """The current style: forward runs with grad mode off too."""

        @staticmethod
        def forward(x):
            modes.append(torch.is_grad_enabled())
            return x * 2

        @staticmethod
        def setup_context(ctx, inputs, output):
            pass

        @staticmethod
        def backward(ctx, grad_y):
            return grad_y * 2

    class ReLUSavedMask(torch.autograd.Function):
        @staticmethod
        def forward(ctx, x):
            mask = (x > 0).to(x.dtype)
            ctx.save_for_backward(mask)
            return x * mask

        @staticmethod
        def backward(ctx, grad_y):
            (mask,) = ctx.saved_tensors
            return grad_y * mask

    def derivatives(f, x, power=1):
        """The first and second derivatives of f(x) ** power, summed."""
        x = x.detach().requires_grad_()
        (first,) = torch.autograd.grad((f(x) ** power).sum(), x, create_graph=True)
        (second,) = torch.autograd.grad(first.sum(), x)
        return first, second

    torch.manual_seed(0)
    x = torch.randn(4, dtype=torch.float64, requires_grad=True)
    first, second = derivatives(SiLUSavedSigmoid.apply, x)
    Record.apply(x)
    assert modes == [False, False]
    true_first, true_second = derivatives(torch.nn.functional.silu, x)
    assert torch.allclose(first, true_first) and not torch.allclose(second, true_second)
    try:
        gradgradcheck(SiLUSavedSigmoid.apply, (x,))
    except GradcheckError:
        pass
    else:
        raise AssertionError("gradgradcheck passed")
    # the mask: cubed, so that the first derivative depends on x through the output too
    assert (x > 0).any() and (x < 0).any()
    first, second = derivatives(ReLUSavedMask.apply, x, power=3)
    true_first, true_second = derivatives(torch.relu, x, power=3)
    assert torch.allclose(first, true_first) and torch.allclose(second, true_second) and bool(second.ne(0).any())
    assert gradgradcheck(ReLUSavedMask.apply, (x,))


def a_saved_output_comes_back_on_the_graph_under_create_graph():
    """Under create_graph=True, an output that setup_context saves (sigmoid(x) returned as an extra
    output, as SiLUExtraOutput does) comes back in backward as a tensor of the graph, whose grad_fn is
    the Function's own node; sigmoid(x) computed and saved inside forward (as SiLUSaved does) comes
    back without a graph."""
    seen = {}

    class SiLUExtraOutput(torch.autograd.Function):
        @staticmethod
        def forward(x):
            s = torch.sigmoid(x)
            return x * s, s

        @staticmethod
        def setup_context(ctx, inputs, output):
            ctx.save_for_backward(inputs[0], output[1])

        @staticmethod
        def backward(ctx, grad_y, grad_s):
            x, s = ctx.saved_tensors
            seen["output"] = (s.requires_grad, type(s.grad_fn).__name__)
            slope = s * (1 - s)
            return grad_y * (s + x * slope) + grad_s * slope

    class SiLUSaved(torch.autograd.Function):
        @staticmethod
        def forward(ctx, x):
            s = torch.sigmoid(x)
            ctx.save_for_backward(x, s)
            return x * s

        @staticmethod
        def backward(ctx, grad_y):
            x, s = ctx.saved_tensors
            seen["intermediate"] = (s.requires_grad, s.grad_fn)
            return grad_y * s * (1 + x * (1 - s))

    x = torch.randn(3, requires_grad=True)
    torch.autograd.grad(SiLUExtraOutput.apply(x)[0].sum(), x, create_graph=True)
    torch.autograd.grad(SiLUSaved.apply(x).sum(), x, create_graph=True)
    assert seen == {"output": (True, "SiLUExtraOutputBackward"), "intermediate": (False, None)}, seen


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


def a_node_that_saved_the_edited_tensor_raises_with_or_without_mark_dirty():
    """An in-place Function edits a tensor that some node saved before the edit, the node that made
    it (tanh saves its output) or an earlier use (h * w saves h when w requires grad): a backward that
    reaches that node raises the in-place error, with mark_dirty or without; where no node saved it
    (h = a * 1, no other use, or a use h * w with a w that requires no grad), the unmarked Function's
    gradient is silently the one of the unedited tensor."""

    def make(dirty):
        class ReLUInPlace(torch.autograd.Function):
            @staticmethod
            def forward(ctx, x):
                x.clamp_(min=0)
                if dirty:
                    ctx.mark_dirty(x)
                ctx.save_for_backward(x)
                return x

            @staticmethod
            def backward(ctx, grad_y):
                (y,) = ctx.saved_tensors
                return grad_y * (y > 0)

        return ReLUInPlace

    torch.manual_seed(0)
    a = torch.randn(6, requires_grad=True)
    w = torch.randn(6, requires_grad=True)
    for dirty in (True, False):
        for saved_by in ("the node that made it", "an earlier use"):
            h = torch.tanh(a) if saved_by == "the node that made it" else a * 1
            loss = h.sum() if saved_by == "the node that made it" else (h * w).sum()
            make(dirty).apply(h)
            try:
                torch.autograd.grad(loss, a)
            except RuntimeError as error:
                assert "modified by an inplace operation" in str(error), (dirty, saved_by)
            else:
                raise AssertionError(f"no error with mark_dirty={dirty}, saved by {saved_by}")
    h = a * 1
    make(False).apply(h)
    (grad,) = torch.autograd.grad(h.sum(), a)
    assert (a < 0).any() and torch.equal(grad, torch.ones_like(a))
    w_data = w.detach()
    h = a * 1
    loss = (h * w_data).sum()  # MulBackward0 saves only w_data: a is the one that needs a gradient
    make(False).apply(h)
    (grad,) = torch.autograd.grad(loss, a)
    assert torch.equal(grad, w_data)


def only_mark_dirty_makes_autograd_refuse_an_in_place_function_on_a_leaf():
    """An in-place Function applied to a leaf that requires grad: with mark_dirty, apply raises after
    forward has edited the leaf; without it, nothing raises, the leaf is edited all the same, and
    apply returns a view of the leaf."""

    def make(dirty):
        class ClampInPlace(torch.autograd.Function):
            @staticmethod
            def forward(ctx, x):
                x.clamp_(min=0)
                if dirty:
                    ctx.mark_dirty(x)
                return x

            @staticmethod
            def backward(ctx, grad_y):
                return grad_y

        return ClampInPlace

    values = torch.tensor([-1.0, 2.0, -3.0])
    leaf = values.clone().requires_grad_()
    try:
        make(True).apply(leaf)
    except RuntimeError as error:
        assert "a leaf Variable that requires grad" in str(error)
    else:
        raise AssertionError("mark_dirty on a leaf that requires grad did not raise")
    assert not torch.equal(leaf.detach(), values)
    leaf = values.clone().requires_grad_()
    out = make(False).apply(leaf)
    assert not torch.equal(leaf.detach(), values) and out is not leaf and out._base is leaf


def saved_tensors_hooks_see_only_what_save_for_backward_saves():
    """torch.autograd.graph.saved_tensors_hooks, which save_on_cpu builds on, packs the tensors a
    Function hands to save_for_backward and none that it keeps as attributes of ctx."""

    class SiLUSaved(torch.autograd.Function):
        @staticmethod
        def forward(ctx, x):
            s = torch.sigmoid(x)
            ctx.save_for_backward(x, s)
            return x * s

        @staticmethod
        def backward(ctx, grad_y):
            x, s = ctx.saved_tensors
            return grad_y * s * (1 + x * (1 - s))

    class SiLUAttribute(SiLUSaved):
        @staticmethod
        def forward(ctx, x):
            s = torch.sigmoid(x)
            ctx.x, ctx.s = x, s
            return x * s

        @staticmethod
        def backward(ctx, grad_y):
            return grad_y * ctx.s * (1 + ctx.x * (1 - ctx.s))

    assert issubclass(torch.autograd.graph.save_on_cpu, torch.autograd.graph.saved_tensors_hooks)
    x = torch.randn(4, requires_grad=True)
    packed = {}
    for function in (SiLUSaved, SiLUAttribute):
        packed[function] = []
        with torch.autograd.graph.saved_tensors_hooks(lambda t: packed[function].append(t) or t, lambda t: t):
            function.apply(x).sum().backward()
    assert len(packed[SiLUSaved]) == 2 and packed[SiLUAttribute] == []


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


def an_integer_output_never_requires_grad_and_mark_non_differentiable_stops_a_float_one():
    """An integer output of a Function does not require grad whether or not it is marked; a floating
    output requires grad unless ctx.mark_non_differentiable marks it."""

    def make(mark):
        class ArgmaxAndMask(torch.autograd.Function):
            @staticmethod
            def forward(x):
                return x * 2, x.argmax(dim=0), (x > 0).to(x.dtype)

            @staticmethod
            def setup_context(ctx, inputs, output):
                if mark:
                    ctx.mark_non_differentiable(*output[1:])

            @staticmethod
            def backward(ctx, grad_y, grad_index, grad_mask):
                return 2 * grad_y

        return ArgmaxAndMask

    x = torch.randn(4, requires_grad=True)
    _, index, mask = make(False).apply(x)
    assert not index.requires_grad and mask.requires_grad
    _, index, mask = make(True).apply(x)
    assert not index.requires_grad and not mask.requires_grad


def _silu_forward_mode(save_for_backward, save_for_forward, with_jvp, seen):
    """SiLU with generate_vmap_rule; saves x as told, records len(ctx.saved_tensors) in jvp and backward."""

    class SiLU(torch.autograd.Function):
        generate_vmap_rule = True

        @staticmethod
        def forward(x):
            return x * torch.sigmoid(x)

        @staticmethod
        def setup_context(ctx, inputs, output):
            if save_for_backward:
                ctx.save_for_backward(inputs[0])
            if save_for_forward:
                ctx.save_for_forward(inputs[0])
            ctx.x = inputs[0]  # so that each method can run whatever it finds in saved_tensors

        @staticmethod
        def backward(ctx, grad_y):
            seen.append(("backward", len(ctx.saved_tensors)))
            s = torch.sigmoid(ctx.x)
            return grad_y * s * (1 + ctx.x * (1 - s))

        @staticmethod
        def jvp(ctx, x_tangent):
            seen.append(("jvp", len(ctx.saved_tensors)))
            s = torch.sigmoid(ctx.x)
            return x_tangent * s * (1 + ctx.x * (1 - s))

    if not with_jvp:
        del SiLU.jvp  # back to autograd.Function's own, which raises
    return SiLU


def every_forward_mode_entry_point_needs_jvp():
    """A Function without a jvp static method (generate_vmap_rule set, backward right) raises
    NotImplementedError under jacfwd, torch.func.hessian (forward over reverse), torch.func.jvp and
    the dual tensors of torch.autograd.forward_ad; with jvp, each equals what the built-in silu gives."""
    import torch.autograd.forward_ad as forward_ad

    silu = torch.nn.functional.silu
    x = torch.randn(4, dtype=torch.float64)
    tangent = torch.randn(4, dtype=torch.float64)

    def by_dual_tensors(f):
        with forward_ad.dual_level():
            return forward_ad.unpack_dual(f(forward_ad.make_dual(x, tangent))).tangent

    entry_points = {
        "jacfwd": lambda f: torch.func.jacfwd(f)(x),
        "torch.func.hessian": lambda f: torch.func.hessian(lambda v: f(v).sum())(x),
        "torch.func.jvp": lambda f: torch.func.jvp(f, (x,), (tangent,))[1],
        "forward_ad": by_dual_tensors,
    }
    with warnings.catch_warnings():
        warnings.filterwarnings("ignore", message="`torch.jit.script` is deprecated")
        for with_jvp in (False, True):
            function = _silu_forward_mode(True, True, with_jvp, [])
            for name, run in entry_points.items():
                try:
                    found = run(function.apply)
                except NotImplementedError as error:
                    assert not with_jvp and "You must implement the jvp function" in str(error), name
                else:
                    assert with_jvp and torch.allclose(found, run(silu)), name


def a_reverse_over_reverse_hessian_needs_no_jvp():
    """A Hessian by reverse mode over reverse mode runs backward only: jacrev(jacrev(f)) and
    torch.autograd.functional.hessian with its defaults work on a Function without jvp and equal the
    built-in silu's, where torch.func.hessian raises NotImplementedError."""
    x = torch.randn(4, dtype=torch.float64)
    expected = torch.func.hessian(lambda v: torch.nn.functional.silu(v).sum())(x)
    with warnings.catch_warnings():
        warnings.filterwarnings("ignore", message="`torch.jit.script` is deprecated")
        function = _silu_forward_mode(True, False, False, [])

        def f(v):
            return function.apply(v).sum()

        assert torch.allclose(torch.func.jacrev(torch.func.jacrev(f))(x), expected)
        assert torch.allclose(torch.autograd.functional.hessian(f, x), expected)
        try:
            torch.func.hessian(f)(x)
        except NotImplementedError:
            pass
        else:
            raise AssertionError("torch.func.hessian ran without jvp")


def autograd_functional_jvp_differentiates_backward_and_needs_no_jvp():
    """torch.autograd.functional.jvp gets a JVP by differentiating backward's own graph (its strict
    error names the double backward trick): on a Function without jvp it equals the built-in silu's JVP,
    where torch.func.jvp raises NotImplementedError; with the Function's backward decorated
    once_differentiable it returns a tangent of zeros without an error, and raises only with strict=True."""
    x = torch.randn(4, dtype=torch.float64)
    tangent = torch.randn(4, dtype=torch.float64)
    with warnings.catch_warnings():
        warnings.filterwarnings("ignore", message="`torch.jit.script` is deprecated")
        expected = torch.func.jvp(torch.nn.functional.silu, (x,), (tangent,))[1]
        assert bool((expected != 0).all())
        function = _silu_forward_mode(True, False, False, [])
        assert torch.allclose(torch.autograd.functional.jvp(function.apply, x, tangent)[1], expected)
        try:
            torch.func.jvp(function.apply, (x,), (tangent,))
        except NotImplementedError:
            pass
        else:
            raise AssertionError("torch.func.jvp ran without jvp")
        function.backward = staticmethod(once_differentiable(function.backward))
        assert torch.equal(torch.autograd.functional.jvp(function.apply, x, tangent)[1], torch.zeros_like(x))
        try:
            torch.autograd.functional.jvp(function.apply, x, tangent, strict=True)
        except RuntimeError as error:
            assert "double backward trick" in str(error), error
        else:
            raise AssertionError("strict=True ran through a once_differentiable backward")


def jvp_reads_what_save_for_forward_saved_and_backward_what_save_for_backward_saved():
    """In jvp, ctx.saved_tensors holds what setup_context handed to ctx.save_for_forward, and nothing
    that went only to save_for_backward; in backward, the other way round. torch.func.hessian runs
    both; jvp reads the same under torch.func.jvp and the dual tensors of torch.autograd.forward_ad."""
    import torch.autograd.forward_ad as forward_ad

    x = torch.randn(4, dtype=torch.float64)
    found = {}
    with warnings.catch_warnings():
        warnings.filterwarnings("ignore", message="`torch.jit.script` is deprecated")
        for saves in ((True, False), (False, True), (True, True)):
            seen = []
            function = _silu_forward_mode(*saves, True, seen)
            torch.func.hessian(lambda v: function.apply(v).sum())(x)
            found[saves] = sorted(set(seen))
    assert found == {(True, False): [("backward", 1), ("jvp", 0)],
                     (False, True): [("backward", 0), ("jvp", 1)],
                     (True, True): [("backward", 1), ("jvp", 1)]}, found
    tangent = torch.randn(4, dtype=torch.float64)
    for saves, count in (((True, False), 0), ((False, True), 1), ((True, True), 1)):
        seen = []
        function = _silu_forward_mode(*saves, True, seen)
        torch.func.jvp(function.apply, (x,), (tangent,))
        with forward_ad.dual_level():
            function.apply(forward_ad.make_dual(x, tangent))
        assert seen == [("jvp", count), ("jvp", count)], (saves, seen)


def autocast_defaults_to_bfloat16_on_cpu_and_float16_on_cuda():
    """torch.autocast's default dtype is bfloat16 for "cpu" and float16 for "cuda"; a matrix product
    under CPU autocast with no dtype given comes out in bfloat16."""
    assert torch.get_autocast_dtype("cpu") == torch.bfloat16
    assert torch.get_autocast_dtype("cuda") == torch.float16
    with torch.autocast("cpu"):
        assert (torch.ones(2, 2) @ torch.ones(2, 2)).dtype == torch.bfloat16


def gradcheck_passes_a_backward_that_is_not_linear_in_grad_output():
    """gradcheck with its defaults calls backward with one-hot grad_outputs (and with zeros), so it
    passes a backward that clamps grad_output to [-1, 1]; through that backward the gradient of 1024 ·
    loss equals the gradient of the loss, where the same backward without the clamp gives 1024 times it."""
    seen = []

    def square(clamp):
        class Square(torch.autograd.Function):
            @staticmethod
            def forward(x):
                return x * x

            @staticmethod
            def setup_context(ctx, inputs, output):
                ctx.save_for_backward(inputs[0])

            @staticmethod
            def backward(ctx, grad_y):
                (x,) = ctx.saved_tensors
                seen.append(grad_y.detach().clone())
                return (grad_y.clamp(-1, 1) if clamp else grad_y) * 2 * x

        return Square

    x = torch.randn(4, dtype=torch.float64, requires_grad=True)
    assert gradcheck(square(True).apply, (x,))
    assert seen and all(bool(((g == 0) | (g == 1)).all()) and g.sum() <= 1 for g in seen)
    for clamp, factor in ((True, 1), (False, 1024)):
        function = square(clamp)
        (plain,) = torch.autograd.grad(function.apply(x).sum(), x)
        (scaled,) = torch.autograd.grad((1024 * function.apply(x)).sum(), x)
        assert torch.equal(scaled, factor * plain), clamp


def gradcheck_checks_a_jvp_only_with_check_forward_ad():
    """gradcheck with its defaults checks backward only: a SiLU whose jvp leaves out a term passes it,
    and fails it with check_forward_ad=True."""

    class SiLUWrongJvp(torch.autograd.Function):
        @staticmethod
        def forward(x):
            return x * torch.sigmoid(x)

        @staticmethod
        def setup_context(ctx, inputs, output):
            ctx.save_for_backward(inputs[0])
            ctx.save_for_forward(inputs[0])

        @staticmethod
        def backward(ctx, grad_y):
            (x,) = ctx.saved_tensors
            s = torch.sigmoid(x)
            return grad_y * s * (1 + x * (1 - s))

        @staticmethod
        def jvp(ctx, x_tangent):
            (x,) = ctx.saved_tensors
            return x_tangent * torch.sigmoid(x)  # the x * s * (1 - s) term left out

    torch.manual_seed(0)
    x = torch.randn(4, dtype=torch.float64, requires_grad=True)
    with warnings.catch_warnings():
        warnings.filterwarnings("ignore", message="`torch.jit.script` is deprecated")
        assert gradcheck(SiLUWrongJvp.apply, (x,))
        try:
            gradcheck(SiLUWrongJvp.apply, (x,), check_forward_ad=True)
        except GradcheckError as error:
            assert "forward mode" in str(error)
        else:
            raise AssertionError("check_forward_ad=True passed a wrong jvp")


def an_in_place_edit_of_grad_output_raises_or_changes_another_gradient():
    """After .sum(), backward's grad_output is an expanded tensor of ones (every stride 0), and an
    arithmetic in-place edit of it (mul_) raises when the output has more than one element; for a
    one-element output it runs without an error. zero_() runs on the stride-0 tensor whatever the
    size, writes the one element behind it, and silently changes another input's gradient taken
    from the same sum. Where autograd hands one gradient tensor to both inputs of an addition,
    an in-place edit in one input's backward silently changes the other input's gradient when that
    backward runs first: when the Function was applied after the other input's operation (the engine
    runs the later node first). Applied before it, or with the other input a leaf (its AccumulateGrad
    runs first and keeps a copy), the other gradient stays right."""
    seen = {}

    class Peek(torch.autograd.Function):
        @staticmethod
        def forward(x):
            return x * 2

        @staticmethod
        def setup_context(ctx, inputs, output):
            pass

        @staticmethod
        def backward(ctx, grad_y):
            seen["stride"] = grad_y.stride()
            try:
                grad_y.mul_(2)
            except RuntimeError as error:
                seen["error"] = str(error)
            return grad_y * 2

    class EditGradOutput(torch.autograd.Function):
        @staticmethod
        def forward(x):
            return x * 1

        @staticmethod
        def setup_context(ctx, inputs, output):
            pass

        @staticmethod
        def backward(ctx, grad_y):
            grad_y.mul_(100)
            return grad_y / 100  # right for x

    x = torch.randn(3, 4, requires_grad=True)
    Peek.apply(x).sum().backward()
    assert seen["stride"] == (0, 0) and "more than one element of the written-to tensor" in seen["error"], seen
    seen.clear()
    Peek.apply(torch.randn(1, requires_grad=True)).sum().backward()
    assert "error" not in seen, seen

    class ZeroGradOutput(torch.autograd.Function):
        @staticmethod
        def forward(x):
            return x * 2

        @staticmethod
        def setup_context(ctx, inputs, output):
            pass

        @staticmethod
        def backward(ctx, grad_y):
            out = grad_y * 2
            grad_y.zero_()  # runs: it writes the one element behind every stride-0 entry
            return out

    x, y = torch.randn(3, 4, requires_grad=True), torch.randn(3, 4, requires_grad=True)
    ((y * 3).sum() + ZeroGradOutput.apply(x).sum()).backward()
    assert (x.grad == 2).all() and (y.grad == 0).all(), y.grad  # y's should be 3
    torch.manual_seed(0)
    x, y, w = torch.randn(3, requires_grad=True), torch.randn(3, requires_grad=True), torch.randn(3)
    ((y * 1 + EditGradOutput.apply(x)) * w).sum().backward()
    assert torch.allclose(x.grad, w) and not torch.allclose(y.grad, w)
    x.grad = y.grad = None
    edited = EditGradOutput.apply(x)  # applied first: its backward runs after y * 1's
    ((edited + y * 1) * w).sum().backward()
    assert torch.allclose(x.grad, w) and torch.allclose(y.grad, w), y.grad
    x.grad = y.grad = None
    ((EditGradOutput.apply(x) + y) * w).sum().backward()  # y itself: a leaf
    assert torch.allclose(x.grad, w) and torch.allclose(y.grad, w), y.grad


def custom_bwd_reads_the_autocast_record_from_backwards_first_argument():
    """custom_fwd stores on forward's first argument whether forward runs with autocast on
    (_fwd_used_autocast: False under cast_inputs, which turns it off) and _dtype; custom_bwd reads
    them from backward's first argument and runs backward under torch.autocast with them. In the
    older style both arguments are the same ctx object; in the setup_context style custom_bwd works
    as soon as backward's ctx carries the two attributes, whoever put them there."""
    seen = {}

    class OldStyle(torch.autograd.Function):
        @staticmethod
        @torch.amp.custom_fwd(device_type="cpu")
        def forward(ctx, a):
            seen["forward ctx"] = ctx
            return a * 2

        @staticmethod
        @torch.amp.custom_bwd(device_type="cpu")
        def backward(ctx, grad):
            seen["backward ctx"] = ctx
            seen["old"] = (torch.is_autocast_enabled("cpu"), torch.get_autocast_dtype("cpu"))
            return grad * 2

    a = torch.ones(2, requires_grad=True)
    with torch.autocast("cpu", dtype=torch.bfloat16):
        out = OldStyle.apply(a)
    assert (out.grad_fn._fwd_used_autocast, out.grad_fn._dtype) == (True, torch.bfloat16)
    out.sum().backward()
    assert seen["forward ctx"] is seen["backward ctx"] is out.grad_fn
    assert seen["old"] == (True, torch.bfloat16), seen["old"]

    class CastInputs(OldStyle):  # forward runs with autocast off, and that is what is recorded
        @staticmethod
        @torch.amp.custom_fwd(device_type="cpu", cast_inputs=torch.float32)
        def forward(ctx, a):
            seen["cast forward"] = torch.is_autocast_enabled("cpu")
            return a * 2

    with torch.autocast("cpu", dtype=torch.bfloat16):
        out = CastInputs.apply(a)
    assert out.grad_fn._fwd_used_autocast is False and seen["cast forward"] is False
    out.sum().backward()
    assert seen["old"][0] is False, seen["old"]

    class RecordedBySetupContext(torch.autograd.Function):
        @staticmethod
        def forward(a):
            return a * 2

        @staticmethod
        def setup_context(ctx, inputs, output):
            ctx._fwd_used_autocast, ctx._dtype = True, torch.float16

        @staticmethod
        @torch.amp.custom_bwd(device_type="cpu")
        def backward(ctx, grad):
            seen["new"] = (torch.is_autocast_enabled("cpu"), torch.get_autocast_dtype("cpu"))
            return grad * 2

    RecordedBySetupContext.apply(torch.ones(2, requires_grad=True)).sum().backward()  # no autocast at all
    assert seen["new"] == (True, torch.float16), seen["new"]
    assert not torch.is_autocast_enabled("cpu")


def autograd_checks_a_returned_gradients_shape_and_device_and_trusts_its_values():
    """For an input that requires grad, autograd refuses a gradient from backward whose shape it cannot
    sum down to the input's, or whose device differs, unless the input is 0-dim: then it moves the
    gradient (0-dim, or summed down to 0-dim) to the input's device; one with extra leading or size-1
    dimensions it sums down silently ((3, 5) and (1, 5) for a (5,) input); it casts one of another real
    dtype (an integer one included) to the input's dtype, refuses a complex one for a real input, and
    accepts any values: a gradient a thousand times too large goes through."""

    def make(returned):
        class Double(torch.autograd.Function):
            @staticmethod
            def forward(x):
                return x * 2

            @staticmethod
            def setup_context(ctx, inputs, output):
                pass

            @staticmethod
            def backward(ctx, grad_y):
                return returned(grad_y)

        return Double

    x = torch.randn(5, requires_grad=True)
    for wrong, words in ((lambda g: torch.ones(3), "expected shape compatible"),
                         (lambda g: torch.ones(5, device="meta"), "expected device")):
        try:
            make(wrong).apply(x).sum().backward()
        except RuntimeError as error:
            assert "returned an invalid gradient" in str(error) and words in str(error), error
        else:
            raise AssertionError("a gradient of the wrong shape or device was accepted")
    for returned in (lambda g: torch.ones(()), lambda g: torch.ones(3)):  # a CPU gradient, a 0-dim meta input
        scalar = torch.ones((), device="meta", requires_grad=True)
        make(returned).apply(scalar).backward(torch.ones((), device="meta"))
        assert scalar.grad.device.type == "meta" and scalar.grad.shape == (), scalar.grad
    try:
        make(lambda g: torch.ones(5, dtype=torch.complex64)).apply(x).sum().backward()
    except RuntimeError as error:
        assert "isFloatingType" in str(error), error
    else:
        raise AssertionError("a complex gradient for a real input was accepted")
    x.grad = None
    for summed, factor in (((3, 5), 3), ((1, 5), 1)):
        x.grad = None
        make(lambda g: torch.ones(summed)).apply(x).sum().backward()
        assert x.grad.shape == (5,) and bool((x.grad == factor).all()), (summed, x.grad)
    for other in (torch.float64, torch.int64):
        x.grad = None
        make(lambda g: torch.ones(5, dtype=other)).apply(x).sum().backward()
        assert x.grad.dtype == torch.float32 and bool((x.grad == 1).all())
    x.grad = None
    make(lambda g: g * 2000).apply(x).sum().backward()
    assert bool((x.grad == 2000).all())


def cast_inputs_casts_floating_inputs_but_float64_and_only_inside_autocast():
    """custom_fwd(device_type="cpu", cast_inputs=torch.float32) casts forward's floating inputs to
    float32 only when autocast is on at the call, and only those on the CPU: a float64 input stays
    float64, a bfloat16 one on another device (meta) stays bfloat16; forward runs with autocast off."""
    seen = []

    class Cast(torch.autograd.Function):
        @staticmethod
        @torch.amp.custom_fwd(device_type="cpu", cast_inputs=torch.float32)
        def forward(ctx, a):
            seen.append((a.dtype, torch.is_autocast_enabled("cpu")))
            return a * 2

        @staticmethod
        @torch.amp.custom_bwd(device_type="cpu")
        def backward(ctx, grad):
            return grad * 2

    inputs = [torch.ones(2, dtype=dtype, requires_grad=True) for dtype in (torch.bfloat16, torch.float64)]
    inputs.append(torch.ones(2, dtype=torch.bfloat16, device="meta", requires_grad=True))
    with torch.autocast("cpu", dtype=torch.bfloat16):
        for a in inputs:
            Cast.apply(a)
    Cast.apply(inputs[0])
    assert seen == [(torch.float32, False), (torch.float64, False), (torch.bfloat16, False),
                    (torch.bfloat16, False)], seen


def saved_tensor_hooks_turn_off_the_version_check():
    """Under saved-tensor hooks (save_on_cpu, or identity hooks) an in-place edit of a tensor saved
    with save_for_backward, between forward and backward, raises nothing, and backward computes with
    the edited value; without hooks the same edit raises."""

    class Scale(torch.autograd.Function):
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

    def w_grad(hooks):
        x, w = torch.tensor([3.0]), torch.tensor(1.0, requires_grad=True)
        with hooks():
            y = Scale.apply(x, w)
        x.mul_(10)
        try:
            y.sum().backward()
        except RuntimeError as error:
            assert "modified by an inplace operation" in str(error), error
            return "raised"
        return w.grad.item()

    found = {"none": w_grad(contextlib.nullcontext),
             "save_on_cpu": w_grad(torch.autograd.graph.save_on_cpu),
             "identity": w_grad(lambda: torch.autograd.graph.saved_tensors_hooks(lambda t: t, lambda t: t))}
    assert found == {"none": "raised", "save_on_cpu": 30.0, "identity": 30.0}, found
