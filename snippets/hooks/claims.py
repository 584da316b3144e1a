"""Checks behind hooks' sentences that no output on the page shows (tests/test_claims.py
runs each on every supported torch; {claim}`hooks/<name>` on a page names one)."""

import gc
import warnings
import weakref

import torch
from torch import nn


def a_hook_that_returns_none_changes_nothing():
    """A tensor hook that returns None leaves every gradient as it would be without the hook."""
    x = torch.tensor([1.0, 2.0], requires_grad=True)
    (x * 3).pow(2).sum().backward()
    plain = x.grad.clone()
    x.grad = None
    h = x * 3
    h.register_hook(lambda grad: None)
    x.register_hook(lambda grad: None)
    h.pow(2).sum().backward()
    assert torch.equal(x.grad, plain)


def a_leaf_hook_sees_only_the_new_gradient_and_its_result_is_added():
    """On a leaf whose .grad already holds a gradient, register_hook receives only this backward's
    gradient, and what it returns is added to .grad."""
    x = torch.tensor([1.0, 2.0], requires_grad=True)
    (x * 5).sum().backward()
    seen = []

    def hook(grad):
        seen.append(grad.clone())
        return grad * 2

    x.register_hook(hook)
    (x * 3).sum().backward()
    assert torch.equal(seen[0], torch.tensor([3.0, 3.0]))
    assert torch.equal(x.grad, torch.tensor([11.0, 11.0]))  # 5 + 2 * 3


def a_hook_on_an_intermediate_dies_with_it():
    """A hook registered on an intermediate result, and what its closure holds, are freed with the
    tensor and its graph; a hook on a parameter or a module stays until it is removed."""
    w = nn.Parameter(torch.ones(3))
    captured = torch.ones(1000)
    ref = weakref.ref(captured)
    h = w * 2
    h.register_hook(lambda grad, captured=captured: grad * captured[0])
    h.sum().backward()
    del captured
    gc.collect()
    assert ref() is not None  # the hook on h holds it while h lives
    del h
    gc.collect()
    assert ref() is None

    captured = torch.ones(1000)
    ref = weakref.ref(captured)
    handle = w.register_hook(lambda grad, captured=captured: grad * captured[0])
    del captured
    gc.collect()
    assert ref() is not None
    handle.remove()
    gc.collect()
    assert ref() is None

    layer = nn.Linear(3, 1)
    captured = torch.ones(1000)
    ref = weakref.ref(captured)
    handle = layer.register_forward_hook(lambda m, args, out, captured=captured: None)
    del captured
    layer(torch.ones(2, 3)).sum().backward()
    gc.collect()
    assert ref() is not None
    handle.remove()
    gc.collect()
    assert ref() is None


def a_tensor_hook_fires_once_per_backward_of_a_parameter_used_twice():
    """A parameter used twice in one forward calls its hook once per backward, with the summed gradient."""
    w = nn.Parameter(torch.tensor([1.0]))
    seen = []
    w.register_hook(lambda grad: seen.append(grad.item()))
    (w * 3 + w * 5).sum().backward()
    assert seen == [8.0]


def post_accumulate_hooks_are_for_leaves_and_receive_the_tensor():
    """register_post_accumulate_grad_hook calls its hook with the tensor itself (its .grad already
    updated), and refuses a tensor that is not a leaf with a RuntimeError."""
    p = nn.Parameter(torch.ones(2))
    (p * 2).sum().backward()
    seen = []
    p.register_post_accumulate_grad_hook(lambda t: seen.append((t, t.grad.clone())))
    (p * 3).sum().backward()
    assert seen[0][0] is p and torch.equal(seen[0][1], torch.tensor([5.0, 5.0]))
    try:
        (p * 2).register_post_accumulate_grad_hook(lambda t: None)
    except RuntimeError:
        pass
    else:
        raise AssertionError("a non-leaf accepted a post-accumulate hook")


def full_backward_hook_grad_input_holds_none_for_an_input_without_grad():
    """On a first layer, whose input does not require grad, a full backward hook still fires, once,
    with grad_input (None,). (Whether torch also warns depends on the release: 2.6.0 does not.)"""
    layer = nn.Linear(3, 2)
    seen = []
    layer.register_full_backward_hook(lambda m, grad_in, grad_out: seen.append((grad_in, grad_out[0].shape)))
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")  # some releases warn here, others do not
        layer(torch.randn(4, 3)).sum().backward()
    assert seen == [((None,), torch.Size([4, 2]))]


def a_forward_pre_hook_that_returns_a_tensor_replaces_the_input():
    """A forward pre-hook that returns a single tensor (not a tuple) replaces the module's only input,
    one that returns a tuple replaces all positional inputs, one that returns None leaves them."""
    torch.manual_seed(0)
    layer = nn.Linear(3, 2)
    x = torch.randn(4, 3)
    handle = layer.register_forward_pre_hook(lambda m, args: None)
    assert torch.equal(layer(x), x @ layer.weight.T + layer.bias)
    handle.remove()
    handle = layer.register_forward_pre_hook(lambda m, args: args[0] * 2)
    assert torch.equal(layer(x), layer.forward(x * 2))
    handle.remove()
    bilinear = nn.Bilinear(3, 3, 2)
    handle = bilinear.register_forward_pre_hook(lambda m, args: (args[1], args[0] * 3))
    y = torch.randn(4, 3)
    assert torch.equal(bilinear(x, y), bilinear.forward(y, x * 3))
    handle.remove()


def an_optimizer_in_backward_steps_at_every_backward():
    """With the optimizer stepped in a post-accumulate hook, every backward() is a step: two
    micro-batches give two updates, not one, and .grad never holds their sum."""
    p = nn.Parameter(torch.zeros(1))
    optimizer = torch.optim.SGD([p], lr=1.0)
    seen = []

    def step(t):
        seen.append(t.grad.item())
        optimizer.step()
        optimizer.zero_grad()

    p.register_post_accumulate_grad_hook(step)
    for _ in range(2):
        (p * 1.0).sum().backward()
    assert seen == [1.0, 1.0] and p.item() == -2.0 and p.grad is None


def hooks_on_one_tensor_run_in_the_order_they_were_registered():
    """Several hooks on one tensor, a leaf or an intermediate, run in registration order, each
    receiving what the previous returned."""
    x = torch.tensor([1.0], requires_grad=True)
    order = []
    x.register_hook(lambda grad: order.append(("a", grad.item())) or grad * 2)
    x.register_hook(lambda grad: order.append(("b", grad.item())) or grad + 1)
    x.sum().backward()
    assert order == [("a", 1.0), ("b", 2.0)] and x.grad.item() == 3.0

    x = torch.tensor([1.0], requires_grad=True)
    order = []
    h = x * 1
    h.register_hook(lambda grad: order.append(("a", grad.item())) or grad * 2)
    h.register_hook(lambda grad: order.append(("b", grad.item())) or grad + 1)
    h.sum().backward()
    assert order == [("a", 1.0), ("b", 2.0)] and x.grad.item() == 3.0


def a_hook_on_an_intermediate_sees_what_retain_grad_keeps():
    """A hook on an intermediate result receives the gradient that retain_grad() keeps in its .grad."""
    x = torch.tensor([1.0, 2.0], requires_grad=True)
    h = x * 3
    seen = []
    h.register_hook(lambda grad: seen.append(grad.clone()))
    h.retain_grad()
    h.pow(2).sum().backward()
    assert len(seen) == 1 and torch.equal(seen[0], h.grad) and torch.equal(h.grad, 2 * h.detach())


def a_post_accumulate_hook_must_return_none():
    """A post-accumulate hook cannot replace anything: one that returns a value makes backward raise
    a RuntimeError."""
    p = nn.Parameter(torch.ones(2))
    p.register_post_accumulate_grad_hook(lambda t: t.grad * 2)
    try:
        (p * 2).sum().backward()
    except RuntimeError as error:
        assert "return None" in str(error)
    else:
        raise AssertionError("a post-accumulate hook returned a value without an error")


def a_forward_pre_hook_gets_the_positional_inputs_as_a_tuple():
    """A forward pre-hook receives the positional inputs as a tuple; an input passed by keyword is
    not in it."""
    layer = nn.Linear(3, 2)
    seen = []
    layer.register_forward_pre_hook(lambda m, args: seen.append(args))
    x = torch.ones(1, 3)
    layer(x)
    layer(input=x)
    assert type(seen[0]) is tuple and len(seen[0]) == 1 and seen[0][0] is x
    assert seen[1] == ()


def clipping_each_gradient_in_a_hook_is_not_clip_grad_norm():
    """Clipping each parameter's gradient in its own hook (to a norm of at most 1) gives other
    gradients than clip_grad_norm_(parameters, 1.0), which scales all of them by one common factor."""
    torch.manual_seed(0)
    model = nn.Sequential(nn.Linear(4, 8), nn.Tanh(), nn.Linear(8, 1))
    twin = nn.Sequential(nn.Linear(4, 8), nn.Tanh(), nn.Linear(8, 1))
    twin.load_state_dict(model.state_dict())
    x = torch.randn(16, 4) * 10
    model(x).pow(2).mean().backward()
    unclipped = [p.grad.clone() for p in model.parameters()]
    nn.utils.clip_grad_norm_(model.parameters(), 1.0)
    factors = [(p.grad / g)[g != 0] for p, g in zip(model.parameters(), unclipped)]
    common = factors[0][0]
    assert all(torch.allclose(f, common.expand_as(f)) for f in factors) and common < 1  # one factor for all
    for p in twin.parameters():
        p.register_hook(lambda grad: grad * min(1.0, 1.0 / (grad.norm().item() + 1e-6)))
    twin(x).pow(2).mean().backward()
    assert not all(torch.allclose(a.grad, b.grad) for a, b in zip(model.parameters(), twin.parameters()))
    total = torch.cat([p.grad.flatten() for p in twin.parameters()]).norm().item()
    assert total > 1.0  # each one at most 1, together more than 1
