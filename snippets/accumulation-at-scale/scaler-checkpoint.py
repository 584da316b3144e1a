import torch
from torch import nn

from measured import glue

torch.manual_seed(0)
model = nn.Linear(4, 1)
optimizer = torch.optim.SGD(model.parameters(), lr=0.1)
scaler = torch.amp.GradScaler("cpu")
x, y = torch.randn(8, 4) / 10, torch.randn(8, 1) / 10
for factor in (float("inf"), 1.0, 1.0, 1.0):  # one overflow, then three clean steps
    with torch.autocast("cpu", dtype=torch.float16):
        loss = nn.functional.mse_loss(model(x), y) * factor
    scaler.scale(loss).backward()
    scaler.step(optimizer)
    scaler.update()
    optimizer.zero_grad()

checkpoint = {"model": model.state_dict(), "optimizer": optimizer.state_dict(), "scaler": scaler.state_dict()}
print("scaler.state_dict():", checkpoint["scaler"])
resumed, fresh = torch.amp.GradScaler("cpu"), torch.amp.GradScaler("cpu")
resumed.load_state_dict(checkpoint["scaler"])
for label, loaded in (("loaded from the checkpoint", resumed), ("not loaded", fresh)):
    print(f"{label:27} scale {loaded.get_scale():g}, steps without inf or NaN so far "
          f"{loaded.state_dict()['_growth_tracker']}")
glue("scale_checkpoint_scale", scaler.get_scale())
glue("scale_checkpoint_tracker", scaler.state_dict()["_growth_tracker"])
glue("scale_checkpoint_fresh_scale", fresh.get_scale())
glue("scale_checkpoint_fresh_tracker", fresh.state_dict()["_growth_tracker"])
