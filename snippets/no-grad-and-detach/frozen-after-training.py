import torch
from torch import nn

from measured import glue

LR, WARMUP, STEPS = 0.01, 5, 20
glue("ng_late_warmup", WARMUP)
glue("ng_late_steps", STEPS)

SGD, AdamW = torch.optim.SGD, torch.optim.AdamW
optimizers = {  # glue key: label, constructor
    "adamw": ("AdamW(weight_decay=0.1)",
              lambda ps: AdamW(ps, lr=LR, weight_decay=0.1)),
    "adamw_nowd": ("AdamW(weight_decay=0)",
                   lambda ps: AdamW(ps, lr=LR, weight_decay=0)),
    "sgd_momentum": ("SGD(momentum=0.9)",
                     lambda ps: SGD(ps, lr=LR, momentum=0.9)),
    "sgd_wd": ("SGD(weight_decay=0.1)",
               lambda ps: SGD(ps, lr=LR, weight_decay=0.1)),
}
torch.manual_seed(0)
x, y = torch.randn(64, 8), torch.randn(64, 1)


def train(backbone, head, optimizer, steps, set_to_none):
    for _ in range(steps):
        optimizer.zero_grad(set_to_none=set_to_none)
        loss = nn.functional.mse_loss(head(backbone(x).relu()), y)
        loss.backward()
        optimizer.step()


def frozen_after_training(make, set_to_none):
    """Train all, freeze the backbone, train on: how far does it move?"""
    torch.manual_seed(0)
    backbone, head = nn.Linear(8, 16), nn.Linear(16, 1)
    optimizer = make([*backbone.parameters(), *head.parameters()])
    train(backbone, head, optimizer, WARMUP, set_to_none)
    backbone.requires_grad_(False)  # .grad stays whatever zero_grad left
    frozen_at = backbone.weight.clone()
    train(backbone, head, optimizer, STEPS, set_to_none)
    grad = backbone.weight.grad
    grad = "None" if grad is None else "zeros" if not grad.any() else "other"
    state = "kept" if optimizer.state.get(backbone.weight) else "none"
    return (backbone.weight - frozen_at).norm().item(), grad, state


print(f"backbone trained for {WARMUP} steps, then frozen; "
      f"how far it moves in {STEPS} more steps")
print(f"{'optimizer':25}{'zero_grad()':13}{'set_to_none=False':19}"
      f"optimizer state")
grads = {True: set(), False: set()}
for key, (label, make) in optimizers.items():
    moved, states = {}, set()
    for set_to_none in (True, False):
        result = frozen_after_training(make, set_to_none)
        moved[set_to_none], grad, state = result
        grads[set_to_none].add(grad)
        states.add(state)
    assert moved[True] == 0  # .grad None: skipped, weight decay included
    print(f"{label:25}{moved[True]:<13g}{moved[False]:<19.3g}"
          f"{'/'.join(sorted(states))}")
    # 3 significant digits: the same on other CPUs
    glue(f"ng_late_{key}_moved", float(f"{moved[False]:.3g}"))
print(f"the frozen weight's .grad: {'/'.join(grads[True])} after zero_grad(),"
      f" {'/'.join(grads[False])} with set_to_none=False")
