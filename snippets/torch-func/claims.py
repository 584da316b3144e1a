"""Checks behind torch-func's sentences that no output on the page shows (tests/test_claims.py
runs each on every supported torch; {claim}`torch-func/<name>` on a page names one)."""

import warnings

import torch
from torch import nn
from torch.func import functional_call, grad, hessian, jacfwd, jacrev, vjp, vmap


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
    """torch.func.grad needs f to return a 0-dim tensor: a one-element tensor of shape (1,), which
    backward() accepts, raises."""
    x = torch.ones(3)
    assert grad(lambda t: (t**2).sum())(x).shape == (3,)
    _raises(grad(lambda t: (t**2).sum(0, keepdim=True)), x)
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


def vjp_runs_the_forward_once_and_its_function_can_be_called_again():
    """torch.func.vjp(f, x) calls f once; the vjp_fn it returns can be called many times (one
    backward pass each), with any v of the output's shape."""
    calls = []

    def f(x):
        calls.append(1)
        return torch.stack([x[0] * x[1], x[1] ** 2])
    out, vjp_fn = vjp(f, torch.tensor([1.0, 2.0]))
    first, second = vjp_fn(torch.tensor([1.0, 0.0]))[0], vjp_fn(torch.tensor([0.0, 1.0]))[0]
    assert len(calls) == 1
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
    """Calling .backward() inside a function that torch.func.grad transforms raises a RuntimeError."""
    def f(t):
        (t**2).sum().backward()
        return t.sum()
    _raises(grad(f), torch.ones(2))


def item_inside_vmap_raises():
    """Calling .item() inside a function that vmap maps raises a RuntimeError."""
    _raises(vmap(lambda t: t.sum().item()), torch.ones(3, 2))


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


def batchnorm_in_training_mode_raises_under_grad():
    """A model with BatchNorm1d in training mode raises inside torch.func.grad, already without vmap: the
    error names an in-place operation on a captured tensor (its buffers are updated in place); in eval()
    mode vmap(grad(...)) works."""
    model = _small_model(nn.BatchNorm1d(4))
    params = {name: p.detach() for name, p in model.named_parameters()}
    x, y = torch.randn(5, 4), torch.randn(5, 1)

    def batch_loss(params):
        return ((functional_call(model, params, (x,)) - y) ** 2).mean()
    assert "in-place" in _raises(grad(batch_loss), params)
    per_sample = vmap(grad(_loss_of_one(model)), in_dims=(None, 0, 0))
    assert "in-place" in _raises(per_sample, params, x, y)
    model.eval()
    assert per_sample(params, x, y)["0.weight"].shape == (5, 4, 4)


def jacfwd_counts_fewer_flops_for_few_inputs_and_jacrev_for_few_outputs():
    """Counted with FlopCounterMode on a two-layer f, jacfwd does less than a tenth of jacrev's
    matrix-multiply work with 8 inputs and 512 outputs, and jacrev less than a tenth of jacfwd's with
    512 inputs and 8 outputs."""
    from torch.utils.flop_counter import FlopCounterMode

    def flops(transform, n_in, n_out):
        generator = torch.Generator().manual_seed(0)
        w1, w2 = torch.randn(n_in, 32, generator=generator), torch.randn(32, n_out, generator=generator)
        with FlopCounterMode(display=False) as counter:
            transform(lambda x: (torch.tanh(x[None] @ w1) @ w2)[0])(torch.ones(n_in))
        return counter.get_total_flops()
    assert 10 * flops(jacfwd, 8, 512) < flops(jacrev, 8, 512)
    assert 10 * flops(jacrev, 512, 8) < flops(jacfwd, 512, 8)


def flop_counter_counts_matrix_products_not_elementwise_ops():
    """FlopCounterMode counts 2·m·k·n for an (m, k) @ (k, n) matrix product, and nothing for elementwise
    operations such as tanh, multiplication or exp."""
    from torch.utils.flop_counter import FlopCounterMode

    a, b = torch.ones(3, 4), torch.ones(4, 5)
    with FlopCounterMode(display=False) as counter:
        a @ b
    assert counter.get_total_flops() == 2 * 3 * 4 * 5
    with FlopCounterMode(display=False) as counter:
        torch.tanh(a), a * 2, a.exp()
    assert counter.get_total_flops() == 0


def backward_with_create_graph_leaves_a_differentiable_grad():
    """After backward(create_graph=True), a leaf's .grad has a grad_fn and can be differentiated:
    3x² at 3 is 27, and its derivative 6x is 18."""
    x = torch.tensor(3.0, requires_grad=True)
    with warnings.catch_warnings():  # newer torch warns of the .grad <-> graph reference cycle
        warnings.simplefilter("ignore")
        (x**3).backward(create_graph=True)
    first = x.grad
    assert first.item() == 27.0 and first.grad_fn is not None
    (second,) = torch.autograd.grad(first, x)
    assert second.item() == 18.0


def vmap_runs_the_model_once_for_the_whole_batch():
    """vmap(grad(loss of one sample)) calls the model's forward once for a whole batch (a forward
    pre-hook fires once), where a loop calls it once per sample."""
    model = _small_model()
    runs = []
    model.register_forward_pre_hook(lambda module, args: runs.append(1))
    params = {name: p.detach() for name, p in model.named_parameters()}
    vmap(grad(_loss_of_one(model)), in_dims=(None, 0, 0))(params, torch.randn(6, 4), torch.randn(6, 1))
    assert len(runs) == 1
