import torch
import torch.nn.functional as F

from measured import figure, glue

BATCHES, BATCH, FEATURES = 4, 128, 1024


def depth(value):
    """Backward nodes on the longest path from `value` down to a leaf (AccumulateGrad not counted)."""
    def down(node):
        if node is None or type(node).__name__ == "AccumulateGrad":
            return 0
        return 1 + max((down(parent) for parent, _ in node.next_functions), default=0)
    return down(value.grad_fn) if isinstance(value, torch.Tensor) else 0  # a float has no graph


glue("rg_batches", BATCHES)
torch.manual_seed(0)
w = torch.zeros(FEATURES, 1, requires_grad=True)  # a linear model written by hand: pred = x @ w

total_loss = 0.0   # summed as a tensor
total_value = 0.0  # summed as a Python float
rows = []
print("batch  depth(loss)  depth(total_loss)  depth(total_value)")
for batch in range(1, BATCHES + 1):
    x, y = torch.randn(BATCH, FEATURES), torch.randn(BATCH, 1)
    loss = F.mse_loss(x @ w, y)
    total_loss += loss          # a tensor plus a tensor: one more AddBackward0 on top
    total_value += loss.item()  # a float plus a float: no graph at all
    rows.append((batch, depth(loss), depth(total_loss), depth(total_value)))
    print(f"{batch:5}  {rows[-1][1]:11}  {rows[-1][2]:17}  {rows[-1][3]:18}")
    glue(f"rg_depth_{batch}", rows[-1][2])

glue("rg_loss_depth", rows[-1][1])
print(f"total_loss:  {type(total_loss).__name__}, grad_fn={type(total_loss.grad_fn).__name__}, "
      f"value {total_loss.item():.4f}")
print(f"total_value: {type(total_value).__name__}, value {total_value:.4f}")

fig, ax = figure(height=3.0)
steps = [row[0] for row in rows]
ax.plot(steps, [row[2] for row in rows], "o-", label="total_loss += loss")
ax.plot(steps, [row[1] for row in rows], "s--", label="loss (each batch)")
ax.plot(steps, [row[3] for row in rows], "^:", label="total_value += loss.item()")
ax.set_xticks(steps)
ax.set_xlabel("batches summed")
ax.set_ylabel("graph depth (nodes)")
ax.legend(loc="upper left")
glue("rg_depth_fig", fig)
