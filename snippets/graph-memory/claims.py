"""Checks behind graph-memory's sentences that no output on the page shows (tests/test_claims.py
runs each on every supported torch; {claim}`graph-memory/<name>` on a page names one)."""

import gc
import warnings
import weakref

import torch
from torch import nn
from torch.utils.checkpoint import checkpoint, checkpoint_sequential


def _new_saved_bytes(model, x):
    """Bytes of the distinct storages one forward saves, leaving out parameters and x."""
    held_anyway = {p.untyped_storage().data_ptr() for p in model.parameters()} | {x.untyped_storage().data_ptr()}
    found = {}

    def pack(tensor):
        storage = tensor.untyped_storage()
        if storage.data_ptr() not in held_anyway:
            found[storage.data_ptr()] = storage.nbytes()
        return tensor.detach()

    with torch.autograd.graph.saved_tensors_hooks(pack, lambda t: t):
        out = model(x)
    return sum(found.values()), out  # out keeps the saved storages alive, so no pointer is reused


def _saved_storages(function, *args):
    """Storage addresses of the tensors saved for backward while function(*args) runs, in order."""
    found = []

    def pack(tensor):
        found.append(tensor.untyped_storage().data_ptr())
        return tensor.detach()

    with torch.autograd.graph.saved_tensors_hooks(pack, lambda t: t):
        out = function(*args)
    return found, out


def _alive_after_gc(refs):
    gc.collect()
    return [ref() is not None for ref in refs]


def freezing_a_linear_behind_a_relu_saves_nothing():
    """A Linear's input is saved for its weight's gradient. Freeze the Linear and it no longer
    saves it, but a ReLU in front saves the same tensor (its output) for its own backward."""
    torch.manual_seed(0)
    model = nn.Sequential(nn.Linear(64, 64), nn.ReLU(), nn.Linear(64, 64), nn.ReLU(), nn.Linear(64, 64))
    x = torch.randn(32, 64)
    before, _ = _new_saved_bytes(model, x)
    model[2].requires_grad_(False)
    after, _ = _new_saved_bytes(model, x)
    assert before == after == 2 * 32 * 64 * 4  # the two ReLU outputs


def pack_runs_during_forward_and_unpack_during_backward_which_frees_them():
    """pack runs once per saved tensor during forward and the graph keeps what it returns;
    backward calls unpack to get each back and frees a node's saved tensors as soon as it has run
    that node, unless retain_graph=True, which keeps them all after backward too."""
    torch.manual_seed(0)
    for retain_graph in (False, True):
        first, second = nn.Linear(4, 4), nn.Linear(4, 4)
        log, refs = [], []

        def pack(tensor):
            kept = tensor.detach()
            log.append("pack")
            refs.append(weakref.ref(kept))  # only the graph holds `kept`
            return kept

        def unpack(kept):
            log.append("unpack")
            return kept

        with torch.autograd.graph.saved_tensors_hooks(pack, unpack):
            hidden = first(torch.randn(2, 4))
            out = second(hidden).sum()
        # packed: x (first's input), hidden (second's input), second's weight
        assert log == ["pack"] * 3
        assert [ref() is not None for ref in refs] == [True] * 3
        between = []  # a hook on `hidden` runs after second's node, before first's
        hidden.register_hook(lambda grad: between.append([ref() is not None for ref in refs]))
        out.backward(retain_graph=retain_graph)
        assert log == ["pack"] * 3 + ["unpack"] * 3
        after = [ref() is not None for ref in refs]
        if retain_graph:
            assert between == [[True] * 3] and after == [True] * 3
        else:
            assert between == [[True, False, False]] and after == [False] * 3  # `out` is still here


def linear_saves_input_if_weight_needs_grad_and_weight_if_input_does():
    """Linear's node saves its input only if its weight requires grad, its weight only if its
    input does, decided during forward; never its bias, never its own output."""
    torch.manual_seed(0)
    for input_grad, weight_grad in [(False, True), (True, True), (True, False), (False, False)]:
        layer = nn.Linear(4, 4)
        layer.weight.requires_grad_(weight_grad)
        x = torch.randn(2, 4, requires_grad=input_grad)
        saved, out = _saved_storages(layer, x)
        expected = ([x.untyped_storage().data_ptr()] if weight_grad else []) \
            + ([layer.weight.untyped_storage().data_ptr()] if input_grad else [])
        assert saved == expected, (input_grad, weight_grad)
        assert out.untyped_storage().data_ptr() not in saved
        assert layer.bias.untyped_storage().data_ptr() not in saved


def a_convolution_saves_input_and_weight_when_either_requires_grad():
    """Unlike Linear, Conv2d saves both its input and its weight as soon as either requires
    grad, also the one whose partner's gradient is never computed."""
    torch.manual_seed(0)
    for input_grad, weight_grad in [(True, False), (False, True)]:
        conv = nn.Conv2d(3, 4, 3)
        conv.requires_grad_(weight_grad)
        x = torch.randn(1, 3, 8, 8, requires_grad=input_grad)
        saved, _ = _saved_storages(conv, x)
        assert x.untyped_storage().data_ptr() in saved, (input_grad, weight_grad)
        assert conv.weight.untyped_storage().data_ptr() in saved, (input_grad, weight_grad)


def adam_keeps_two_tensors_the_size_of_each_parameter_three_with_amsgrad():
    """Adam keeps two state tensors of the parameter's own size for every parameter it trains,
    by default; with amsgrad=True, three."""
    for amsgrad, expected in ((False, ["exp_avg", "exp_avg_sq"]), (True, ["exp_avg", "exp_avg_sq", "max_exp_avg_sq"])):
        torch.manual_seed(0)
        layer = nn.Linear(8, 8)
        optimizer = torch.optim.Adam(layer.parameters(), amsgrad=amsgrad)
        layer(torch.randn(4, 8)).sum().backward()
        optimizer.step()
        for p in layer.parameters():
            full = sorted(k for k, v in optimizer.state[p].items() if torch.is_tensor(v) and v.shape == p.shape)
            assert full == expected, (amsgrad, full)


def frozen_parameters_get_no_grad_no_optimizer_state_and_fewer_matrix_products():
    """Parameters frozen before training starts get no .grad, SGD (with momentum), Adam and AdamW
    keep no state for them, and backward runs fewer matrix products than with every layer trained.
    A parameter frozen after a step keeps the Adam state it already has."""
    from torch.utils._python_dispatch import TorchDispatchMode

    class CountMatrixProducts(TorchDispatchMode):
        def __init__(self):
            super().__init__()
            self.count = 0

        def __torch_dispatch__(self, func, types, args=(), kwargs=None):
            self.count += func in (torch.ops.aten.mm.default, torch.ops.aten.addmm.default)
            return func(*args, **(kwargs or {}))

    def run(freeze_first, optimizer_class, **options):
        torch.manual_seed(0)
        model = nn.Sequential(*[nn.Linear(8, 8) for _ in range(3)])
        model[0].requires_grad_(not freeze_first)
        optimizer = optimizer_class(model.parameters(), lr=0.1, **options)
        out = model(torch.randn(4, 8)).sum()
        with CountMatrixProducts() as products:
            out.backward()
        optimizer.step()
        return model, optimizer, products.count

    for optimizer_class, options in [(torch.optim.SGD, {"momentum": 0.9}), (torch.optim.Adam, {}),
                                     (torch.optim.AdamW, {})]:
        model, optimizer, frozen_products = run(True, optimizer_class, **options)
        _, _, trained_products = run(False, optimizer_class, **options)
        frozen = list(model[0].parameters())
        assert all(p.grad is None for p in frozen)
        assert all(len(optimizer.state.get(p, {})) == 0 for p in frozen)
        assert all(len(optimizer.state[p]) > 0 for p in model[1:].parameters())
        assert frozen_products < trained_products

    # Frozen after a step: the state the optimizer already made for it stays allocated.
    torch.manual_seed(0)
    model = nn.Sequential(nn.Linear(8, 8), nn.Linear(8, 8))
    optimizer = torch.optim.Adam(model.parameters())
    for step in range(3):
        if step == 1:
            model[0].requires_grad_(False)
        model(torch.randn(4, 8)).sum().backward()
        optimizer.step()
        optimizer.zero_grad()
    for p in model[0].parameters():
        kept = sorted(k for k, v in optimizer.state[p].items() if torch.is_tensor(v) and v.shape == p.shape)
        assert kept == ["exp_avg", "exp_avg_sq"], kept


def omitting_use_reentrant_warns_and_runs_the_reentrant_checkpoint():
    """checkpoint() without use_reentrant warns (the message names use_reentrant and announces that
    leaving it out will raise an exception) and runs the reentrant implementation, the one
    use_reentrant=True selects, without raising."""
    torch.manual_seed(0)
    layer = nn.Linear(3, 3)
    x = torch.randn(2, 3, requires_grad=True)
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        default = checkpoint(layer, x)
    assert any("use_reentrant" in str(w.message) and "will raise an exception" in str(w.message) for w in caught)
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        reentrant = checkpoint(layer, x, use_reentrant=True)
    assert type(default.grad_fn) is type(reentrant.grad_fn)
    assert type(checkpoint(layer, x, use_reentrant=False).grad_fn) is not type(reentrant.grad_fn)


def omitting_use_reentrant_when_no_input_requires_grad_leaves_the_segment_without_gradients():
    """Left to the reentrant default, a checkpointed segment whose input does not require grad
    returns an output that does not either, and forward warns that gradients will be None. When
    what follows is checkpointed the same way (a second segment), its output does not require grad
    either and backward() raises; with a trained layer after it that is not checkpointed, backward
    runs without error and leaves the segment's parameters with no gradient. With
    use_reentrant=False the same calls record them."""
    torch.manual_seed(0)
    model = nn.Sequential(nn.Linear(3, 3), nn.Linear(3, 3))
    head = nn.Linear(3, 1)
    x = torch.randn(2, 3)
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        out = checkpoint(model[1], checkpoint(model[0], x))
    assert not out.requires_grad
    assert any("None of the inputs have requires_grad=True" in str(w.message) for w in caught)
    try:
        out.sum().backward()
    except RuntimeError as error:
        assert "does not require grad" in str(error)
    else:
        raise AssertionError("backward() ran")
    assert all(p.grad is None for p in model.parameters())
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        head(checkpoint(model, x)).sum().backward()  # no error
    assert all(p.grad is None for p in model.parameters())
    assert all(p.grad is not None for p in head.parameters())
    head.zero_grad(set_to_none=True)
    head(checkpoint(model, x, use_reentrant=False)).sum().backward()
    assert all(p.grad is not None for p in model.parameters())


def a_recomputed_segment_s_activations_exist_together_during_backward():
    """During backward each checkpointed segment is recomputed, and the layer outputs its layers
    save exist again all at once (one segment's worth); backward then frees them one by one, each
    once the node that saved it has run, and none is left when backward is done."""
    torch.manual_seed(0)
    layers, per_segment = 8, 4
    model = nn.Sequential(*[nn.Linear(16, 16) for _ in range(layers)])
    recomputing, refs, alive, freed = [False], {}, [], {}

    def note(module, args, output, index):
        if recomputing[0]:  # a forward that backward runs again
            refs[index] = weakref.ref(output.untyped_storage())
            alive.append(sum(ref() is not None for ref in refs.values()))

    def still_there(index):  # when layer index's weight gradient arrives: its segment's outputs
        start = index - index % per_segment
        freed[index] = [refs[j]() is not None for j in range(start, index)]

    for index, layer in enumerate(model):
        layer.register_forward_hook(lambda module, args, output, index=index: note(module, args, output, index))
        layer.weight.register_hook(lambda grad, index=index: still_there(index))
    out = torch.randn(4, 16)
    for start in range(0, layers, per_segment):
        out = checkpoint(model[start:start + per_segment], out, use_reentrant=False)
    recomputing[0] = True
    out.sum().backward()
    # Each segment's last output is saved by no layer inside it, so its recomputation stops
    # one layer early: 3 outputs alive at once, then the other segment's 3, never 6.
    assert alive == [1, 2, 3, 1, 2, 3], alive
    # Layer 7 has used its input (layer 6's output): freed, while layers 4 and 5's remain, and so on.
    for index in range(layers):
        position = index % per_segment
        assert freed[index] == [j < position - 1 for j in range(position)], (index, freed[index])
    assert [ref() is not None for ref in refs.values()] == [False] * len(refs)


def checkpoint_sequential_runs_the_last_segment_once():
    """checkpoint_sequential does not checkpoint its last segment: those layers run only once."""
    torch.manual_seed(0)
    model = nn.Sequential(*[nn.Linear(4, 4) for _ in range(4)])
    finished = [0] * 4  # forward hooks: a forward that ran to its end
    for i, layer in enumerate(model):
        layer.register_forward_hook(lambda module, args, output, i=i: finished.__setitem__(i, finished[i] + 1))
    out = checkpoint_sequential(model, 2, torch.randn(2, 4, requires_grad=True), use_reentrant=False)
    out.sum().backward()
    assert finished[0] == 2, finished  # the first segment is recomputed
    assert finished[2:] == [1, 1], finished


def the_recomputation_stops_before_the_last_layer_of_each_segment_multiplies():
    """During backward, the non-reentrant checkpoint runs a segment's forward again only until
    every tensor it saved is back (early stop, on by default): the last Linear of a segment saves
    its input and weight before its matrix product, so it does not compute it again. With early
    stop turned off, every layer computes its product again."""
    from torch.utils._python_dispatch import TorchDispatchMode
    from torch.utils.checkpoint import set_checkpoint_early_stop

    class CountForwardProducts(TorchDispatchMode):  # Linear's backward uses mm, its forward addmm
        def __init__(self):
            super().__init__()
            self.count = 0

        def __torch_dispatch__(self, func, types, args=(), kwargs=None):
            self.count += func is torch.ops.aten.addmm.default
            return func(*args, **(kwargs or {}))

    torch.manual_seed(0)
    layers = 8
    model = nn.Sequential(*[nn.Linear(8, 8) for _ in range(layers)])

    def recomputed(per_segment, early_stop=True):
        with set_checkpoint_early_stop(early_stop):
            out = torch.randn(4, 8)
            for start in range(0, layers, per_segment):
                out = checkpoint(model[start:start + per_segment], out, use_reentrant=False)
            with CountForwardProducts() as products:
                out.sum().backward()
        return products.count

    # one product fewer than the segment's layers, per segment
    assert [recomputed(n) for n in (1, 2, 4)] == [0, 4, 6]
    assert [recomputed(n, early_stop=False) for n in (1, 2, 4)] == [8, 8, 8]


def save_on_cpu_with_pin_memory_copies_every_saved_tensor_weights_included():
    """save_on_cpu's pack hook makes no exception for parameters: with pin_memory=True it copies
    every saved tensor into a new buffer, the saved weights included, even on a CPU."""
    torch.manual_seed(0)
    model = nn.Sequential(nn.Linear(16, 16), nn.Linear(16, 16))
    parameters = {p.untyped_storage().data_ptr() for p in model.parameters()}
    offload = torch.autograd.graph.save_on_cpu(pin_memory=True)
    inner, packed = offload.pack_hook, []

    def pack(tensor):
        device, kept = inner(tensor)
        packed.append((tensor.untyped_storage().data_ptr() in parameters,
                       kept.untyped_storage().data_ptr() != tensor.untyped_storage().data_ptr()))
        return device, kept

    offload.pack_hook = pack
    with offload:
        out = model(torch.randn(4, 16)).sum()
    out.backward()
    assert (True, True) in packed  # a weight, copied
    assert all(copied for _, copied in packed)


def save_on_cpu_packs_with_cpu_and_unpacks_to_the_device_the_tensor_came_from():
    """save_on_cpu's pack hook records the device a saved tensor came from and calls tensor.cpu() on
    every tensor forward saves, the views of the weights included; for a tensor on another device that
    is a copy (on the meta device, which has no data, the copy fails, for the weight views too). Its
    unpack hook calls tensor.to(that device), a new tensor there. On a CPU, pack returns the tensor itself."""
    from torch.overrides import TorchFunctionMode

    class CpuCalls(TorchFunctionMode):  # entered inside pack: the hook's own calls pass through it
        def __init__(self):
            super().__init__()
            self.on = []

        def __torch_function__(self, func, types, args=(), kwargs=None):
            if getattr(func, "__name__", "") == "cpu":
                self.on.append(args[0])
            return func(*args, **(kwargs or {}))

    offload = torch.autograd.graph.save_on_cpu()
    inner = offload.pack_hook

    def packed_by_save_on_cpu(model, x):
        """(storage address, tensor.cpu() was called on it, tensor.cpu() raised a copy error) per packed tensor."""
        found = []

        def pack(tensor):
            with CpuCalls() as calls:
                try:
                    inner(tensor)
                    failed = False
                except NotImplementedError as error:
                    failed = "copy" in str(error)
            found.append((tensor.untyped_storage().data_ptr() if tensor.device.type != "meta" else None,
                          any(t is tensor for t in calls.on), failed))
            return tensor.detach()

        with torch.autograd.graph.saved_tensors_hooks(pack, lambda t: t):
            model(x)
        return found

    torch.manual_seed(0)
    model = nn.Sequential(nn.Linear(8, 8), nn.Linear(8, 8))
    weights = {layer.weight.untyped_storage().data_ptr() for layer in model}
    found = packed_by_save_on_cpu(model, torch.randn(2, 8))
    assert len(found) == 3 and all(called and not failed for _, called, failed in found), found
    assert sum(address in weights for address, _, _ in found) == 1  # the second layer's weight.t()

    meta = nn.Sequential(nn.Linear(8, 8, device="meta"), nn.Linear(8, 8, device="meta"))
    found = packed_by_save_on_cpu(meta, torch.empty(2, 8, device="meta"))
    assert len(found) == 3 and all(called and failed for _, called, failed in found), found

    t = torch.randn(3)
    device, kept = inner(t)
    assert device == t.device and kept is t
    back = offload.unpack_hook((torch.device("meta"), kept))
    assert back.device.type == "meta"  # moved to the recorded device


def save_on_cpu_on_a_cpu_keeps_a_saved_relu_output_alive_without_backward():
    """On a CPU, save_on_cpu() packs tensor.cpu(), the tensor itself: a ReLU output it packed
    survives gc.collect() when no backward runs; without save_on_cpu it is freed."""
    torch.manual_seed(0)
    model = nn.Sequential(nn.Linear(8, 8), nn.ReLU(), nn.Linear(8, 8))
    refs = []
    for offloaded in (True, False):
        with torch.autograd.graph.save_on_cpu() if offloaded else torch.enable_grad():
            h = model[1](model[0](torch.randn(2, 8)))
            out = model[2](h)
        refs.append(weakref.ref(h))
        del h, out
    assert _alive_after_gc(refs) == [True, False]


def without_hooks_a_saved_relu_output_is_freed_with_its_graph():
    """Without hooks, a ReLU output that its own node saved makes no reference cycle: it is freed
    as soon as the last reference goes, before any gc.collect()."""
    torch.manual_seed(0)
    layer = nn.Linear(8, 8)
    gc.disable()
    try:
        out = layer(torch.randn(2, 8)).relu()
        assert out.grad_fn._saved_result.data_ptr() == out.data_ptr()
        ref = weakref.ref(out)
        del out
        assert ref() is None
    finally:
        gc.enable()


def return_t_leaks_also_with_retain_graph_or_a_partial_backward():
    """With a pack hook that returns t, the packed tensors of a Linear-ReLU model survive
    gc.collect() unless a backward frees the ReLU nodes: they leak without backward, with
    backward(retain_graph=True) or backward(create_graph=True), and with a torch.autograd.grad or a
    backward(inputs=...) that stops at the last layer."""
    torch.manual_seed(0)
    linears = [nn.Linear(16, 16) for _ in range(3)]
    model = nn.Sequential(linears[0], nn.ReLU(), linears[1], nn.ReLU(), linears[2])
    refs = {}

    ways = ("backward", "no backward", "retain_graph", "create_graph", "grad of the last weight",
            "backward into the last weight")
    for how in ways:
        refs[how] = []

        def pack(tensor, packed=refs[how]):
            packed.append(weakref.ref(tensor))
            return tensor

        with torch.autograd.graph.saved_tensors_hooks(pack, lambda t: t):
            out = model(torch.randn(4, 16))
        if how == "backward":
            out.sum().backward()
        elif how == "retain_graph":
            out.sum().backward(retain_graph=True)
        elif how == "create_graph":  # retains the graph by default
            with warnings.catch_warnings():  # the reference-cycle warning of backward(create_graph=True)
                warnings.simplefilter("ignore")
                out.sum().backward(create_graph=True)
        elif how == "grad of the last weight":
            torch.autograd.grad(out.sum(), linears[-1].weight)
        elif how == "backward into the last weight":
            out.sum().backward(inputs=[linears[-1].weight])
        del out
        model.zero_grad(set_to_none=True)  # a .grad made with create_graph holds a graph of its own
    gc.collect()
    alive = {how: sum(ref() is not None for ref in packed) for how, packed in refs.items()}
    assert alive["backward"] == 0, alive
    assert all(alive[how] > 0 for how in ways[1:]), alive


def with_return_t_only_the_last_linear_s_weight_view_dies():
    """With a pack hook that returns t and no backward, everything packed survives gc.collect()
    except the transposed weight view the last Linear saved: each ReLU node and its saved output
    form a cycle that reaches the nodes before it, but no cycle reaches the last Linear's node,
    which only the output holds."""
    torch.manual_seed(0)
    model = nn.Sequential(nn.Linear(8, 8), nn.ReLU(), nn.Linear(8, 8), nn.ReLU(), nn.Linear(8, 8))
    refs = []

    def pack(tensor):
        refs.append(weakref.ref(tensor))
        return tensor

    x = torch.randn(2, 8)
    with torch.autograd.graph.saved_tensors_hooks(pack, lambda t: t):
        out = model(x)
    last_weight = model[4].weight.untyped_storage().data_ptr()
    assert refs[-1]().untyped_storage().data_ptr() == last_weight  # packed last: the last layer's weight.t()
    del out, x
    # packed: x, ReLU 1's output, layer 2's input and weight view, ReLU 2's output, layer 3's input and weight view
    assert _alive_after_gc(refs) == [True] * 6 + [False]


def a_pack_hook_result_leaks_when_it_holds_t_itself():
    """What a pack hook returns is kept as it is: a new object that holds t itself (a wrapper, a
    tuple) leaks like t when no backward runs; t.detach(), a wrapper around t.detach() and a copy
    do not."""
    torch.manual_seed(0)
    model = nn.Sequential(nn.Linear(8, 8), nn.ReLU(), nn.Linear(8, 8))

    class Box:
        def __init__(self, tensor):
            self.tensor = tensor

    def alive_after(pack, unpack):
        refs = []

        def counted(tensor):
            refs.append(weakref.ref(tensor))
            return pack(tensor)

        with torch.autograd.graph.saved_tensors_hooks(counted, unpack):
            out = model(torch.randn(2, 8))
        del out
        return sum(_alive_after_gc(refs))

    assert alive_after(lambda t: Box(t), lambda box: box.tensor) > 0
    assert alive_after(lambda t: (t.device, t), lambda pair: pair[1]) > 0
    assert alive_after(lambda t: t.detach(), lambda t: t) == 0
    assert alive_after(lambda t: Box(t.detach()), lambda box: box.tensor) == 0
    assert alive_after(lambda t: t.clone(), lambda t: t) == 0


class _DroppedBranch(nn.Module):
    """Builds a side branch during forward and drops it: tanh saves its output, and the branch's
    nodes die with the unused sum, before forward returns."""

    def forward(self, h):
        torch.tanh(h).sum()
        return h


def a_saved_storage_can_be_freed_during_forward_unless_the_hook_keeps_it():
    """A storage address names one storage only while it is alive. A pack hook that returns
    t.detach() keeps each saved storage alive as long as the node that saved it: to the end of
    forward in a chain, but not in a branch that forward builds and drops. One that returns a copy
    lets an activation's storage be freed during forward even in a chain. A hook that also keeps
    t.detach() in a list keeps every one alive until forward has returned."""
    torch.manual_seed(0)
    chain = nn.Sequential(nn.Linear(8, 8), nn.ReLU(), nn.Linear(8, 8), nn.ReLU(), nn.Linear(8, 8))
    branch = nn.Sequential(nn.Linear(8, 8), _DroppedBranch(), nn.ReLU(), nn.Linear(8, 8))
    x = torch.randn(2, 8)
    for model, keep, kept_in_a_list, freed in ((chain, lambda t: t.detach(), False, False),
                                               (chain, lambda t: t.clone(), False, True),
                                               (branch, lambda t: t.detach(), False, True),
                                               (branch, lambda t: t.detach(), True, False)):
        parameters = {p.untyped_storage().data_ptr() for p in model.parameters()}
        refs, kept = [], []

        def pack(tensor):
            if tensor.untyped_storage().data_ptr() not in parameters:
                refs.append(weakref.ref(tensor.untyped_storage()))
            if kept_in_a_list:
                kept.append(tensor.detach())
            return keep(tensor)

        with torch.autograd.graph.saved_tensors_hooks(pack, lambda t: t):
            out = model(x)
        gc.collect()
        alive = [ref() is not None for ref in refs]  # `out` still holds the graph
        assert (not all(alive)) == freed, alive
        del out
        kept.clear()


def freezing_a_linear_behind_a_gelu_or_silu_drops_its_input():
    """GELU and SiLU save their input, not their output, so the Linear behind one of them is the
    only node that saves that output: freezing the Linear drops one activation of new memory."""
    for activation in (nn.GELU, nn.SiLU):
        torch.manual_seed(0)
        model = nn.Sequential(nn.Linear(64, 64), activation(), nn.Linear(64, 64), activation(), nn.Linear(64, 64))
        x = torch.randn(32, 64)
        hidden = model[0](x)
        saved, _ = _saved_storages(model[1], hidden)
        assert saved == [hidden.untyped_storage().data_ptr()], activation  # the input
        before, _ = _new_saved_bytes(model, x)
        model[2].requires_grad_(False)
        after, _ = _new_saved_bytes(model, x)
        assert before - after == 32 * 64 * 4, (activation, before, after)


def under_no_grad_pack_is_never_called():
    """Under torch.no_grad() forward records no graph: a pack hook is never called, so nothing
    it returns can be kept."""
    torch.manual_seed(0)
    model = nn.Sequential(nn.Linear(8, 8), nn.ReLU(), nn.Linear(8, 8))
    calls = []

    def pack(tensor):
        calls.append(tensor)
        return tensor

    for recording in (True, False):
        calls.clear()
        with torch.set_grad_enabled(recording), torch.autograd.graph.saved_tensors_hooks(pack, lambda t: t):
            out = model(torch.randn(2, 8))
        assert (len(calls) > 0) == recording and (out.grad_fn is not None) == recording, recording


def a_batchnorm_in_a_checkpointed_segment_counts_each_batch_twice():
    """A BatchNorm in training mode in a checkpointed segment runs again when backward recomputes
    the segment, since it saves tensors of its own: its running statistics are updated twice for one
    batch, whether other layers follow it in the segment or not. In eval mode it updates nothing."""
    for segment_ends_with_it in (False, True):
        torch.manual_seed(0)
        layers = [nn.Linear(8, 8), nn.BatchNorm1d(8)] + ([] if segment_ends_with_it else [nn.ReLU(), nn.Linear(8, 8)])
        segment = nn.Sequential(*layers)
        plain = nn.BatchNorm1d(8)
        plain.load_state_dict(segment[1].state_dict())
        x = torch.randn(16, 8, requires_grad=True)
        out = checkpoint(segment, x, use_reentrant=False)
        assert int(segment[1].num_batches_tracked) == 1
        out.sum().backward()
        assert int(segment[1].num_batches_tracked) == 2, segment_ends_with_it
        plain(segment[0](x))
        assert not torch.allclose(plain.running_var, segment[1].running_var)  # one update, not two
    segment.eval()  # in eval mode it updates nothing, checkpointed or not
    checkpoint(segment, x, use_reentrant=False).sum().backward()
    assert int(segment[1].num_batches_tracked) == 2


def checkpoint_restores_the_rng_state_so_dropout_draws_the_same_mask():
    """checkpoint restores the random number state before it recomputes a segment
    (preserve_rng_state=True, the default), so a Dropout draws the same mask again and the
    gradients match those without checkpointing; with preserve_rng_state=False they do not."""
    def weight_grad(how):
        torch.manual_seed(0)
        segment = nn.Sequential(nn.Linear(8, 8), nn.Dropout(0.5), nn.Linear(8, 8))
        x = torch.randn(16, 8)
        torch.manual_seed(1)
        if how == "plain":
            out = segment(x)
        else:
            out = checkpoint(segment, x, use_reentrant=False, preserve_rng_state=how == "preserved")
        out.square().sum().backward()
        return segment[0].weight.grad

    plain = weight_grad("plain")
    assert torch.equal(plain, weight_grad("preserved"))
    assert not torch.allclose(plain, weight_grad("not preserved"))


def a_checkpointed_segment_runs_again_up_to_its_last_saving_operation():
    """During backward, the non-reentrant checkpoint runs a segment's forward again only up to the
    last operation that saves a tensor: a side effect after it happens once, one before it twice.
    The reentrant checkpoint runs the whole segment again."""

    class Counter(nn.Module):  # a side effect; x * 2 saves nothing
        def __init__(self):
            super().__init__()
            self.runs = 0

        def forward(self, x):
            self.runs += 1
            return x * 2

    for reentrant, expected in ((False, [2, 1]), (True, [2, 2])):
        torch.manual_seed(0)
        segment = nn.Sequential(Counter(), nn.Linear(4, 4), Counter())
        checkpoint(segment, torch.randn(2, 4, requires_grad=True), use_reentrant=reentrant).sum().backward()
        assert [segment[0].runs, segment[2].runs] == expected, (reentrant, segment[0].runs, segment[2].runs)


def pack_is_called_by_the_innermost_hooks_in_the_thread_that_entered_them():
    """saved_tensors_hooks are thread-local: a thread started with threading.Thread does not see
    them. When they are nested only the innermost pair runs: an outer pack sees nothing of an inner block, nor of a non-reentrant
    checkpoint's segment (it opens hooks of its own), only the segment input the checkpoint keeps."""
    import threading

    torch.manual_seed(0)
    a = torch.randn(3, requires_grad=True)

    def counting(found):
        return torch.autograd.graph.saved_tensors_hooks(lambda t: found.append(t) or t.detach(), lambda t: t)

    outer, inner = [], []
    with counting(outer):
        with counting(inner):
            a.exp()
    assert (len(outer), len(inner)) == (0, 1)

    found = []
    with counting(found):
        thread = threading.Thread(target=a.exp)
        thread.start()
        thread.join()
        assert len(found) == 0
        a.exp()
    assert len(found) == 1

    segment = nn.Sequential(nn.Linear(4, 4), nn.ReLU(), nn.Linear(4, 4))
    x = torch.randn(2, 4)
    plain, checkpointed = [], []
    with counting(plain):
        segment(x)
    with counting(checkpointed):
        checkpoint(segment, x, use_reentrant=False)
    assert len(plain) == 4  # x, the ReLU output, that output as the next input, a weight view
    nonempty = [t for t in checkpointed if t.numel() > 0]  # torch 2.6 also packs an empty placeholder
    assert len(nonempty) == 1 and nonempty[0].untyped_storage().data_ptr() == x.untyped_storage().data_ptr()


def linear_saves_a_copy_of_an_input_whose_leading_dimensions_do_not_merge():
    """Linear folds an input of more than two dimensions into a matrix before it multiplies. When
    the leading dimensions merge into one without a copy, that is a view, and the saved input shares
    the input's storage, contiguous or not (a sliced last dimension); when they do not (after a
    transpose of them, or a step along the first), it is a copy, and the copy is what is saved."""
    torch.manual_seed(0)
    layer = nn.Linear(8, 8)
    cases = ((torch.randn(2, 3, 8), True), (torch.randn(2, 3, 16)[..., :8], True),
             (torch.randn(3, 2, 8).transpose(0, 1), False), (torch.randn(4, 3, 8)[::2], False))
    for x, shared in cases:
        saved, _ = _saved_storages(layer, x)
        assert len(saved) == 1 and (saved[0] == x.untyped_storage().data_ptr()) == shared, (x.stride(), saved)
    assert not cases[1][0].is_contiguous()  # sharing does not need a contiguous input


def a_python_number_an_operation_saves_never_reaches_pack():
    """a * 2.0 saves the 2.0 for backward (as a 0-dimensional tensor its node exposes), but pack is
    not called for it; a * b with a tensor b is packed."""
    torch.manual_seed(0)
    a = torch.randn(3, requires_grad=True)
    calls = []
    with torch.autograd.graph.saved_tensors_hooks(lambda t: calls.append(t) or t.detach(), lambda t: t):
        scaled = a * 2.0
        assert len(calls) == 0
        a * torch.tensor(2.0)
        assert len(calls) == 1  # the tensor factor, saved for a's gradient
    assert torch.is_tensor(scaled.grad_fn._saved_other) and float(scaled.grad_fn._saved_other) == 2.0


def a_tensor_a_custom_function_keeps_on_ctx_never_reaches_pack():
    """A custom Function that keeps a tensor as an attribute of ctx, not through save_for_backward,
    never calls pack for it, yet its node holds it as long as the graph lives."""
    torch.manual_seed(0)

    class KeepsOnCtx(torch.autograd.Function):
        @staticmethod
        def forward(ctx, a):
            ctx.doubled = a * 2
            return a.clone()

        @staticmethod
        def backward(ctx, grad):
            return grad * ctx.doubled

    class SavesForBackward(KeepsOnCtx):
        @staticmethod
        def forward(ctx, a):
            ctx.save_for_backward(a * 2)
            return a.clone()

    a = torch.randn(1000, requires_grad=True)
    saved, _ = _saved_storages(SavesForBackward.apply, a)
    assert len(saved) == 1
    saved, out = _saved_storages(KeepsOnCtx.apply, a)
    assert saved == []
    kept = weakref.ref(out.grad_fn.doubled)
    gc.collect()
    assert kept() is not None and kept().shape == a.shape  # held by the graph all the same
    del out
    assert kept() is None


def under_a_pack_hook_an_in_place_change_of_a_saved_tensor_goes_unnoticed():
    """exp saves its output. Changed in place before backward, it makes backward raise without
    hooks; under a pack hook that returns t.detach(), backward runs and uses the changed values."""
    a = torch.tensor([1.0, 2.0], requires_grad=True)
    y = a.exp()
    y.add_(1)
    try:
        y.sum().backward()
    except RuntimeError as error:
        assert "modified by an inplace operation" in str(error), error
    else:
        raise AssertionError("no error without hooks")
    with torch.autograd.graph.saved_tensors_hooks(lambda t: t.detach(), lambda t: t):
        y = a.exp()
    y.add_(1)
    y.sum().backward()
    assert torch.allclose(a.grad, a.detach().exp() + 1), a.grad  # the right gradient is exp(a)


def adam_keeps_moving_a_frozen_parameter_whose_grad_was_zeroed():
    """Frozen after a step, a parameter whose .grad was zeroed (zero_grad(set_to_none=False)) still
    has a .grad, so Adam and AdamW go on updating it from their state; with .grad set to None
    (zero_grad's default) it stays put."""
    for optimizer_class in (torch.optim.Adam, torch.optim.AdamW):
        for set_to_none, moves in ((False, True), (True, False)):
            torch.manual_seed(0)
            model = nn.Sequential(nn.Linear(8, 8), nn.Linear(8, 8))
            optimizer = optimizer_class(model.parameters(), lr=0.1)
            model(torch.randn(4, 8)).sum().backward()
            optimizer.step()
            optimizer.zero_grad(set_to_none=set_to_none)
            model[0].requires_grad_(False)
            before = model[0].weight.detach().clone()
            for _ in range(2):
                model(torch.randn(4, 8)).sum().backward()
                optimizer.step()
                optimizer.zero_grad(set_to_none=set_to_none)
            assert (model[0].weight.grad is None) == set_to_none
            assert (not torch.equal(model[0].weight, before)) == moves, (optimizer_class, set_to_none)
