"""Checks behind retain-graph's sentences that no output on the page shows (tests/test_claims.py
runs each on every supported torch; {claim}`retain-graph/<name>` on a page names one)."""

import os
import warnings
import weakref

import torch
import torch.distributed as dist
import torch.nn.functional as F
from torch import nn


def _graph_nodes(tensor):
    seen, todo = set(), [tensor.grad_fn]
    while todo:
        node = todo.pop()
        if node is not None and node not in seen:
            seen.add(node)
            todo += [parent for parent, _ in node.next_functions]
    return len(seen)


def _chunks(count=3, steps=5):
    torch.manual_seed(0)
    rnn = nn.RNN(4, 8, batch_first=True)
    inputs = [torch.randn(2, steps, 4, requires_grad=True) for _ in range(count)]
    return rnn, inputs


def a_carried_hidden_state_without_optimizer_steps_grows_the_graph():
    """retain_graph=True with no weight update in between runs, and each chunk's loss hangs
    over a longer graph than the one before: its gradient reaches back into every earlier chunk."""
    rnn, inputs = _chunks()
    hidden, sizes = torch.zeros(1, 2, 8), []
    for i, chunk in enumerate(inputs):
        out, hidden = rnn(chunk, hidden)
        loss = out.square().mean()
        sizes.append(_graph_nodes(loss))
        reached = torch.autograd.grad(loss, inputs[:i + 1], retain_graph=True)
        assert all(grad.abs().sum() > 0 for grad in reached), i  # this chunk and every one before it
        loss.backward(retain_graph=True)
    assert sizes[0] < sizes[1] < sizes[2]


def a_carried_hidden_state_with_a_fused_step_runs_with_retain_graph():
    """With a fused optimizer, a hidden state carried as it is and backward(retain_graph=True) on every
    chunk raise nothing: the step gives the weights no new version, and each chunk's backward runs
    into the earlier chunks' graphs, built before the step."""
    rnn, inputs = _chunks()
    optimizer = torch.optim.SGD(rnn.parameters(), lr=0.1, fused=True)
    hidden, versions, first = torch.zeros(1, 2, 8), [], []
    for chunk in inputs:
        out, hidden = rnn(chunk, hidden)
        optimizer.zero_grad()
        out.square().mean().backward(retain_graph=True)  # no error
        optimizer.step()
        versions.append(rnn.weight_hh_l0._version)
        first.append(inputs[0].grad.clone())  # the first chunk's input grad moves only if this backward reached it
    assert len(set(versions)) == 1, versions
    assert not torch.equal(first[0], first[1]) and not torch.equal(first[1], first[2])


def a_detached_hidden_state_stops_the_gradient_at_the_chunk_boundary():
    """After hidden.detach(), a chunk's loss sends no gradient into the previous chunk's inputs."""
    rnn, (first, second, _) = _chunks()
    out, hidden = rnn(first, torch.zeros(1, 2, 8))
    out, _ = rnn(second, hidden.detach())
    out.square().mean().backward()
    assert first.grad is None and second.grad is not None


def _live_saved():
    """Weak references to every tensor saved for backward inside the returned hooks."""
    refs = []

    def pack(tensor):
        kept = tensor.detach()
        refs.append(weakref.ref(kept))
        return kept

    return refs, torch.autograd.graph.saved_tensors_hooks(pack, lambda t: t)


def _raises(function, text):
    try:
        function()
    except RuntimeError as error:
        assert text in str(error), str(error)
        return
    raise AssertionError(f"no RuntimeError containing {text!r}")


def _batches(count, rows=4, features=8):
    torch.manual_seed(0)
    return [(torch.randn(rows, features), torch.randn(rows, 1)) for _ in range(count)]


def total_loss_backward_fails_at_the_last_batch_s_loss_node_after_one_addition():
    """After a training loop with total_loss += loss, total_loss.backward() runs the top
    AddBackward0, then the last batch's MseLossBackward0, and raises there: that batch's own
    backward() freed its saved tensors, as every batch's did."""
    w = torch.zeros(8, 1, requires_grad=True)
    total, ran, loss_nodes = 0.0, [], []
    for number, (x, y) in enumerate(_batches(4), start=1):
        loss = F.mse_loss(x @ w, y)
        loss.backward()
        loss.grad_fn.register_prehook(lambda grad, number=number: ran.append(f"MseLossBackward0 of batch {number}"))
        loss_nodes.append(loss.grad_fn)
        total += loss
        total.grad_fn.register_prehook(lambda grad, number=number: ran.append(f"AddBackward0 of batch {number}"))
    _raises(total.backward, "second time")
    assert ran == ["AddBackward0 of batch 4", "MseLossBackward0 of batch 4"], ran
    for node in loss_nodes:
        _raises(lambda: node._saved_self, "freed")


def retain_graph_on_every_loss_piles_up_saved_tensors():
    """In a training loop with total_loss += loss, loss.backward(retain_graph=True) on every
    batch keeps each batch's saved tensors alive: they pile up, 3 more per batch."""
    w = torch.zeros(8, 1, requires_grad=True)
    optimizer = torch.optim.SGD([w], lr=0.01)
    refs, hooks = _live_saved()
    total, alive = 0.0, []
    with hooks:
        for x, y in _batches(4):
            optimizer.zero_grad()
            loss = F.mse_loss(x @ w, y)
            loss.backward(retain_graph=True)
            optimizer.step()
            total += loss
            alive.append(sum(ref() is not None for ref in refs))
    assert alive == [3, 6, 9, 12], alive


def retain_graph_on_the_total_counts_earlier_batches_again():
    """With x @ w, total_loss.backward(retain_graph=True) on every batch runs even with an
    optimizer step in between, and each backward adds the earlier batches' gradients again,
    computed at the parameters their graphs saw."""
    w = torch.zeros(8, 1, requires_grad=True)
    optimizer = torch.optim.SGD([w], lr=0.1)
    (x1, y1), (x2, y2) = _batches(2)
    w0 = w.detach().clone()
    total = F.mse_loss(x1 @ w, y1)
    total.backward(retain_graph=True)
    optimizer.step()
    optimizer.zero_grad()
    total = total + F.mse_loss(x2 @ w, y2)
    total.backward(retain_graph=True)
    old = torch.autograd.grad(F.mse_loss(x1 @ w0.requires_grad_(), y1), w0)[0]
    new = torch.autograd.grad(F.mse_loss(x2 @ w, y2), w)[0]
    assert torch.allclose(w.grad, old + new)
    assert not torch.allclose(w.grad, new)


def retain_graph_on_the_total_raises_after_a_step_when_a_linear_saved_its_weight():
    """In a model whose second Linear saved its weight, total_loss.backward(retain_graph=True)
    after an SGD step raises the in-place modification error instead; after a fused SGD step it runs."""
    torch.manual_seed(0)
    model = nn.Sequential(nn.Linear(8, 16), nn.Tanh(), nn.Linear(16, 1))
    optimizer = torch.optim.SGD(model.parameters(), lr=0.1)
    (x1, y1), (x2, y2) = _batches(2)
    total = F.mse_loss(model(x1), y1)
    total.backward(retain_graph=True)
    optimizer.step()
    optimizer.zero_grad()
    total = total + F.mse_loss(model(x2), y2)
    _raises(lambda: total.backward(retain_graph=True), "modified by an inplace operation")

    model = _two_layers()  # the same with a fused optimizer: no new version, no error
    optimizer = torch.optim.SGD(model.parameters(), lr=0.1, fused=True)
    total = F.mse_loss(model(x1), y1)
    total.backward(retain_graph=True)
    optimizer.step()
    optimizer.zero_grad()
    total = total + F.mse_loss(model(x2), y2)
    total.backward(retain_graph=True)


def the_node_chain_of_a_trained_total_holds_no_saved_tensor():
    """After loss.backward() on every batch, no node under total_loss still holds a saved
    tensor: every _saved_* attribute of every node either raises "freed" or holds no tensor, and
    the freed ones are the loss nodes' prediction and target and the matrix products' x."""
    w = torch.zeros(8, 1, requires_grad=True)
    total = 0.0
    for x, y in _batches(3):
        loss = F.mse_loss(x @ w, y)
        loss.backward()
        total += loss
    seen, todo, freed = set(), [total.grad_fn], []
    while todo:
        node = todo.pop()
        if node is None or node in seen:
            continue
        seen.add(node)
        todo += [parent for parent, _ in node.next_functions]
        for name in dir(node):
            if not name.startswith("_saved_"):
                continue
            try:
                value = getattr(node, name)
            except RuntimeError as error:
                assert "freed" in str(error), str(error)
                freed.append(f"{type(node).__name__}.{name}")
                continue
            values = value if isinstance(value, (tuple, list)) else (value,)
            assert not any(isinstance(item, torch.Tensor) for item in values), (type(node).__name__, name)
    assert sorted(freed) == (["MmBackward0._saved_self"] * 3 + ["MseLossBackward0._saved_self"] * 3
                             + ["MseLossBackward0._saved_target"] * 3), freed


def a_backward_that_skips_nodes_leaves_their_tensors_under_the_total():
    """In a training loop with total_loss += loss, loss.backward(inputs=head) and
    torch.autograd.grad(loss, head) free only the head's saved tensors: the trunk's pile up under
    total_loss, 2 more per batch, as plain backward() does not let them; a tensor a custom Function
    keeps as an attribute of ctx stays alive after a plain backward(), save_for_backward's does not;
    and so does a tensor captured by the closure of a hook on an intermediate, until the total goes;
    and so does a leaf made with requires_grad in every batch, with its .grad: the chain's
    AccumulateGrad node holds it."""
    def run(step):
        torch.manual_seed(0)
        trunk, head = nn.Sequential(nn.Linear(8, 8), nn.Tanh()), nn.Linear(8, 1)
        refs, hooks = _live_saved()
        total, alive = 0.0, []
        with hooks:
            for x, y in _batches(4):
                loss = F.mse_loss(head(trunk(x)), y)
                step(loss, list(head.parameters()))
                total += loss
                alive.append(sum(ref() is not None for ref in refs))
        return alive

    assert run(lambda loss, params: loss.backward()) == [0, 0, 0, 0]
    assert run(lambda loss, params: loss.backward(inputs=params)) == [2, 4, 6, 8]
    assert run(lambda loss, params: torch.autograd.grad(loss, params)) == [2, 4, 6, 8]

    class Square(torch.autograd.Function):
        @staticmethod
        def forward(ctx, x, on_ctx):
            if on_ctx:
                ctx.x = x
            else:
                ctx.save_for_backward(x)
            return x * x

        @staticmethod
        def backward(ctx, grad):
            x = ctx.x if hasattr(ctx, "x") else ctx.saved_tensors[0]
            return 2 * x * grad, None

    w = torch.randn(8, 8, requires_grad=True)
    for on_ctx in (True, False):
        total, refs = 0.0, []
        for x, _ in _batches(3):
            h = x @ w
            refs.append(weakref.ref(h))
            loss = Square.apply(h, on_ctx).mean()
            loss.backward()
            total += loss
            del h
        assert sum(ref() is not None for ref in refs) == (3 if on_ctx else 0), on_ctx

    def scaled_by(mask):
        return lambda grad: grad * mask  # the closure holds mask

    for hooked in (True, False):
        total, refs = 0.0, []
        for x, y in _batches(3):
            mask = (torch.rand(4, 1) > 0.5).float()
            refs.append(weakref.ref(mask))
            h = x @ w[:, :1]
            if hooked:
                h.register_hook(scaled_by(mask))
            loss = F.mse_loss(h, y)
            loss.backward()
            total += loss
            del h, mask
        assert sum(ref() is not None for ref in refs) == (3 if hooked else 0), hooked
        del total, loss
        assert sum(ref() is not None for ref in refs) == 0, hooked

    for under_total in (True, False):
        total, refs = 0.0, []
        for x, y in _batches(3):
            x = x.clone().requires_grad_()  # an input whose gradient is wanted
            refs.append(weakref.ref(x))
            loss = F.mse_loss(x @ w[:, :1], y)
            loss.backward()
            total += loss if under_total else loss.item()
        del x, loss
        alive = [ref() for ref in refs if ref() is not None]
        assert len(alive) == (3 if under_total else 0), under_total
        assert all(leaf.grad is not None for leaf in alive), under_total
        del alive, total
        assert sum(ref() is not None for ref in refs) == 0, under_total


def mse_keeps_prediction_and_target_mm_keeps_x():
    """In loss = F.mse_loss(x @ w, y), MseLossBackward0 saves the prediction and the target, and
    MmBackward0 saves x (for the gradient of w), not w."""
    w = torch.zeros(8, 1, requires_grad=True)
    (x, y), = _batches(1)
    pred = x @ w
    loss = F.mse_loss(pred, y)
    assert loss.grad_fn._saved_self.data_ptr() == pred.data_ptr()
    assert loss.grad_fn._saved_target.data_ptr() == y.data_ptr()
    assert pred.grad_fn._saved_self.data_ptr() == x.data_ptr()
    assert pred.grad_fn._saved_mat2 is None


def no_grad_saves_nothing():
    """Under torch.no_grad() a forward saves no tensor for backward and its result has no graph."""
    w = torch.zeros(8, 1, requires_grad=True)
    refs, hooks = _live_saved()
    (x, y), = _batches(1)
    with hooks, torch.no_grad():
        loss = F.mse_loss(x @ w, y)
    assert refs == [] and loss.grad_fn is None


def _two_layers():
    torch.manual_seed(0)
    return nn.Sequential(nn.Linear(8, 16), nn.Tanh(), nn.Linear(16, 1))


VERSIONED = [(name, options) for name in ("SGD", "Adam", "AdamW") for options in ({}, {"foreach": True})]


def a_kept_graph_after_a_step_raises_only_if_it_saved_a_parameter():
    """After optimizer.step() (SGD, Adam, AdamW; default or foreach), a kept graph raises the in-place
    modification error if it saved a parameter (a Linear whose input requires grad saves its weight);
    x @ w saves only x, so its kept graph runs and returns the gradient at the old w, unlike a
    recomputed forward."""
    w = torch.zeros(8, 1, requires_grad=True)
    optimizer = torch.optim.SGD([w], lr=0.1)
    (x, y), = _batches(1, rows=16)
    loss = F.mse_loss(x @ w, y)
    loss.backward(retain_graph=True)
    old = w.grad.clone()
    optimizer.step()
    w.grad = None
    loss.backward()  # no error
    assert torch.equal(w.grad, old)
    w.grad = None
    F.mse_loss(x @ w, y).backward()
    assert not torch.allclose(w.grad, old)

    for name, options in VERSIONED:
        model = _two_layers()
        optimizer = getattr(torch.optim, name)(model.parameters(), lr=0.1, **options)
        loss = F.mse_loss(model(x), y)
        loss.backward(retain_graph=True)
        optimizer.step()
        _raises(loss.backward, "modified by an inplace operation")


def a_fused_step_or_a_data_update_leaves_the_version_and_the_kept_graph_runs():
    """The in-place error needs a new version: SGD, Adam and AdamW, default or foreach, bump the
    weight's version; with fused=True, or an update through .data, the weight changes with no new
    version, and the kept graph that saved it runs with no error, mixing the activations it saved
    at the old weights with the new weights: in a two-layer model the parameters' gradient is
    neither the one at the old weights nor the one at the new ones; in a single Linear whose input
    requires grad the parameters' gradient is exactly the old one (it needs only the saved input)
    and only the input's gradient, the old output gradient times the new weight, is mixed."""
    (x, y), = _batches(1, rows=16)
    for name in ("SGD", ".data"):
        torch.manual_seed(0)
        layer, inputs = nn.Linear(8, 1), x.clone().requires_grad_()
        pred = layer(inputs)
        loss = F.mse_loss(pred, y)
        loss.backward(retain_graph=True)
        old, old_input = [p.grad.clone() for p in layer.parameters()], inputs.grad.clone()
        output_grad = 2 * (pred.detach() - y) / len(y)
        version = layer.weight._version
        if name == ".data":
            for p in layer.parameters():
                p.data.add_(p.grad, alpha=-0.1)
        else:
            torch.optim.SGD(layer.parameters(), lr=0.1, fused=True).step()
        assert layer.weight._version == version, name
        layer.zero_grad()
        inputs.grad = None
        loss.backward()  # no error
        assert all(torch.equal(p.grad, q) for p, q in zip(layer.parameters(), old)), name
        assert torch.allclose(inputs.grad, output_grad @ layer.weight.detach()), name
        assert not torch.allclose(inputs.grad, old_input), name

    updates = [(name, options) for name, _ in VERSIONED[::2] for options in ({}, {"foreach": True}, {"fused": True})]
    for name, options in [*updates, (".data", {})]:
        model = _two_layers()
        loss = F.mse_loss(model(x), y)
        loss.backward(retain_graph=True)
        old = [p.grad.clone() for p in model.parameters()]
        version = model[2].weight._version
        if name == ".data":
            for p in model.parameters():
                p.data.add_(p.grad, alpha=-0.1)
        else:
            getattr(torch.optim, name)(model.parameters(), lr=0.1, **options).step()
        model.zero_grad()
        if not options.get("fused") and name != ".data":
            assert model[2].weight._version > version, (name, options)
            _raises(loss.backward, "modified by an inplace operation")
            continue
        assert model[2].weight._version == version, (name, options)
        loss.backward()  # no error
        kept = [p.grad.clone() for p in model.parameters()]
        model.zero_grad()
        F.mse_loss(model(x), y).backward()
        new = [p.grad for p in model.parameters()]
        assert not all(torch.allclose(p, q) for p, q in zip(kept, old)), (name, options)
        assert not all(torch.allclose(p, q) for p, q in zip(kept, new)), (name, options)


def saved_tensor_hooks_or_checkpointing_let_a_kept_graph_run_after_a_default_step():
    """Backward does not check the version of a tensor saved through saved-tensor hooks, and
    activation checkpointing recomputes the region's tensors instead of keeping them: with the
    forward under saved_tensors_hooks or save_on_cpu, or under checkpoint (reentrant or not), a
    default SGD, Adam or AdamW step gives the weight a new version and the kept graph still runs with
    no error; without them, it raises. The gradient it gives can be the old one (hooks that copy what
    they save: a clone, save_on_cpu(pin_memory=True)), the new one (the whole loss checkpointed, so
    all of it is recomputed at the new weights) or neither (identity hooks, save_on_cpu() on CPU
    tensors, or a checkpointed model whose loss node kept the old prediction)."""
    from torch.utils.checkpoint import checkpoint

    (x, y), = _batches(1, rows=16)

    def hooked(context):
        def loss(model):
            with context():
                return F.mse_loss(model(x), y)
        return loss

    losses = {  # what the kept graph gives after the step, and a loss made that way
        "plain": ("raises", lambda model: F.mse_loss(model(x), y)),
        "identity saved_tensors_hooks": ("neither", hooked(lambda: torch.autograd.graph.saved_tensors_hooks(
            lambda t: t, lambda t: t))),
        "save_on_cpu()": ("neither", hooked(torch.autograd.graph.save_on_cpu)),
        "checkpointed model": ("neither", lambda model: F.mse_loss(checkpoint(model, x, use_reentrant=False), y)),
        "reentrant checkpointed model": ("neither", lambda model: F.mse_loss(
            checkpoint(model, x.clone().requires_grad_(), use_reentrant=True), y)),
        "cloning saved_tensors_hooks": ("old", hooked(lambda: torch.autograd.graph.saved_tensors_hooks(
            lambda t: t.clone(), lambda t: t))),
        "save_on_cpu(pin_memory=True)": ("old", hooked(lambda: torch.autograd.graph.save_on_cpu(pin_memory=True))),
        "checkpointed loss": ("new", lambda model: checkpoint(lambda inputs: F.mse_loss(model(inputs), y), x,
                                                              use_reentrant=False)),
        "reentrant checkpointed loss": ("new", lambda model: checkpoint(lambda inputs: F.mse_loss(model(inputs), y),
                                                                        x.clone().requires_grad_(), use_reentrant=True)),
    }
    for name, _ in VERSIONED[::2]:
        for how, (gives, make_loss) in losses.items():
            model = _two_layers()
            loss = make_loss(model)
            loss.backward(retain_graph=True)
            old = [p.grad.clone() for p in model.parameters()]
            version = model[2].weight._version
            getattr(torch.optim, name)(model.parameters(), lr=0.1).step()
            assert model[2].weight._version > version, (name, how)
            model.zero_grad()
            if gives == "raises":
                _raises(loss.backward, "modified by an inplace operation")
                continue
            loss.backward()  # no error
            kept = [p.grad.clone() for p in model.parameters()]
            model.zero_grad()
            F.mse_loss(model(x), y).backward()
            new = [p.grad for p in model.parameters()]
            assert all(torch.allclose(p, q) for p, q in zip(kept, old)) == (gives == "old"), (name, how)
            assert all(torch.allclose(p, q) for p, q in zip(kept, new)) == (gives == "new"), (name, how)


def a_second_forward_changes_the_gradient_through_dropout_not_through_batch_norm():
    """On the same batch in training mode, a recomputed forward through dropout gives another gradient
    than the kept graph (a new mask); through batch norm alone it gives the same gradient, bit for bit
    (the batch's own statistics again), while the running statistics move once more; with neither,
    the two gradients are equal."""
    (x, y), = _batches(1, rows=32)

    def kept_and_recomputed(net):
        loss = F.mse_loss(net(x), y)
        loss.backward(retain_graph=True)
        net.zero_grad()
        loss.backward()
        kept = [p.grad.clone() for p in net.parameters()]
        net.zero_grad()
        F.mse_loss(net(x), y).backward()
        return all(torch.equal(p, q.grad) for p, q in zip(kept, net.parameters()))

    torch.manual_seed(0)
    dropout = nn.Sequential(nn.Linear(8, 16), nn.Tanh(), nn.Dropout(0.2), nn.Linear(16, 1))
    norm = nn.Sequential(nn.Linear(8, 16), nn.BatchNorm1d(16), nn.Tanh(), nn.Linear(16, 1))
    assert not kept_and_recomputed(dropout)
    tracked, mean = norm[1].num_batches_tracked.item(), norm[1].running_mean.clone()
    assert kept_and_recomputed(norm)
    assert norm[1].num_batches_tracked.item() == tracked + 2  # the kept forward, then the recomputed one
    assert not torch.equal(norm[1].running_mean, mean)
    assert kept_and_recomputed(_two_layers())


def the_gan_pattern_raises_after_the_discriminator_step():
    """GAN pattern: backward(retain_graph=True) on the discriminator's loss, a discriminator step
    (SGD or Adam), then backward() on the generator's loss through the same D(G(z)) raises the
    in-place modification error: the graph saved the discriminator's weight."""
    for name in ("SGD", "Adam"):
        torch.manual_seed(0)
        generator, discriminator = nn.Linear(4, 8), nn.Sequential(nn.Linear(8, 1), nn.Sigmoid())
        d_optimizer = getattr(torch.optim, name)(discriminator.parameters(), lr=0.1)
        p = discriminator(generator(torch.randn(16, 4)))
        d_loss = F.binary_cross_entropy(p, torch.zeros_like(p))
        g_loss = F.binary_cross_entropy(p, torch.ones_like(p))
        d_loss.backward(retain_graph=True)
        d_optimizer.step()
        _raises(g_loss.backward, "modified by an inplace operation")


def hvp_keeps_every_forward_saved_tensor_but_needs_only_the_mv_one():
    """The create_graph=True gradient releases none of the forward's 3 saved tensors; the second
    differentiation walks, and frees, only MvBackward0's X: the loss node's two are not on g's graph."""
    torch.manual_seed(0)
    X = torch.randn(64, 5, dtype=torch.float64)
    y = torch.randint(0, 2, (64,)).double()
    w = torch.randn(5, dtype=torch.float64, requires_grad=True)
    refs, hooks = _live_saved()
    with hooks:
        loss = F.binary_cross_entropy_with_logits(X @ w, y)
        forward = list(refs)
        (g,) = torch.autograd.grad(loss, w, create_graph=True)
        assert len(forward) == 3 and [ref() is not None for ref in forward] == [True] * 3
        assert forward[0]().data_ptr() == X.data_ptr()  # what MvBackward0 saved
        torch.autograd.grad(g @ torch.randn(5, dtype=torch.float64), w)
    assert [ref() is not None for ref in forward] == [False, True, True]


def create_graph_makes_retain_graph_default_to_true():
    """With create_graph=True, retain_graph defaults to True (a later backward works); passing
    retain_graph=False frees the graph all the same (a later backward raises)."""
    w = torch.randn(3, dtype=torch.float64, requires_grad=True)
    loss = (w.exp() * w).sum()
    torch.autograd.grad(loss, w, create_graph=True)
    loss.backward()
    loss = (w.exp() * w).sum()
    torch.autograd.grad(loss, w, create_graph=True, retain_graph=False)
    _raises(loss.backward, "second time")


def a_second_backward_frees_only_the_nodes_it_walks():
    """Two heads on one trunk: after loss_a.backward(retain_graph=True) and loss_b.backward(),
    the trunk's and the regression head's saved tensors are freed, while the classification
    head's node, walked only by the first, still holds the trunk's output, for as long as anything
    references it: the losses, or the head's logits alone. A second backward that walks the whole kept
    graph, on the same loss, frees every saved tensor."""
    torch.manual_seed(0)
    trunk = nn.Sequential(nn.Linear(8, 16), nn.Tanh())
    classify, regress = nn.Linear(16, 3), nn.Linear(16, 1)
    features = trunk(torch.randn(4, 8))
    logits, pred = classify(features), regress(features)
    loss_a = F.cross_entropy(logits, torch.randint(0, 3, (4,)))
    loss_b = F.mse_loss(pred, torch.randn(4, 1))
    loss_a.backward(retain_graph=True)
    loss_b.backward()
    assert logits.grad_fn._saved_mat1.data_ptr() == features.data_ptr()
    _raises(lambda: pred.grad_fn._saved_mat1, "freed")
    trunk_tanh = features.grad_fn
    _raises(lambda: trunk_tanh._saved_result, "freed")
    kept = weakref.ref(logits.grad_fn._saved_mat1)
    del loss_a, loss_b, features  # the head's logits alone still hold that node
    assert logits.grad_fn._saved_mat1.data_ptr() == kept().data_ptr()
    del logits
    assert kept() is None

    # A second backward that walks the whole kept graph (the same loss again) frees everything.
    features = trunk(torch.randn(4, 8))
    logits = classify(features)
    loss_a = F.cross_entropy(logits, torch.randint(0, 3, (4,)))
    loss_a.backward(retain_graph=True)
    assert logits.grad_fn._saved_mat1.data_ptr() == features.data_ptr()

    def saved_alive():
        nodes, seen, alive = [loss_a.grad_fn], set(), 0
        while nodes:
            node = nodes.pop()
            if node is None or id(node) in seen:
                continue
            seen.add(id(node))
            nodes.extend(next_node for next_node, _ in node.next_functions)
            for name in dir(node):
                if name.startswith("_saved_"):
                    try:
                        alive += isinstance(getattr(node, name), torch.Tensor)
                    except RuntimeError as error:
                        assert "freed" in str(error), str(error)
        return alive

    assert saved_alive() >= 4
    loss_a.backward()
    assert saved_alive() == 0


def no_grad_leaves_dropout_and_batch_norm_in_training_mode():
    """torch.no_grad() does not switch modules to eval mode: under it, a model in training mode
    still drops units and batch norm still updates its running statistics."""
    torch.manual_seed(0)
    model = nn.Sequential(nn.Linear(4, 8), nn.BatchNorm1d(8), nn.Dropout(0.5)).train()
    x = torch.randn(16, 4)
    before = model[1].running_mean.clone()
    with torch.no_grad():
        first, second = model(x), model(x)
    assert model.training and not torch.equal(first, second)
    assert not torch.equal(model[1].running_mean, before)


def model_train_switches_every_submodule_restoring_each_flag_keeps_a_frozen_one():
    """model.eval() then model.train() puts every submodule in training mode, a batch norm the caller
    had left in eval mode too (its running statistics then move on the next training forward);
    saving each module's training flag and restoring it leaves that batch norm in eval mode."""
    def model_with_a_frozen_norm():
        torch.manual_seed(0)
        model = nn.Sequential(nn.Linear(6, 16), nn.BatchNorm1d(16), nn.ReLU(), nn.Dropout(0.5), nn.Linear(16, 3))
        model[1].eval()
        return model

    x = torch.randn(20, 6)
    model = model_with_a_frozen_norm()
    model.eval()
    model.train()
    assert model[1].training and all(module.training for module in model.modules())
    before = model[1].running_mean.clone()
    model(x)
    assert not torch.equal(model[1].running_mean, before)

    model = model_with_a_frozen_norm()
    modes = [(module, module.training) for module in model.modules()]
    model.eval()
    for module, training in modes:
        module.train(training)
    assert not model[1].training and model.training and model[3].training
    before = model[1].running_mean.clone()
    model(x)
    assert torch.equal(model[1].running_mean, before)


def backward_on_an_accuracy_raises_on_the_first_batch():
    """An accuracy computed with argmax and == has no grad_fn, so acc.backward() raises on the
    first batch."""
    torch.manual_seed(0)
    model = nn.Linear(6, 3)
    x, y = torch.randn(10, 6), torch.randint(0, 3, (10,))
    acc = (model(x).argmax(dim=1) == y).float().mean()
    assert acc.grad_fn is None
    _raises(acc.backward, "does not require grad")


def autograd_backward_of_both_losses_gives_the_sum_s_gradients_and_keeps_nothing():
    """torch.autograd.backward([loss_a, loss_b]) on two heads over one trunk leaves the same .grad as
    (loss_a + loss_b).backward(), goes through the trunk once (a hook on the trunk's output is called
    once), and frees the graph: a later loss_a.backward() raises."""
    torch.manual_seed(0)
    trunk, classify, regress = nn.Sequential(nn.Linear(8, 16), nn.Tanh()), nn.Linear(16, 3), nn.Linear(16, 1)
    parameters = [*trunk.parameters(), *classify.parameters(), *regress.parameters()]
    x, labels, targets = torch.randn(16, 8), torch.randint(0, 3, (16,)), torch.randn(16, 1)

    def losses(calls):
        features = trunk(x)
        features.register_hook(calls.append)
        return F.cross_entropy(classify(features), labels), F.mse_loss(regress(features), targets)

    grads = []
    for both in (lambda a, b: (a + b).backward(), lambda a, b: torch.autograd.backward([a, b])):
        calls = []
        loss_a, loss_b = losses(calls)
        both(loss_a, loss_b)
        assert len(calls) == 1, len(calls)
        grads.append([p.grad.clone() for p in parameters])
        for p in parameters:
            p.grad = None
    assert all(torch.equal(p, q) for p, q in zip(*grads))
    _raises(loss_a.backward, "second time")


def a_hook_that_clips_the_trunk_s_gradient_sees_each_loss_alone_in_two_calls():
    """Two backward calls (retain_graph=True on the first) and one backward of the sum agree up to
    rounding only while nothing on the way from the losses to the parameters is non-linear in the
    gradient: a hook that clamps the gradient, on the trunk's output or on the trunk's weight itself,
    runs once per backward call, sees each head's gradient alone in two calls and their sum in one
    call, and the trunk's weight gets another gradient; without a hook the two agree to float32
    rounding."""
    torch.manual_seed(0)
    trunk, classify, regress = nn.Linear(8, 16), nn.Linear(16, 3), nn.Linear(16, 1)
    x, labels, targets = torch.randn(16, 8), torch.randint(0, 3, (16,)), torch.randn(16, 1)

    def trunk_grad(two_calls, hooked):
        seen = []

        def hook(grad):
            seen.append(grad)
            return grad.clamp(-1e-3, 1e-3)

        trunk.weight.grad = None
        handle = trunk.weight.register_hook(hook) if hooked == "weight" else None
        try:
            features = trunk(x)
            if hooked == "output":
                features.register_hook(hook)
            loss_a, loss_b = F.cross_entropy(classify(features), labels), F.mse_loss(regress(features), targets)
            if two_calls:
                loss_a.backward(retain_graph=True)
                loss_b.backward()
            else:
                (loss_a + loss_b).backward()
        finally:
            if handle is not None:
                handle.remove()
        return trunk.weight.grad, seen

    for hooked in ("output", "weight"):
        (two, seen_two), (one, seen_one) = trunk_grad(True, hooked), trunk_grad(False, hooked)
        assert len(seen_two) == 2 and len(seen_one) == 1, (hooked, len(seen_two), len(seen_one))
        assert torch.allclose(seen_two[0] + seen_two[1], seen_one[0]), hooked
        assert (two - one).abs().max() > 0.1 * one.abs().max(), (hooked, (two - one).abs().max())
    (two, _), (one, _) = trunk_grad(True, None), trunk_grad(False, None)
    assert torch.allclose(two, one) and (two - one).abs().max() < 1e-6, (two - one).abs().max()


def detect_anomaly_shows_the_forward_only_if_it_was_on_when_the_node_was_built():
    """The "second time" error of total_loss.backward() fails in a node an earlier batch built. With
    torch.autograd.set_detect_anomaly(True) on before the loop, it comes with a warning that names
    that node (MseLossBackward0) and shows the traceback of the forward call that built it (here, a
    function _batch_loss); with anomaly mode on only for the failing backward, the warning names the
    node and says that no forward pass information is available."""
    def warnings_of(anomaly_from_the_start):
        w = torch.zeros(8, 1, requires_grad=True)
        total = 0.0
        with warnings.catch_warnings(record=True) as caught:
            warnings.simplefilter("always")
            torch.autograd.set_detect_anomaly(anomaly_from_the_start)
            try:
                for x, y in _batches(3):
                    loss = _batch_loss(x, y, w)
                    loss.backward()
                    total += loss
                torch.autograd.set_detect_anomaly(True)
                _raises(total.backward, "second time")
            finally:
                torch.autograd.set_detect_anomaly(False)
        found = [str(warning.message) for warning in caught if "Error detected in" in str(warning.message)]
        assert len(found) == 1 and "Error detected in MseLossBackward0" in found[0], found
        return found[0]

    shown = warnings_of(anomaly_from_the_start=True)
    assert "Traceback of forward call" in shown and "_batch_loss" in shown, shown
    shown = warnings_of(anomaly_from_the_start=False)
    assert "No forward pass information available" in shown and "_batch_loss" not in shown, shown


def under_ddp_a_second_backward_raises_or_is_not_reduced_and_the_sum_runs():
    """With DistributedDataParallel's default settings (one gloo rank in this process, on the loopback
    interface), backward(retain_graph=True) on one loss and backward() on the other, through one
    forward: when the first loss leaves a parameter unreached (two heads, each with its own
    parameters), the second raises "Expected to mark a variable ready only once"; when the first
    reaches every parameter (two losses on the same output), the second runs with no error and no
    all-reduce runs for it (a communication hook, called once per bucket all-reduce, is not called
    during it), so its gradient is not averaged across ranks. backward() of the sum runs in both
    models, with one all-reduce per bucket."""
    class TwoHeads(nn.Module):
        def __init__(self):
            super().__init__()
            self.trunk, self.a, self.b = nn.Sequential(nn.Linear(8, 16), nn.Tanh()), nn.Linear(16, 3), nn.Linear(16, 1)

        def forward(self, x):
            features = self.trunk(x)
            return self.a(features), self.b(features)

    class OneOutput(nn.Module):
        def __init__(self):
            super().__init__()
            self.net = nn.Sequential(nn.Linear(8, 16), nn.Tanh(), nn.Linear(16, 3))

        def forward(self, x):
            logits = self.net(x)
            return logits, logits

    def losses(a, b):
        if b.shape[1] == 1:
            return F.cross_entropy(a, labels), F.mse_loss(b, targets)
        return F.cross_entropy(a, labels), b.square().mean()

    reduced, sent = [], []

    def hook(state, bucket):  # what DDP does by default: all-reduce the bucket, then divide by the world size
        reduced.append(1)
        # Waited for here, and the bucket kept until the group is destroyed: destroy_process_group() joins
        # gloo's threads holding the GIL, so none may be left needing it (to run a then() callback, or to
        # free a tensor's last reference): that deadlocks.
        sent.append(bucket.buffer())
        dist.all_reduce(sent[-1])
        done = torch.futures.Future()
        done.set_result(sent[-1] / dist.get_world_size())
        return done

    x, labels, targets = torch.randn(4, 8), torch.tensor([0, 1, 2, 0]), torch.randn(4, 1)
    saved = os.environ.get("GLOO_SOCKET_IFNAME")
    os.environ["GLOO_SOCKET_IFNAME"] = "lo"
    model = a = b = loss_a = loss_b = None
    try:
        for network in (TwoHeads, OneOutput):
            for two_calls in (False, True):
                dist.init_process_group("gloo", store=dist.HashStore(), rank=0, world_size=1)
                try:
                    torch.manual_seed(0)
                    model = nn.parallel.DistributedDataParallel(network())
                    model.register_comm_hook(None, hook)
                    for _ in range(2):
                        a, b = model(x)
                        loss_a, loss_b = losses(a, b)
                        del reduced[:]
                        if not two_calls:
                            (loss_a + loss_b).backward()  # no error
                            assert reduced, "the sum's backward all-reduced nothing"
                            continue
                        loss_a.backward(retain_graph=True)
                        if network is TwoHeads:
                            _raises(loss_b.backward, "Expected to mark a variable ready only once")
                            break
                        assert reduced, "the first backward all-reduced nothing"
                        del reduced[:]
                        loss_b.backward()  # no error, and no all-reduce
                        assert not reduced, f"{len(reduced)} all-reduces during the second backward"
                finally:
                    # The DDP Reducer goes before its process group: a Reducer freed after
                    # destroy_process_group() runs ~ProcessGroupGloo itself, which can wait forever.
                    model = a = b = loss_a = loss_b = None
                    dist.destroy_process_group()
                    del sent[:]
    finally:
        if saved is None:
            os.environ.pop("GLOO_SOCKET_IFNAME")
        else:
            os.environ["GLOO_SOCKET_IFNAME"] = saved


def two_backward_calls_through_a_part_that_saved_nothing_need_no_retain_graph():
    """Two plain backward() calls run without retain_graph when what they share saved nothing for
    backward: the output of a frozen trunk fed by an input that needs no gradient (no grad_fn, so
    neither backward enters the trunk) feeding two trainable heads, which get the same .grad as from
    backward() of the sum; or an addition, which saves nothing. Fed by an input that needs a
    gradient, the frozen trunk's output has a grad_fn and the second plain backward() raises."""
    torch.manual_seed(0)
    trunk = nn.Sequential(nn.Linear(8, 16), nn.Tanh()).requires_grad_(False)
    classify, regress = nn.Linear(16, 3), nn.Linear(16, 1)
    heads = [*classify.parameters(), *regress.parameters()]
    x, labels, targets = torch.randn(16, 8), torch.randint(0, 3, (16,)), torch.randn(16, 1)
    grads = []
    for summed in (False, True):
        features = trunk(x)
        assert features.grad_fn is None
        loss_a, loss_b = F.cross_entropy(classify(features), labels), F.mse_loss(regress(features), targets)
        if summed:
            (loss_a + loss_b).backward()
        else:
            loss_a.backward()
            loss_b.backward()  # no error
        grads.append([p.grad.clone() for p in heads])
        for p in heads:
            p.grad = None
    assert all(torch.equal(p, q) for p, q in zip(*grads))

    # Fed by an input that needs a gradient, the frozen trunk's output has a grad_fn, and the
    # second plain backward() goes back into the trunk's freed nodes.
    features = trunk(x.clone().requires_grad_())
    assert features.grad_fn is not None
    loss_a, loss_b = F.cross_entropy(classify(features), labels), F.mse_loss(regress(features), targets)
    loss_a.backward()
    _raises(loss_b.backward, "second time")
    for p in heads:
        p.grad = None

    w = torch.randn(4, requires_grad=True)
    shared = w + 1
    (shared * 2).sum().backward()
    (shared * 3).sum().backward()  # no error
    assert torch.equal(w.grad, torch.full((4,), 5.0))


def _batch_loss(x, y, w):
    return F.mse_loss(x @ w, y)
