"""Checks behind autograd-grad's sentences that no output on the page shows (tests/test_claims.py
runs each on every supported torch; {claim}`autograd-grad/<name>` on a page names one)."""

import datetime
import os
import shutil
import tempfile
import weakref

import torch
import torch.distributed as dist
import torch.multiprocessing as mp
from torch import nn


def grad_leaves_every_leaf_grad_alone_but_fills_retain_grad_on_the_path():
    """torch.autograd.grad writes no leaf's .grad (neither the inputs asked about nor other leaves), but
    an intermediate result that called retain_grad() and lies on the path from the output to the inputs
    asked about gets its .grad written and accumulated; a retained intermediate off that path gets none."""
    x = torch.tensor([1.0, 2.0], requires_grad=True)
    w = torch.tensor(3.0, requires_grad=True)
    a = x * w
    a.retain_grad()
    b = w * 1.0  # reaches the output, but not from x
    b.retain_grad()
    for _ in range(2):
        torch.autograd.grad((a ** 2).sum() * b, x, retain_graph=True)
    assert x.grad is None and w.grad is None and b.grad is None
    assert torch.equal(a.grad, 2 * (2 * a.detach() * b.detach()))
    (slope,) = torch.autograd.grad((a ** 2).sum() * b, w)
    assert torch.equal(b.grad, (a.detach() ** 2).sum()) and w.grad is None


def _saved_tensor_refs():
    """x, f = x.exp().sin().sum() and its derivative with create_graph=True, with weak references to
    the tensors the forward graph saved and to those the derivative's graph saved."""
    refs = []

    def pack(tensor):
        tensor = tensor.detach()
        refs.append(weakref.ref(tensor))
        return tensor

    torch.manual_seed(0)
    x = torch.randn(100, requires_grad=True)
    with torch.autograd.graph.saved_tensors_hooks(pack, lambda tensor: tensor):
        f = x.exp().sin().sum()
        forward = len(refs)
        (derivative,) = torch.autograd.grad(f, x, create_graph=True)
    return x, f, derivative, refs[:forward], refs[forward:]


def _alive(refs):
    return sum(ref() is not None for ref in refs)


def create_graph_memory_lives_with_the_derivative_and_the_output():
    """After grad(create_graph=True), the derivative's graph keeps its saved tensors while the
    derivative, or a tensor computed from it with a grad_fn (its norm), lives: with only the norm kept
    all stay, with the norm gone too none does; a detached copy alone frees nothing, and keeping only
    the copy (the original deleted) frees them; differentiating the derivative (no retain_graph) frees them too. The forward
    graph's saved tensors stay while the output (or the derivative's graph) refers to them, so
    detaching the derivative does not free them. Differentiating the derivative with create_graph=True
    (so retain_graph=True) frees nothing; differentiating it without create_graph, a backward pass
    without retain_graph through the forward nodes, frees them while output and derivative are alive."""
    x, f, derivative, forward, backward = _saved_tensor_refs()
    assert _alive(forward) == len(forward) > 0 and _alive(backward) == len(backward) > 0
    kept = derivative.detach()
    assert _alive(backward) == len(backward)  # the original derivative still holds its graph
    del derivative
    assert _alive(backward) == 0 and _alive(forward) == len(forward)
    del f
    assert _alive(forward) == 0
    assert kept.shape == (100,)

    x, f, derivative, forward, backward = _saved_tensor_refs()
    logged = derivative.norm()
    del derivative
    assert _alive(backward) == len(backward)  # the norm's graph goes through the derivative's
    del logged
    assert _alive(backward) == 0

    x, f, derivative, forward, backward = _saved_tensor_refs()
    del f
    assert _alive(forward) > 0  # the derivative's graph still refers to a forward tensor
    del derivative
    assert _alive(forward) == 0 and _alive(backward) == 0

    x, f, derivative, forward, backward = _saved_tensor_refs()
    torch.autograd.grad(derivative.sum(), x, create_graph=True)  # retain_graph defaults to True
    assert _alive(forward) == len(forward) and _alive(backward) == len(backward)
    torch.autograd.grad(derivative.sum(), x)  # retain_graph defaults to False
    assert 0 < _alive(forward) < len(forward)  # f and derivative alive, yet a forward tensor went
    assert derivative.grad_fn is not None and _alive(backward) == 0  # its graph freed too
    try:
        torch.autograd.grad(f, x)
    except RuntimeError as error:
        assert "second time" in str(error)
    else:
        raise AssertionError("the gradient of f should need the freed forward tensors")


def create_graph_gives_a_grad_fn_to_a_derivative_computed_from_what_requires_grad():
    """With create_graph=True a derivative gets a grad_fn when its backward computation used a tensor
    that requires grad, whatever its formula: that of x**2 (2x) does; that of 3 * x (the constant 3)
    does not, differentiating it raises 'does not require grad', though hessian gives 0; that of relu(x)
    at x > 0 (the constant 1) does, and its derivative is 0; that of x * w is w, not x: it has a
    grad_fn (w requires grad), and differentiating it with respect to x raises 'not ... used'."""
    x = torch.tensor(3.0, requires_grad=True)
    (slope,) = torch.autograd.grad(x ** 2, x, create_graph=True)
    assert slope.grad_fn is not None and torch.autograd.grad(slope, x)[0].item() == 2.0
    (constant,) = torch.autograd.grad(3 * x, x, create_graph=True)
    assert constant.grad_fn is None and not constant.requires_grad and constant.item() == 3.0
    try:
        torch.autograd.grad(constant, x)
    except RuntimeError as error:
        assert "does not require grad" in str(error)
    else:
        raise AssertionError("differentiating a derivative without grad_fn should raise")
    assert torch.autograd.functional.hessian(lambda t: 3 * t, x).item() == 0.0
    (one,) = torch.autograd.grad(torch.relu(x), x, create_graph=True)
    assert one.item() == 1.0 and one.grad_fn is not None
    assert torch.autograd.grad(one, x)[0].item() == 0.0
    w = torch.tensor(2.0, requires_grad=True)
    (weight,) = torch.autograd.grad(x * w, x, create_graph=True)
    assert weight.grad_fn is not None and weight.item() == 2.0
    try:
        torch.autograd.grad(weight, x)
    except RuntimeError as error:
        assert "appears to not have been used in the graph" in str(error)
    else:
        raise AssertionError("x does not reach w's graph: differentiating it by x should raise")


def grad_takes_intermediate_results_as_inputs():
    """inputs may be intermediate results: the gradient with respect to h = x.exp() of h.sin().sum()
    is cos(h), and with respect to an nn.Embedding's output e of (e ** 2).sum() it is 2e; no leaf's
    .grad is written (neither x's nor the embedding's weight's)."""
    x = torch.tensor([1.0, 2.0], requires_grad=True)
    h = x.exp()
    (slope,) = torch.autograd.grad(h.sin().sum(), h)
    assert torch.allclose(slope, h.detach().cos()) and x.grad is None
    torch.manual_seed(0)
    embedding = nn.Embedding(5, 3)
    e = embedding(torch.tensor([1, 3]))
    (slope,) = torch.autograd.grad((e ** 2).sum(), e)
    assert torch.allclose(slope, 2 * e.detach()) and embedding.weight.grad is None
    assert not h.is_leaf and not e.is_leaf


def a_fused_attention_kernel_has_no_second_derivative_on_cpu():
    """On CPU, F.scaled_dot_product_attention picks a kernel by its inputs and the torch version. With
    4-D q, k, v (batch, heads, sequence, feature) in float32, float64, bfloat16 or float16, causal or not,
    with no attn_mask, a float one or a boolean one, and with keys and values of the queries' length or
    of another (cross-attention), the derivative has a grad_fn, yet differentiating it raises 'derivative
    for aten::_scaled_dot_product_flash_attention_for_cpu_backward is not implemented'; with 3-D q, k, v
    (batch, sequence, feature), the same from torch 2.14 on. In every one of these cases, under
    sdpa_kernel(SDPBackend.MATH) the second derivative is computed (nonzero and finite)."""
    from torch.nn.attention import SDPBackend, sdpa_kernel
    from torch.nn.functional import scaled_dot_product_attention as attention

    def second(q, k, v, **options):
        (slope,) = torch.autograd.grad(attention(q, k, v, **options).sum(), q, create_graph=True)
        assert slope.grad_fn is not None
        (result,) = torch.autograd.grad((slope.float() ** 2).sum(), q)
        assert result.shape == q.shape and result.abs().sum() > 0 and torch.isfinite(result).all()

    def raises(q, k, v, **options):
        try:
            second(q, k, v, **options)
        except RuntimeError as error:
            assert "_scaled_dot_product_flash_attention_for_cpu_backward is not implemented" in str(error)
            return True
        return False

    version = tuple(int(part) for part in torch.__version__.split("+")[0].split(".")[:2])
    torch.manual_seed(0)
    cases = []
    for dtype in (torch.float32, torch.float64, torch.bfloat16, torch.float16):
        for key_length in (4, 6):  # self-attention, then cross-attention
            masks = (None, torch.randn(4, key_length, dtype=dtype),
                     torch.ones(4, key_length, dtype=torch.bool).tril())
            for mask in masks:
                cases.append(((1, 2), dtype, key_length, dict(attn_mask=mask), True))
            cases.append(((2, 3), dtype, key_length, dict(is_causal=True), True))
            cases.append(((2,), dtype, key_length, {}, version >= (2, 14)))
    for batch, dtype, key_length, options, expected in cases:
        q = torch.randn(*batch, 4, 8, dtype=dtype, requires_grad=True)
        k, v = (torch.randn(*batch, key_length, 8, dtype=dtype, requires_grad=True) for _ in range(2))
        assert raises(q, k, v, **options) == expected, (torch.__version__, batch, dtype, key_length, options)
        with sdpa_kernel(SDPBackend.MATH):
            second(q, k, v, **options)


def a_compiled_model_has_no_double_backward():
    """Through torch.compile(critic, backend="aot_eager"), the gradient a penalty takes with respect to the
    input (create_graph=True) has a grad_fn, but backward() on the penalty raises 'torch.compile with
    aot_autograd does not currently support double backward'; the same penalty through the critic itself
    runs and gives its parameters gradients."""
    torch.manual_seed(0)
    critic = nn.Sequential(nn.Linear(2, 8), nn.Tanh(), nn.Linear(8, 1))
    inputs = torch.randn(4, 2, requires_grad=True)

    def penalty(model):
        (slope,) = torch.autograd.grad(model(inputs).sum(), inputs, create_graph=True)
        assert slope.grad_fn is not None
        return ((slope.norm(dim=1) - 1) ** 2).mean()

    torch._dynamo.reset()
    compiled = penalty(torch.compile(critic, backend="aot_eager"))
    try:
        compiled.backward()
    except RuntimeError as error:
        assert "torch.compile with aot_autograd does not currently support double backward" in str(error)
    else:
        raise AssertionError("backward() through a compiled critic's gradient should raise")
    finally:
        torch._dynamo.reset()
    critic.zero_grad(set_to_none=True)
    penalty(critic).backward()
    assert critic[0].weight.grad.abs().sum() > 0


def a_reentrant_checkpoint_rules_out_grad():
    """With h = checkpoint(block, x, use_reentrant=True) followed by a head layer, and with checkpoint called
    without use_reentrant (which warns that use_reentrant should be passed explicitly; passing it does not
    warn), torch.autograd.grad of the loss with respect to x raises even for a first gradient: 'When
    use_reentrant=True, torch.utils.checkpoint is incompatible with .grad()'; with respect to the head's
    parameters it returns their gradients. With use_reentrant=False, a gradient penalty taken through the
    checkpoint gives the parameters the same gradients as without the checkpoint."""
    import warnings

    from torch.utils.checkpoint import checkpoint

    torch.manual_seed(0)
    block = nn.Sequential(nn.Linear(2, 8), nn.Tanh())
    head = nn.Linear(8, 1)
    inputs = torch.randn(4, 2, requires_grad=True)
    for options in (dict(use_reentrant=True), {}):
        with warnings.catch_warnings(record=True) as caught:
            warnings.simplefilter("always")
            loss = head(checkpoint(block, inputs, **options)).sum()
        warned = [w for w in caught if "use_reentrant parameter should be passed explicitly" in str(w.message)]
        assert len(warned) == (0 if options else 1), (options, [str(w.message) for w in caught])
        head_gradients = torch.autograd.grad(loss, list(head.parameters()), retain_graph=True)
        assert all(g is not None and g.abs().sum() > 0 for g in head_gradients)
        try:
            torch.autograd.grad(loss, inputs)
        except RuntimeError as error:
            assert "When use_reentrant=True, torch.utils.checkpoint is incompatible with .grad()" in str(error)
        else:
            raise AssertionError(f"grad through checkpoint({options}) should raise")

    critic = nn.Sequential(block, head)

    def penalty_gradients(model):
        critic.zero_grad(set_to_none=True)
        (slope,) = torch.autograd.grad(model(inputs).sum(), inputs, create_graph=True)
        ((slope.norm(dim=1) - 1) ** 2).mean().backward()
        return [parameter.grad.clone() for parameter in critic.parameters() if parameter.grad is not None]

    checkpointed = penalty_gradients(lambda x: checkpoint(critic, x, use_reentrant=False))
    plain = penalty_gradients(critic)
    assert len(plain) == len(checkpointed) > 0 and any(g.abs().sum() > 0 for g in plain)
    assert all(torch.allclose(a, b) for a, b in zip(plain, checkpointed))


def a_backward_after_grad_needs_retain_graph():
    """backward() on an output whose graph a torch.autograd.grad call already went through raises
    'second time'; with retain_graph=True on that call it runs and fills .grad. Shown for x.exp().sin()
    and for a training step: a Linear-Tanh-Linear model's loss, its gradient with respect to the input
    taken first, then loss.backward()."""
    x = torch.tensor(3.0, requires_grad=True)
    f = x.exp().sin()
    torch.autograd.grad(f, x)
    try:
        f.backward()
    except RuntimeError as error:
        assert "second time" in str(error)
    else:
        raise AssertionError("backward() after grad should need the freed graph")
    f = x.exp().sin()
    (slope,) = torch.autograd.grad(f, x, retain_graph=True)
    f.backward()
    assert torch.equal(x.grad, slope)

    torch.manual_seed(0)
    model = nn.Sequential(nn.Linear(2, 4), nn.Tanh(), nn.Linear(4, 1))
    inputs = torch.randn(8, 2, requires_grad=True)
    loss = model(inputs).pow(2).mean()
    torch.autograd.grad(loss, inputs)
    try:
        loss.backward()
    except RuntimeError as error:
        assert "second time" in str(error)
    else:
        raise AssertionError("loss.backward() after the input gradient should need the freed graph")
    assert all(p.grad is None for p in model.parameters())
    loss = model(inputs).pow(2).mean()
    torch.autograd.grad(loss, inputs, retain_graph=True)
    loss.backward()
    assert all(p.grad is not None and p.grad.abs().sum() > 0 for p in model.parameters())


def second_derivative_may_need_the_forward_graph():
    """The second derivative of x**3 works after the forward graph was freed (3x² is rebuilt from x);
    that of x.exp().sin() needs the freed forward graph and raises."""
    x = torch.tensor(3.0, requires_grad=True)
    (first,) = torch.autograd.grad(x ** 3, x, create_graph=True, retain_graph=False)
    assert torch.autograd.grad(first, x)[0].item() == 18.0
    (first,) = torch.autograd.grad(x.exp().sin(), x, create_graph=True, retain_graph=False)
    try:
        torch.autograd.grad(first, x)
    except RuntimeError as error:
        assert "second time" in str(error)
    else:
        raise AssertionError("differentiating the derivative should have needed the freed forward graph")


def materialized_zeros_have_the_input_shape():
    """materialize_grads=True, even without allow_unused=True, gives an unused input zeros of its own
    shape (allow_unused=True alone gives None); with create_graph=True too, those zeros have
    requires_grad=True on every torch."""
    x = torch.randn(2, 3, requires_grad=True)
    unused = torch.randn(4, 5, requires_grad=True)
    grads = torch.autograd.grad(x.sum(), [x, unused], materialize_grads=True)
    assert grads[1].shape == unused.shape and not grads[1].any()
    grads = torch.autograd.grad((x ** 2).sum(), [x, unused], materialize_grads=True, create_graph=True)
    assert grads[1].shape == unused.shape and not grads[1].any() and grads[1].requires_grad
    assert torch.autograd.grad(x.sum(), [x, unused], allow_unused=True)[1] is None


def an_input_that_does_not_require_grad_raises_whatever_the_switches():
    """Asking for the gradient of a tensor that does not require grad, such as a frozen parameter among
    model.parameters(), raises 'One of the differentiated Tensors does not require grad' with neither
    switch, with allow_unused=True and with materialize_grads=True; passing only the parameters that
    require grad works."""
    torch.manual_seed(0)
    model = nn.Sequential(nn.Linear(3, 4), nn.Tanh(), nn.Linear(4, 1))
    model[0].requires_grad_(False)
    loss = model(torch.randn(5, 3)).sum()
    for switches in ({}, {"allow_unused": True}, {"materialize_grads": True}):
        try:
            torch.autograd.grad(loss, list(model.parameters()), retain_graph=True, **switches)
        except RuntimeError as error:
            assert "One of the differentiated Tensors does not require grad" in str(error), switches
        else:
            raise AssertionError(("a frozen parameter among the inputs should raise", switches))
    trained = [p for p in model.parameters() if p.requires_grad]
    grads = torch.autograd.grad(loss, trained)
    assert len(grads) == 2 and all(g.shape == p.shape and g.abs().sum() > 0 for g, p in zip(grads, trained))


def grad_raises_for_an_input_no_gradient_reaches():
    """torch.autograd.grad raises 'appears to not have been used in the graph' for an input the output
    does not use, and also for one the output uses through a custom Function whose backward returns None
    for it."""

    class Scale(torch.autograd.Function):
        @staticmethod
        def forward(ctx, a, b):
            ctx.save_for_backward(b)
            return a * b

        @staticmethod
        def backward(ctx, grad):
            (b,) = ctx.saved_tensors
            return grad * b, None  # no derivative for b

    a = torch.tensor(2.0, requires_grad=True)
    b = torch.tensor(3.0, requires_grad=True)
    unused = torch.tensor(1.0, requires_grad=True)
    out = Scale.apply(a, b)
    assert any(node is not None and getattr(node, "variable", None) is b
               for node, _ in out.grad_fn.next_functions)  # b is in the graph
    assert torch.autograd.grad(out, a, retain_graph=True)[0].item() == 3.0
    for inputs in ([a, unused], [a, b]):
        try:
            torch.autograd.grad(out, inputs, retain_graph=True)
        except RuntimeError as error:
            assert "appears to not have been used in the graph" in str(error)
        else:
            raise AssertionError("an input that no gradient reaches should raise")


def any_one_element_output_needs_no_grad_outputs():
    """torch.autograd.grad and backward() fill in the starting 1 for any real output of one element,
    shape (1, 1) too, and both refuse an output of two elements and a complex output of one element."""
    x = torch.tensor([3.0], requires_grad=True)
    assert torch.autograd.grad((x ** 2).reshape(1, 1), x)[0].item() == 6.0
    (x ** 2).reshape(1, 1).backward()
    assert x.grad.item() == 6.0
    z = torch.tensor(1 + 1j, requires_grad=True)
    for output, inputs in ((torch.cat([x, x]) ** 2, x), (z * z, z)):
        for run in (lambda: torch.autograd.grad(output, inputs, retain_graph=True), output.backward):
            try:
                run()
            except RuntimeError as error:
                assert "scalar outputs" in str(error)
            else:
                raise AssertionError("a two-element or complex output should need grad_outputs")


def _per_row_gradients(critic, inputs):
    """Row i: the gradient of critic score i with respect to input row i, in the same batch."""
    jacobian = torch.autograd.functional.jacobian(lambda rows: critic(rows).squeeze(1), inputs)  # (8, 8, 2)
    return torch.stack([jacobian[i, i] for i in range(len(inputs))])


def summed_scores_give_per_sample_input_gradients():
    """For a critic that scores each row on its own, the gradient of the summed scores with respect to
    the inputs holds in each row the gradient of that row's own score. With BatchNorm1d in training
    mode (each score depends on the whole batch) it does not; in evaluation mode, where it normalises
    with its running statistics, it does again, but not with track_running_stats=False (batch statistics
    in evaluation mode too); and with LayerNorm (each row normalised on its own) in its place, in training mode, it does too."""
    torch.manual_seed(0)
    critic = nn.Sequential(nn.Linear(2, 16), nn.Tanh(), nn.Linear(16, 1)).double()
    inputs = torch.randn(8, 2, dtype=torch.float64, requires_grad=True)
    (summed,) = torch.autograd.grad(critic(inputs).sum(), inputs)
    for i in range(len(inputs)):
        row = inputs[i:i + 1].detach().requires_grad_()
        (own,) = torch.autograd.grad(critic(row).sum(), row)
        assert torch.allclose(summed[i], own[0])

    normed = nn.Sequential(nn.Linear(2, 16), nn.BatchNorm1d(16), nn.Tanh(), nn.Linear(16, 1)).double()
    (summed,) = torch.autograd.grad(normed(inputs).sum(), inputs)
    assert (summed - _per_row_gradients(normed, inputs.detach())).abs().max() > 1e-2
    normed.eval()
    (summed,) = torch.autograd.grad(normed(inputs).sum(), inputs)
    assert torch.allclose(summed, _per_row_gradients(normed, inputs.detach()))
    untracked = nn.Sequential(nn.Linear(2, 16), nn.BatchNorm1d(16, track_running_stats=False), nn.Tanh(),
                              nn.Linear(16, 1)).double().eval()
    (summed,) = torch.autograd.grad(untracked(inputs).sum(), inputs)
    assert (summed - _per_row_gradients(untracked, inputs.detach())).abs().max() > 1e-2

    layered = nn.Sequential(nn.Linear(2, 16), nn.LayerNorm(16), nn.Tanh(), nn.Linear(16, 1)).double()
    assert layered.training
    (summed,) = torch.autograd.grad(layered(inputs).sum(), inputs)
    assert torch.allclose(summed, _per_row_gradients(layered, inputs.detach()))


def jacobian_and_hessian_match_grad_calls():
    """torch.autograd.functional.jacobian equals the rows from grad_outputs one-hot vectors, and so does
    one call with grad_outputs=torch.eye(3), is_grads_batched=True; hessian of sum(t³) is diag(6t).
    The batched call runs the backward under vmap: a hook on the way that calls .item() makes it raise
    (the error names aten::item, which has no batching rule),
    while the one-hot calls run with that hook."""
    x = torch.tensor([1.0, 2.0, 3.0], requires_grad=True)

    def f(t):
        return torch.stack([t[0] * t[1], t[1] ** 2, t.sum()])

    y = f(x)
    rows = [torch.autograd.grad(y, x, grad_outputs=torch.eye(3)[i], retain_graph=True)[0] for i in range(3)]
    assert torch.equal(torch.autograd.functional.jacobian(f, x), torch.stack(rows))
    (batched,) = torch.autograd.grad(y, x, grad_outputs=torch.eye(3), is_grads_batched=True)
    assert torch.equal(batched, torch.stack(rows))
    hessian = torch.autograd.functional.hessian(lambda t: (t ** 3).sum(), x)
    assert torch.equal(hessian, torch.diag(6 * x.detach()))
    h = x * 1.0
    h.register_hook(lambda grad: grad * (1.0 + 0.0 * grad.sum().item()))
    y = f(h)
    hooked = [torch.autograd.grad(y, x, grad_outputs=torch.eye(3)[i], retain_graph=True)[0] for i in range(3)]
    assert torch.equal(torch.stack(hooked), torch.stack(rows))
    try:
        torch.autograd.grad(y, x, grad_outputs=torch.eye(3), is_grads_batched=True)
    except RuntimeError as error:
        assert "aten::item" in str(error), str(error)
    else:
        raise AssertionError("a hook calling .item() ran under is_grads_batched")


def a_penalty_made_to_require_grad_gives_no_gradient():
    """A gradient penalty built without create_graph: backward() on it raises 'does not require grad';
    after penalty.requires_grad = True it runs, and no parameter of the critic gets a .grad."""
    torch.manual_seed(0)
    critic = nn.Sequential(nn.Linear(2, 4), nn.Tanh(), nn.Linear(4, 1)).double()
    inputs = torch.randn(8, 2, dtype=torch.float64, requires_grad=True)
    (slopes,) = torch.autograd.grad(critic(inputs).sum(), inputs)
    penalty = ((slopes.norm(dim=1) - 1) ** 2).mean()
    try:
        penalty.backward()
    except RuntimeError as error:
        assert "does not require grad" in str(error)
    else:
        raise AssertionError("a penalty without create_graph should have no graph")
    penalty.requires_grad = True
    penalty.backward()
    assert penalty.item() > 0 and all(p.grad is None for p in critic.parameters())


def finite_differences_expose_a_penalty_without_create_graph():
    """A critic loss plus a gradient penalty built without create_graph: its autograd gradient for a
    weight differs from central differences by more than 1e-3 (with create_graph, by less than 1e-6)."""
    torch.manual_seed(0)
    critic = nn.Sequential(nn.Linear(2, 4), nn.Tanh(), nn.Linear(4, 1)).double()
    points = torch.randn(8, 2, dtype=torch.float64)
    weight = critic[0].weight

    def loss(create_graph):
        inputs = points.clone().requires_grad_(True)
        (slopes,) = torch.autograd.grad(critic(inputs).sum(), inputs, create_graph=create_graph)
        return critic(points).mean() + 10 * ((slopes.norm(dim=1) - 1) ** 2).mean()

    numeric, step = torch.empty_like(weight), 1e-6
    flat = weight.detach().view(-1)  # edits the weight's values, unseen by autograd
    for i in range(weight.numel()):
        flat[i] += step
        up = loss(False).item()
        flat[i] -= 2 * step
        down = loss(False).item()
        flat[i] += step
        numeric.view(-1)[i] = (up - down) / (2 * step)
    (without,) = torch.autograd.grad(loss(create_graph=False), weight)
    (with_graph,) = torch.autograd.grad(loss(create_graph=True), weight)
    assert (numeric - without).abs().max() > 1e-3
    assert (numeric - with_graph).abs().max() < 1e-6


def grad_of_a_scaled_loss_stays_scaled():
    """torch.autograd.grad of scaler.scale(scores.sum()) returns the input gradient times the scale
    (65536), and scaler.unscale_(optimizer) divides the parameters' .grad but leaves that tensor alone."""
    torch.manual_seed(0)
    critic = nn.Sequential(nn.Linear(2, 4), nn.Tanh(), nn.Linear(4, 1))
    optimizer = torch.optim.SGD(critic.parameters(), lr=0.1)
    scaler = torch.amp.GradScaler("cpu")
    inputs = torch.randn(8, 2, requires_grad=True)
    scores = critic(inputs)
    (plain,) = torch.autograd.grad(scores.sum(), inputs, retain_graph=True)
    (scaled,) = torch.autograd.grad(scaler.scale(scores.sum()), inputs, create_graph=True)
    assert scaler.get_scale() == 65536.0 and torch.equal(scaled, plain * 65536.0)
    kept = scaled.detach().clone()
    scaler.scale(critic(inputs.detach()).sum()).backward()
    weight_grad = critic[0].weight.grad.clone()
    scaler.unscale_(optimizer)
    assert torch.equal(scaled, kept)  # untouched
    assert torch.allclose(critic[0].weight.grad, weight_grad / 65536.0)  # .grad divided


# DDP models of the workers, never freed: freeing one right after its last all-reduce can deadlock
# against gloo's own thread (seen in accumulation-at-scale's claims on torch 2.13)
_ALIVE = []


def under_ddp_grad_returns_this_processs_gradient():
    """Two gloo ranks, DistributedDataParallel over a weight whose local gradients are 1 and 3: on each
    rank torch.autograd.grad returns that rank's own gradient (1 or 3), while backward() leaves the
    average, 2, in .grad on both. A gradient penalty (input gradient by grad(create_graph=True), then
    backward() on loss plus penalty) leaves in .grad, on both ranks and in two steps, the average of
    the two ranks' local gradients of loss plus penalty."""
    import torch._dynamo  # noqa: F401  DDP() imports it: once here, not in each worker
    context = mp.get_context("fork")
    results = context.Queue()
    folder = tempfile.mkdtemp()
    workers = [context.Process(target=_ddp_worker, daemon=True,
                               args=(rank, os.path.join(folder, "store"), results)) for rank in range(2)]
    try:
        for process in workers:
            process.start()
        found = sorted(results.get(timeout=30) for _ in workers)
        for process in workers:
            process.join(30)
    finally:
        for process in workers:
            if process.is_alive():
                process.terminate()
                process.join(30)
            if process.is_alive():
                process.kill()
                process.join()
        shutil.rmtree(folder, ignore_errors=True)
    assert [entry[:3] for entry in found] == [(0, 1.0, 2.0), (1, 3.0, 2.0)], found
    local = [torch.tensor(entry[3], dtype=torch.float64) for entry in found]
    assert not torch.allclose(local[0], local[1], rtol=1e-3)  # the two ranks' own gradients differ
    for entry in found:
        for step in entry[4]:  # two steps
            assert torch.allclose(torch.tensor(step, dtype=torch.float64), (local[0] + local[1]) / 2,
                                  rtol=1e-12, atol=1e-14), (entry, local)


def _ddp_worker(rank, store_path, results):
    torch.set_num_threads(1)
    os.environ["GLOO_SOCKET_IFNAME"] = "lo"
    dist.init_process_group("gloo", store=dist.FileStore(store_path, 2), rank=rank, world_size=2,
                            timeout=datetime.timedelta(seconds=30))
    try:
        layer = nn.Linear(1, 1, bias=False)
        model = nn.parallel.DistributedDataParallel(layer)
        _ALIVE.append(model)
        inputs = torch.tensor([[1.0 + 2 * rank]])  # gradient 1 on rank 0, 3 on rank 1
        (returned,) = torch.autograd.grad(model(inputs).sum(), layer.weight)
        model(inputs).sum().backward()
        local, averaged = _ddp_penalty(rank)
        results.put((rank, returned.item(), layer.weight.grad.item(), local, averaged))
    finally:
        dist.destroy_process_group()


def _ddp_penalty(rank):
    """This rank's own gradient of loss plus a gradient penalty (no DDP), and the .grad DDP leaves for
    the same step, taken twice."""
    torch.manual_seed(0)
    critic = nn.Sequential(nn.Linear(2, 4), nn.Tanh(), nn.Linear(4, 3)).double()  # no 1-row weight
    torch.manual_seed(rank + 1)
    points = torch.randn(4, 2, dtype=torch.float64, requires_grad=True)

    def loss_and_penalty(module):
        scores = module(points)
        (slope,) = torch.autograd.grad(scores.sum(), points, create_graph=True)
        return scores.mean() + 10 * ((slope.norm(dim=1) - 1) ** 2).mean()

    local = torch.cat([g.flatten() for g in torch.autograd.grad(loss_and_penalty(critic),
                                                                list(critic.parameters()))])
    model = nn.parallel.DistributedDataParallel(critic)
    _ALIVE.append(model)
    averaged = []
    for _ in range(2):
        critic.zero_grad()
        loss_and_penalty(model).backward()
        averaged.append(torch.cat([p.grad.flatten() for p in critic.parameters()]).tolist())
    return local.tolist(), averaged
