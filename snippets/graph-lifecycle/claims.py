"""Checks behind graph-lifecycle's sentences that no output on the page shows (tests/test_claims.py
runs each on every supported torch; {claim}`graph-lifecycle/<name>` on a page names one)."""

import math
import subprocess
import sys
import warnings
import weakref

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


def an_edge_names_which_input_of_the_next_node_the_gradient_enters():
    """The number in an edge (node, number) is which input of that node the gradient enters, that
    is, which output of the forward operation produced the tensor: 0 for single-output operations,
    1 for the second chunk of a split, although SplitBackward0 has a single edge out (one output)
    and takes two gradients in, the one along that edge in slot 1."""
    x = torch.randn(4, requires_grad=True)
    first, second = (x * 1).split(2)
    doubled_first, doubled_second = first * 2, second * 2
    (edge_first,), (edge_second,) = (doubled_first.grad_fn.next_functions[:1],
                                     doubled_second.grad_fn.next_functions[:1])
    assert edge_first[1] == 0 and edge_second[1] == 1
    split = edge_first[0]
    assert split is edge_second[0] and split.name().startswith("Split")
    assert len(split.next_functions) == 1  # one output: edge number 1 is no output of this node
    entered = []
    split.register_prehook(lambda grads: entered.append(grads))
    doubled_second.sum().backward()
    (grads,) = entered
    assert len(grads) == 2 and grads[0] is None and torch.equal(grads[1], torch.full((2,), 2.0))
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


def eval_mode_does_not_stop_recording():
    """A model switched to evaluation mode by model.eval() (its dropout now the identity) still
    records: its output requires grad and has a grad_fn."""
    torch.manual_seed(0)
    model = nn.Sequential(nn.Linear(3, 2), nn.Dropout(0.5))
    x = torch.randn(4, 3)
    model.eval()
    out = model(x)
    assert not model.training and not model[1].training
    assert torch.equal(out, model[0](x))  # evaluation behaviour: dropout passes its input through
    assert out.requires_grad and out.grad_fn is not None


def autograd_grad_returns_the_gradient_and_leaves_grad_alone():
    """torch.autograd.grad(loss, b) returns d loss / d b and adds nothing to b.grad: a .grad that
    held a value keeps it (the same tensor), one that was None stays None; backward() on the same
    loss would have added to it."""
    for held in (None, torch.tensor([5.0])):
        b = torch.tensor([3.0], requires_grad=True)
        b.grad = held
        loss = (b * b).sum()
        (gradient,) = torch.autograd.grad(loss, b, retain_graph=True)
        assert torch.equal(gradient, torch.tensor([6.0]))
        assert b.grad is held and (held is None or torch.equal(held, torch.tensor([5.0])))
        loss.backward()
        assert torch.equal(b.grad, torch.tensor([6.0]) if held is None else torch.tensor([11.0]))


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


def a_frozen_first_layer_keeps_its_output_off_the_graph_while_the_input_needs_no_grad():
    """With the first Linear frozen and an input that requires no grad, the frozen layer's output is
    not on the graph (no grad_fn); from the first layer whose parameters require grad onwards, every
    result computed from its output is, while a side branch computed from the input alone
    (x.mean()) is not. Once the input requires grad, the frozen layer's output is on the graph."""
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
    x.requires_grad_()  # an input that wants a gradient (a saliency map, an adversarial example)
    assert first(x).requires_grad and first(x).grad_fn is not None


def a_compiled_function_without_graph_breaks_is_one_node_on_the_graph():
    """The result of a function without graph breaks compiled by torch.compile (backend aot_eager,
    which leaves out inductor's code generation) has one node, CompiledFunctionBackward, whose only
    edge leads to the input's AccumulateGrad, where the same function run eagerly records
    MulBackward0, ExpBackward0 and SumBackward0; backward through that node gives the eager
    gradient. A graph break in the middle of the function splits it into two such nodes. An output
    that is only a view of the input gets an ordinary ViewBackward0 leading to the input's
    AccumulateGrad, while the other output of the same function hangs on CompiledFunctionBackward.
    An output that is only a view of another output (y.view(-1), y[0] of a returned y = x * 2) gets
    an ordinary ViewBackward0 or SelectBackward0 whose edge leads to y's CompiledFunctionBackward.
    Two outputs that are views of one intermediate the function does not return (y.view(-1), y.t()
    of y = x * 2) get an ordinary ViewBackward0 and TBackward0, each leading to a
    CompiledFunctionBackward, while a single view of an intermediate ((x * 2).view(-1)) hangs on
    CompiledFunctionBackward itself: a view output can, not must, get a view node. An input that
    the function modifies in place and returns (a compiled nn.ReLU(inplace=True) on x * 1) comes back
    as the same tensor, hanging on CopyBackwards, one of whose edges leads to a
    CompiledFunctionBackward."""
    def f(x):
        return (x * 3).exp().sum()

    x = torch.tensor([1.0, 2.0], requires_grad=True)
    out = torch.compile(f, backend="aot_eager")(x)
    assert out.grad_fn.name() == "CompiledFunctionBackward"
    assert [(node.name(), number) for node, number in out.grad_fn.next_functions] == [
        ("torch::autograd::AccumulateGrad", 0)]
    assert out.grad_fn.next_functions[0][0].variable is x
    eager = f(x)
    assert [eager.grad_fn.name(), eager.grad_fn.next_functions[0][0].name(),
            eager.grad_fn.next_functions[0][0].next_functions[0][0].name()] == [
        "SumBackward0", "ExpBackward0", "MulBackward0"]
    out.backward()
    assert torch.allclose(x.grad, 3 * (3 * x.detach()).exp())

    def broken(x):
        y = (x * 3).exp()
        torch._dynamo.graph_break()
        return (y * 2).sum()

    with warnings.catch_warnings():  # dynamo reads .grad of y, a non-leaf, when the second piece starts
        warnings.simplefilter("ignore", UserWarning)
        out = torch.compile(broken, backend="aot_eager")(x)
    assert out.grad_fn.name() == "CompiledFunctionBackward"
    (upstream, _), = out.grad_fn.next_functions
    assert upstream.name() == "CompiledFunctionBackward"
    assert [node.name() for node, _ in upstream.next_functions] == ["torch::autograd::AccumulateGrad"]

    view, computed = torch.compile(lambda x: (x.view(2, 1), f(x)), backend="aot_eager")(x)
    assert [view.grad_fn.name(), computed.grad_fn.name()] == ["ViewBackward0", "CompiledFunctionBackward"]
    assert [node.name() for node, _ in view.grad_fn.next_functions] == ["torch::autograd::AccumulateGrad"]

    def with_views_of_an_output(x):
        y = x * 2
        return y, y.view(-1), y[0]

    h = x * 1
    with warnings.catch_warnings():  # dynamo reads .grad of each input, a non-leaf in both calls
        warnings.simplefilter("ignore", UserWarning)
        y, flat, first = torch.compile(with_views_of_an_output, backend="aot_eager")(x.view(1, 2))
        out = torch.compile(nn.ReLU(inplace=True), backend="aot_eager")(h)
    assert [y.grad_fn.name(), flat.grad_fn.name(), first.grad_fn.name()] == [
        "CompiledFunctionBackward", "ViewBackward0", "SelectBackward0"]
    assert [node for view in (flat, first) for node, _ in view.grad_fn.next_functions] == [y.grad_fn, y.grad_fn]
    assert out is h and out.grad_fn.name() == "torch::autograd::CopyBackwards"
    assert "CompiledFunctionBackward" in [node.name() for node, _ in out.grad_fn.next_functions]

    def two_views(x):
        y = x * 2
        return y.view(-1), y.t()

    x = torch.ones(2, 3, requires_grad=True)
    outs = torch.compile(two_views, backend="aot_eager")(x)
    assert [o.grad_fn.name() for o in outs] == ["ViewBackward0", "TBackward0"]
    assert [node.name() for o in outs for node, _ in o.grad_fn.next_functions] == [
        "CompiledFunctionBackward", "CompiledFunctionBackward"]
    single = torch.compile(lambda x: (x * 2).view(-1), backend="aot_eager")(x)
    assert single.grad_fn.name() == "CompiledFunctionBackward"


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


def _storage_alive(tensor):
    """A weak reference to tensor's storage: it answers None once the memory has gone back to the
    allocator (torch keeps one Python object per live storage, so the reference follows it)."""
    return weakref.ref(tensor.untyped_storage())


def freeing_returns_memory_only_of_a_tensor_nothing_else_holds():
    """In the drawing's graph, (x * 3 * w).exp().sum(), backward releases the storage of exp's
    output, which only the graph held; the storage of the leaf a, saved by (a * a).sum() and still
    held by the code, stays."""
    x = torch.tensor([2.0, 3.0], requires_grad=True)
    w = torch.tensor([0.5, -1.0], requires_grad=True)
    e = (x * 3 * w).exp()  # ExpBackward0 saves this output
    exp_output = _storage_alive(e)
    loss = e.sum()
    del e  # now only the graph holds it, as in loss = (x * 3 * w).exp().sum()
    assert exp_output() is not None
    loss.backward()
    assert exp_output() is None

    a = torch.tensor([3.0], requires_grad=True)
    leaf = _storage_alive(a)
    (a * a).sum().backward()
    assert leaf() is not None and a.item() == 3.0


def a_saved_tensor_lives_as_long_as_its_node_can_be_reached():
    """Without backward, a saved tensor (exp's output) lives as long as its node can be reached: from
    a tensor computed through it (a running total `total = total + loss` keeps every step's, until
    the total goes; `total += loss.item()`, a float, keeps neither nodes nor saved tensors beyond the
    last step's, held by the variable loss), or from a grad_fn kept when no tensor is (the node itself, or the loss's). In a training
    loop, where each step's loss.backward() and optimizer step run, the running total keeps every
    step's node (ExpBackward0) but none of their saved tensors, which each backward freed."""
    w = torch.ones(2, requires_grad=True)

    def step():
        e = (w * 3).exp()
        return e.sum(), _storage_alive(e)

    total, saved = 0, []
    for _ in range(3):
        loss, alive = step()
        saved.append(alive)
        total = total + loss
    del loss
    assert all(alive() is not None for alive in saved)
    del total
    assert all(alive() is None for alive in saved)

    total, saved = 0.0, []
    for _ in range(3):
        loss, alive = step()
        saved.append(alive)
        total += loss.item()
    assert type(total) is float  # holds no node; and no backward ran, so the freed tensors' nodes went
    assert [alive() is not None for alive in saved] == [False, False, True]  # the last loss is still held
    del loss
    assert saved[-1]() is None

    optimizer, total, saved = torch.optim.SGD([w], lr=0.1), 0, []
    for _ in range(3):
        loss, alive = step()
        saved.append(alive)
        optimizer.zero_grad()
        loss.backward()
        optimizer.step()
        total = total + loss
    del loss
    assert all(alive() is None for alive in saved)
    assert [node.name() for node in _graph(total)].count("ExpBackward0") == 3

    for kept in ("the exp node", "loss.grad_fn"):
        loss, alive = step()
        node = loss.grad_fn if kept == "loss.grad_fn" else loss.grad_fn.next_functions[0][0]
        del loss  # no tensor computed through the node is left
        assert alive() is not None, f"{kept} kept, yet the saved tensor went"
        del node
        assert alive() is None


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


def _graph(tensor):
    """Every node reachable from tensor.grad_fn, once."""
    nodes, todo = set(), [tensor.grad_fn]
    while todo:
        node = todo.pop()
        if node is not None and node not in nodes:
            nodes.add(node)
            todo += [parent for parent, _ in node.next_functions]
    return nodes


def _nodes(tensor):
    return len(_graph(tensor))


def _saved_tensor_names(node):
    """The _saved_* attributes of node that hold a tensor (or a list of tensors)."""
    names = []
    for name in dir(node):
        if name.startswith("_saved_"):
            value = getattr(node, name)
            if isinstance(value, torch.Tensor) or (
                    isinstance(value, (list, tuple)) and any(isinstance(v, torch.Tensor) for v in value)):
                names.append(name)
    return names


def retain_graph_on_a_running_total_hides_the_error_and_adds_old_gradients():
    """With backward(retain_graph=True) on the running total of three steps' (w * w).sum() at w = 1,
    and no optimizer step in between, no error is raised, but w.grad is 12 (each step's backward also runs through every earlier step's
    loss: 2 + 4 + 6) where a backward on each step's loss gives 6, and the total's graph gains nodes
    every step."""
    w = torch.ones(1, requires_grad=True)
    total, sizes = 0, []
    for _ in range(3):
        total = total + (w * w).sum()
        total.backward(retain_graph=True)
        sizes.append(_nodes(total))
    assert w.grad.item() == 12.0
    assert sizes[0] < sizes[1] < sizes[2]

    w = torch.ones(1, requires_grad=True)
    for _ in range(3):
        (w * w).sum().backward()
    assert w.grad.item() == 6.0


def optimizer_zero_grad_sets_grad_to_none_by_default():
    """optimizer.zero_grad() without arguments leaves .grad None (set_to_none=False would leave
    zeros), for SGD and Adam."""
    for optimizer in (torch.optim.SGD, torch.optim.Adam):
        w = torch.ones(1, requires_grad=True)
        (w * w).sum().backward()
        assert w.grad is not None
        optimizer([w], lr=0.1).zero_grad()
        assert w.grad is None, optimizer
        (w * w).sum().backward()
        optimizer([w], lr=0.1).zero_grad(set_to_none=False)
        assert w.grad is not None and w.grad.item() == 0.0, optimizer


def the_last_backward_without_retain_graph_frees_the_saved_tensors():
    """A backward(retain_graph=True) frees nothing, however many of them run (four here, each
    adding its gradient); a last backward() without it frees the saved tensor."""
    b = torch.tensor([3.0], requires_grad=True)
    loss = (b * b).sum()
    mul = loss.grad_fn.next_functions[0][0]
    for calls in range(1, 5):
        loss.backward(retain_graph=True)
        assert mul._saved_self is b and b.grad.item() == calls * 6.0
    loss.backward()
    assert not _saved_tensor_alive(mul, "_saved_self") and b.grad.item() == 30.0


def _two_squares():
    """loss = (a * a).sum() + (b * b).sum(), with the MulBackward0 node of each square."""
    a = torch.tensor([3.0], requires_grad=True)
    b = torch.tensor([4.0], requires_grad=True)
    loss = (a * a).sum() + (b * b).sum()
    add = loss.grad_fn
    mul_a, mul_b = (add.next_functions[i][0].next_functions[0][0] for i in (0, 1))
    return a, b, loss, mul_a, mul_b


def a_pass_frees_only_the_nodes_it_runs():
    """backward(inputs=[a]) and torch.autograd.grad(loss, a) run only the nodes on the way to a: they
    free a's MulBackward0 saved tensors and leave b's, so a later default pass towards b succeeds
    (the nodes both passes run, AddBackward0 and SumBackward0, saved no tensor), while a pass towards
    a again fails with "a second time". With an exp applied to the whole sum, which both passes run
    and which saved its result, the pass towards b fails too; and so it does when the sum is cloned
    and written into in place through a view (t[0] = 0.0): both passes then run SumBackward0,
    CopySlices, CloneBackward0 and AddBackward0, none of which saved a tensor."""
    for first_pass in ("backward(inputs=...)", "autograd.grad"):
        a, b, loss, mul_a, mul_b = _two_squares()
        if first_pass == "autograd.grad":
            assert torch.autograd.grad(loss, a)[0].item() == 6.0
        else:
            loss.backward(inputs=[a])
            assert a.grad.item() == 6.0 and b.grad is None
        assert not _saved_tensor_alive(mul_a, "_saved_self")
        assert mul_b._saved_self is b
        assert torch.autograd.grad(loss, b)[0].item() == 8.0  # the second pass, without retain_graph
        try:
            torch.autograd.grad(loss, a)
        except RuntimeError as error:
            assert "a second time" in str(error)
        else:
            raise AssertionError(f"after {first_pass}, a second pass towards a did not fail")

    a, b, loss, _, _ = _two_squares()
    loss = loss.exp()  # a node above the branch point that saves a tensor
    loss.backward(inputs=[a])
    try:
        torch.autograd.grad(loss, b)
    except RuntimeError as error:
        assert "a second time" in str(error)
    else:
        raise AssertionError("a pass towards b through the freed ExpBackward0 did not fail")

    a = torch.tensor([3.0, 3.0], requires_grad=True)
    b = torch.tensor([4.0, 4.0], requires_grad=True)
    t = (a * a + b * b).clone()
    t[0] = 0.0  # an in-place write through a view: records CopySlices
    loss = t.sum()
    shared = [node for node in _graph(loss) if node.name() in (
        "SumBackward0", "torch::autograd::CopySlices", "CloneBackward0", "AddBackward0")]
    assert len(shared) == 4 and not [name for node in shared for name in _saved_tensor_names(node)]
    loss.backward(inputs=[a])
    assert a.grad.tolist() == [0.0, 6.0]
    try:
        torch.autograd.grad(loss, b)
    except RuntimeError as error:
        assert "a second time" in str(error)
    else:
        raise AssertionError("a pass towards b through the CopySlices the first pass ran did not fail")


def create_graph_keeps_the_saved_tensors_unless_retain_graph_is_false():
    """backward(create_graph=True) frees no saved tensor, so a plain backward() after it succeeds;
    with create_graph=True and retain_graph=False the saved tensor is freed."""
    c = torch.tensor([3.0], requires_grad=True)
    loss = (c * c).sum()
    mul = loss.grad_fn.next_functions[0][0]
    with warnings.catch_warnings():  # the reference-cycle warning: see the check below
        warnings.simplefilter("ignore")
        loss.backward(create_graph=True)
    assert mul._saved_self is c
    loss.backward()
    assert c.grad.item() == 12.0
    c.grad = None

    c = torch.tensor([3.0], requires_grad=True)
    loss = (c * c).sum()
    mul = loss.grad_fn.next_functions[0][0]
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        loss.backward(create_graph=True, retain_graph=False)
    assert not _saved_tensor_alive(mul, "_saved_self")
    c.grad = None


# In a fresh interpreter: how many reference-cycle warnings torch.autograd.grad(create_graph=True),
# then one backward(create_graph=True), then two more, give.
_CYCLE_WARNINGS = """
import warnings, torch
def count(run):
    with warnings.catch_warnings(record=True) as seen:
        warnings.simplefilter("always")
        run()
    return sum("create_graph=True will create a reference cycle between the parameter and its gradient"
               in str(warning.message) for warning in seen)
c = torch.tensor([3.0], requires_grad=True)
print(count(lambda: torch.autograd.grad((c * c).sum(), c, create_graph=True)),
      count(lambda: (c * 3).sum().backward(create_graph=True)),  # linear in c: the first to warn
      c.grad.grad_fn is None,
      count(lambda: [(c * c).sum().backward(create_graph=True) for _ in range(2)]),
      c.grad.grad_fn is not None)
"""


def a_grad_made_with_create_graph_keeps_tensors_alive_until_it_is_reset():
    """backward(create_graph=True) warns, once per process, of a reference cycle between the parameter
    and its gradient (torch.autograd.grad with create_graph=True does not), even for a loss linear in
    the parameter ((c * 3).sum()), whose .grad then has no grad_fn; for (c * c).sum() or the exp
    below, .grad holds a graph that leads back to the parameter, which keeps the output of an exp of
    the first graph alive after the loss has gone, until .grad is set to None."""
    c = torch.tensor([3.0, 1.0], requires_grad=True)
    e = (c * 2).exp()
    exp_output = _storage_alive(e)
    loss = e.sum()
    del e
    with warnings.catch_warnings():  # given once per process: a fresh interpreter shows it below
        warnings.simplefilter("ignore")
        loss.backward(create_graph=True)
    assert c.grad.grad_fn is not None
    del loss
    assert exp_output() is not None
    c.grad = None
    assert exp_output() is None
    fresh = subprocess.run([sys.executable, "-c", _CYCLE_WARNINGS], capture_output=True, text=True, check=True)
    assert fresh.stdout.split() == ["0", "1", "True", "0", "True"], fresh.stdout + fresh.stderr


def a_second_pass_fails_once_it_runs_a_node_whose_saved_tensors_were_freed():
    """Without retain_graph, graphs that saved no tensor (w.sum(), (w + 1).sum()) take five backward
    calls without error; graphs that saved one ((w * 2).sum(), (w * w).sum()) fail at the second
    with "a second time"; on a graph with two branches, a second pass fails only if it goes through
    the branch the first pass ran; and a second pass towards the bias alone of a linear layer on a
    2-D input, whose gradient does not need the tensor its single AddmmBackward0 node saved (the
    input), fails all the same. (On a transposed 3-D input, linear records
    MmBackward0 and AddBackward0 instead, and a second pass towards the bias alone succeeds.)
    One built-in node fails a second pass though no node on the graph saved a tensor: CopySlices,
    which an in-place write through a view records (y = w.clone(); y[0] = 0.0, or y[0].add_(1));
    the same graph with an in-place write not through a view (y.add_(1)) has no CopySlices and
    takes a second pass."""
    for forward, saves in [(lambda w: w.sum(), False), (lambda w: (w + 1).sum(), False),
                           (lambda w: (w * 2).sum(), True), (lambda w: (w * w).sum(), True)]:
        w = torch.tensor([1.0], requires_grad=True)
        out = forward(w)
        failed_at = None
        for call in range(1, 6):
            try:
                out.backward()
            except RuntimeError as error:
                assert "a second time" in str(error)
                failed_at = call
                break
        assert failed_at == (2 if saves else None)

    for second, fails in (("a", True), ("b", False)):
        a, b, loss, _, _ = _two_squares()
        loss.backward(inputs=[a])
        try:
            loss.backward(inputs=[a if second == "a" else b])
        except RuntimeError as error:
            assert fails and "a second time" in str(error)
        else:
            assert not fails

    torch.manual_seed(0)
    linear = nn.Linear(3, 1)
    x = torch.randn(2, 3)
    loss = linear(x).sum()
    addmm = loss.grad_fn.next_functions[0][0]
    assert addmm.name() == "AddmmBackward0"
    assert torch.equal(addmm._saved_mat1, x)  # the input, which the weight's gradient needs
    loss.backward()
    try:
        loss.backward(inputs=[linear.bias])
    except RuntimeError as error:
        assert "a second time" in str(error)
    else:
        raise AssertionError("a pass towards the bias alone, through AddmmBackward0, did not fail")

    loss = linear(torch.randn(2, 3, 5).transpose(1, 2)).sum()
    assert "AddmmBackward0" not in [node.name() for node in _graph(loss)]
    loss.backward()
    loss.backward(inputs=[linear.bias])  # no node on the way to the bias saved a tensor

    for edit, through_a_view in [(lambda y: y.__setitem__(0, 0.0), True),
                                 (lambda y: y[0].add_(1), True), (lambda y: y.add_(1), False)]:
        w = torch.ones(3, requires_grad=True)
        y = w.clone()
        edit(y)
        out = y.sum()
        graph = _graph(out)
        assert not [name for node in graph for name in _saved_tensor_names(node)]
        assert ("torch::autograd::CopySlices" in [node.name() for node in graph]) == through_a_view
        assert _second_pass_fails(out) == through_a_view


class _Twice(torch.autograd.Function):
    """y = 2x; forward saves nothing, backward reads ctx.saved_tensors (an empty tuple) all the same."""

    @staticmethod
    def forward(ctx, x):
        ctx.save_for_backward()
        return x * 2

    @staticmethod
    def backward(ctx, grad):
        () = ctx.saved_tensors
        return grad * 2


class _TwiceUnread(torch.autograd.Function):
    """The same, with a backward that does not read ctx.saved_tensors."""

    @staticmethod
    def forward(ctx, x):
        ctx.save_for_backward()
        return x * 2

    @staticmethod
    def backward(ctx, grad):
        return grad * 2


class _SquareOnAttribute(torch.autograd.Function):
    """y = x * x with x kept as a plain attribute of ctx, not with save_for_backward."""

    @staticmethod
    def forward(ctx, x):
        ctx.x = x
        return x * x

    @staticmethod
    def backward(ctx, grad):
        return grad * 2 * ctx.x


def _second_pass_fails(out):
    """Two backward() calls on out without retain_graph: True if the second raises "a second time"."""
    out.backward()
    try:
        out.backward()
    except RuntimeError as error:
        assert "a second time" in str(error)
        return True
    return False


def a_custom_function_whose_backward_reads_saved_tensors_fails_a_second_pass():
    """A custom Function that saved nothing fails a second pass if its backward reads ctx.saved_tensors,
    and not if it does not; one that kept its input as an attribute of ctx (ctx.x = x), never freed,
    completes a second pass, the gradient accumulating. torch.compile's node is a custom Function
    (backend aot_eager): the compiled w.sum(), which saved no tensor, fails a second pass, where the
    same sum run eagerly does not; a compiled w.view(2, 1), only a view of its input, gets an ordinary
    ViewBackward0 and completes a second pass."""
    w = torch.ones(2, requires_grad=True)
    out = _Twice.apply(w)
    assert out.grad_fn.saved_tensors == ()
    assert _second_pass_fails(out.sum())
    assert not _second_pass_fails(_TwiceUnread.apply(w).sum())
    w = torch.ones(2, requires_grad=True)
    assert not _second_pass_fails(_SquareOnAttribute.apply(w).sum()) and w.grad.tolist() == [4.0, 4.0]

    compiled = torch.compile(lambda w: w.sum(), backend="aot_eager")(w)
    assert issubclass(compiled.grad_fn._forward_cls, torch.autograd.Function)
    assert compiled.grad_fn.saved_tensors == ()
    assert _second_pass_fails(compiled)
    assert not _second_pass_fails(w.sum())
    view = torch.compile(lambda w: w.view(2, 1), backend="aot_eager")(w)
    assert view.grad_fn.name() == "ViewBackward0"
    assert not _second_pass_fails(view.sum())


def an_optimizer_step_fails_a_retained_old_graph_unless_it_is_fused():
    """In a training loop (zero_grad, backward(retain_graph=True), step), a running total of
    (w * w).sum(), whose graphs saved w, fails within three steps with SGD or Adam stepping in a
    for-loop (their default on the CPU) or with foreach=True, and so does the RNN cell carried
    without detach(), whose later steps' graphs saved its weights: the step changed a saved parameter
    in place, and backward raises "modified by an inplace operation". A running total of a Linear on
    inputs that need no grad, whose graphs saved no parameter, runs three steps without error. With
    fused=True (SGD, Adam) the step moves w but leaves its version counter alone: the running total
    runs three steps without error, and after step k w.grad is (k + 1) * 2w at the new w: every old
    graph adds its gradient again from what it saved, here w itself, so from the new values. A
    running total of w.exp().sum(), whose graphs saved exp's output, adds the old values instead:
    after step k w.grad is the sum of exp(w) over the values w had at steps 0..k, not (k + 1) * exp(w)
    at the new w."""
    def train(parameters, next_loss, optimizer=torch.optim.SGD, grads=None, **options):
        """The step at which backward raised "modified by an inplace operation", or None; each
        step's w.grad is appended to grads, with the w it was computed at."""
        optimizer = optimizer(parameters, lr=0.1, **options)
        for step in range(3):
            loss = next_loss()
            optimizer.zero_grad()
            try:
                loss.backward(retain_graph=True)
            except RuntimeError as error:
                assert "modified by an inplace operation" in str(error), error
                return step
            if grads is not None:
                grads.append((parameters[0].grad.item(), parameters[0].item()))
            optimizer.step()
        return None

    w, total = torch.ones(1, requires_grad=True), [0]

    def running_total(loss):
        total[0] = total[0] + loss
        return total[0]

    def square_total():
        return running_total((w * w).sum())

    for optimizer, options in [(torch.optim.SGD, {}), (torch.optim.SGD, {"foreach": True}),
                               (torch.optim.Adam, {}), (torch.optim.Adam, {"foreach": True})]:
        w, total[0] = torch.ones(1, requires_grad=True), 0
        assert train([w], square_total, optimizer, **options) is not None, (optimizer, options)

    torch.manual_seed(0)
    cell, hidden = nn.RNNCell(3, 4), [torch.zeros(1, 4)]

    def rnn_step():
        hidden[0] = cell(torch.randn(1, 3), hidden[0])
        return hidden[0].sum()

    assert train(list(cell.parameters()), rnn_step) is not None

    linear, total[0] = nn.Linear(3, 1), 0
    assert train(list(linear.parameters()), lambda: running_total(linear(torch.randn(2, 3)).sum())) is None

    for optimizer in (torch.optim.SGD, torch.optim.Adam):
        w, total[0], grads = torch.ones(1, requires_grad=True), 0, []
        assert train([w], square_total, optimizer, grads, fused=True) is None, optimizer
        assert w._version == 0 and w.item() != 1.0, (optimizer, w._version, w.item())
        assert all(math.isclose(grad, (k + 1) * 2 * at, rel_tol=1e-5) for k, (grad, at) in enumerate(grads)), grads

        w, total[0], grads = torch.ones(1, requires_grad=True), 0, []
        assert train([w], lambda: running_total(w.exp().sum()), optimizer, grads, fused=True) is None, optimizer
        old = [at for _, at in grads]
        assert all(math.isclose(grad, sum(math.exp(v) for v in old[:k + 1]), rel_tol=1e-5)
                   for k, (grad, _) in enumerate(grads)), grads
        assert not any(math.isclose(grad, (k + 1) * math.exp(at), rel_tol=1e-3)
                       for k, (grad, at) in enumerate(grads) if k), grads
