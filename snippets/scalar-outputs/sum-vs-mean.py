import torch
import torch.nn.functional as F

from measured import glue

# A linear regression: y = x @ w_true + noise, fitted from w = 0.
W_TRUE = torch.tensor([2.0, -1.0, 0.5, 3.0])
BATCHES = (8, 32, 128)
generator = torch.Generator().manual_seed(0)
x_all = torch.randn(max(BATCHES), 4, generator=generator)
y_all = x_all @ W_TRUE + 0.1 * torch.randn(max(BATCHES), generator=generator)


def gradient(rows, reduction):
    w = torch.zeros(4, requires_grad=True)
    loss = F.mse_loss(x_all[:rows] @ w, y_all[:rows], reduction=reduction)
    loss.backward()
    return w.grad


def rounded(value):
    # What the page quotes; float32 digits beyond these may vary by CPU.
    return float(f"{value:.4g}")


norms = {(rows, reduction): gradient(rows, reduction).norm().item()
         for rows in BATCHES for reduction in ("sum", "mean")}
print("batch  |grad| sum  |grad| mean  sum / mean")
for rows in BATCHES:
    total, mean = norms[rows, "sum"], norms[rows, "mean"]
    print(f"{rows:>5}  {total:>10.4g}  {mean:>11.4g}  {total / mean:>10.4g}")
    glue(f"so_batch_{rows}", rows)
    glue(f"so_norm_sum_{rows}", rounded(total))
    glue(f"so_norm_mean_{rows}", rounded(mean))

small, large = BATCHES[0], BATCHES[-1]
sum_ratio = norms[large, "sum"] / norms[small, "sum"]
mean_ratio = norms[large, "mean"] / norms[small, "mean"]
print(f"batch {large} vs {small}: "
      f"sum grows {sum_ratio:.4g}x, mean {mean_ratio:.4g}x")
glue("so_sum_ratio", rounded(sum_ratio))
glue("so_mean_ratio", rounded(mean_ratio))
glue("so_batch_ratio", large // small)
