import torch
from torch import nn

from measured import glue

LR, WEIGHT_DECAY, STEPS = 0.01, 0.1, 20
glue("ng_skip_lr", LR)
glue("ng_skip_wd", WEIGHT_DECAY)
glue("ng_skip_steps", STEPS)

optimizers = {  # glue key: label, constructor
    "adamw": (f"AdamW(weight_decay={WEIGHT_DECAY})",
              lambda ps: torch.optim.AdamW(ps, lr=LR,
                                           weight_decay=WEIGHT_DECAY)),
    "sgd": (f"SGD(momentum=0.9, weight_decay={WEIGHT_DECAY})",
            lambda ps: torch.optim.SGD(ps, lr=LR, momentum=0.9,
                                       weight_decay=WEIGHT_DECAY)),
}
torch.manual_seed(0)
x, y = torch.randn(64, 8), torch.randn(64, 1)

print("backbone frozen from the start; all parameters given to the optimizer")
print(f"{'optimizer':37}{'frozen: .grad, moved':22}trained: moved")
for key, (label, make) in optimizers.items():
    torch.manual_seed(0)
    backbone, head = nn.Linear(8, 16), nn.Linear(16, 1)
    backbone.requires_grad_(False)  # frozen before training starts
    # The frozen parameters are handed to the optimizer on purpose.
    optimizer = make([*backbone.parameters(), *head.parameters()])
    frozen_before, head_before = backbone.weight.clone(), head.weight.clone()
    for _ in range(STEPS):
        optimizer.zero_grad()
        loss = nn.functional.mse_loss(head(backbone(x).relu()), y)
        loss.backward()
        optimizer.step()
    assert torch.equal(backbone.weight, frozen_before)  # not one bit changed
    assert backbone.weight not in optimizer.state  # and no state kept
    frozen_moved = (backbone.weight - frozen_before).norm().item()
    trained_moved = (head.weight - head_before).norm().item()
    frozen = f"{backbone.weight.grad}, {frozen_moved:g}"
    print(f"{label:37}{frozen:22}{trained_moved:.3g}")
    # 3 significant digits: the same on other CPUs
    glue(f"ng_skip_{key}_trained", float(f"{trained_moved:.3g}"))
