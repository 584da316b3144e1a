import math

import torch
from torch import nn

from measured import figure, glue

EPOCHS, BATCH, SAMPLES = 50, 32, 256
LEARNING_RATES = (0.01, 0.1, 0.5)
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


def train(lr, zero_grad="before", momentum=0.0):
    """Mean training loss of every epoch, and the final parameters.

    zero_grad runs "before" the forward, "after" step(), or "never".
    """
    torch.manual_seed(0)
    x, y = make_data()
    model = nn.Linear(3, 1)
    optimizer = torch.optim.SGD(model.parameters(), lr=lr, momentum=momentum)
    losses = []
    for _ in range(EPOCHS):
        total = 0.0
        for start in range(0, SAMPLES, BATCH):
            xb, yb = x[start:start + BATCH], y[start:start + BATCH]
            if zero_grad == "before":
                optimizer.zero_grad()
            loss = nn.functional.mse_loss(model(xb), yb)
            loss.backward()
            optimizer.step()
            if zero_grad == "after":
                optimizer.zero_grad()
            total += loss.item() * len(xb)
        losses.append(total / SAMPLES)
    return losses, [p.detach().clone() for p in model.parameters()]


def first_epoch(losses, test):
    """The first epoch (from 1) where test(loss, previous loss) holds."""
    pairs = enumerate(zip(losses, [math.nan] + losses[:-1]), start=1)
    return next((epoch for epoch, pair in pairs if test(*pair)), None)


fig, ax = figure(7.0, 3.4)
ax.remove()
panels = fig.subplots(1, 2)  # the largest learning rate on a scale of its own
rises = []
print(f"{'':7}{'with zero_grad':>14}  without zero_grad")
print(f"{'lr':>5}  {'epoch 50':>14}{'lowest (epoch)':>16}{'first rise':>12}"
      f"{'epoch 50':>10}")
for index, lr in enumerate(LEARNING_RATES):
    with_zero, _ = train(lr)
    without, _ = train(lr, zero_grad="never")
    lowest = min(range(EPOCHS), key=lambda epoch: without[epoch])
    rise = first_epoch(without, lambda loss, previous: loss > previous)
    rises.append(rise)
    overflow = first_epoch(without, lambda loss, previous: math.isinf(loss))
    nan = first_epoch(without, lambda loss, previous: math.isnan(loss))
    lowest_text = f"{without[lowest]:.3g} ({lowest + 1})"
    print(f"{lr:>5g}  {with_zero[-1]:>14.3g}{lowest_text:>16}{rise:>12d}"
          f"{without[-1]:>10.3g}")
    tag = f"accum_lr{index}"
    glue(tag, lr)
    glue(f"{tag}_with_last", with_zero[-1])
    glue(f"{tag}_rise", rise)
    glue(f"{tag}_lowest", without[lowest])
    glue(f"{tag}_lowest_epoch", lowest + 1)
    if overflow is None:
        glue(f"{tag}_without_last", without[-1])
    else:
        glue(f"{tag}_overflow", overflow)
        nan_text = "in no epoch" if nan is None else f"from epoch {nan} on"
        print(f"{'':7}without zero_grad: inf from epoch {overflow} on, "
              f"NaN {nan_text}")
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
glue("accum_latest_rise", max(rises))

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
