"""Checks behind graph-lifecycle's sentences that no output on the page shows (tests/test_claims.py
runs each on every supported torch; {claim}`graph-lifecycle/<name>` on a page names one)."""

import warnings

import torch
import torch.nn.functional as F
from torch import nn


def _grad_quietly(tensor):
    """tensor.grad without the warning a non-leaf gives."""
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        return tensor.grad


def _saved_tensor_alive(node, attribute):
    try:
        getattr(node, attribute)
    except RuntimeError:  # "... after they have already been freed"
        return False
    return True


def only_the_leaf_that_requires_grad_gets_a_grad():
    """After backward, x (a leaf that requires grad) has a .grad; the constant leaf c and the
    intermediate y = x * c have none."""
    x = torch.tensor([2.0], requires_grad=True)
    c = torch.tensor([5.0])
    y = x * c
    y.sum().backward()
    assert x.grad is not None and torch.equal(x.grad, c)
    assert c.grad is None and _grad_quietly(y) is None


def an_edge_names_which_output_of_the_upstream_node_it_comes_from():
    """The number in an edge (node, number) is the output of the upstream node the edge comes from:
    0 for single-output operations, 1 for the second chunk of a split."""
    x = torch.randn(4, requires_grad=True)
    first, second = (x * 1).split(2)
    (edge_first,), (edge_second,) = ((first * 2).grad_fn.next_functions[:1],
                                     (second * 2).grad_fn.next_functions[:1])
    assert edge_first[1] == 0 and edge_second[1] == 1
    assert edge_first[0] is edge_second[0] and edge_first[0].name().startswith("Split")
    assert all(number == 0 for _, number in (x * 2).exp().grad_fn.next_functions)


def _grad_mode_off():
    """no_grad and its kin, each as a function called where its block is entered
    (set_grad_enabled(False) switches recording off as soon as it is called)."""
    return {"no_grad": torch.no_grad, "inference_mode": torch.inference_mode,
            "set_grad_enabled(False)": lambda: torch.set_grad_enabled(False)}


def comparisons_argmax_casts_and_no_grad_leave_no_grad_fn():
    """x requires grad, yet a comparison, argmax, a cast to an integer type, and x * 2 under
    torch.no_grad(), torch.inference_mode() or torch.set_grad_enabled(False) all give results that
    do not require grad and have no grad_fn."""
    x = torch.tensor([1.0, -2.0, 3.0], requires_grad=True)
    unrecorded = []
    for mode in _grad_mode_off().values():
        with mode():
            unrecorded.append(x * 2)
    for result in (x > 0, x.argmax(), x.long(), *unrecorded):
        assert not result.requires_grad and result.grad_fn is None
    assert (x * 2).grad_fn is not None  # the same operation, outside no_grad, is recorded


def requires_grad_of_a_differentiable_result_is_an_or_of_its_inputs():
    """Outside no_grad and its kin, for addition, multiplication, matmul, cat, where and linear alike,
    the result requires grad exactly when at least one input does; under no_grad, inference_mode or
    set_grad_enabled(False) it never does."""
    operations = {
        "add": lambda a, b: a + b,
        "mul": lambda a, b: a * b,
        "matmul": lambda a, b: a @ b.T,
        "cat": lambda a, b: torch.cat([a, b]),
        "where": lambda a, b: torch.where(a > 1.5, a, b),
        "linear": lambda a, b: F.linear(a, b),
    }
    for name, operation in operations.items():
        for a_grad in (False, True):
            for b_grad in (False, True):
                a = torch.tensor([[1.0, 2.0]], requires_grad=a_grad)
                b = torch.tensor([[3.0, 4.0]], requires_grad=b_grad)
                assert operation(a, b).requires_grad == (a_grad or b_grad), (name, a_grad, b_grad)
                for mode_name, mode in _grad_mode_off().items():
                    with mode():
                        assert not operation(a, b).requires_grad, (name, mode_name)


def a_frozen_first_layer_keeps_its_output_off_the_graph():
    """With the first Linear frozen, its output is not on the graph (no grad_fn); from the first
    layer whose parameters require grad onwards, every result computed from its output is, while a
    side branch computed from the input alone (x.mean()) is not."""
    torch.manual_seed(0)
    first, second, third = nn.Linear(3, 4), nn.Linear(4, 4), nn.Linear(4, 1)
    first.requires_grad_(False)
    x = torch.randn(2, 3)
    h1 = first(x)
    assert not h1.requires_grad and h1.grad_fn is None
    h2 = second(h1)
    h3 = torch.relu(h2)
    out = third(h3)
    loss = out.square().mean()
    assert all(t.requires_grad and t.grad_fn is not None for t in (h2, h3, out, loss))
    side = x.mean()  # computed from the input alone, as a skip connection or a mask might be
    assert not side.requires_grad and side.grad_fn is None
    assert (out + side).grad_fn is not None


def backward_frees_each_node_saved_tensors_once_that_node_has_run():
    """Freeing happens node by node during backward: when the gradient reaches m = a * a, the
    ExpBackward0 node above it has already freed its saved result, and m's MulBackward0 node,
    not run yet, still holds its saved input."""
    a = torch.tensor([1.0, 2.0], requires_grad=True)
    m = a * a
    e = m.exp()
    seen = {}

    def hook(grad):  # runs after ExpBackward0, before MulBackward0
        seen["exp"] = _saved_tensor_alive(e.grad_fn, "_saved_result")
        seen["mul"] = _saved_tensor_alive(m.grad_fn, "_saved_self")

    m.register_hook(hook)
    e.sum().backward()
    assert seen == {"exp": False, "mul": True}
    assert not _saved_tensor_alive(m.grad_fn, "_saved_self")  # and freed once it has run


def the_saved_tensor_is_the_leaf_itself():
    """Before backward, the MulBackward0 node of a * a returns the leaf a itself as _saved_self."""
    a = torch.tensor([3.0], requires_grad=True)
    mul = (a * a).sum().grad_fn.next_functions[0][0]
    assert mul._saved_self is a


def carrying_the_previous_step_graph_fails_the_second_backward():
    """Calling backward() every step on a running total `total = total + loss`, or on an RNN output
    whose hidden state was carried over without detach(), fails at the second step with "a second
    time". Adding each loss into a total but calling backward() on the loss alone does not."""
    w = torch.ones(1, requires_grad=True)
    total, raised = 0, []
    for step in range(3):
        total = total + (w * w).sum()
        try:
            total.backward()
        except RuntimeError as error:
            raised.append((step, "a second time" in str(error)))
            break
    assert raised == [(1, True)]

    torch.manual_seed(0)
    cell, hidden, raised = nn.RNNCell(3, 4), torch.zeros(1, 4), []
    for step in range(3):
        hidden = cell(torch.randn(1, 3), hidden)  # still hangs on the previous step's graph
        try:
            hidden.sum().backward()
        except RuntimeError as error:
            raised.append((step, "a second time" in str(error)))
            break
    assert raised == [(1, True)]

    w, total = torch.ones(1, requires_grad=True), 0
    for _ in range(3):
        loss = (w * w).sum()
        total += loss  # a growing chain of AddBackward0 nodes, on which backward() is never called
        loss.backward()
    assert total.grad_fn is not None and w.grad.item() == 6.0


def the_last_backward_without_retain_graph_frees_the_saved_tensors():
    """After backward(retain_graph=True) the saved tensor is still there; a last backward() without
    it frees the saved tensor."""
    b = torch.tensor([3.0], requires_grad=True)
    loss = (b * b).sum()
    mul = loss.grad_fn.next_functions[0][0]
    loss.backward(retain_graph=True)
    assert mul._saved_self is b
    loss.backward()
    assert not _saved_tensor_alive(mul, "_saved_self")
