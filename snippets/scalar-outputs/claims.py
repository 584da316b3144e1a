"""Checks behind scalar-outputs' sentences that no output on the page shows (tests/test_claims.py
runs each on every supported torch; {claim}`scalar-outputs/<name>` on a page names one)."""

import torch
import torch.nn.functional as F
from torch import nn


def _f(x):
    """The chapter's f: three outputs, two of which mix several inputs."""
    return torch.stack([x[0] * x[1], x[1] ** 2, x[0] + 3 * x[2]])


def _batch(rows, generator):
    """effective-lr.py's batches: x, then the noise of y, drawn from the same generator."""
    x = torch.randn(rows, 4, generator=generator)
    torch.randn(rows, generator=generator)
    return x


def _train_adam(optimizer_class, scale, weight_decay):
    torch.manual_seed(0)
    w = torch.zeros(4, requires_grad=True)
    optimizer = optimizer_class([w], lr=0.01, weight_decay=weight_decay)
    x = torch.randn(32, 4)
    y = x @ torch.tensor([2.0, -1.0, 0.5, 3.0])
    for _ in range(20):
        optimizer.zero_grad()
        (scale * ((x @ w - y) ** 2).mean()).backward()
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
    """backward(v) on million-element outputs of a million-element input finishes in well under the
    time and memory a Jacobian would take: for x * 3, J would hold 10**12 floats (4 TB), and vᵀJ = 3v;
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


def v_must_have_exactly_the_output_shape():
    """For an output of shape (3,), a v of shape (1,), () or (3, 1), although each broadcasts to
    (3,), is refused with "Mismatch in shape"."""
    x = torch.tensor([1.0, 2.0, 3.0], requires_grad=True)
    for v in (torch.ones(1), torch.tensor(1.0), torch.ones(3, 1)):
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


def loss_modules_default_to_the_mean():
    """MSELoss, CrossEntropyLoss, L1Loss, NLLLoss, BCELoss, BCEWithLogitsLoss and HuberLoss all
    default to reduction="mean"."""
    for loss in (nn.MSELoss, nn.CrossEntropyLoss, nn.L1Loss, nn.NLLLoss, nn.BCELoss,
                 nn.BCEWithLogitsLoss, nn.HuberLoss):
        assert loss().reduction == "mean", loss.__name__


def sum_over_mean_is_the_number_of_terms_the_mean_divides_by():
    """The summed gradient over the mean gradient is the number of terms: the batch size for one
    output per row (8) and for CrossEntropyLoss without class weights (8), but batch × d for
    MSELoss on predictions of shape (8, 2) (16)."""
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


def every_summed_step_at_batch_128_is_past_the_stability_limit():
    """On effective-lr.py's batches, SGD with lr 0.01 on the summed squared error (Hessian 2XᵀX)
    is stable when lr × its largest eigenvalue is below 2: true for all 20 batches of 8 and of 32
    rows, false for all 20 batches of 128 rows."""
    for rows, stable in ((8, True), (32, True), (128, False)):
        generator = torch.Generator().manual_seed(1)
        for _ in range(20):
            x = _batch(rows, generator)
            top = torch.linalg.eigvalsh(2 * x.T @ x).max().item()
            assert (0.01 * top < 2) == stable, (rows, 0.01 * top)


def adam_cancels_a_constant_factor_unless_weight_decay_is_added_to_the_gradient():
    """Multiplying the loss by 32 leaves Adam's 20 steps unchanged (to 1e-6) without weight decay and
    AdamW's with its decoupled weight decay, but changes Adam's with weight_decay, which is added to
    the gradient; a clipping threshold sees the gradient norm grow 32-fold."""
    assert torch.allclose(_train_adam(torch.optim.Adam, 1, 0.0), _train_adam(torch.optim.Adam, 32, 0.0), atol=1e-6)
    assert torch.allclose(_train_adam(torch.optim.AdamW, 1, 0.1), _train_adam(torch.optim.AdamW, 32, 0.1), atol=1e-6)
    assert not torch.allclose(_train_adam(torch.optim.Adam, 1, 0.1), _train_adam(torch.optim.Adam, 32, 0.1),
                              atol=1e-6)
    norms = []
    for scale in (1, 32):
        w = torch.ones(4, requires_grad=True)
        (scale * (w ** 2).sum()).backward()
        norms.append(nn.utils.clip_grad_norm_([w], max_norm=1.0).item())
    assert abs(norms[1] / norms[0] - 32) < 1e-4


def summed_micro_batch_means_are_k_times_the_big_batch_mean():
    """Adding up the mean losses of 4 micro-batches of 16 rows gives 4 times the gradient of the
    64-row batch's mean loss (not 64 times); dividing each micro-batch's loss by 4 gives the big
    batch's mean gradient."""
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
