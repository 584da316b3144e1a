import torch
import torch.nn.functional as F

from measured import glue

W_TRUE = torch.tensor([2.0, -1.0, 0.5, 3.0])
LR, STEPS = 0.01, 20
glue("so_lr", LR)
glue("so_steps", STEPS)


def batch(rows, generator):
    x = torch.randn(rows, 4, generator=generator)
    return x, x @ W_TRUE + 0.1 * torch.randn(rows, generator=generator)


x_test, y_test = batch(1024, torch.Generator().manual_seed(99))


def train(rows, reduction):
    # The same seed: sum and mean see the same batches.
    generator = torch.Generator().manual_seed(1)
    w = torch.zeros(4, requires_grad=True)
    for _ in range(STEPS):
        x, y = batch(rows, generator)
        w.grad = None
        F.mse_loss(x @ w, y, reduction=reduction).backward()
        with torch.no_grad():
            w -= LR * w.grad  # plain SGD, the same lr everywhere
    return F.mse_loss(x_test @ w, y_test).item()


start = F.mse_loss(x_test @ torch.zeros(4), y_test).item()
glue("so_start_mse", float(f"{start:.3g}"))
print(f"lr {LR}, {STEPS} SGD steps from w = 0; test MSE before: {start:.3g}")
results = {}
print("batch  reduction  effective lr   test MSE")
for rows in (8, 32, 128):
    for reduction in ("sum", "mean"):
        # A summed gradient is rows x the mean gradient.
        effective = LR * rows if reduction == "sum" else LR
        loss = results[rows, reduction] = train(rows, reduction)
        print(f"{rows:>5}  {reduction:9}  {effective:>12.3g}  {loss:>9.3g}")
        key = f"{reduction}_{rows}"
        glue(f"so_train_{key}", float(f"{loss:.3g}"))
        glue(f"so_effective_lr_{key}", round(effective, 6))
