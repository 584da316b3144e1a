"""Checks behind no-grad-and-detach's sentences that no output on the page shows (tests/test_claims.py
runs each on every supported torch; {claim}`no-grad-and-detach/<name>` on a page names one)."""

import torch
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


def detach_snapshot_follows_later_edits():
    """A `detach()` "snapshot" changes when the original is later edited in place; `detach().clone()` does not."""
    b = torch.tensor([1.0, 2.0, 3.0], requires_grad=True).sigmoid()
    snapshot, copy = b.detach(), b.detach().clone()
    with torch.no_grad():
        b.add_(1)
    assert torch.equal(snapshot, b) and not torch.equal(copy, b)


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


def transformer_layer_takes_a_fused_path_under_no_grad():
    """In eval() mode under no_grad, nn.TransformerEncoderLayer runs one fused operation (its fast
    path); with gradients enabled it runs dozens of other operations instead."""
    torch.manual_seed(0)
    encoder = nn.TransformerEncoderLayer(128, 4, 512, batch_first=True).eval()
    x = torch.randn(8, 64, 128)
    ops = {}
    for name, mode in (("grad", torch.enable_grad), ("no_grad", torch.no_grad)):
        with mode(), _allocated() as counter:
            encoder(x)
        ops[name] = counter.ops
    assert len(ops["no_grad"]) == 1 and "_transformer_encoder_layer_fwd" in ops["no_grad"][0], ops["no_grad"]
    assert len(ops["grad"]) >= 24 and not any("_transformer_encoder_layer_fwd" in op for op in ops["grad"])


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
    """Freezing the first layers with `requires_grad_(False)` or cutting with `detach()` after them gives the same gradients."""
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


def dropout_mask_is_saved_only_in_train_mode():
    """With gradients enabled, `train()` saves one tensor more than `eval()` (dropout's mask); under `no_grad` neither saves anything."""
    torch.manual_seed(0)
    model = nn.Sequential(nn.Linear(8, 16), nn.BatchNorm1d(16), nn.ReLU(), nn.Dropout(0.5), nn.Linear(16, 1))
    x = torch.randn(32, 8)
    counts = {}
    for train in (True, False):
        model.train(train)
        packed, out = _saved(lambda: model(x))
        counts[train] = len(packed)
        dropout_nodes = [n for n in _nodes(out) if "Dropout" in n.name() or n.name() == "MulBackward0"]
        assert bool(dropout_nodes) == train
        with torch.no_grad():
            packed, _ = _saved(lambda: model(x))
        assert packed == []
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
