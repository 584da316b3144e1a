import warnings

import torch
from torch import nn

from measured import glue

torch.manual_seed(0)
x, y = torch.randn(8, 4) / 10, torch.randn(8, 1) / 10
initial = nn.Linear(4, 1).state_dict()
LOSS_FACTORS = [float("inf"), 1.0, float("inf"), 1.0]  # steps 1 and 3 overflow


def train(only_when_taken):
    """Four steps with a GradScaler and a scheduler that halves the learning rate at each of its steps;
    scheduler.step() after every step, or only after a step the scaler did not skip."""
    model = nn.Linear(4, 1)
    model.load_state_dict(initial)
    optimizer = torch.optim.SGD(model.parameters(), lr=0.1)
    scheduler = torch.optim.lr_scheduler.StepLR(optimizer, step_size=1, gamma=0.5)
    scaler = torch.amp.GradScaler("cpu")
    taken, rows = [], []  # taken: one entry per optimizer step really made
    optimizer.register_step_post_hook(lambda optimizer, args, kwargs: taken.append(1))
    for factor in LOSS_FACTORS:
        with torch.autocast("cpu", dtype=torch.float16):
            loss = nn.functional.mse_loss(model(x), y) * factor
        scaler.scale(loss).backward()
        before = scaler.get_scale()
        scaler.step(optimizer)
        scaler.update()
        optimizer.zero_grad()
        skipped = scaler.get_scale() < before  # update() lowers the scale only after a skipped step
        with warnings.catch_warnings(record=True) as caught:
            warnings.simplefilter("always")
            if not (only_when_taken and skipped):
                scheduler.step()
        warning = str(caught[0].message) if caught else ""
        rows.append((loss.item(), before, scaler.get_scale(), skipped, len(taken),
                     optimizer.param_groups[0]["lr"], warning))
    return rows


print("scheduler.step() after every step:")
print(f"{'step':6}{'loss':>6}{'scale':>8}{'->':>3}{'after':>7}{'skipped':>9}{'taken':>7}{'lr now':>9}{'warning':>9}")
warnings_seen = []
for step, (loss, before, after, skipped, taken, lr, warning) in enumerate(train(only_when_taken=False), start=1):
    print(f"{step:<6}{loss:>6.2g}{before:>8g}{'':3}{after:>7g}{skipped!s:>9}{taken:>7}{lr:>9g}{bool(warning)!s:>9}")
    glue(f"scale_sched_lr_{step}", lr)
    warnings_seen += [f"warning at step {step}: {warning}"] if warning else []
print(*warnings_seen, sep="\n")
glue("scale_sched_taken", taken)
glue("scale_sched_steps", step)
*_, (_, _, _, _, taken, lr, _) = train(only_when_taken=True)
print(f"scheduler.step() only when the scale did not fall: lr {lr:g} after {taken} steps taken")
glue("scale_sched_lr_counted", lr)
