import torch
from torch import nn

from measured import glue

LR, WEIGHT_DECAY, STEPS = 0.01, 0.1, 20
glue("ng_skip_lr", LR)
glue("ng_skip_wd", WEIGHT_DECAY)
glue("ng_skip_steps", STEPS)

optimizers = {
    f"AdamW(weight_decay={WEIGHT_DECAY})": lambda ps: torch.optim.AdamW(ps, lr=LR, weight_decay=WEIGHT_DECAY),
    f"SGD(momentum=0.9, weight_decay={WEIGHT_DECAY})":
        lambda ps: torch.optim.SGD(ps, lr=LR, momentum=0.9, weight_decay=WEIGHT_DECAY),
}
torch.manual_seed(0)
x, y = torch.randn(64, 8), torch.randn(64, 1)

print(f"{'optimizer (given ALL parameters)':40}{'frozen .grad':14}{'frozen moved':14}trained moved")
for label, make in optimizers.items():
    torch.manual_seed(0)
    backbone, head = nn.Linear(8, 16), nn.Linear(16, 1)
    backbone.requires_grad_(False)  # frozen before training starts
    optimizer = make([*backbone.parameters(), *head.parameters()])  # frozen ones included on purpose
    frozen_before, head_before = backbone.weight.clone(), head.weight.clone()
    for _ in range(STEPS):
        optimizer.zero_grad()
        nn.functional.mse_loss(head(backbone(x).relu()), y).backward()
        optimizer.step()
    frozen_moved = (backbone.weight - frozen_before).norm().item()
    trained_moved = (head.weight - head_before).norm().item()
    assert torch.equal(backbone.weight, frozen_before)  # not a single bit changed
    assert backbone.weight not in optimizer.state  # no optimizer state either
    print(f"{label:40}{str(backbone.weight.grad):14}{frozen_moved:<14g}{trained_moved:.3g}")
    glue(f"ng_skip_{label.split('(')[0].lower()}_trained", trained_moved)
