"""Checks behind no-grad-and-detach's sentences that no output on the page shows (tests/test_claims.py
runs each on every supported torch; {claim}`no-grad-and-detach/<name>` on a page names one)."""

import datetime
import os
import shutil
import tempfile
import traceback
from concurrent.futures import ThreadPoolExecutor

import torch
import torch.distributed as dist
import torch.multiprocessing as mp
from torch import nn


def _saved(fn):
    """Every tensor packed for backward while fn() runs, and fn's result (which keeps them alive)."""
    packed = []

    def pack(tensor):
        packed.append(tensor)
        return tensor.detach()

    with torch.autograd.graph.saved_tensors_hooks(pack, lambda t: t):
        out = fn()
    return packed, out


def _raises(fn, text):
    """True if fn() raises a RuntimeError whose message contains text, False if it runs."""
    try:
        fn()
    except RuntimeError as error:
        assert text in str(error), str(error)
        return True
    return False


def _storages(tensors, leave_out=()):
    """{storage address: bytes} of the distinct storages of tensors, without those in leave_out."""
    return {t.untyped_storage().data_ptr(): t.untyped_storage().nbytes() for t in tensors
            if t.untyped_storage().data_ptr() not in leave_out}


def _nodes(out):
    """Every backward node reachable from out.grad_fn."""
    found, todo = [], [out.grad_fn]
    while todo:
        node = todo.pop()
        if node is not None and node not in found:
            found.append(node)
            todo += [next_node for next_node, _ in node.next_functions]
    return found


def _saved_tensors_of(node):
    """{name: tensor} of the `_saved_*` tensors of a backward node."""
    return {name: getattr(node, name) for name in dir(node)
            if name.startswith("_saved_") and isinstance(getattr(node, name), torch.Tensor)}


def no_grad_yields_to_what_switches_recording_on_inside():
    """Inside `no_grad`, a nested `enable_grad()` records again, and `torch.func.grad` computes a
    gradient; an operation directly inside records nothing."""
    w = torch.tensor([1.0, 2.0, 3.0], requires_grad=True)
    with torch.no_grad():
        assert (w * 2).grad_fn is None
        with torch.enable_grad():
            assert (w * 2).grad_fn is not None
        gradient = torch.func.grad(lambda v: (v * v).sum())(w.detach())
    assert torch.equal(gradient, 2 * w.detach())


def no_grad_keeps_requires_grad_and_version_counting():
    """`no_grad` leaves `requires_grad` of existing tensors as it was, and an in-place edit inside it
    still bumps the tensor's version counter."""
    w = torch.tensor([1.0, 2.0, 3.0], requires_grad=True)
    b = w.sigmoid()
    with torch.no_grad():
        w.mul_(2)
        b.add_(1)
    assert w.requires_grad and b.requires_grad and b.grad_fn is not None
    assert w._version == 1 and b._version == 1


def grad_mode_is_per_thread():
    """`no_grad` entered in one thread does not reach a thread the code starts itself (a
    ThreadPoolExecutor's worker records as usual); `no_grad` entered inside the worker's function
    does. (torch's own parallel_apply, behind nn.DataParallel, carries grad mode into its threads;
    it needs an accelerator, so the page does not speak of it.)"""
    layer = nn.Linear(3, 1)
    x = torch.ones(1, 3)

    def inside():
        with torch.no_grad():
            return layer(x)

    with torch.no_grad(), ThreadPoolExecutor(1) as pool:
        here = layer(x)
        there = pool.submit(layer, x).result()
        there_inside = pool.submit(inside).result()
    assert not here.requires_grad
    assert there.requires_grad and there.grad_fn is not None
    assert not there_inside.requires_grad


def inference_mode_makes_new_tensors_inference_tensors():
    """Inside `inference_mode`, a newly computed tensor is an inference tensor; a view of a normal
    tensor stays normal, and an in-place edit of a normal tensor bumps its version counter."""
    x = torch.ones(4)
    with torch.inference_mode():
        new = x * 2
        view = x[:2]
        x.add_(1)
        assert new.is_inference() and not view.is_inference() and not x.is_inference()
    assert x._version == 1 and view._version == 1


def inference_mode_yields_only_to_inference_mode_false():
    """Unlike `no_grad`, `inference_mode` does not give way to a nested `enable_grad()`: an operation
    on a tensor that requires grad records nothing there; a nested `inference_mode(False)` records
    again. `torch.func.grad` of sum(v*v) at [1, 2, 3] inside it returns zeros, with no error, on torch
    before 2.13 (2.6 is the oldest the book supports), and the right gradient, 2*v, from 2.13 on."""
    w = torch.tensor([1.0, 2.0, 3.0], requires_grad=True)
    with torch.no_grad(), torch.enable_grad():
        assert (w * 2).grad_fn is not None
    with torch.inference_mode():
        with torch.enable_grad():
            y = w * 2
            assert not y.requires_grad and y.grad_fn is None
        with torch.inference_mode(False):
            assert (w * 2).grad_fn is not None
        gradient = torch.func.grad(lambda v: (v * v).sum())(w.detach())
    expected = torch.zeros(3) if torch.__version__ < "2.13" else 2 * w.detach()
    assert torch.equal(gradient, expected), (torch.__version__, gradient)


def torch_func_may_use_inference_tensors():
    """An inference tensor that autograd refuses to save (`feats * w`) is accepted by `torch.func.grad`
    and `torch.func.vjp`, which give the right gradients, as long as ordinary autograd records nothing:
    given an input that requires grad, or a model's parameters as they are, both raise the same error,
    and so does a function of an input that does not require grad which uses a parameter that does
    (the same function with that parameter frozen runs)."""
    message = "Inference tensors cannot be saved for backward"
    torch.manual_seed(0)
    with torch.inference_mode():
        feats = torch.randn(5, 3)
    w = torch.randn(3)
    assert _raises(lambda: feats * w.requires_grad_(), message)
    w = w.detach()
    gradient = torch.func.grad(lambda v: (feats @ v).pow(2).sum())(w)
    assert torch.allclose(gradient, 2 * feats.t() @ (feats @ w))
    _, vjp = torch.func.vjp(lambda v: nn.functional.linear(feats, v.view(1, 3)), w)
    assert torch.allclose(vjp(torch.ones(5, 1))[0], feats.sum(0))
    # the same transforms, with inputs that ordinary autograd records: the error comes back
    trained = w.clone().requires_grad_()
    assert _raises(lambda: torch.func.grad(lambda v: (feats @ v).pow(2).sum())(trained), message)
    assert _raises(lambda: torch.func.vjp(lambda v: nn.functional.linear(feats, v.view(1, 3)), trained), message)
    layer = nn.Linear(3, 1)

    def loss(params):
        return torch.func.functional_call(layer, params, (feats,)).pow(2).sum()

    assert _raises(lambda: torch.func.grad(loss)(dict(layer.named_parameters())), message)
    assert not _raises(lambda: torch.func.grad(loss)({k: v.detach() for k, v in layer.named_parameters()}), message)
    # nothing given requires grad, but the function uses a parameter that does: the error too
    assert _raises(lambda: torch.func.grad(lambda x: layer(x).sum())(feats), message)
    layer.requires_grad_(False)
    assert torch.equal(torch.func.grad(lambda x: layer(x).sum())(feats), layer.weight.expand(5, 3))


def mul_saves_only_what_the_other_gradient_needs():
    """`t * w` with only `w` requiring grad saves `t`, for `w`'s gradient, and not `w`; so an inference `t` raises."""
    w = torch.tensor([1.0, 2.0, 3.0], requires_grad=True)
    t = torch.tensor([8.0, 10.0, 12.0])
    node = (t * w).grad_fn
    assert node._saved_self is not None and torch.equal(node._saved_self, t)
    assert node._saved_other is None  # t needs no gradient, so w is not needed
    with torch.inference_mode():
        made_in_inference = torch.tensor([4.0, 5.0, 6.0]) * 2
    assert _raises(lambda: made_in_inference * w, "Inference tensors cannot be saved for backward")
    assert _raises(lambda: w * made_in_inference, "Inference tensors cannot be saved for backward")


def inference_tensor_fails_only_where_saved():
    """An inference tensor raises only in an operation that saves it: `* w` and a trained Linear do, `* w.detach()` and `+` do not."""
    message = "Inference tensors cannot be saved for backward"
    torch.manual_seed(0)
    w = torch.tensor([1.0, 2.0, 3.0], requires_grad=True)
    with torch.inference_mode():
        made_in_inference = torch.tensor([4.0, 5.0, 6.0]) * 2
        table = torch.randn(10, 3)  # a positional-encoding table, say
        index = torch.tensor([0, 2])  # a precomputed index
    assert _raises(lambda: made_in_inference * w, message)
    assert not _raises(lambda: made_in_inference * w.detach(), message)  # same operation, nothing saved
    embedding = nn.Embedding(5, 3)
    (embedding(torch.tensor([1, 2, 3, 4])) + table[:4]).pow(2).sum().backward()  # added: fine
    assert embedding.weight.grad is not None
    assert _raises(lambda: nn.Linear(3, 2)(table), message)  # saved for the weight's gradient
    assert _raises(lambda: w[index], message)  # indexing saves its index


def detach_then_requires_grad_starts_a_new_leaf():
    """x.detach().requires_grad_() is a leaf that requires grad: a backward through it fills its .grad
    and gives nothing to the graph that made x; it shares x's storage, so an optimizer step on it
    changes x as well, which x.detach().clone().requires_grad_() avoids."""
    w = torch.tensor([1.0, 2.0], requires_grad=True)
    x = w * 2
    leaf = x.detach().requires_grad_()
    assert leaf.is_leaf and leaf.requires_grad and leaf.grad_fn is None
    (leaf**2).sum().backward()
    assert torch.equal(leaf.grad, 2 * leaf.detach()) and w.grad is None
    before = x.detach().clone()
    torch.optim.SGD([leaf], lr=0.1).step()
    assert leaf.data_ptr() == x.data_ptr() and not torch.equal(x.detach(), before) and torch.equal(x, leaf)
    before = x.detach().clone()
    copy = x.detach().clone().requires_grad_()  # with clone(), x stays as it was
    copy.grad = torch.ones(2)
    torch.optim.SGD([copy], lr=0.1).step()
    assert torch.equal(x, before) and not torch.equal(copy.detach(), before)


def detach_snapshot_follows_later_edits():
    """A `detach()` "snapshot" changes when the original is later edited in place; `detach().clone()` does not."""
    b = torch.tensor([1.0, 2.0, 3.0], requires_grad=True).sigmoid()
    snapshot, copy = b.detach(), b.detach().clone()
    with torch.no_grad():
        b.add_(1)
    assert torch.equal(snapshot, b) and not torch.equal(copy, b)



def data_edit_goes_unnoticed_by_backward():
    """`b.data` is off the graph over b's storage, like `b.detach()`, but with a version counter of its
    own: the edit region-and-detach.py makes through d, made through b.data instead, leaves b._version
    at 0, and the backward through sigmoid runs and computes with the edited value; through detach()
    it raises."""
    results = {}
    for way in ("data", "detach"):
        a = torch.tensor([0.0, 1.0, 2.0], requires_grad=True)
        b = a.sigmoid()
        handle = b.data if way == "data" else b.detach()
        assert handle.data_ptr() == b.data_ptr() and not handle.requires_grad
        handle[0] = 10.0
        try:
            b.sum().backward()
            results[way] = (b._version, a.grad.clone(), b.detach().clone())
        except RuntimeError as error:
            results[way] = (b._version, str(error), None)
    version, grad, edited = results["data"]
    assert version == 0 and edited[0] == 10.0
    assert torch.equal(grad, edited * (1 - edited)) and grad[0] == -90.0  # sigmoid' from the edited output
    assert results["detach"][0] == 1 and "modified by an inplace operation" in results["detach"][1]


def a_model_built_under_inference_mode_cannot_be_trained():
    """Parameters created under inference_mode are inference tensors that report requires_grad=True.
    A Linear uses its weight through a view, `weight.t()`, that does not require grad, so the weight
    never enters the graph: a lone Linear on an input that does not require grad runs forward and
    backward, fills only the bias's .grad, then optimizer.step() raises (an in-place update outside
    the block) in the default implementation, not fused, of SGD, Adam and AdamW, and with foreach=True. With the default bias a Linear's output requires grad, so in Linear-ReLU-Linear the
    second Linear must save its weight and the forward fails, even on an input that does not require
    grad; an input that requires grad makes a lone Linear fail the same way. Without biases nothing
    requires grad and backward() raises. A batch norm with its default affine parameters fails in the
    forward in either mode: batch norm saves its weight and running statistics for backward (in eval()
    mode, and in train() mode once its counter is a normal tensor); frozen, it runs. In train() mode it
    fails first at the in-place increment of its counter num_batches_tracked; with a normal counter and
    frozen, it runs and updates the running_mean it was built with in place. A model built under
    no_grad trains normally."""
    saved = "Inference tensors cannot be saved for backward"
    with torch.inference_mode():
        model = nn.Linear(3, 1)
        deeper = nn.Sequential(nn.Linear(3, 4), nn.ReLU(), nn.Linear(4, 1))
        no_bias = nn.Sequential(nn.Linear(3, 4, bias=False), nn.ReLU(), nn.Linear(4, 1, bias=False))
        normed = nn.Sequential(nn.Linear(3, 4), nn.BatchNorm1d(4))
    assert all(p.is_inference() and p.requires_grad for p in model.parameters())
    assert not model.weight.t().requires_grad
    model(torch.ones(2, 3)).sum().backward()  # runs
    assert model.weight.grad is None and model.bias.grad is not None
    for make in (torch.optim.SGD, torch.optim.Adam, torch.optim.AdamW):
        for options in ({}, {"foreach": True}):
            optimizer = make(model.parameters(), lr=0.1, **options)
            assert not optimizer.defaults["fused"]  # the default is not the fused kernel
            assert _raises(optimizer.step, "Inplace update to inference tensor outside InferenceMode")
    assert _raises(lambda: model(torch.ones(2, 3, requires_grad=True)), saved)
    assert deeper[0](torch.ones(2, 3)).requires_grad  # through its bias
    assert _raises(lambda: deeper(torch.ones(2, 3)), saved)
    out = no_bias(torch.ones(2, 3))  # runs
    assert not out.requires_grad
    assert _raises(out.sum().backward, "does not require grad")
    try:
        normed.train()(torch.randn(2, 3))
    except RuntimeError as error:
        assert "Inplace update to inference tensor outside InferenceMode" in str(error), str(error)
        assert "num_batches_tracked.add_(1)" in traceback.extract_tb(error.__traceback__)[-1].line
    else:
        raise AssertionError("a batch norm built under inference_mode ran in train()")
    plain = nn.BatchNorm1d(4).eval()
    packed, _ = _saved(lambda: plain(torch.randn(8, 4)))
    assert all(any(p is t for p in packed) for t in (plain.weight, plain.running_mean, plain.running_var))
    with torch.inference_mode():
        in_eval, in_train, frozen_eval, frozen_train = (nn.BatchNorm1d(4) for _ in range(4))
    assert _raises(lambda: in_eval.eval()(torch.randn(8, 4)), saved)
    in_train.num_batches_tracked = torch.tensor(0)  # a normal counter
    assert _raises(lambda: in_train.train()(torch.randn(8, 4)), saved)
    frozen_eval.requires_grad_(False)
    frozen_eval.eval()(torch.randn(8, 4))  # runs
    frozen_train.requires_grad_(False)
    frozen_train.num_batches_tracked = torch.tensor(0)
    before = frozen_train.running_mean.clone()
    frozen_train.train()(torch.randn(8, 4))  # runs
    assert frozen_train.running_mean.is_inference() and not torch.equal(before, frozen_train.running_mean)
    torch.manual_seed(0)
    with torch.no_grad():
        built = nn.Sequential(nn.Linear(3, 4), nn.ReLU(), nn.Linear(4, 1))
    assert not any(p.is_inference() for p in built.parameters())
    built(torch.ones(2, 3, requires_grad=True)).sum().backward()
    assert all(p.grad is not None for p in built.parameters())
    before = built[2].bias.detach().clone()
    torch.optim.SGD(built.parameters(), lr=0.1).step()
    assert torch.allclose(built[2].bias, before - 0.1 * built[2].bias.grad) and built[2].bias.grad.abs().min() > 0


def only_a_clone_made_outside_inference_mode_is_normal():
    """A clone() of an inference tensor taken inside inference_mode is another inference tensor (a
    product with a tensor that requires grad still fails); taken after the block, it is a normal tensor
    that can be saved for backward, changed in place and made to require grad."""
    w = torch.ones(3, requires_grad=True)
    with torch.inference_mode():
        made = torch.ones(3) * 2
        inside = made.clone()
    outside = made.clone()
    assert inside.is_inference() and not outside.is_inference()
    assert _raises(lambda: inside * w, "Inference tensors cannot be saved for backward")
    (outside * w).sum().backward()
    assert torch.equal(w.grad, outside)
    outside.add_(1)
    outside.requires_grad_()
    assert _raises(lambda: made.add_(1), "Inplace update to inference tensor outside InferenceMode")


# The two MLPs of grad-mode-cost.py: name: width, depth, batch.
_COST_MODELS = {"small": (64, 4, 16), "large": (512, 6, 256)}


def _cost_mlp(width, depth):
    layers = []
    for _ in range(depth):
        layers += [nn.Linear(width, width), nn.ReLU()]
    return nn.Sequential(*layers).eval()


def _allocated():
    """A dispatch mode that adds up the bytes of the new storages the operations below autograd
    create (counter.bytes), and lists those operations (counter.ops)."""
    from torch.utils._python_dispatch import TorchDispatchMode
    from torch.utils._pytree import tree_leaves

    class Allocated(TorchDispatchMode):
        def __init__(self):
            super().__init__()
            self.bytes, self.ops = 0, []

        def __torch_dispatch__(self, func, types, args=(), kwargs=None):
            kwargs = kwargs or {}
            self.ops.append(str(func))
            inputs = {t.untyped_storage().data_ptr() for t in tree_leaves((args, kwargs))
                      if isinstance(t, torch.Tensor)}
            out = func(*args, **kwargs)
            self.bytes += sum(t.untyped_storage().nbytes() for t in tree_leaves(out)
                              if isinstance(t, torch.Tensor) and t.untyped_storage().data_ptr() not in inputs)
            return out

    return Allocated()


def saved_weights_are_the_parameters():
    """In both MLPs of the cost snippet, the weight matrices a recorded forward saves (one per layer
    after the first, whose input needs no gradient) are the parameters' own storage, not copies."""
    torch.manual_seed(0)
    for width, depth, batch in _COST_MODELS.values():
        model = _cost_mlp(width, depth)
        packed, _ = _saved(lambda: model(torch.randn(batch, width)))
        weights = {p.untyped_storage().data_ptr() for name, p in model.named_parameters() if name.endswith("weight")}
        square = [t for t in packed if t.shape == (width, width)]
        assert len(square) == depth - 1, (width, len(square))
        assert all(t.untyped_storage().data_ptr() in weights for t in square)


def recording_allocates_nothing_extra_in_these_mlps():
    """In both MLPs of the cost snippet, a forward with gradients enabled allocates exactly the tensor
    memory a `no_grad` one does: saving copies nothing."""
    torch.manual_seed(0)
    for width, depth, batch in _COST_MODELS.values():
        model, x = _cost_mlp(width, depth), torch.randn(batch, width)
        allocated = {}
        for name, mode in (("grad", torch.enable_grad), ("no_grad", torch.no_grad)):
            with mode(), _allocated() as counter:
                out = model(x)
            allocated[name] = counter.bytes
            del out
        assert allocated["grad"] == allocated["no_grad"] > 0, (width, allocated)


def in_place_mul_copies_the_value_it_overwrites_when_recording():
    """`y.mul_(w)` with `w` requiring grad: w's gradient needs y's old value, which the operation
    overwrites, so with gradients enabled autograd copies it first (a clone of y's size) and under
    `no_grad` nothing new is allocated."""
    w = torch.randn(1000, requires_grad=True)
    allocated = {}
    for name, mode in (("grad", torch.enable_grad), ("no_grad", torch.no_grad)):
        y = torch.randn(1000)
        with mode(), _allocated() as counter:
            y.mul_(w)
        allocated[name] = (counter.bytes, [op for op in counter.ops if "clone" in op])
    assert allocated["grad"][0] == y.untyped_storage().nbytes() and allocated["grad"][1], allocated
    assert allocated["no_grad"] == (0, []), allocated


def transformer_layer_takes_a_fused_path_under_no_grad():
    """In eval() mode under no_grad, an nn.TransformerEncoderLayer built with batch_first=True runs
    one fused operation (its fast path), and dozens of others with gradients enabled; built with the
    default batch_first=False, it does not take that path. What decides is whether anything needs
    recording: with gradients enabled, the layer with every parameter frozen takes the path too,
    unless its input requires grad. The path has other conditions: under no_grad, a layer with an odd
    number of heads (1 or 5), or with an activation other than relu or gelu (a lambda, nn.Tanh()), does
    not take it; relu and gelu take it, named by a string, as F.relu/F.gelu or as nn.ReLU()/nn.GELU()."""
    torch.manual_seed(0)
    ops = {}
    for batch_first in (True, False):
        encoder = nn.TransformerEncoderLayer(128, 4, 512, batch_first=batch_first).eval()
        x = torch.randn(8, 64, 128)
        for mode in (torch.enable_grad, torch.no_grad):
            with mode(), _allocated() as counter:
                encoder(x)
            ops[batch_first, mode] = counter.ops
    frozen = nn.TransformerEncoderLayer(128, 4, 512, batch_first=True).eval().requires_grad_(False)
    for name, inputs in (("frozen", x), ("frozen, input requires grad", x.clone().requires_grad_())):
        with torch.enable_grad(), _allocated() as counter:
            frozen(inputs)
        ops[name] = counter.ops
    fused = {key: any("_transformer_encoder_layer_fwd" in op for op in found) for key, found in ops.items()}
    assert len(ops[True, torch.no_grad]) == 1 and fused[True, torch.no_grad], ops[True, torch.no_grad]
    assert len(ops[True, torch.enable_grad]) >= 24 and not fused[True, torch.enable_grad]
    assert not fused[False, torch.no_grad] and len(ops[False, torch.no_grad]) >= 24, ops[False, torch.no_grad]
    assert len(ops["frozen"]) == 1 and fused["frozen"], ops["frozen"]
    assert not fused["frozen, input requires grad"] and len(ops["frozen, input requires grad"]) >= 24
    # Other conditions of the path, under no_grad too: an even number of heads, relu or gelu.
    for width, heads, activation, takes_it in ((128, 4, "gelu", True), (128, 4, nn.functional.relu, True),
                                               (128, 4, nn.functional.gelu, True), (128, 4, nn.ReLU(), True),
                                               (128, 4, nn.GELU(), True), (128, 1, "relu", False),
                                               (120, 5, "relu", False), (128, 4, lambda t: t.relu(), False),
                                               (128, 4, nn.Tanh(), False)):
        layer = nn.TransformerEncoderLayer(width, heads, 512, activation=activation, batch_first=True).eval()
        inputs = torch.randn(8, 64, width)
        with torch.no_grad(), _allocated() as counter:
            layer(inputs)
        found = any("_transformer_encoder_layer_fwd" in op for op in counter.ops)
        assert found == takes_it and (len(counter.ops) == 1) == takes_it, (heads, activation, counter.ops)


def seq_fixed_part_is_mostly_saved_weights():
    """At the sequence snippet's batch of 8, what the LSTM and the Transformer layer save has a part that does not grow with length, and the parameters they reference are most of it."""
    torch.manual_seed(0)
    models = {"lstm": (nn.LSTM(64, 128, batch_first=True).eval(), 64),
              "transformer": (nn.TransformerEncoderLayer(128, 4, 512, batch_first=True).eval(), 128)}
    for model, features in models.values():
        params = {p.untyped_storage().data_ptr() for p in model.parameters()}

        def saved_bytes(length):
            packed, out = _saved(lambda: model(torch.randn(8, length, features)))
            storages = _storages(packed)
            return sum(storages.values()), sum(n for address, n in storages.items() if address in params)

        (short, weights), (long, _) = saved_bytes(64), saved_bytes(128)
        fixed = short - (long - short)  # total = fixed + per_length * length
        assert weights > 0 and 0.8 * fixed <= weights <= 1.01 * fixed, (weights, fixed)


def flash_attention_saves_no_length_squared_tensor():
    """The default Transformer layer on CPU saves query, key, value, output and one statistic per row, no length x length tensor; with `SDPBackend.MATH` it saves one."""
    from torch.nn.attention import SDPBackend, sdpa_kernel

    torch.manual_seed(0)
    encoder = nn.TransformerEncoderLayer(128, 4, 512, batch_first=True).eval()
    batch, length, heads = 2, 96, 4

    def has_square(packed):
        return any(t.dim() >= 2 and t.shape[-2:] == (length, length) for t in packed)

    packed, out = _saved(lambda: encoder(torch.randn(batch, length, 128)))
    assert not has_square(packed)
    attention = [node for node in _nodes(out) if "FlashAttention" in node.name()]
    assert len(attention) == 1
    saved = {name.removeprefix("_saved_"): tuple(getattr(attention[0], name).shape) for name in dir(attention[0])
             if name.startswith("_saved_") and isinstance(getattr(attention[0], name), torch.Tensor)}
    per_head = (batch, heads, length, 128 // heads)
    assert saved == {"query": per_head, "key": per_head, "value": per_head, "output": per_head,
                     "logsumexp": (batch, heads, length)}, saved
    with sdpa_kernel(SDPBackend.MATH):
        packed, _ = _saved(lambda: encoder(torch.randn(batch, length, 128)))
    assert has_square(packed)


def eval_graph_is_input_and_two_relu_outputs():
    """Apart from the parameters, one forward of the evaluation-loop model saves its input and the two ReLU outputs."""
    torch.manual_seed(0)
    model = nn.Sequential(nn.Linear(256, 1024), nn.ReLU(), nn.Linear(1024, 1024), nn.ReLU(),
                          nn.Linear(1024, 10)).eval()
    x = torch.randn(128, 256)
    packed, out = _saved(lambda: model(x))
    storages = _storages(packed, leave_out={p.untyped_storage().data_ptr() for p in model.parameters()})
    assert x.untyped_storage().data_ptr() in storages
    relu_outputs = {node._saved_result.untyped_storage().data_ptr() for node in _nodes(out)
                    if node.name() == "ReluBackward0"}
    assert len(relu_outputs) == 2 and relu_outputs < storages.keys()
    assert sorted(storages.values()) == sorted([128 * 256 * 4, 128 * 1024 * 4, 128 * 1024 * 4])


def frozen_body_still_saves_its_weight_not_its_input():
    """A Linear frozen with `requires_grad_(False)`, between trained layers, saves its weight (the parameter itself) but not its input."""
    torch.manual_seed(0)
    embed, body = nn.Linear(8, 16), nn.Linear(16, 16)
    body.requires_grad_(False)
    h = body(embed(torch.randn(4, 8)).relu())
    node = h.grad_fn
    assert node.name() == "AddmmBackward0"
    assert node._saved_mat1 is None  # no weight gradient, so the input is not needed
    assert node._saved_mat2.untyped_storage().data_ptr() == body.weight.untyped_storage().data_ptr()


def first_layers_frozen_both_ways_same_gradients():
    """In a plain chain of layers, freezing the first layers with `requires_grad_(False)` or cutting
    with `detach()` after them gives the same gradients."""
    def make():
        torch.manual_seed(0)
        return nn.Sequential(nn.Linear(6, 16), nn.Tanh(), nn.Linear(16, 16), nn.Tanh(), nn.Linear(16, 1))

    torch.manual_seed(1)
    x = torch.randn(8, 6)
    for k in (1, 2, 3):
        frozen, cut = make(), make()
        frozen[:k].requires_grad_(False)
        frozen(x).sum().backward()
        cut[k:](cut[:k](x).detach()).sum().backward()
        for p, q in zip(frozen.parameters(), cut.parameters()):
            assert (p.grad is None and q.grad is None) or torch.equal(p.grad, q.grad)


def detach_way_still_records_the_frozen_layers():
    """With an input that does not require grad, the first layers frozen with `requires_grad_(False)`
    record nothing (their output has no grad_fn) and the forward saves fewer tensors; cut with
    `detach()` after them, they record a graph and save tensors for it that no backward reaches."""
    def make():
        torch.manual_seed(0)
        return nn.Sequential(nn.Linear(6, 16), nn.Tanh(), nn.Linear(16, 16), nn.Tanh(), nn.Linear(16, 1))

    torch.manual_seed(1)
    x = torch.randn(8, 6)
    for k in (1, 2, 3):
        frozen, cut = make(), make()
        frozen[:k].requires_grad_(False)
        assert frozen[:k](x).grad_fn is None and cut[:k](x).grad_fn is not None
        packed_frozen, _ = _saved(lambda: frozen(x))
        packed_cut, _ = _saved(lambda: cut[k:](cut[:k](x).detach()))
        assert len(packed_cut) > len(packed_frozen), (k, len(packed_cut), len(packed_frozen))


class _TiedModel(nn.Module):
    """An embedding, a Linear, and an output layer that reuses the embedding's weight."""

    def __init__(self, cut):
        super().__init__()
        torch.manual_seed(0)
        self.embed, self.body, self.cut = nn.Embedding(10, 16), nn.Linear(16, 16), cut

    def forward(self, tokens):
        h = self.embed(tokens)
        if self.cut:
            h = h.detach()
        return self.body(h).tanh() @ self.embed.weight.t()


def a_tied_weight_still_learns_after_a_detach():
    """With the embedding tied to the output layer, `detach()` after the embedding leaves its weight
    a gradient through the output layer; `requires_grad_(False)` on the embedding leaves it none."""
    tokens = torch.tensor([[1, 2, 3, 4]])
    frozen, cut = _TiedModel(cut=False), _TiedModel(cut=True)
    frozen.embed.requires_grad_(False)
    for model in (frozen, cut):
        model(tokens).sum().backward()
    assert frozen.embed.weight.grad is None
    assert cut.embed.weight.grad is not None and cut.embed.weight.grad.abs().sum() > 0


def detach_cuts_one_path_not_a_residual_around_it():
    """`detach()` on body's output freezes embed when every path goes through body; with a residual
    connection around body, embed still gets a gradient and only body gets none."""
    for residual in (False, True):
        torch.manual_seed(0)
        embed, body, head = nn.Linear(8, 16), nn.Linear(16, 16), nn.Linear(16, 1)
        e = embed(torch.randn(4, 8)).relu()
        h = body(e).relu().detach()
        head(h + e if residual else h).sum().backward()
        assert body.weight.grad is None and head.weight.grad is not None
        assert (embed.weight.grad is not None) == residual


def frozen_batch_norm_still_updates_its_running_stats():
    """`requires_grad_(False)` leaves batch norm's running statistics (buffers) updating in `train()`
    mode; `.eval()` on the layer stops that, and `model.train()` sets it back to training."""
    torch.manual_seed(0)
    model = nn.Sequential(nn.Linear(4, 8), nn.BatchNorm1d(8), nn.ReLU(), nn.Linear(8, 1))
    model[:2].requires_grad_(False)
    batch_norm = model[1]
    before = batch_norm.running_mean.clone()
    model(torch.randn(16, 4) + 3)
    assert not torch.equal(before, batch_norm.running_mean)  # frozen, yet it moved
    batch_norm.eval()
    before = batch_norm.running_mean.clone()
    model(torch.randn(16, 4) + 3)
    assert torch.equal(before, batch_norm.running_mean)
    model.train()
    assert batch_norm.training


def optimizers_skip_parameters_whose_grad_is_none():
    """SGD (momentum, weight decay), Adam and AdamW leave a parameter whose `.grad` is None untouched and keep no state for it."""
    for make in (lambda ps: torch.optim.SGD(ps, lr=0.1, momentum=0.9, weight_decay=0.1),
                 lambda ps: torch.optim.Adam(ps, lr=0.1, weight_decay=0.1),
                 lambda ps: torch.optim.AdamW(ps, lr=0.1, weight_decay=0.1)):
        skipped, used = nn.Parameter(torch.ones(3)), nn.Parameter(torch.ones(3))
        optimizer = make([skipped, used])
        used.grad = torch.ones(3)
        for _ in range(3):
            optimizer.step()
        assert torch.equal(skipped, torch.ones(3)) and skipped not in optimizer.state
        assert not torch.equal(used, torch.ones(3))


def a_view_taken_under_no_grad_still_requires_grad():
    """A view of a tensor that requires grad, taken inside `no_grad`, reports requires_grad=True with no
    grad_fn; editing it in place inside the block is allowed, after the block it raises."""
    w = torch.tensor([1.0, 2.0, 3.0], requires_grad=True)
    with torch.no_grad():
        view = w[:2]
        assert not (w * 2).requires_grad
        assert view.requires_grad and view.grad_fn is None
        view.mul_(2)
    assert _raises(lambda: view.mul_(2), "A view was created in no_grad mode and is being modified inplace")


def set_grad_enabled_follows_its_flag():
    """torch.set_grad_enabled(flag) as a context records when flag is true and nothing when it is
    false (so one loop serves training and evaluation), and leaves the module's train()/eval() mode as
    it was: each flag is tried on a model in the opposite mode."""
    model = nn.Sequential(nn.Linear(3, 4), nn.Dropout(0.5), nn.Linear(4, 1))
    for training in (True, False):
        model.train(not training)
        with torch.set_grad_enabled(training):
            out = model(torch.ones(2, 3))
            assert model.training is not training and model[1].training is not training
        assert out.requires_grad == training and (out.grad_fn is not None) == training
        assert model.training is not training and model[1].training is not training


def dropout_mask_is_saved_only_in_train_mode():
    """With gradients enabled, `train()` saves one tensor more than `eval()`, and it is dropout's mask
    (only zeros and 1/(1-p), the shape of dropout's input); batch norm saves as many tensors in both
    modes; under `no_grad` neither mode saves anything."""
    torch.manual_seed(0)
    p = 0.5
    model = nn.Sequential(nn.Linear(8, 16), nn.BatchNorm1d(16), nn.ReLU(), nn.Dropout(p), nn.Linear(16, 1))
    x = torch.randn(32, 8)
    counts, norm_saved = {}, {}
    for train in (True, False):
        model.train(train)
        packed, out = _saved(lambda: model(x))
        counts[train] = len(packed)
        nodes = _nodes(out)
        norm = [n for n in nodes if n.name() == "NativeBatchNormBackward0"]
        assert len(norm) == 1
        norm_saved[train] = _saved_tensors_of(norm[0])
        dropout = [n for n in nodes if "Dropout" in n.name() or n.name() == "MulBackward0"]
        assert len(dropout) == (1 if train else 0), [n.name() for n in nodes]
        if train:
            masks = [t for t in _saved_tensors_of(dropout[0]).values() if t.shape == (32, 16)]
            assert len(masks) == 1, _saved_tensors_of(dropout[0]).keys()
            assert set(masks[0].unique().tolist()) == {0.0, 1 / (1 - p)}
        with torch.no_grad():
            packed, _ = _saved(lambda: model(x))
        assert packed == []
    assert norm_saved[True].keys() == norm_saved[False].keys()
    assert counts[True] == counts[False] + 1


def batch_norm_running_stats_matter_in_eval_only():
    """Forwards in `train()` mode under `no_grad` change batch norm's running statistics, which change `eval()` outputs and not `train()` ones."""
    torch.manual_seed(0)
    bn, x = nn.BatchNorm1d(4), torch.randn(8, 4)
    before_train = bn(x).detach()
    bn.eval()
    before_eval = bn(x).detach()
    bn.train()
    with torch.no_grad():
        for _ in range(5):
            bn(torch.randn(8, 4) * 5 + 3)  # "validation" without eval()
    assert torch.equal(bn(x), before_train)
    bn.eval()
    assert not torch.allclose(bn(x), before_eval)


def new_optimizer_over_frozen_zero_grads_still_decays():
    """A new AdamW that still holds a frozen parameter whose `.grad` is zeros decays it; with `.grad` None it does not."""
    torch.manual_seed(0)
    frozen, trained = nn.Parameter(torch.randn(4)), nn.Parameter(torch.randn(4))
    frozen.requires_grad_(False)
    frozen.grad = torch.zeros(4)  # what zero_grad(set_to_none=False) leaves behind
    optimizer = torch.optim.AdamW([frozen, trained], lr=0.01, weight_decay=0.1)  # new: no old state
    trained.grad = torch.ones(4)
    before = frozen.detach().clone()
    optimizer.step()
    assert not torch.equal(frozen, before)
    frozen.grad = None
    before = frozen.detach().clone()
    optimizer.step()
    assert torch.equal(frozen, before)


def a_state_carried_without_detach_chains_the_batches():
    """An LSTM whose state is carried to the next batch: without `detach()`, the second batch's
    `backward()` reaches into the first batch's graph, already freed by the first backward, and raises;
    with the state detached between batches, every backward runs."""
    torch.manual_seed(0)
    lstm = nn.LSTM(4, 8, batch_first=True)
    batches = [torch.randn(2, 5, 4) for _ in range(3)]
    for detach in (False, True):
        state, failed = None, []
        for x in batches:
            out, state = lstm(x, state)
            failed.append(_raises(lambda: out.sum().backward(), "backward through the graph a second time"))
            if detach:
                state = tuple(s.detach() for s in state)
        assert failed == ([False, False, False] if detach else [False, True, True]), (detach, failed)


# DDP models of the workers, never freed: freeing one right after its last all-reduce can deadlock
# against gloo's own thread (seen in accumulation-at-scale's claims on torch 2.13)
_ALIVE = []
_DDP_WAYS = ("wrapped again", "find_unused_parameters", "frozen after wrapping", "frozen after wrapping, two buckets")


def under_ddp_freezing_after_wrapping_breaks_the_average():
    """Two gloo ranks, DistributedDataParallel with its default settings over Linear-ReLU-Linear, the
    first Linear frozen after one step: if the model was wrapped before freezing, the next backward
    leaves each rank its own gradient of every trained weight, not the average, and the next forward
    with gradients enabled raises (a no_grad forward in between runs). The same holds for a wider
    Linear-ReLU-Linear-ReLU-Linear whose gradients fill two buckets (DDP's first bucket holds 1 MiB),
    one of them without a frozen parameter. Wrapped again after freezing, or built with
    find_unused_parameters=True, the gradient is the average and training goes on."""
    import torch._dynamo  # noqa: F401  DDP() imports it: once here, not in each worker
    context = mp.get_context("fork")
    results = context.Queue()
    folder = tempfile.mkdtemp()
    workers = [context.Process(target=_freezing_worker, daemon=True,
                               args=(rank, os.path.join(folder, "store"), results)) for rank in range(2)]
    try:
        for process in workers:
            process.start()
        found = dict(results.get(timeout=60) for _ in workers)
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
    for way in _DDP_WAYS:
        (local0, grad0, next0), (local1, grad1, next1) = (
            ([torch.tensor(t) for t in local], [torch.tensor(t) for t in grad], after)
            for local, grad, _, after in (found[0][way], found[1][way]))
        assert len(local0) == (2 if way.endswith("two buckets") else 1), way
        assert not any(torch.allclose(a, b) for a, b in zip(local0, local1))  # the ranks see different data
        assert found[0][way][2] == found[1][way][2] == "ran", (way, found[0][way][2])  # no_grad pass
        if way.startswith("frozen after wrapping"):  # each rank its own, in every bucket
            assert all(torch.equal(g, t) for g, t in zip(grad0 + grad1, local0 + local1)), way
            assert all("Expected to have finished reduction in the prior iteration" in after
                       for after in (next0, next1)), (next0, next1)
        else:
            for g0, g1, t0, t1 in zip(grad0, grad1, local0, local1):
                average = (t0 + t1) / 2
                assert torch.allclose(g0, average) and torch.allclose(g1, average), way
            assert next0 == next1 == "ran", (way, next0)


def _freezing_worker(rank, store_path, results):
    torch.set_num_threads(1)
    os.environ["GLOO_SOCKET_IFNAME"] = "lo"
    dist.init_process_group("gloo", store=dist.FileStore(store_path, 2), rank=rank, world_size=2,
                            timeout=datetime.timedelta(seconds=30))
    try:
        found = {}
        for way in _DDP_WAYS:
            torch.manual_seed(0)
            if way.endswith("two buckets"):  # 1 MiB fills up at the middle weight: a second bucket for net[0]
                net = nn.Sequential(nn.Linear(4, 512), nn.ReLU(), nn.Linear(512, 512), nn.ReLU(), nn.Linear(512, 1))
            else:
                net = nn.Sequential(nn.Linear(4, 8), nn.ReLU(), nn.Linear(8, 1))
            model = nn.parallel.DistributedDataParallel(net, find_unused_parameters=way == "find_unused_parameters")
            _ALIVE.append(model)
            torch.manual_seed(10 + rank)  # each rank its own data
            x = torch.randn(2, 4)
            model(x).sum().backward()  # one step with every parameter trained
            net[0].requires_grad_(False)
            if way == "wrapped again":
                model = nn.parallel.DistributedDataParallel(net)
                _ALIVE.append(model)
            net.zero_grad()
            model(x).sum().backward()
            trained = [net[i].weight for i in range(2, len(net), 2)]
            grad = [w.grad.tolist() for w in trained]  # lists: tensors in the queue would need the worker alive
            local = [t.tolist() for t in torch.autograd.grad(net(x).sum(), trained)]  # this rank's own gradients
            try:
                with torch.no_grad():
                    model(x)  # an evaluation pass
                evaluated = "ran"
            except RuntimeError as error:
                evaluated = str(error)
            try:
                out = model(x)  # the next forward with gradients enabled
                after = "ran"
            except RuntimeError as error:
                after = str(error)
            else:
                out.sum().backward()
            found[way] = (local, grad, evaluated, after)
        results.put((rank, found))
    finally:
        dist.destroy_process_group()
