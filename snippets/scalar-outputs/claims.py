"""Checks behind scalar-outputs' sentences that no output on the page shows (tests/test_claims.py
runs each on every supported torch; {claim}`scalar-outputs/<name>` on a page names one)."""

import runpy
import warnings
from contextlib import redirect_stdout
from io import StringIO
from pathlib import Path

import torch
import torch.nn.functional as F
from torch import nn


def _f(x):
    """The chapter's f: three outputs, two of which mix several inputs."""
    return torch.stack([x[0] * x[1], x[1] ** 2, x[0] + 3 * x[2]])


def _effective_lr_run():
    """effective-lr.py's namespace, the script run once (its output discarded)."""
    with redirect_stdout(StringIO()):
        return runpy.run_path(str(Path(__file__).with_name("effective-lr.py")))


def _train_adam(optimizer_class, scale, weight_decay=0.0, clip=None):
    """20 steps on a regression whose gradient norm stays between 6.6 and 7.6 at scale 1; `scale`
    multiplies the loss, the same number at every step or a list of 20, one per step; `clip` clips
    the gradient to that norm before each step."""
    torch.manual_seed(0)
    w = torch.zeros(4, requires_grad=True)
    optimizer = optimizer_class([w], lr=0.01, weight_decay=weight_decay)
    x = torch.randn(32, 4)
    y = x @ torch.tensor([2.0, -1.0, 0.5, 3.0])
    for step_scale in scale if isinstance(scale, list) else [scale] * 20:
        optimizer.zero_grad()
        (step_scale * ((x @ w - y) ** 2).mean()).backward()
        if clip is not None:
            nn.utils.clip_grad_norm_([w], max_norm=clip)
        optimizer.step()
    return w.detach()


def backward_v_is_the_gradient_of_the_weighted_sum():
    """For the chapter's f, f(x).backward(v) leaves in x.grad exactly the gradient of the scalar
    (v * f(x)).sum()."""
    v = torch.tensor([1.0, 0.5, -2.0])
    x = torch.tensor([1.0, 2.0, 3.0], requires_grad=True)
    _f(x).backward(v)
    by_v = x.grad.clone()
    x.grad = None
    (v * _f(x)).sum().backward()
    assert torch.equal(by_v, x.grad)


def backward_v_never_builds_the_jacobian():
    """backward(v) on million-element outputs of a million-element input gives vᵀJ exactly on a machine
    that could not hold J: for x * 3, J would hold 10**12 floats (4 TB), and vᵀJ = 3v;
    for x.cumsum(0), J is not diagonal but lower-triangular, with 5·10**11 non-zero entries (2 TB),
    and vᵀJ is v summed from the end, v.flip(0).cumsum(0).flip(0) (exact here: v holds small
    integers)."""
    n = 1_000_000
    x = torch.randn(n, generator=torch.Generator().manual_seed(0), requires_grad=True)
    v = torch.randn(n, generator=torch.Generator().manual_seed(1))
    (x * 3).backward(v)
    assert torch.equal(x.grad, 3 * v)

    x.grad = None
    v = torch.randint(-3, 4, (n,), generator=torch.Generator().manual_seed(2)).float()
    x.cumsum(0).backward(v)
    assert torch.equal(x.grad, v.flip(0).cumsum(0).flip(0))


def jacobian_by_default_runs_one_backward_per_output():
    """torch.autograd.functional.jacobian, by default, sends a gradient through f's graph once per
    output element: a hook inside f fires 4 times for 4 outputs."""
    from torch.autograd.functional import jacobian
    calls = []

    def f(x):
        h = x * 1.0
        h.register_hook(lambda grad: calls.append(1))
        return torch.stack([h[0] * h[1], h[1] ** 2, h[0] + 3 * h[2], h[2]])

    jacobian(f, torch.tensor([1.0, 2.0, 3.0]))
    assert len(calls) == 4


def is_grads_batched_gives_every_row_of_j_in_one_call():
    """torch.autograd.grad(out, x, torch.eye(3), is_grads_batched=True) returns all of the chapter's
    f's 3 × 3 Jacobian, and a hook inside f fires once, where one backward per row fires it 3 times.
    The pass runs under vmap: the same call raises a RuntimeError when a hook on the path calls
    .item(), which a plain backward(v) runs without complaint."""
    from torch.autograd.functional import jacobian
    calls = []

    def f(x):
        h = x * 1.0
        h.register_hook(lambda grad: calls.append(1))
        return _f(h)

    x = torch.tensor([1.0, 2.0, 3.0], requires_grad=True)
    (rows,) = torch.autograd.grad(f(x), x, torch.eye(3), is_grads_batched=True)
    assert len(calls) == 1
    assert torch.equal(rows, jacobian(_f, x.detach()))

    def g(x):
        h = x * 1.0
        h.register_hook(lambda grad: grad * (1.0 + 0.0 * grad.sum().item()))
        return _f(h)

    _f(x).backward(torch.ones(3))  # the hook is harmless outside vmap
    g(x).backward(torch.ones(3))
    try:
        torch.autograd.grad(g(x), x, torch.eye(3), is_grads_batched=True)
    except RuntimeError as error:
        assert "aten::item" in str(error), error  # vmap has no batching rule for .item()
    else:
        raise AssertionError("a hook calling .item() ran under is_grads_batched")


def autograd_grad_with_v_returns_the_product_and_leaves_grad_alone():
    """torch.autograd.grad(out, x, grad_outputs=v) returns, as a one-element tuple, what
    out.backward(v) adds into x.grad, and leaves x.grad as it was (here, 7s)."""
    v = torch.tensor([1.0, 0.5, -2.0])
    x = torch.tensor([1.0, 2.0, 3.0], requires_grad=True)
    _f(x).backward(v)
    by_backward = x.grad.clone()
    x.grad = torch.full((3,), 7.0)
    returned = torch.autograd.grad(_f(x), x, grad_outputs=v)
    assert isinstance(returned, tuple) and len(returned) == 1  # a one-element tuple, not a tensor
    (by_grad,) = returned
    assert torch.equal(by_grad, by_backward)
    assert torch.equal(x.grad, torch.full((3,), 7.0))


def sum_hands_on_expanded_ones_and_batch_norm_can_differ_in_the_last_bits():
    """out.sum()'s backward hands on a gradient of ones with stride 0 (expanded), where
    ones_like(out) is dense. BatchNorm2d's backward on the CPU in training mode rounds the two
    differently: the exact x.grad and weight.grad of out.sum() are 0 (the normalised output sums to
    0 per channel), and backward(ones_like(out)) leaves rounding noise below 1e-4 in them, but not
    the noise out.sum().backward() leaves; backward(ones(()).expand(out.shape)), the same ones with
    stride 0, leaves exactly out.sum().backward()'s."""
    torch.manual_seed(0)
    bn = nn.BatchNorm2d(8)
    x = torch.randn(16, 8, 20, 20, requires_grad=True)

    def grads(run):
        x.grad = bn.weight.grad = None
        out = bn(x)
        strides = []
        out.register_hook(lambda g: strides.append(g.stride()))
        run(out)
        return strides[0], x.grad.clone(), bn.weight.grad.clone()

    sum_stride, *by_sum = grads(lambda out: out.sum().backward())
    ones_stride, *by_ones = grads(lambda out: out.backward(torch.ones_like(out)))
    _, *by_expanded = grads(lambda out: out.backward(torch.ones(()).expand(out.shape)))
    assert set(sum_stride) == {0} and 0 not in ones_stride, (sum_stride, ones_stride)
    assert all(torch.equal(a, b) for a, b in zip(by_expanded, by_sum))
    for a, b in zip(by_ones, by_sum):
        assert not torch.equal(a, b)
        assert (a - b).abs().max() < 1e-4


def v_must_have_exactly_the_output_shape():
    """For an output of shape (3,), v of shape (3,) is accepted and v of each other shape tried is
    refused with "Mismatch in shape": (1,) and (), which broadcast to (3,); (1, 3) and (2, 3), to
    which the output broadcasts; (3, 1) and (1, 3, 1), which hold three elements too."""
    x = torch.tensor([1.0, 2.0, 3.0], requires_grad=True)
    (x ** 2).backward(torch.ones(3))  # the output's own shape is accepted
    for v in (torch.ones(1), torch.tensor(1.0), torch.ones(3, 1), torch.ones(1, 3), torch.ones(2, 3),
              torch.ones(1, 3, 1)):
        try:
            (x ** 2).backward(v)
        except RuntimeError as error:
            assert "Mismatch in shape" in str(error)
        else:
            raise AssertionError(f"v of shape {tuple(v.shape)} accepted")


def backward_accepts_any_one_element_shape():
    """backward() without an argument works on outputs of shape (), (1,), (1, 1) and (1, 1, 1)."""
    for shape in ((), (1,), (1, 1), (1, 1, 1)):
        x = torch.tensor([2.0], requires_grad=True)
        (x * x).reshape(shape).backward()
        assert x.grad.item() == 4.0, shape


def backward_without_v_refuses_a_complex_output():
    """backward() without an argument refuses a one-element complex output ("real scalar outputs")."""
    z = torch.tensor([1.0 + 1.0j], requires_grad=True)
    try:
        (z * z).backward()
    except RuntimeError as error:
        assert "real scalar outputs" in str(error)
    else:
        raise AssertionError("a complex one-element output accepted")


def loss_modules_default_to_the_mean():
    """MSELoss, CrossEntropyLoss, L1Loss, NLLLoss, BCELoss, BCEWithLogitsLoss and HuberLoss all
    default to reduction="mean"."""
    for loss in (nn.MSELoss, nn.CrossEntropyLoss, nn.L1Loss, nn.NLLLoss, nn.BCELoss,
                 nn.BCEWithLogitsLoss, nn.HuberLoss):
        assert loss().reduction == "mean", loss.__name__


def a_loss_with_reduction_none_is_refused_until_reduced():
    """nn.MSELoss(reduction="none") returns one loss per element, and backward() on it raises "grad can
    be implicitly created only for scalar outputs"; its .mean() is the default MSELoss."""
    generator = torch.Generator().manual_seed(0)
    pred = torch.randn(8, generator=generator, requires_grad=True)
    y = torch.randn(8, generator=generator)
    per_sample = nn.MSELoss(reduction="none")(pred, y)
    assert per_sample.shape == (8,)
    try:
        per_sample.backward()
    except RuntimeError as error:
        assert "grad can be implicitly created only for scalar outputs" in str(error)
    else:
        raise AssertionError("backward() accepted a reduction='none' loss")
    assert torch.equal(per_sample.mean(), nn.MSELoss()(pred, y))


def sum_over_mean_is_the_number_of_terms_the_mean_divides_by():
    """The summed gradient is a constant times the mean gradient, that constant being what the mean
    divides by: the batch size for one output per row (8) and for CrossEntropyLoss on (8, C) logits
    without class weights (8), but batch × d for MSELoss on predictions of shape (8, 2) (16), 5 for
    CrossEntropyLoss when 3 of the 8 targets equal ignore_index (not counted), 40 for
    CrossEntropyLoss on (8, C, 5) logits (every position a term), and, with class weights and class-index
    targets, the sum of the 8 targets' weights (not 8), but with class-probability targets 8 again,
    weights or not. When all 8 targets equal ignore_index, the mean divides by 0: the loss is NaN."""
    generator = torch.Generator().manual_seed(0)
    x = torch.randn(8, 3, generator=generator)

    def ratio(loss_of_w, shape):
        w = torch.randn(shape, generator=torch.Generator().manual_seed(1), requires_grad=True)
        grads = []
        for reduction in ("sum", "mean"):
            w.grad = None
            loss_of_w(w, reduction).backward()
            grads.append(w.grad.clone())
        assert torch.allclose(grads[0], grads[1] * (grads[0].flatten()[0] / grads[1].flatten()[0]))
        return (grads[0].norm() / grads[1].norm()).item()

    y1, y2 = torch.randn(8, generator=generator), torch.randn(8, 2, generator=generator)
    classes = torch.randint(0, 4, (8,), generator=generator)
    assert abs(ratio(lambda w, r: F.mse_loss(x @ w, y1, reduction=r), (3,)) - 8) < 1e-4
    assert abs(ratio(lambda w, r: F.cross_entropy(x @ w, classes, reduction=r), (3, 4)) - 8) < 1e-4
    assert abs(ratio(lambda w, r: F.mse_loss(x @ w, y2, reduction=r), (3, 2)) - 16) < 1e-4
    padded = classes.clone()
    padded[:3] = nn.CrossEntropyLoss().ignore_index  # -100, the usual padding label
    assert abs(ratio(lambda w, r: F.cross_entropy(x @ w, padded, reduction=r), (3, 4)) - 5) < 1e-4
    positions = torch.randn(8, 5, 3, generator=generator)
    labels = torch.randint(0, 4, (8, 5), generator=generator)
    assert abs(ratio(lambda w, r: F.cross_entropy((positions @ w).transpose(1, 2), labels, reduction=r),
                     (3, 4)) - 40) < 1e-3
    weight = torch.tensor([0.5, 1.0, 2.0, 4.0])
    total = weight[classes].sum().item()
    assert total != 8
    assert abs(ratio(lambda w, r: F.cross_entropy(x @ w, classes, weight=weight, reduction=r), (3, 4)) - total) < 1e-4
    soft = torch.softmax(torch.randn(8, 4, generator=generator), dim=1)
    assert abs(ratio(lambda w, r: F.cross_entropy(x @ w, soft, weight=weight, reduction=r), (3, 4)) - 8) < 1e-4
    assert torch.isnan(F.cross_entropy(torch.randn(8, 4, generator=generator), torch.full((8,), -100)))


def ctc_sum_and_mean_gradients_are_not_proportional():
    """CTCLoss's "mean" divides each sample's loss by its target length before averaging, so with
    target lengths 2, 3, 5 and 6 its summed gradient is no constant times its mean gradient: even
    the best-fitting constant leaves them more than 10% apart. With the lengths all 4 (the
    condition the sentence names), the summed gradient is batch × length = 16 times the mean one."""
    generator = torch.Generator().manual_seed(0)
    logits = torch.randn(12, 4, 5, generator=generator, requires_grad=True)  # (time, batch, classes)
    targets = torch.randint(1, 5, (4, 6), generator=generator)
    inputs = torch.full((4,), 12)

    def gradients(lengths):
        grads = []
        for reduction in ("sum", "mean"):
            logits.grad = None
            F.ctc_loss(logits.log_softmax(2), targets, inputs, lengths, reduction=reduction).backward()
            grads.append(logits.grad.flatten().clone())
        return grads

    summed, mean = gradients(torch.tensor([2, 3, 5, 6]))
    best = (summed @ mean) / (mean @ mean)
    assert (best * mean - summed).norm() / summed.norm() > 0.1
    summed, mean = gradients(torch.tensor([4, 4, 4, 4]))
    assert torch.allclose(summed, 16 * mean, rtol=1e-4, atol=1e-6)


def the_mean_gradient_does_not_grow_with_the_batch():
    """For sum-vs-mean.py's regression, averaged over 2000 independent batches, the mean gradient's
    norm at batch 128 is below that at batch 8: a little below at w = 0 (a ratio between 0.8 and
    0.95, the noise of small batches adding to the norm), and close to 1/√16 = 1/4 at the optimum,
    where noise is all that is left (between 0.22 and 0.29)."""
    w_true = torch.tensor([2.0, -1.0, 0.5, 3.0])

    def mean_norm(rows, w):
        generator = torch.Generator().manual_seed(5)
        x = torch.randn(2000, rows, 4, generator=generator)
        y = x @ w_true + 0.1 * torch.randn(2000, rows, generator=generator)
        weights = w.expand(2000, 4).clone().requires_grad_()  # one copy of w per batch
        (grads,) = torch.autograd.grad(((torch.einsum("brk,bk->br", x, weights) - y) ** 2).mean(1).sum(), weights)
        return grads.norm(dim=1).mean().item()

    at_zero = mean_norm(128, torch.zeros(4)) / mean_norm(8, torch.zeros(4))
    at_optimum = mean_norm(128, w_true) / mean_norm(8, w_true)
    assert 0.8 < at_zero < 0.95, at_zero
    assert 0.22 < at_optimum < 0.29, at_optimum


def every_summed_step_at_batch_128_is_past_the_stability_limit():
    """On effective-lr.py's own batches (its batch function and seed, its lr and step count), SGD on
    the summed squared error (Hessian 2XᵀX) is stable when lr × its largest eigenvalue is below 2:
    true for all 20 batches of 8 and of 32 rows, false for all 20 batches of 128 rows."""
    run = _effective_lr_run()
    for rows, stable in ((8, True), (32, True), (128, False)):
        generator = torch.Generator().manual_seed(1)  # train()'s seed: the batches it trained on
        for _ in range(run["STEPS"]):
            x, _ = run["batch"](rows, generator)
            top = torch.linalg.eigvalsh(2 * x.T @ x).max().item()
            assert (run["LR"] * top < 2) == stable, (rows, run["LR"] * top)


def sgd_weight_decay_is_not_multiplied_by_the_sum():
    """torch.optim.SGD adds weight_decay * w to the gradient after backward, so on batches of 32 rows,
    20 steps on the summed loss at lr equal 20 steps on the mean loss at lr × 32 only when the
    weight decay is divided by 32 too (to 1e-6); with the same weight decay they end more than 1e-2
    apart."""
    w_true = torch.tensor([2.0, -1.0, 0.5, 3.0])

    def train(reduction, lr, weight_decay):
        generator = torch.Generator().manual_seed(1)
        w = torch.zeros(4, requires_grad=True)
        optimizer = torch.optim.SGD([w], lr=lr, weight_decay=weight_decay)
        for _ in range(20):
            x = torch.randn(32, 4, generator=generator)
            optimizer.zero_grad()
            F.mse_loss(x @ w, x @ w_true, reduction=reduction).backward()
            optimizer.step()
        return w.detach()

    summed = train("sum", 0.001, 0.5)
    assert torch.allclose(summed, train("mean", 0.001 * 32, 0.5 / 32), atol=1e-6)
    assert (summed - train("mean", 0.001 * 32, 0.5)).abs().max() > 1e-2


def adam_cancels_a_constant_factor_unless_clipping_weight_decay_or_eps_sees_it():
    """Multiplying the loss by 32 leaves Adam's 20 steps unchanged (to 1e-6) without weight decay and
    AdamW's with its decoupled weight decay, but changes them (by more than 1e-4) for Adam with
    weight_decay, which is added to the gradient, and for Adam with a clipping threshold of 30, which
    the gradient crosses only at scale 32; multiplying it by 1e-8, which brings the gradient down to
    eps, changes them by more than 1e-2."""
    adam, adamw = torch.optim.Adam, torch.optim.AdamW
    assert torch.allclose(_train_adam(adam, 1), _train_adam(adam, 32), atol=1e-6)
    assert torch.allclose(_train_adam(adamw, 1, 0.1), _train_adam(adamw, 32, 0.1), atol=1e-6)
    assert (_train_adam(adam, 1, 0.1) - _train_adam(adam, 32, 0.1)).abs().max() > 1e-4
    assert torch.equal(_train_adam(adam, 1, clip=30.0), _train_adam(adam, 1))  # idle at scale 1
    assert (_train_adam(adam, 1, clip=30.0) - _train_adam(adam, 32, clip=30.0)).abs().max() > 1e-4
    assert (_train_adam(adam, 1) - _train_adam(adam, 1e-8)).abs().max() > 1e-2


def adam_does_not_cancel_a_factor_that_changes_from_step_to_step():
    """Multiplying the loss by a count that alternates between 32 and 8 (a sum over a varying number
    of terms) changes Adam's 20 steps: the weights end more than 5% of the distance they moved away
    from where the mean loss (and the loss times a constant 32, to 1e-6) takes them."""
    adam = torch.optim.Adam
    mean = _train_adam(adam, 1)
    assert torch.allclose(_train_adam(adam, 32), mean, atol=1e-6)
    varying = _train_adam(adam, [32, 8] * 10)
    assert (varying - mean).abs().max() > 0.05 * mean.abs().max()


def kl_div_mean_divides_by_every_element_and_batchmean_by_the_batch():
    """KLDivLoss defaults to reduction="mean", which on input of shape (8, 5) is the sum divided by 40,
    not the per-sample KL divergence averaged over the batch; "batchmean" is that average, the sum
    divided by 8. "mean" warns (a UserWarning that points to "batchmean"), "batchmean" does not."""
    generator = torch.Generator().manual_seed(0)
    log_p = F.log_softmax(torch.randn(8, 5, generator=generator), dim=1)
    q = F.softmax(torch.randn(8, 5, generator=generator), dim=1)
    assert nn.KLDivLoss().reduction == "mean"
    total = nn.KLDivLoss(reduction="sum")(log_p, q)
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        mean = nn.KLDivLoss(reduction="mean")(log_p, q)
        assert any(issubclass(w.category, UserWarning) and "'batchmean'" in str(w.message) for w in caught)
        caught.clear()
        batchmean = nn.KLDivLoss(reduction="batchmean")(log_p, q)
        assert not caught
    per_sample = (q * (q.log() - log_p)).sum(dim=1)
    assert torch.allclose(mean, total / 40) and torch.allclose(batchmean, total / 8)
    assert torch.allclose(batchmean, per_sample.mean()) and not torch.allclose(mean, per_sample.mean())


def summed_micro_batch_means_are_k_times_the_big_batch_mean():
    """Adding up the mean losses of 4 micro-batches of 16 rows gives 4 times the gradient of the
    64-row batch's mean loss (not 64 times); dividing each micro-batch's loss by 4 gives the big
    batch's mean gradient. For a token loss with padding (ignore_index), 2 micro-batches of 16
    sequences each divided by 2 match the big batch when both hold the same number of real tokens
    (to 1e-5), but not when one holds 2 real tokens per sequence and the other 9: then no division
    by a constant brings them within 10%."""
    generator = torch.Generator().manual_seed(0)
    x, y = torch.randn(64, 4, generator=generator), torch.randn(64, generator=generator)
    w = torch.zeros(4, requires_grad=True)
    F.mse_loss(x @ w, y).backward()
    big = w.grad.clone()
    for divide in (1, 4):
        w.grad = None
        for i in range(4):
            rows = slice(16 * i, 16 * (i + 1))
            (F.mse_loss(x[rows] @ w, y[rows]) / divide).backward()
        assert torch.allclose(w.grad, 4 / divide * big, rtol=1e-5)

    tokens = torch.randn(32, 10, 3, generator=generator)  # 32 sequences of 10 positions
    labels = torch.randint(0, 4, (32, 10), generator=generator)
    w = torch.randn(3, 4, generator=generator, requires_grad=True)
    for short, same_count in ((slice(0, 32, 2), True), (slice(0, 16), False)):
        padded = labels.clone()
        padded[:, 9:] = -100  # 9 real tokens per sequence ...
        padded[short, 2:] = -100  # ... or 2: alternating rows, or the whole first micro-batch
        grads = []
        for parts in (1, 2):
            w.grad = None
            for x_part, y_part in zip(tokens.chunk(parts), padded.chunk(parts)):
                (F.cross_entropy((x_part @ w).transpose(1, 2), y_part) / parts).backward()
            grads.append(w.grad.flatten().clone())
        big, micro = grads
        best = (big @ micro) / (micro @ micro)
        if same_count:
            assert torch.allclose(micro, big, atol=1e-5)
        else:
            assert (best * micro - big).norm() / big.norm() > 0.1


def _micro_batch_gaps(model, k):
    """On 64 rows, how far the gradient of k micro-batches (each loss / k) is from one batch's,
    relative to the latter: as it is, and after the best rescaling (any other division by a constant)."""
    generator = torch.Generator().manual_seed(0)
    x, y = torch.randn(64, 4, generator=generator), torch.randn(64, generator=generator)
    grads = []
    for parts in (1, k):
        model.zero_grad()
        for x_part, y_part in zip(x.chunk(parts), y.chunk(parts)):
            (F.mse_loss(model(x_part).squeeze(1), y_part) / parts).backward()
        grads.append(torch.cat([p.grad.flatten() for p in model.parameters()]))
    big, micro = grads
    best = (big @ micro) / (micro @ micro)
    return ((micro - big).norm() / big.norm()).item(), ((best * micro - big).norm() / big.norm()).item()


def batch_norm_micro_batches_differ_from_the_big_batch_whatever_the_division():
    """With a BatchNorm1d (training mode) between two Linear layers, 4 micro-batches of 16 rows give a
    gradient more than 5% away from the 64-row batch's, whether each loss is divided by 4 or by the
    constant that fits best; the same model without the BatchNorm agrees to 1e-5 with the division by 4."""
    torch.manual_seed(0)
    with_norm = nn.Sequential(nn.Linear(4, 8), nn.BatchNorm1d(8), nn.ReLU(), nn.Linear(8, 1))
    torch.manual_seed(0)
    without = nn.Sequential(nn.Linear(4, 8), nn.ReLU(), nn.Linear(8, 1))
    divided, rescaled = _micro_batch_gaps(with_norm, 4)
    assert divided > 0.05 and rescaled > 0.05, (divided, rescaled)
    assert _micro_batch_gaps(without, 4)[0] < 1e-5
