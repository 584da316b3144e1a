import math

import torch
from torch import nn

from measured import figure, glue

EPOCHS, BATCH, SAMPLES = 50, 32, 256
LEARNING_RATES = (0.01, 0.1, 0.5)
FLOOR = 0.02  # "low": twice the lowest epoch-50 loss with clearing
LONGER = 120  # epochs of the longer run at the largest learning rate
glue("accum_epochs", EPOCHS)
glue("accum_batch", BATCH)
glue("accum_samples", SAMPLES)
glue("accum_steps_per_epoch", SAMPLES // BATCH)


def make_data():
    """A linear regression: y = x @ w + 1, plus a little noise."""
    generator = torch.Generator().manual_seed(0)
    x = torch.randn(SAMPLES, 3, generator=generator)
    noise = 0.1 * torch.randn(SAMPLES, 1, generator=generator)
    return x, x @ torch.tensor([[2.0], [-1.0], [0.5]]) + 1.0 + noise


def train(lr, zero_grad="before", momentum=0.0, epochs=EPOCHS, batch=BATCH,
          largest=None):
    """Mean training loss of every epoch, and the final parameters.

    zero_grad runs "before" the forward, "after" step(), or "never".
    largest, a list, receives the largest |parameter| after every epoch.
    """
    torch.manual_seed(0)
    x, y = make_data()
    model = nn.Linear(3, 1)
    optimizer = torch.optim.SGD(model.parameters(), lr=lr, momentum=momentum)
    losses = []
    for _ in range(epochs):
        total = 0.0
        for start in range(0, SAMPLES, batch):
            xb, yb = x[start:start + batch], y[start:start + batch]
            if zero_grad == "before":
                optimizer.zero_grad()
            loss = nn.functional.mse_loss(model(xb), yb)
            loss.backward()
            optimizer.step()
            if zero_grad == "after":
                optimizer.zero_grad()
            total += loss.item() * len(xb)
        losses.append(total / SAMPLES)
        if largest is not None:
            largest.append(max(p.detach().abs().max().item()
                               for p in model.parameters()))
    return losses, [p.detach().clone() for p in model.parameters()]


def first_epoch(losses, test):
    """The first epoch (from 1) where test(loss, previous loss) holds."""
    pairs = enumerate(zip(losses, [math.nan] + losses[:-1]), start=1)
    return next((epoch for epoch, pair in pairs if test(*pair)), None)


fig, ax = figure(7.0, 3.4)
ax.remove()
panels = fig.subplots(1, 2)  # the largest learning rate on a scale of its own
lowest_epochs = []
print(f"{'':7}{'with zero_grad':<24}without zero_grad")
print(f"{'lr':>5}  {f'< {FLOOR:g} from':>13}{'epoch 50':>11}"
      f"{'lowest (epoch)':>16}{'epoch 50':>10}")
for index, lr in enumerate(LEARNING_RATES):
    with_zero, _ = train(lr)
    without, _ = train(lr, zero_grad="never")
    below = first_epoch(with_zero, lambda loss, previous: loss < FLOOR)
    lowest = min(range(EPOCHS), key=lambda epoch: without[epoch])
    lowest_epochs.append(lowest + 1)
    overflow = first_epoch(without, lambda loss, previous: math.isinf(loss))
    lowest_text = f"{without[lowest]:.3g} ({lowest + 1})"
    print(f"{lr:>5g}  {below:>13d}{with_zero[-1]:>11.3g}"
          f"{lowest_text:>16}{without[-1]:>10.3g}")
    tag = f"accum_lr{index}"
    glue(tag, lr)
    glue(f"{tag}_with_last", with_zero[-1])
    glue(f"{tag}_below", below)
    glue(f"{tag}_lowest", without[lowest])
    glue(f"{tag}_lowest_epoch", lowest + 1)
    if overflow is None:
        glue(f"{tag}_without_last", without[-1])
    else:
        glue(f"{tag}_overflow", overflow)
    ax, color = panels[int(index == len(LEARNING_RATES) - 1)], f"C{index}"
    epochs = range(1, EPOCHS + 1)
    ax.plot(epochs, without, color=color, label=f"lr={lr:g}, no zero_grad")
    ax.plot(epochs, with_zero, "--", color=color,
            label=f"lr={lr:g}, zero_grad")
    ax.plot(lowest + 1, without[lowest], "o", color=color, markersize=4)
for ax in panels:
    ax.set_yscale("log")
    ax.set_xlabel("epoch")
    ax.legend(fontsize=8)
panels[0].set_ylabel("mean training MSE")
glue("accum_forget_fig", fig)
glue("accum_floor", FLOOR)
glue("accum_latest_lowest", max(lowest_epochs))

# The largest learning rate without zero_grad: it rises, overflows, turns NaN.
rising = all(later > earlier for earlier, later
             in zip(without[lowest:overflow], without[lowest + 1:overflow]))
print(f"lr {lr:g} without zero_grad: every epoch from {lowest + 2} to "
      f"{overflow} above the one before: {rising}; inf from epoch {overflow}")
sizes = []  # the loss is inf once its squares overflow; the parameters?
longer, _ = train(lr, zero_grad="never", epochs=LONGER, largest=sizes)
nan = first_epoch(longer, lambda loss, previous: math.isnan(loss))
broken = first_epoch(sizes, lambda size, previous: not math.isfinite(size))
print(f"  the same run for {LONGER} epochs: largest |parameter| "
      f"{sizes[overflow - 1]:.0e} in epoch {overflow}, "
      f"{sizes[broken - 2]:.0e} in epoch {broken - 1}")
print(f"  (float32 ends at {torch.finfo(torch.float32).max:.1e}); "
      f"parameters not finite from epoch {broken}, NaN from epoch {nan} on")
glue("accum_lr2_nan", nan)
glue("accum_longer", LONGER)
glue("accum_lr2_size_at_overflow", sizes[overflow - 1])
glue("accum_lr2_size_before_nan", sizes[broken - 2])
glue("accum_lr2_last_finite", broken - 1)
glue("accum_lr2_broken", broken)
glue("accum_float32_max", torch.finfo(torch.float32).max)

# The same number of updates, each on the whole data set (one step an epoch).
updates = EPOCHS * SAMPLES // BATCH
print(f"full batch, never zero_grad, {updates} steps: highest loss")
for index, lr in enumerate(LEARNING_RATES):
    full, _ = train(lr, zero_grad="never", epochs=updates, batch=SAMPLES)
    print(f"{lr:>5g}  {max(full):.3g} (first step {full[0]:.3g}, "
          f"last {full[-1]:.3g})")
    glue(f"accum_lr{index}_full_highest", max(full))
glue("accum_full_first", full[0])
glue("accum_updates", updates)

# Where zero_grad sits does not matter, as long as it runs once per step.
_, params_before = train(LEARNING_RATES[1])
_, params_after = train(LEARNING_RATES[1], zero_grad="after")
same_params = all(map(torch.equal, params_before, params_after))
print("zero_grad before forward or after step(): identical parameters:",
      same_params)

# Never clearing is SGD with momentum 1: every old gradient keeps pushing.
_, params_never = train(LEARNING_RATES[1], zero_grad="never")
_, params_momentum = train(LEARNING_RATES[1], momentum=1.0)
same_as_momentum = all(map(torch.equal, params_never, params_momentum))
print("never zero_grad vs SGD(momentum=1.0): identical parameters:",
      same_as_momentum)
