import torch
from torch import nn

from measured import glue, roughly

BATCH, MICRO_BATCHES = 64, 4
torch.manual_seed(0)
model = nn.Sequential(nn.Linear(8, 32), nn.ReLU(), nn.Linear(32, 1))
x, y = torch.randn(BATCH, 8), torch.randn(BATCH, 1)
glue("accum_big_batch", BATCH)
glue("accum_micro_count", MICRO_BATCHES)
glue("accum_micro_size", BATCH // MICRO_BATCHES)


def gradient():
    """All parameter gradients as one vector."""
    return torch.cat([p.grad.flatten() for p in model.parameters()])


def one_batch(reduction="mean"):
    model.zero_grad()
    nn.functional.mse_loss(model(x), y, reduction=reduction).backward()
    return gradient()


def accumulated(divide_by, reduction="mean", divide_grad_by=1):
    model.zero_grad()
    for xb, yb in zip(x.chunk(MICRO_BATCHES), y.chunk(MICRO_BATCHES)):
        loss = nn.functional.mse_loss(model(xb), yb, reduction=reduction)
        (loss / divide_by).backward()  # no zero_grad in between: they add up
    for p in model.parameters():
        p.grad /= divide_grad_by  # once, after the last micro-batch
    return gradient()


MICRO_SIZE = BATCH // MICRO_BATCHES
print(f"{MICRO_BATCHES} micro-batches of {MICRO_SIZE}, one batch of {BATCH}")
print(f"{'micro-batch loss':22}{'|accumulated| / |batch|':>25}"
      f"{'max abs difference':>20}")
rows = [("mean, as is", accumulated(1), one_batch()),
        (f"mean / {MICRO_BATCHES}", accumulated(MICRO_BATCHES), one_batch()),
        (f"mean, .grad / {MICRO_BATCHES}",
         accumulated(1, divide_grad_by=MICRO_BATCHES), one_batch()),
        ("sum, batch also sum", accumulated(1, "sum"), one_batch("sum"))]
for label, micro, big in rows:
    ratio, diff = micro.norm() / big.norm(), (micro - big).abs().max()
    shown = f"{diff:.1e}" if label == "mean, as is" else roughly(diff)  # the others: rounding
    print(f"{label:22}{ratio:>25.4f}{shown:>20}")
    if label == "mean, as is":
        glue("accum_ratio_plain", round(ratio.item(), 4))
    if label.startswith("mean /"):
        glue("accum_diff_divided", diff, varies=True)
        divided, big_mean = micro, big
bitwise = torch.equal(divided, big_mean)
print(f"divided by {MICRO_BATCHES}: bitwise equal {bitwise}, "
      f"largest entry {big_mean.abs().max():.3f}")
glue("accum_largest_entry", round(big_mean.abs().max().item(), 3))
