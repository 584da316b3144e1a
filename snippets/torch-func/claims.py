"""Checks behind torch-func's sentences that no output on the page shows (tests/test_claims.py
runs each on every supported torch; {claim}`torch-func/<name>` on a page names one)."""

import gc
import subprocess
import sys
import warnings
import weakref

import torch
from torch import nn
from torch.func import functional_call, grad, hessian, jacfwd, jacrev, jvp, vjp, vmap
from torch.utils._python_dispatch import TorchDispatchMode
from torch.utils._pytree import tree_flatten


def _raises(function, *args) -> str:
    try:
        function(*args)
    except RuntimeError as error:
        return str(error)
    raise AssertionError("no RuntimeError")


def _small_model(*middle):
    torch.manual_seed(0)
    return nn.Sequential(nn.Linear(4, 4), *middle, nn.Linear(4, 1))


def _loss_of_one(model):
    def loss(params, xi, yi):
        return ((functional_call(model, params, (xi[None],)) - yi) ** 2).mean()
    return loss


def grad_needs_a_zero_dim_output():
    """torch.func.grad needs f to return a 0-dim tensor, or with has_aux=True a pair whose first element
    is one: a one-element tensor of shape (1,), which backward() accepts, raises, asking for a scalar."""
    x = torch.ones(3)
    assert grad(lambda t: (t**2).sum())(x).shape == (3,)
    assert "scalar Tensor" in _raises(grad(lambda t: (t**2).sum(0, keepdim=True)), x)
    found, aux = grad(lambda t: ((t**2).sum(), t.mean()), has_aux=True)(x)
    assert torch.equal(found, 2 * x) and aux.item() == 1.0
    assert "scalar Tensor" in _raises(grad(lambda t: ((t**2).sum(0, keepdim=True), t), has_aux=True), x)
    leaf = x.clone().requires_grad_()
    (leaf**2).sum(0, keepdim=True).backward()
    assert torch.equal(leaf.grad, 2 * x)


def grad_differentiates_the_first_argument_unless_told():
    """grad(f) differentiates with respect to f's first argument; argnums picks others."""
    def f(a, b):
        return (a * b**2).sum()
    a, b = torch.tensor([1.0, 2.0]), torch.tensor([3.0, 4.0])
    assert torch.equal(grad(f)(a, b), b**2)
    assert torch.equal(grad(f, argnums=1)(a, b), 2 * a * b)
    both = grad(f, argnums=(0, 1))(a, b)
    assert torch.equal(both[0], b**2) and torch.equal(both[1], 2 * a * b)


def grad_of_a_dict_returns_a_dict_and_functional_call_leaves_the_model_alone():
    """Differentiating with respect to a dict of parameters returns a dict with the same keys;
    functional_call runs the model with those tensors without changing its own parameters."""
    model = _small_model()
    before = {name: p.detach().clone() for name, p in model.named_parameters()}
    params = {name: torch.zeros_like(p) for name, p in model.named_parameters()}
    out = functional_call(model, params, (torch.ones(2, 4),))
    assert torch.equal(out, torch.zeros(2, 1))
    found = grad(lambda p: functional_call(model, p, (torch.ones(1, 4),)).sum())(params)
    assert set(found) == set(params)
    assert all(torch.equal(p, before[name]) for name, p in model.named_parameters())
    assert all(p.grad is None for p in model.parameters())


class _CountedBackward(torch.autograd.Function):
    """The identity, whose backward counts its runs: one per backward pass through it."""
    runs = 0

    @staticmethod
    def forward(t):
        return t.clone()

    @staticmethod
    def setup_context(ctx, inputs, output):
        pass

    @staticmethod
    def backward(ctx, g):
        _CountedBackward.runs += 1
        return g


def vjp_runs_the_forward_once_and_its_function_can_be_called_again():
    """torch.func.vjp(f, x) calls f once; the vjp_fn it returns can be called many times (one
    backward pass each), with any v of the output's shape."""
    calls = []

    def f(x):
        calls.append(1)
        x = _CountedBackward.apply(x)
        return torch.stack([x[0] * x[1], x[1] ** 2])
    _CountedBackward.runs = 0
    out, vjp_fn = vjp(f, torch.tensor([1.0, 2.0]))
    assert _CountedBackward.runs == 0
    first = vjp_fn(torch.tensor([1.0, 0.0]))[0]
    assert _CountedBackward.runs == 1
    second = vjp_fn(torch.tensor([0.0, 1.0]))[0]
    assert len(calls) == 1 and _CountedBackward.runs == 2
    assert torch.equal(first, torch.tensor([2.0, 1.0])) and torch.equal(second, torch.tensor([0.0, 4.0]))


def hessian_is_jacfwd_of_jacrev():
    """torch.func.hessian(f) gives what jacfwd(jacrev(f)) gives, and FlopCounterMode counts the same work
    for both, unlike jacrev(jacrev(f)), jacfwd(jacfwd(f)) and jacrev(jacfwd(f))."""
    def f(t):
        return (t.sin() * t**2).sum()
    x = torch.randn(4, generator=torch.Generator().manual_seed(0))
    assert torch.allclose(hessian(f)(x), jacfwd(jacrev(f))(x), atol=1e-6)
    assert torch.allclose(hessian(f)(x), jacrev(jacrev(f))(x), atol=1e-5)
    # The values cannot tell the compositions apart; the work does. On a function with matrix
    # products, hessian counts exactly what jacfwd(jacrev(f)) counts, and not what the other three do.
    from torch.utils.flop_counter import FlopCounterMode

    generator = torch.Generator().manual_seed(0)
    w1, w2 = torch.randn(8, 16, generator=generator), torch.randn(16, 1, generator=generator)

    def layered(t):
        return (torch.tanh(t[None] @ w1) @ w2).sum()

    def counted(transform):
        with FlopCounterMode(display=False) as counter:
            transform(layered)(torch.ones(8))
        return counter.get_total_flops()
    others = [counted(lambda g: jacrev(jacrev(g))), counted(lambda g: jacfwd(jacfwd(g))),
              counted(lambda g: jacrev(jacfwd(g)))]
    assert counted(hessian) == counted(lambda g: jacfwd(jacrev(g))) not in others


def backward_inside_a_transform_raises():
    """Inside a function that torch.func.grad or vmap transforms, .backward() raises a RuntimeError, and so
    does requires_grad_(), on a tensor made from the input or on a fresh one, and with it
    torch.autograd.functional with its default create_graph=False. With create_graph=True it calls no
    requires_grad_() on an input that already requires grad, as grad's does: the Jacobian of s³ works inside
    grad on a tensor computed from the function's input (the gradient of its sum at [3, 1] is [18, 6]) and
    raises inside vmap on the mapped input. Inside grad on a captured tensor it raises if that tensor requires
    no grad; if it does ([2, 3]), it returns zeros with no error (outside, diag [12, 27])."""
    def backward_inside(t):
        (t**2).sum().backward()
        return t.sum()

    def fresh_backward(t):
        (torch.ones(2, requires_grad=True) ** 2).sum().backward()
        return t.sum()

    def needs_grad(t):
        return t.clone().requires_grad_().sum()

    def fresh_needs_grad(t):
        return (t * torch.ones(2).requires_grad_()).sum()

    def functional(t, create_graph=False):
        return torch.autograd.functional.jacobian(lambda s: s**3, t, create_graph=create_graph).sum()

    def functional_with_graph(t):
        return functional(t, create_graph=True)

    captured = torch.tensor([1.0, 2.0])

    def functional_on_captured(t):
        return torch.autograd.functional.jacobian(lambda s: s**3 * t.sum(), captured, create_graph=True).sum()
    for transform, x in ((grad, torch.ones(2)), (vmap, torch.ones(3, 2))):
        for f in (backward_inside, fresh_backward):
            assert "backward() called inside a functorch transform" in _raises(transform(f), x)
        for f in (needs_grad, fresh_needs_grad, functional):
            assert "requires_grad_()" in _raises(transform(f), x)
    assert torch.equal(grad(functional_with_graph)(torch.tensor([3.0, 1.0])), torch.tensor([18.0, 6.0]))
    assert "requires_grad_()" in _raises(vmap(functional_with_graph), torch.ones(3, 2))
    assert "requires_grad_()" in _raises(grad(functional_on_captured), torch.tensor([3.0, 1.0]))
    w = torch.tensor([2.0, 3.0], requires_grad=True)
    outside = torch.autograd.functional.jacobian(lambda s: s**3, w, create_graph=True)
    assert torch.equal(outside.detach(), torch.diag(torch.tensor([12.0, 27.0])))

    def functional_on_captured_leaf(t):
        return torch.autograd.functional.jacobian(lambda s: s**3, w, create_graph=True).sum() * t.sum()
    assert torch.equal(grad(functional_on_captured_leaf)(torch.tensor([3.0, 1.0])), torch.zeros(2))


def autograd_grad_inside_func_grad_needs_create_graph():
    """torch.autograd.grad(..., create_graph=True) inside a function that torch.func.grad transforms works:
    grad of the sum of the derivative of x³, 3x², is 6x, 18 at 3. Without create_graph, no error: the outer
    grad treats the inner derivative as a constant, and the same second derivative comes out 0. Inside grad it
    works with respect to the function's input or a tensor computed from it (h = 2t: grad of the sum of 3h² is
    24t, [72, 24] at [3, 1]); with respect to a captured tensor that requires grad it raises. Inside vmap alone,
    a tensor computed from the mapped input requires no grad, even when the tensor given to vmap does or when a
    captured tensor that requires grad enters it (w * t), and autograd.grad on it raises; vmap's output has
    the grad_fn, recorded outside."""
    def derivative(create_graph):
        def inner(t):
            (d,) = torch.autograd.grad((t**3).sum(), t, create_graph=create_graph)
            return d.sum()
        return inner
    x = torch.tensor([3.0])
    assert torch.equal(grad(derivative(True))(x), torch.tensor([18.0]))
    assert torch.equal(grad(derivative(False))(x), torch.tensor([0.0]))

    def wrt_computed(t):
        h = t * 2
        (d,) = torch.autograd.grad((h**3).sum(), h, create_graph=True)
        return d.sum()
    assert torch.equal(grad(wrt_computed)(torch.tensor([3.0, 1.0])), torch.tensor([72.0, 24.0]))
    assert "does not require grad" in _raises(vmap(derivative(True)), torch.ones(3, 1))
    seen = []
    leaf = torch.ones(3, 1, requires_grad=True)
    assert "does not require grad" in _raises(vmap(lambda t: seen.append(t.requires_grad) or derivative(True)(t)),
                                              leaf)
    assert seen == [False]
    w = torch.tensor([2.0, 3.0], requires_grad=True)

    def wrt_captured(t):
        (d,) = torch.autograd.grad((w * t).sum() ** 2, w, create_graph=True)
        return d.sum()
    assert "not have been used in the graph" in _raises(grad(wrt_captured), torch.ones(2))
    assert "does not require grad" in _raises(vmap(wrt_captured), torch.ones(3, 2))
    computed = []
    out = vmap(lambda t: computed.append((w * t).requires_grad) or w * t)(torch.ones(3, 2))
    assert computed == [False] and out.grad_fn is not None


def item_raises_under_vmap_on_a_mapped_tensor_only():
    """Inside a function that vmap maps, .item() on a tensor computed from the mapped input raises a
    RuntimeError; on a tensor vmap does not batch (captured from outside, or made inside the function by
    torch.full) it works, while on torch.zeros_like(t) or t.new_zeros(...), batched like t, it raises.
    Under grad alone .item() works, on the input too."""
    assert ".item()" in _raises(vmap(lambda t: t.sum().item()), torch.ones(3, 2))
    captured = torch.tensor([2.0, 3.0])
    assert torch.equal(vmap(lambda t: t * captured.sum().item())(torch.ones(3, 2)), torch.full((3, 2), 5.0))
    assert torch.equal(vmap(lambda t: t * torch.full((2,), 2.0).sum().item())(torch.ones(3, 2)),
                       torch.full((3, 2), 4.0))
    assert ".item()" in _raises(vmap(lambda t: t * torch.zeros_like(t).sum().item()), torch.ones(3, 2))
    assert ".item()" in _raises(vmap(lambda t: t * t.new_zeros(2).sum().item()), torch.ones(3, 2))
    found = grad(lambda t: t.sum() * t.sum().item())(torch.tensor([1.0, 2.0]))
    assert torch.equal(found, torch.tensor([3.0, 3.0]))


def data_dependent_control_flow_raises_under_vmap_not_under_grad():
    """A Python if on the value of a tensor computed from the mapped input raises inside vmap ("data-dependent
    control flow"); on a tensor vmap does not batch, captured or made inside the function by torch.full, it
    works, while on torch.zeros_like(t) or t.new_zeros(...), batched like t, it raises; inside grad alone it
    works on the input too."""
    assert "data-dependent control flow" in _raises(vmap(lambda t: t if t.sum() > 0 else -t), torch.ones(3, 2))
    captured = torch.tensor([2.0, 3.0])
    assert torch.equal(vmap(lambda t: t if captured.sum() > 0 else -t)(torch.ones(3, 2)), torch.ones(3, 2))
    assert torch.equal(vmap(lambda t: t if torch.full((2,), 2.0).sum() > 0 else -t)(torch.ones(3, 2)),
                       torch.ones(3, 2))
    assert torch.equal(vmap(lambda t: t if torch.full((2,), -2.0).sum() > 0 else -t)(torch.ones(3, 2)),
                       -torch.ones(3, 2))
    for made in (torch.zeros_like, lambda t: t.new_zeros(2)):
        error = _raises(vmap(lambda t, made=made: t if made(t).sum() >= 0 else -t), torch.ones(3, 2))
        assert "data-dependent control flow" in error, error

    def branching(t):
        return (t**2).sum() if t.sum() > 0 else t.sum()
    assert torch.equal(grad(branching)(torch.ones(2)), torch.tensor([2.0, 2.0]))


def writing_a_mapped_value_into_a_new_tensor_raises_under_vmap():
    """Inside vmap, writing a value computed from the mapped input into a tensor made with torch.zeros,
    by copy_ or by indexing, raises (the value is vmapped over, the tensor written into is not); into torch.zeros_like(t) or t.new_zeros(...) it works, and so does building with torch.stack."""
    batch = torch.arange(6.0).reshape(3, 2)

    def copied(t):
        out = torch.zeros(2)
        out.copy_(t * 2)
        return out

    def indexed(t):
        out = torch.zeros(2)
        out[0] = t.sum()
        return out
    for function in (copied, indexed):
        error = _raises(vmap(function), batch)
        assert "inplace arithmetic" in error and "`other` being vmapped over but `self` not" in error, error

    def copied_like(t):
        out = torch.zeros_like(t)
        out.copy_(t * 2)
        return out

    def indexed_new(t):
        out = t.new_zeros(2)
        out[0] = t.sum()
        return out
    assert torch.equal(vmap(copied_like)(batch), batch * 2)
    expected = torch.stack([batch.sum(1), torch.zeros(3)], 1)
    assert torch.equal(vmap(indexed_new)(batch), expected)
    assert torch.equal(vmap(lambda t: torch.stack([t.sum(), torch.zeros(())]))(batch), expected)


def dropout_under_vmap_needs_a_randomness_flag():
    """A model with Dropout in training mode raises under vmap unless vmap gets randomness="different"
    (or "same")."""
    model = _small_model(nn.Dropout(0.5))
    params = {name: p.detach() for name, p in model.named_parameters()}
    x, y = torch.randn(5, 4), torch.randn(5, 1)
    per_sample = vmap(grad(_loss_of_one(model)), in_dims=(None, 0, 0))
    assert "randomness" in _raises(per_sample, params, x, y)
    for randomness in ("different", "same"):
        found = vmap(grad(_loss_of_one(model)), in_dims=(None, 0, 0), randomness=randomness)(params, x, y)
        assert found["0.weight"].shape == (5, 4, 4)


def jacfwd_and_hessian_raise_on_dropout_too():
    """jacfwd and hessian run the function itself under vmap: on a model with Dropout in training mode both
    raise, naming randomness. jacfwd takes vmap's randomness argument and then works; hessian has no such
    argument, and jacfwd(jacrev(f), randomness=...) works. jacrev(f) and jacrev(jacrev(f)) call f once, with
    no vmap on the transform stack, map only the backward pass (a custom Function's backward runs under
    vmap), and work with no flag."""
    import inspect

    model = _small_model(nn.Dropout(0.5))
    seen = {"f": [], "backward": []}

    def transforms():
        return tuple(i.key().name for i in torch._C._functorch.get_interpreter_stack() or ())

    class Mark(torch.autograd.Function):  # the identity, whose backward notes the transforms around it
        generate_vmap_rule = True

        @staticmethod
        def forward(t):
            return t.clone()

        @staticmethod
        def setup_context(ctx, inputs, output):
            pass

        @staticmethod
        def backward(ctx, grad_output):
            seen["backward"].append(transforms())
            return grad_output

        @staticmethod
        def jvp(ctx, tangent):
            return tangent

    def f(t):
        seen["f"].append(transforms())
        return Mark.apply(model(t)).sum()
    x = torch.randn(4)
    assert "randomness" in _raises(jacfwd(f), x)
    assert "randomness" in _raises(hessian(f), x)
    assert "randomness" not in inspect.signature(hessian).parameters
    assert "randomness" not in inspect.signature(jacrev).parameters
    for randomness in ("different", "same"):
        assert jacfwd(f, randomness=randomness)(x).shape == (4,)
        assert jacfwd(jacrev(f), randomness=randomness)(x).shape == (4, 4)
    seen.update(f=[], backward=[])
    assert jacfwd(f, randomness="same")(x).shape == (4,)
    assert len(seen["f"]) == 1 and "Vmap" in seen["f"][0], seen
    for jacobian, shape in ((jacrev(f), (4,)), (jacrev(jacrev(f)), (4, 4))):
        seen.update(f=[], backward=[])
        assert jacobian(x).shape == shape
        assert len(seen["f"]) == 1 and "Vmap" not in seen["f"][0], seen
        assert seen["backward"] and all("Vmap" in found for found in seen["backward"]), seen


def jacfwd_with_randomness_same_is_the_jacobian_of_one_mask():
    """Under jacfwd, vmap maps the columns of the Jacobian: with randomness="same" one Dropout mask
    serves every column, and jacfwd(f) and jacfwd(jacrev(g)) are the Jacobian and the Hessian of the
    network with that mask; "different" draws a mask per column and gives those of no single mask.
    jacrev(f) and jacrev(jacrev(g)), with no flag, are the Jacobian and the Hessian of one mask."""
    torch.manual_seed(0)
    n = 8  # with "different", each row matches one mask by chance with probability 2**(1 - n)
    w = torch.randn(n, n, dtype=torch.float64)
    w_inv = torch.linalg.inv(w)
    x = torch.randn(n, dtype=torch.float64)
    drop = nn.Dropout(0.5)

    def one_mask(d, allowed):
        # d = diag(m) for one mask m exactly when it is diagonal with each entry allowed by m_i in {0, 2}
        off_diagonal = d - torch.diag(torch.diagonal(d))
        return bool(off_diagonal.abs().max() < 1e-9) and all(
            min(abs(entry - a) for a in choices) < 1e-9 for entry, choices in zip(torch.diagonal(d).tolist(), allowed))

    def f(t):  # Jacobian diag(m) w
        return drop(w @ t)

    def g(t):  # sum of (m_i (w t)_i)³: Hessian wᵀ diag(6 m_i³ (w t)_i) w, with 6 m_i³ in {0, 48}
        return (drop(w @ t) ** 3).sum()
    jacobian_choices = [(0.0, 2.0)] * n
    hessian_choices = [(0.0, 48 * wx) for wx in (w @ x).tolist()]
    found = {}
    for randomness in ("same", "different"):
        jacobian = jacfwd(f, randomness=randomness)(x)
        hessian_ = jacfwd(jacrev(g), randomness=randomness)(x)
        found[randomness] = (one_mask(jacobian @ w_inv, jacobian_choices),
                             one_mask(w_inv.T @ hessian_ @ w_inv, hessian_choices))
    found["jacrev"] = (one_mask(jacrev(f)(x) @ w_inv, jacobian_choices),
                       one_mask(w_inv.T @ jacrev(jacrev(g))(x) @ w_inv, hessian_choices))
    assert found == {"same": (True, True), "different": (False, False), "jacrev": (True, True)}, found


def batchnorm_raises_under_grad_while_its_buffers_are_captured():
    """A model with BatchNorm1d tracking running statistics, in training mode, raises inside torch.func.grad,
    already without vmap, while its buffers are captured: the error names the in-place aten::add_ (the
    increment of num_batches_tracked) on a captured tensor. With num_batches_tracked set to None, grad runs
    and changes the captured running_mean and running_var. With the buffers passed to functional_call, or
    without running statistics, grad works; in eval() mode vmap(grad(...)) works."""
    model = _small_model(nn.BatchNorm1d(4))
    params = {name: p.detach() for name, p in model.named_parameters()}
    x, y = torch.randn(5, 4), torch.randn(5, 1)

    def batch_loss(params, state=None):
        return ((functional_call(model, params if state is None else (params, state), (x,)) - y) ** 2).mean()
    message = _raises(grad(batch_loss), params)
    assert "in-place operation" in message and "aten::add_" in message, message
    per_sample = vmap(grad(_loss_of_one(model)), in_dims=(None, 0, 0))
    assert "in-place operation" in _raises(per_sample, params, x, y)
    buffers = {name: b.clone() for name, b in model.named_buffers()}
    assert grad(batch_loss)(params, buffers)["0.weight"].shape == (4, 4)
    untracked = _small_model(nn.BatchNorm1d(4, track_running_stats=False))
    plain = {name: p.detach() for name, p in untracked.named_parameters()}
    found = grad(lambda p: ((functional_call(untracked, p, (x,)) - y) ** 2).mean())(plain)
    assert found["0.weight"].shape == (4, 4)
    counterless = _small_model(nn.BatchNorm1d(4))
    counterless[1].num_batches_tracked = None
    stats = (counterless[1].running_mean.clone(), counterless[1].running_var.clone())
    free = {name: p.detach() for name, p in counterless.named_parameters()}
    grad(lambda p: ((functional_call(counterless, p, (x,)) - y) ** 2).mean())(free)
    assert not torch.equal(stats[0], counterless[1].running_mean)
    assert not torch.equal(stats[1], counterless[1].running_var)
    model.eval()
    assert per_sample(params, x, y)["0.weight"].shape == (5, 4, 4)


def replace_all_batch_norm_modules_removes_the_running_statistics():
    """torch.func.replace_all_batch_norm_modules_(model) sets every BatchNorm's running_mean, running_var
    and num_batches_tracked to None and track_running_stats to False: a forward in training mode leaves
    no buffer behind, and the module normalises by the batch's own statistics."""
    from torch.func import replace_all_batch_norm_modules_

    model = _small_model(nn.BatchNorm1d(4))
    reference = _small_model(nn.BatchNorm1d(4))
    replace_all_batch_norm_modules_(model)
    norm = model[1]
    assert norm.running_mean is None and norm.running_var is None and norm.num_batches_tracked is None
    assert not norm.track_running_stats
    x = torch.randn(5, 4)
    assert torch.allclose(model(x), reference(x), atol=1e-6)
    assert dict(model.named_buffers()) == {}


def replace_all_batch_norm_modules_is_in_place_and_changes_eval():
    """replace_all_batch_norm_modules_(model) changes the model itself, and for good: in model.eval() it
    still normalises by the batch's own statistics, so a sample's output depends on the batch it comes in;
    with its running statistics, an untouched model in eval() gives each sample the same output in any
    batch."""
    from torch.func import replace_all_batch_norm_modules_

    model, untouched = _small_model(nn.BatchNorm1d(4)), _small_model(nn.BatchNorm1d(4))
    assert replace_all_batch_norm_modules_(model) is model
    model.eval(), untouched.eval()
    x = torch.randn(6, 4, generator=torch.Generator().manual_seed(0))
    assert not model[1].training and model[1].running_mean is None
    assert not torch.allclose(model(x)[:3], model(x[:3]), atol=1e-3)
    assert torch.allclose(untouched(x)[:3], untouched(x[:3]), atol=1e-6)


def grad_ignores_an_outer_no_grad_and_respects_an_inner_one():
    """Under an outer torch.no_grad(), torch.func.grad still differentiates: the derivative of x³ at 3 is 27.
    A torch.no_grad() inside the function is respected: what it computes counts as a constant, so
    t * (t² under no_grad) has the derivative t² = 9 at 3, not 3t² = 27."""
    x = torch.tensor(3.0)
    with torch.no_grad():
        assert grad(lambda t: t**3)(x).item() == 27.0

    def inner(t):
        with torch.no_grad():
            square = t**2
        return t * square
    assert grad(inner)(x).item() == 9.0
    assert grad(lambda t: t * t**2)(x).item() == 27.0


def grad_under_an_outer_inference_mode_depends_on_the_torch_version():
    """Under an outer torch.inference_mode(), torch.func.grad of x³ at 3 returns 0, with no error, on torch
    before 2.13 (2.6 is the oldest the book supports), and 27 from 2.13 on."""
    with torch.inference_mode():
        found = grad(lambda t: t**3)(torch.tensor(3.0)).item()
    assert found == (0.0 if torch.__version__ < "2.13" else 27.0), (torch.__version__, found)


def grad_and_value_returns_the_value_and_has_aux_passes_aux_through():
    """grad_and_value(f) returns (gradient, f's value); with has_aux=True, f returns (value, aux), grad
    returns (gradient, aux) and grad_and_value (gradient, (value, aux)); each calls f once."""
    from torch.func import grad_and_value

    calls = []

    def f(t):
        calls.append(1)
        return (t**2).sum(), t * 10

    x = torch.tensor([1.0, 2.0])
    gradient, value = grad_and_value(lambda t: f(t)[0])(x)
    assert torch.equal(gradient, 2 * x) and value.item() == 5.0 and len(calls) == 1
    gradient, aux = grad(f, has_aux=True)(x)
    assert torch.equal(gradient, 2 * x) and torch.equal(aux, x * 10) and len(calls) == 2
    gradient, (value, aux) = grad_and_value(f, has_aux=True)(x)
    assert torch.equal(gradient, 2 * x) and value.item() == 5.0 and torch.equal(aux, x * 10)
    assert len(calls) == 3


class _LiveBytes(TorchDispatchMode):
    """Bytes of the storages operations create inside the block that are alive now; `at_cat`: that
    number each time a concatenation starts."""

    def __init__(self):
        super().__init__()
        self.now, self.at_cat, self.storages = 0, [], {}

    def _freed(self, address):
        entry = self.storages[address]
        entry[1] -= 1
        if entry[1] == 0:
            self.now -= entry[0]
            del self.storages[address]

    def __torch_dispatch__(self, func, types, args=(), kwargs=None):
        if func.overloadpacket is torch.ops.aten.cat:
            self.at_cat.append(self.now)
        out = func(*args, **(kwargs or {}))
        for t in tree_flatten(out)[0]:
            if isinstance(t, torch.Tensor):
                storage = t.untyped_storage()
                address = storage.data_ptr()
                if address not in self.storages:
                    self.storages[address] = [storage.nbytes(), 0]
                    self.now += storage.nbytes()
                self.storages[address][1] += 1
                weakref.finalize(t, self._freed, address)
        return out


def chunked_vmap_keeps_every_chunk_until_it_concatenates_them():
    """vmap(grad(...), chunk_size=4) over 12 samples runs the model 3 times and keeps every chunk's
    gradients until it concatenates them, one parameter at a time: when the first concatenation starts,
    the storages alive already hold at least as many bytes as the whole result."""
    model = _small_model()
    runs = []
    model.register_forward_pre_hook(lambda module, args: runs.append(1))
    params = {name: p.detach() for name, p in model.named_parameters()}
    x, y = torch.randn(12, 4), torch.randn(12, 1)  # made outside, so that the live bytes leave them out
    with _LiveBytes() as live:
        found = vmap(grad(_loss_of_one(model)), in_dims=(None, 0, 0), chunk_size=4)(params, x, y)
    result = sum(g.nbytes for g in found.values())
    assert result == 12 * sum(p.nbytes for p in params.values())
    assert len(runs) == 3 and len(live.at_cat) == len(params)
    assert live.at_cat[0] >= result, (live.at_cat, result)


# The sweep of forward-vs-reverse.py: its hidden width, its fixed size and its sizes.
_SWEEP_HIDDEN, _SWEEP_FIXED, _SWEEP_SIZES = 256, 16, [4, 16, 64, 256, 1024]


def jacfwd_counts_fewer_flops_for_few_inputs_and_jacrev_for_few_outputs():
    """On the sweep's f (hidden width 256; 16 inputs and 4 to 1024 outputs, and the reverse), the ratio of
    jacfwd's to jacrev's counted FLOPs is below 1 where there are more outputs than inputs, above 1 where
    there are more inputs, within 20% of 1 at 16 x 16, and further from 1 at every step away from 16."""
    import math

    from torch.utils.flop_counter import FlopCounterMode

    def flops(transform, n_in, n_out):
        generator = torch.Generator().manual_seed(0)
        w1 = torch.randn(n_in, _SWEEP_HIDDEN, generator=generator) / n_in**0.5
        w2 = torch.randn(_SWEEP_HIDDEN, n_out, generator=generator) / _SWEEP_HIDDEN**0.5
        with FlopCounterMode(display=False) as counter:
            transform(lambda x: (torch.tanh(x[None] @ w1) @ w2)[0])(torch.ones(n_in))
        return counter.get_total_flops()

    def ratio(n_in, n_out):
        return flops(jacfwd, n_in, n_out) / flops(jacrev, n_in, n_out)
    for sweep in ([(_SWEEP_FIXED, n) for n in _SWEEP_SIZES], [(n, _SWEEP_FIXED) for n in _SWEEP_SIZES]):
        ratios = {shape: ratio(*shape) for shape in sweep}
        for (n_in, n_out), found in ratios.items():
            if n_in != n_out:
                assert (found < 1) == (n_out > n_in), (n_in, n_out, found)
        assert 0.8 < ratios[_SWEEP_FIXED, _SWEEP_FIXED] < 1.25
        # Away from 16 on either side, |log ratio| grows at every step.
        distance = [abs(math.log(ratios[shape])) for shape in sweep]
        middle = _SWEEP_SIZES.index(_SWEEP_FIXED)
        assert all(a > b for a, b in zip(distance[:middle], distance[1:middle + 1])), distance
        assert all(a < b for a, b in zip(distance[middle:], distance[middle + 1:])), distance


def jvp_multiplies_by_the_zero_tangent_of_a_captured_weight():
    """One jvp of x[None] @ w1 -> tanh -> @ w2, with w1 and w2 captured, runs three matrix products per
    layer, one of them with the weight's tangent, all zeros: FlopCounterMode counts 3 times f's work. A
    loop of one jvp per input counts 3 n_in times f's; jacfwd counts (2 + n_in) times: the forward and the
    zero-tangent products once, the tangent products once per input."""
    from torch.utils.flop_counter import FlopCounterMode

    generator = torch.Generator().manual_seed(0)
    n_in = 4
    w1, w2 = torch.randn(n_in, 8, generator=generator), torch.randn(8, 3, generator=generator)
    x, u = torch.randn(n_in, generator=generator), torch.eye(n_in)[0]

    def f(t):
        return (torch.tanh(t[None] @ w1) @ w2)[0]

    class Products(TorchDispatchMode):
        """Each matrix product, as which of its operands are all zeros."""
        def __init__(self):
            super().__init__()
            self.zeros = []

        def __torch_dispatch__(self, func, types, args=(), kwargs=None):
            if func.overloadpacket is torch.ops.aten.mm:
                self.zeros.append(tuple(bool((a == 0).all()) for a in args[:2]))
            return func(*args, **(kwargs or {}))
    with Products() as products:
        jvp(f, (x,), (u,))
    assert products.zeros == [(False, False), (False, True), (False, False)] * 2, products.zeros

    def counted(run):
        with FlopCounterMode(display=False) as counter:
            run()
        return counter.get_total_flops()
    one_f = counted(lambda: f(x))
    assert counted(lambda: jvp(f, (x,), (u,))) == 3 * one_f
    assert counted(lambda: [jvp(f, (x,), (e,)) for e in torch.eye(n_in)]) == 3 * n_in * one_f
    assert counted(lambda: jacfwd(f)(x)) == (2 + n_in) * one_f


def flop_counter_counts_matrix_products_not_elementwise_ops():
    """FlopCounterMode counts 2·m·k·n for an (m, k) @ (k, n) matrix product (mm, addmm, and bmm once per
    batch entry), and for v @ w with a 1-D v, which torch runs as one; nothing for w @ v with a 1-D v
    (mv), nor for elementwise operations such as tanh, multiplication or exp."""
    from torch.utils.flop_counter import FlopCounterMode

    def flops(function, *args):
        with FlopCounterMode(display=False) as counter:
            function(*args)
        return counter.get_total_flops()
    a, b, v = torch.ones(3, 4), torch.ones(4, 5), torch.ones(4)
    assert flops(torch.matmul, a, b) == flops(torch.addmm, torch.ones(5), a, b) == 2 * 3 * 4 * 5
    assert flops(torch.matmul, torch.ones(2, 3, 4), torch.ones(2, 4, 5)) == 2 * (2 * 3 * 4 * 5)
    assert flops(torch.matmul, v, b) == 2 * 4 * 5
    assert flops(torch.matmul, a, v) == flops(torch.mv, a, v) == 0
    assert flops(lambda: (torch.tanh(a), a * 2, a.exp())) == 0


def backward_with_create_graph_leaves_a_differentiable_grad():
    """After backward(create_graph=True), a leaf's .grad has a grad_fn and can be differentiated:
    3x² at 3 is 27, and its derivative 6x is 18; torch warns, once per process, of a reference cycle between
    the leaf and its .grad that can leak memory, recommends torch.autograd.grad, and asks to reset .grad to
    None: the deleted leaf outlives gc.collect() unless its .grad was reset to None first."""
    x = torch.tensor(3.0, requires_grad=True)
    with warnings.catch_warnings(record=True):  # the warning is asserted below, in a fresh process
        warnings.simplefilter("always")
        (x**3).backward(create_graph=True)
    first = x.grad
    assert first.item() == 27.0 and first.grad_fn is not None
    (second,) = torch.autograd.grad(first, x)
    assert second.item() == 18.0
    # torch gives this warning once per process, so a fresh interpreter runs the same backward three times, on
    # three new leaves, with Python's filter set to show every warning: it appears once
    fresh = subprocess.run(
        [sys.executable, "-W", "always", "-c",
         "import torch\nfor _ in range(3):\n"
         "    x = torch.tensor(3.0, requires_grad=True); (x**3).backward(create_graph=True)"],
        capture_output=True, text=True, check=True)
    assert all(words in fresh.stderr for words in ("reference cycle", "can cause a memory leak", "autograd.grad",
                                                   "to None")), fresh.stderr
    assert fresh.stderr.count("reference cycle") == 1, fresh.stderr
    # the cycle runs through autograd's C++ graph, which Python's collector cannot see
    for reset in (False, True):
        gc.disable()
        try:
            leaf = torch.tensor(3.0, requires_grad=True)
            (leaf**3).backward(create_graph=True)
            alive = weakref.ref(leaf)
            if reset:
                leaf.grad = None
            del leaf
            gc.collect()
        finally:
            gc.enable()
        assert (alive() is None) == reset


def vmap_grad_writes_no_grad_detached_or_not():
    """vmap(grad(loss of one sample)) leaves every p.grad None whether params holds detached tensors or the
    model's own parameters; only with the parameters themselves does its result require grad (it stays on
    the model's graph)."""
    model = _small_model()
    x, y = torch.randn(5, 4), torch.randn(5, 1)
    per_sample = vmap(grad(_loss_of_one(model)), in_dims=(None, 0, 0))
    detached = per_sample({name: p.detach() for name, p in model.named_parameters()}, x, y)
    assert all(p.grad is None for p in model.parameters())
    attached = per_sample(dict(model.named_parameters()), x, y)
    assert all(p.grad is None for p in model.parameters())
    assert not any(g.requires_grad for g in detached.values())
    assert all(g.requires_grad for g in attached.values())
    assert all(torch.equal(detached[name], attached[name]) for name in detached)


def grad_result_stays_on_the_graph_for_x3_2t1_and_relu_not_for_2t():
    """On a leaf that requires grad, grad(f)(leaf) carries a grad_fn for f = x³, and also for 2·t**1 and relu,
    whose derivatives do not depend on x (pow's and relu's backward formulas use a tensor computed from the
    input); none for 2·t, whose backward formula uses only the constant."""
    leaf = torch.tensor([3.0, -1.0], requires_grad=True)
    for f in (lambda t: (t**3).sum(), lambda t: (2 * t**1).sum(), lambda t: torch.relu(t).sum()):
        result = grad(f)(leaf)
        assert result.requires_grad and result.grad_fn is not None
    assert torch.equal(grad(lambda t: (2 * t**1).sum())(leaf), torch.tensor([2.0, 2.0]))
    assert torch.equal(grad(lambda t: torch.relu(t).sum())(leaf), torch.tensor([1.0, 0.0]))
    doubled = grad(lambda t: (2 * t).sum())(leaf)
    assert not doubled.requires_grad and doubled.grad_fn is None
    assert leaf.grad is None


def grad_of_a_detached_input_stays_on_the_graph_of_a_captured_tensor():
    """grad(f)(leaf.detach()) has no graph when f captures nothing that requires grad; when f multiplies by
    a captured w that requires grad, the result requires grad and backward() on it writes w.grad."""
    leaf = torch.tensor([3.0], requires_grad=True)
    alone = grad(lambda t: (t**3).sum())(leaf.detach())
    assert not alone.requires_grad and alone.grad_fn is None
    w = torch.tensor([2.0], requires_grad=True)
    captured = grad(lambda t: (w * t**3).sum())(leaf.detach())
    assert captured.requires_grad and captured.grad_fn is not None
    captured.sum().backward()
    assert torch.equal(w.grad, torch.tensor([27.0])) and leaf.grad is None


def batchnorm_per_sample_fails_with_one_value_per_channel():
    """Per sample in training mode (running statistics removed by replace_all_batch_norm_modules_), a
    BatchNorm1d on (N, C) raises: a batch of one has one value per channel. A BatchNorm1d on (N, C, L) and a
    BatchNorm2d on (N, C, H, W) run when a sample has more than one position per channel (L > 1, H·W > 1),
    each sample normalised over its own positions, and match a loop of one backward() per sample in
    training mode; with L = 1 or H·W = 1 they raise as on (N, C). With their running statistics kept, both run per sample
    only with one copy of them per sample: captured, its in-place update raises; passed as one shared
    copy, vmap refuses to update the unbatched buffers."""
    from torch.func import replace_all_batch_norm_modules_

    for kept, shape in ((nn.BatchNorm1d(3), (4, 3, 5)), (nn.BatchNorm2d(3), (4, 3, 2, 2))):
        x = torch.randn(*shape, generator=torch.Generator().manual_seed(0))
        params = {name: p.detach() for name, p in kept.named_parameters()}
        buffers = {name: b.clone() for name, b in kept.named_buffers()}

        def captured(params, xi, kept=kept):
            return (functional_call(kept, params, (xi[None],)) ** 3).sum()

        def passed(params, buffers, xi, kept=kept):
            return (functional_call(kept, (params, buffers), (xi[None],)) ** 3).sum()
        assert "in-place operation" in _raises(vmap(grad(captured), in_dims=(None, 0)), params, x)
        assert "were not batched" in _raises(vmap(grad(passed), in_dims=(None, None, 0)), params, buffers, x)
        per_sample = {name: b.expand(len(x), *b.shape).clone() for name, b in buffers.items()}
        found = vmap(grad(passed), in_dims=(None, 0, 0))(params, per_sample, x)
        for i in range(len(x)):
            kept.zero_grad()
            (kept(x[i:i + 1]) ** 3).sum().backward()
            assert torch.allclose(found["weight"][i], kept.weight.grad, atol=1e-4), (shape, "buffers per sample", i)

    for norm, shape, works in ((nn.BatchNorm1d(3), (4, 3), False), (nn.BatchNorm1d(3), (4, 3, 5), True),
                               (nn.BatchNorm2d(3), (4, 3, 2, 2), True), (nn.BatchNorm1d(3), (4, 3, 1), False),
                               (nn.BatchNorm2d(3), (4, 3, 1, 1), False)):
        replace_all_batch_norm_modules_(norm)
        x = torch.randn(*shape, generator=torch.Generator().manual_seed(0))
        params = {name: p.detach() for name, p in norm.named_parameters()}

        def loss(params, xi):
            return (functional_call(norm, params, (xi[None],)) ** 3).sum()
        if not works:
            try:
                vmap(grad(loss), in_dims=(None, 0))(params, x)
            except ValueError as error:
                assert "Expected more than 1 value per channel" in str(error)
                continue
            raise AssertionError(f"{type(norm).__name__} on {shape} ran per sample")
        found = vmap(grad(loss), in_dims=(None, 0))(params, x)
        for i in range(len(x)):
            norm.zero_grad()
            (norm(x[i:i + 1]) ** 3).sum().backward()
            assert torch.allclose(found["weight"][i], norm.weight.grad, atol=1e-4), (shape, i)


def the_two_libraries_agree_to_float_rounding():
    """On a function with more float operations than scalar-outputs' f (tanh(W @ sin(t) * exp(t)) / (1 + t²),
    50 inputs), torch.func's jvp, jacfwd and hessian agree with torch.autograd.functional's to float32
    rounding, and not all exactly: the two compute differently."""
    import torch.autograd.functional as af

    g = torch.Generator().manual_seed(0)
    w, x, u = torch.randn(50, 50, generator=g), torch.randn(50, generator=g), torch.randn(50, generator=g)

    def f(t):
        return torch.tanh(w @ torch.sin(t) * t.exp()) / (1 + t**2)

    def s(t):
        return f(t).sum()
    pairs = ((jvp(f, (x,), (u,))[1], af.jvp(f, x, u)[1]), (jacfwd(f)(x), af.jacobian(f, x)),
             (jacrev(f)(x), af.jacobian(f, x)), (hessian(s)(x), af.hessian(s, x)))
    differences = [(a - b).abs().max().item() for a, b in pairs]
    assert all(torch.allclose(a, b, rtol=1e-5, atol=1e-5) for a, b in pairs), differences
    assert max(differences) > 0, differences


def autograd_functional_jvp_runs_backward_passes_func_jvp_none():
    """On a function of 3 inputs and 3 outputs, torch.autograd.functional.jvp calls torch.autograd.grad twice
    (the double-backward trick), torch.func.jvp not at all (forward mode); torch.autograd.functional.jacobian
    calls it once per output, 3 times, and once with vectorize=True. Under torch.func.jvp the function's input
    does not require grad, so it records no graph that any backward pass could run; under
    torch.autograd.functional.jvp it does."""
    import torch.autograd.functional as AF

    tracked = []

    def f(t):
        tracked.append(t.requires_grad)
        return torch.stack([t[0] * t[1], t[1] ** 2, t[0] + 3 * t[2]])
    x, u = torch.tensor([1.0, 2.0, 3.0]), torch.tensor([1.0, 0.0, 0.0])
    calls = {"grad": 0}
    original = torch.autograd.grad

    def counted(*args, **kwargs):
        calls["grad"] += 1
        return original(*args, **kwargs)
    found = {}
    torch.autograd.grad = counted
    try:
        for name, run in (("AF.jvp", lambda: AF.jvp(f, x, u)), ("func.jvp", lambda: jvp(f, (x,), (u,))),
                          ("AF.jacobian", lambda: AF.jacobian(f, x)),
                          ("AF.jacobian vectorize", lambda: AF.jacobian(f, x, vectorize=True))):
            calls["grad"] = 0
            tracked.clear()
            run()
            found[name] = calls["grad"], tracked[:]
    finally:
        torch.autograd.grad = original
    assert found["AF.jvp"] == (2, [True]) and found["func.jvp"] == (0, [False]), found
    assert found["AF.jacobian"][0] == 3 and found["AF.jacobian vectorize"][0] == 1, found


def forward_ad_gives_j_u_without_a_backward_pass():
    """torch.autograd.forward_ad: make_dual(x, u) pairs x with the tangent u, and the tangent that unpack_dual
    returns from the output is J u (as torch.func.jvp computes it), with no call of torch.autograd.grad and
    no graph recorded (the dual input does not require grad)."""
    import torch.autograd.forward_ad as fwAD

    tracked = []

    def f(t):
        tracked.append(t.requires_grad)
        return torch.stack([t[0] * t[1], torch.sin(t[1]) ** 2, t[0].exp() + 3 * t[2]])
    x, u = torch.tensor([1.0, 2.0, 3.0]), torch.tensor([1.0, 0.5, 0.0])
    calls = {"grad": 0}
    original = torch.autograd.grad

    def counted(*args, **kwargs):
        calls["grad"] += 1
        return original(*args, **kwargs)
    torch.autograd.grad = counted
    try:
        with fwAD.dual_level():
            found = fwAD.unpack_dual(f(fwAD.make_dual(x, u)))
    finally:
        torch.autograd.grad = original
    assert calls["grad"] == 0 and tracked == [False] and found.tangent is not None
    jacobian = torch.stack([torch.tensor([2.0, 1.0, 0.0]), torch.tensor([0.0, torch.sin(torch.tensor(4.0)), 0.0]),
                            torch.tensor([torch.e, 0.0, 3.0])])
    assert torch.allclose(found.tangent, jacobian @ u) and torch.allclose(found.tangent, jvp(f, (x,), (u,))[1])
    assert torch.equal(found.primal, f(x))


def jacrev_runs_one_backward_pass_for_all_rows():
    """jacrev(f) of an f with 64 outputs calls f once and torch.autograd.grad once (vmap batches the 64
    vector-Jacobian products); a loop of vjp_fn calls f once too, and torch.autograd.grad 64 times. The engine
    runs a node's backward once for the 64 rows: a custom Function's backward, counted, runs once."""
    generator = torch.Generator().manual_seed(0)
    w = torch.randn(4, 64, generator=generator)
    calls = {"f": 0, "grad": 0}

    def f(t):
        calls["f"] += 1
        return torch.tanh(t @ w)
    original = torch.autograd.grad

    def counted(*args, **kwargs):
        calls["grad"] += 1
        return original(*args, **kwargs)
    torch.autograd.grad = counted
    try:
        jacobian = jacrev(f)(torch.ones(4))
        assert calls == {"f": 1, "grad": 1}, calls
        calls.update(f=0, grad=0)
        _, vjp_fn = vjp(f, torch.ones(4))
        rows = torch.stack([vjp_fn(e)[0] for e in torch.eye(64)])
        assert calls == {"f": 1, "grad": 64}, calls
    finally:
        torch.autograd.grad = original
    assert torch.allclose(jacobian, rows)
    backward_runs = []

    class Tanh(torch.autograd.Function):
        generate_vmap_rule = True

        @staticmethod
        def forward(t):
            return torch.tanh(t)

        @staticmethod
        def setup_context(ctx, inputs, output):
            ctx.save_for_backward(output)

        @staticmethod
        def backward(ctx, grad_output):
            backward_runs.append(1)
            (y,) = ctx.saved_tensors
            return grad_output * (1 - y * y)
    assert torch.allclose(jacrev(lambda t: Tanh.apply(t @ w))(torch.ones(4)), jacobian, atol=1e-6)
    assert len(backward_runs) == 1, backward_runs


def vmap_runs_the_model_once_for_the_whole_batch():
    """vmap(grad(loss of one sample)) calls the model's forward once for a whole batch (a forward
    pre-hook fires once), where a loop calls it once per sample."""
    model = _small_model()
    runs = []
    model.register_forward_pre_hook(lambda module, args: runs.append(1))
    params = {name: p.detach() for name, p in model.named_parameters()}
    vmap(grad(_loss_of_one(model)), in_dims=(None, 0, 0))(params, torch.randn(6, 4), torch.randn(6, 1))
    assert len(runs) == 1


def custom_function_needs_setup_context_and_a_vmap_rule():
    """A custom autograd.Function whose forward takes ctx raises under grad alone (it must override
    setup_context); in the setup_context style it works under grad, and under vmap(grad(...)) it raises
    until it has a vmap rule (the error asks for a vmap staticmethod or generate_vmap_rule=True); with
    generate_vmap_rule = True it gives the per-sample gradients."""
    class WithCtx(torch.autograd.Function):
        @staticmethod
        def forward(ctx, t):
            ctx.save_for_backward(t)
            return t * t

        @staticmethod
        def backward(ctx, grad_output):
            (t,) = ctx.saved_tensors
            return 2 * t * grad_output

    class SetupContext(torch.autograd.Function):
        @staticmethod
        def forward(t):
            return t * t

        @staticmethod
        def setup_context(ctx, inputs, output):
            ctx.save_for_backward(inputs[0])

        @staticmethod
        def backward(ctx, grad_output):
            (t,) = ctx.saved_tensors
            return 2 * t * grad_output

    class WithRule(SetupContext):
        generate_vmap_rule = True

    def per_sample(function):
        return vmap(grad(lambda t: function.apply(t).sum()))

    x = torch.tensor([[1.0, 2.0], [3.0, 4.0], [5.0, 6.0]])
    assert "setup_context" in _raises(grad(lambda t: WithCtx.apply(t).sum()), x[0])
    assert torch.equal(grad(lambda t: SetupContext.apply(t).sum())(x[0]), 2 * x[0])
    message = _raises(per_sample(SetupContext), x)
    assert "vmap staticmethod" in message and "generate_vmap_rule=True" in message, message
    assert torch.equal(per_sample(WithRule)(x), 2 * x)


def jacrev_chunk_size_runs_one_backward_pass_per_chunk():
    """jacrev(f, chunk_size=16) of an f with 64 outputs calls f once and runs 4 backward passes, 16 rows each
    (torch.autograd.grad called 4 times; a counted custom Function's backward runs 4 times), and returns the
    same Jacobian as jacrev(f); jacfwd takes no chunk_size."""
    generator = torch.Generator().manual_seed(0)
    w = torch.randn(4, 64, generator=generator)
    calls = {"f": 0, "grad": 0, "backward": 0}

    class Tanh(torch.autograd.Function):
        generate_vmap_rule = True

        @staticmethod
        def forward(t):
            return torch.tanh(t)

        @staticmethod
        def setup_context(ctx, inputs, output):
            ctx.save_for_backward(output)

        @staticmethod
        def backward(ctx, grad_output):
            calls["backward"] += 1
            (y,) = ctx.saved_tensors
            return grad_output * (1 - y * y)

    def f(t):
        calls["f"] += 1
        return Tanh.apply(t @ w)
    original = torch.autograd.grad

    def counted(*args, **kwargs):
        calls["grad"] += 1
        return original(*args, **kwargs)
    torch.autograd.grad = counted
    try:
        whole = jacrev(f)(torch.ones(4))
        assert calls == {"f": 1, "grad": 1, "backward": 1}, calls
        calls.update(f=0, grad=0, backward=0)
        chunked = jacrev(f, chunk_size=16)(torch.ones(4))
        assert calls == {"f": 1, "grad": 4, "backward": 4}, calls
    finally:
        torch.autograd.grad = original
    assert torch.allclose(chunked, whole, rtol=0, atol=1e-6)
    try:
        jacfwd(f, chunk_size=16)
    except TypeError as error:
        assert "chunk_size" in str(error)
    else:
        raise AssertionError("jacfwd accepted chunk_size")


def stack_module_state_and_vmap_run_an_ensemble():
    """torch.func.stack_module_state(models) stacks the parameters and the buffers of models of one
    architecture along a new first dimension; vmap over those two dicts of functional_call(base, (params,
    buffers), (x,)), on one copy of the architecture, gives each model's own output for the same x, buffers
    (here BatchNorm running statistics in eval mode) included."""
    from torch.func import stack_module_state

    torch.manual_seed(0)
    models = [nn.Sequential(nn.Linear(4, 3), nn.BatchNorm1d(3), nn.Linear(3, 2)).eval() for _ in range(3)]
    for model in models:
        model[1].running_mean.normal_()
        model[1].running_var.uniform_(0.5, 2.0)
    params, buffers = stack_module_state(models)
    assert params["0.weight"].shape == (3, 3, 4) and buffers["1.running_mean"].shape == (3, 3)
    x = torch.randn(5, 4)

    def run(p, b, x):
        return functional_call(models[0], (p, b), (x,))
    found = vmap(run, in_dims=(0, 0, None))(params, buffers, x)
    expected = torch.stack([model(x) for model in models])
    assert found.shape == (3, 5, 2) and torch.allclose(found, expected, atol=1e-6)
    without_buffers = vmap(lambda p, x: functional_call(models[0], p, (x,)), in_dims=(0, None))(params, x)
    assert not torch.allclose(without_buffers, expected, atol=1e-3)
