import math

import torch
from torch import nn

from measured import figure, glue

EPOCHS, BATCH, SAMPLES = 50, 32, 256
LEARNING_RATES = (0.01, 0.1, 0.5)


def make_data(n=SAMPLES):
    """A linear regression: y = x @ w + 1 plus a little noise."""
    generator = torch.Generator().manual_seed(0)
    x = torch.randn(n, 3, generator=generator)
    y = x @ torch.tensor([[2.0], [-1.0], [0.5]]) + 1.0 + 0.1 * torch.randn(n, 1, generator=generator)
    return x, y


def train(lr, zero_grad="before", momentum=0.0):
    """Mean training loss of each epoch; zero_grad is "before" forward, "after" step, or "never"."""
    torch.manual_seed(0)
    x, y = make_data()
    model = nn.Linear(3, 1)
    optimizer = torch.optim.SGD(model.parameters(), lr=lr, momentum=momentum)
    losses = []
    for _ in range(EPOCHS):
        total = 0.0
        for start in range(0, len(x), BATCH):
            xb, yb = x[start:start + BATCH], y[start:start + BATCH]
            if zero_grad == "before":
                optimizer.zero_grad()
            loss = nn.functional.mse_loss(model(xb), yb)
            loss.backward()
            optimizer.step()
            if zero_grad == "after":
                optimizer.zero_grad()
            total += loss.item() * len(xb)
        losses.append(total / len(x))
    return losses, [p.detach().clone() for p in model.parameters()]


def first_rise(losses):
    """The first epoch (counting from 1) whose loss is higher than the epoch before."""
    return next(epoch for epoch in range(2, len(losses) + 1) if losses[epoch - 1] > losses[epoch - 2])


glue("accum_epochs", EPOCHS)
glue("accum_batch", BATCH)
glue("accum_samples", SAMPLES)
glue("accum_steps_per_epoch", SAMPLES // BATCH)
fig, ax = figure(7.0, 3.4)
ax.remove()
panels = fig.subplots(1, 2)  # small learning rates left, the largest right: scales 1e30 apart
print(f"{'lr':>5}  {'with zero_grad, epoch 50':>25}  {'without: min (epoch)':>21}  "
      f"{'first rise':>10}  {'epoch 50':>9}")
for index, lr in enumerate(LEARNING_RATES):
    with_zero, _ = train(lr)
    without, _ = train(lr, zero_grad="never")
    lowest = min(range(EPOCHS), key=lambda epoch: without[epoch])
    rise = first_rise(without)
    overflow = next((epoch + 1 for epoch, loss in enumerate(without) if math.isinf(loss)), None)
    last = "inf" if math.isinf(without[-1]) else f"{without[-1]:.3g}"
    print(f"{lr:>5g}  {with_zero[-1]:>25.3g}  {f'{without[lowest]:.3g} ({lowest + 1})':>21}  "
          f"{rise:>10d}  {last:>9}")
    tag = f"lr{index}"
    glue(f"accum_{tag}", lr)
    glue(f"accum_{tag}_with_last", with_zero[-1])
    glue(f"accum_{tag}_rise", rise)
    glue(f"accum_{tag}_lowest", without[lowest])
    glue(f"accum_{tag}_lowest_epoch", lowest + 1)
    if overflow is None:
        glue(f"accum_{tag}_without_last", without[-1])
    else:
        nan = next((epoch + 1 for epoch, loss in enumerate(without) if math.isnan(loss)), None)
        print(f"       lr {lr:g} without zero_grad: the loss is inf from epoch {overflow} on, "
              f"NaN {'in no epoch' if nan is None else f'from epoch {nan}'}")
        glue(f"accum_{tag}_overflow", overflow)
    epochs = range(1, EPOCHS + 1)
    ax, color = panels[int(index == len(LEARNING_RATES) - 1)], f"C{index}"
    ax.plot(epochs, without, color=color, label=f"lr={lr:g}, no zero_grad")
    ax.plot(epochs, with_zero, color=color, linestyle="--", label=f"lr={lr:g}, zero_grad")
    ax.plot(lowest + 1, without[lowest], "o", color=color, markersize=4)
for ax in panels:
    ax.set_yscale("log")
    ax.set_xlabel("epoch")
    ax.legend(fontsize=8)
panels[0].set_ylabel("mean training MSE")
glue("accum_forget_fig", fig)

# Where zero_grad sits in the loop does not matter, as long as it runs once per step.
_, params_before = train(LEARNING_RATES[1])
_, params_after = train(LEARNING_RATES[1], zero_grad="after")
same_params = all(torch.equal(a, b) for a, b in zip(params_before, params_after))
print("zero_grad before forward vs after step(): identical parameters:", same_params)

# Forgetting zero_grad is SGD with momentum 1: every old gradient keeps pushing, undamped.
_, params_never = train(LEARNING_RATES[1], zero_grad="never")
_, params_momentum = train(LEARNING_RATES[1], momentum=1.0)
same_as_momentum = all(torch.equal(a, b) for a, b in zip(params_never, params_momentum))
print("no zero_grad vs zero_grad + SGD(momentum=1.0): identical parameters:", same_as_momentum)
