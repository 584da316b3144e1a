import torch
from torch import nn

from measured import glue

LR, WARMUP, STEPS = 0.01, 5, 20
glue("ng_late_warmup", WARMUP)
glue("ng_late_steps", STEPS)

optimizers = {  # key for the glue: constructor
    "adamw": ("AdamW(weight_decay=0.1)", lambda ps: torch.optim.AdamW(ps, lr=LR, weight_decay=0.1)),
    "adamw_nowd": ("AdamW(weight_decay=0)", lambda ps: torch.optim.AdamW(ps, lr=LR, weight_decay=0)),
    "sgd_momentum": ("SGD(momentum=0.9)", lambda ps: torch.optim.SGD(ps, lr=LR, momentum=0.9)),
    "sgd_wd": ("SGD(weight_decay=0.1)", lambda ps: torch.optim.SGD(ps, lr=LR, weight_decay=0.1)),
}
torch.manual_seed(0)
x, y = torch.randn(64, 8), torch.randn(64, 1)


def train(backbone, head, optimizer, steps, set_to_none):
    for _ in range(steps):
        optimizer.zero_grad(set_to_none=set_to_none)
        nn.functional.mse_loss(head(backbone(x).relu()), y).backward()
        optimizer.step()


def frozen_after_training(make, set_to_none):
    """Train everything, freeze the backbone, train on; return the frozen weight's story."""
    torch.manual_seed(0)
    backbone, head = nn.Linear(8, 16), nn.Linear(16, 1)
    optimizer = make([*backbone.parameters(), *head.parameters()])
    train(backbone, head, optimizer, WARMUP, set_to_none)
    backbone.requires_grad_(False)  # from now on frozen; .grad is whatever zero_grad left there
    frozen_at = backbone.weight.clone()
    train(backbone, head, optimizer, STEPS, set_to_none)
    grad = backbone.weight.grad
    grad_text = "None" if grad is None else "zeros" if not grad.any() else "nonzero"
    has_state = bool(optimizer.state.get(backbone.weight))
    return (backbone.weight - frozen_at).norm().item(), grad_text, has_state


print(f"backbone trained for {WARMUP} steps, then frozen: how far does it move in {STEPS} more steps?")
print(f"{'optimizer':25}{'zero_grad()':13}{'zero_grad(set_to_none=False)':30}optimizer state")
grads = {True: set(), False: set()}
for key, (label, make) in optimizers.items():
    moved, states = {}, set()
    for set_to_none in (True, False):
        moved[set_to_none], grad_text, has_state = frozen_after_training(make, set_to_none)
        grads[set_to_none].add(grad_text)
        states.add("kept" if has_state else "none")
    assert moved[True] == 0  # .grad None: the optimizer skips it, weight decay included
    glue(f"ng_late_{key}_moved", moved[False])
    print(f"{label:25}{moved[True]:<13g}{moved[False]:<30.3g}{'/'.join(sorted(states))}")
print(f"the frozen weight's .grad: {'/'.join(grads[True])} after zero_grad(),"
      f" {'/'.join(grads[False])} after zero_grad(set_to_none=False)")
