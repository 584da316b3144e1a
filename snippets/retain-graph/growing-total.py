import torch
import torch.nn.functional as F

from measured import figure, glue

BATCHES, BATCH, FEATURES = 4, 128, 1024
glue("rg_batches", BATCHES)


def depth(value):
    """Nodes on the longest path from `value` to a leaf (no AccumulateGrad)."""
    def down(node):
        if node is None or type(node).__name__ == "AccumulateGrad":
            return 0
        parents = [parent for parent, _ in node.next_functions]
        return 1 + max((down(parent) for parent in parents), default=0)
    if not isinstance(value, torch.Tensor):
        return 0  # a Python float has no graph
    return down(value.grad_fn)


torch.manual_seed(0)
w = torch.zeros(FEATURES, 1, requires_grad=True)  # a hand-written model: x @ w

total_loss = 0.0   # summed as a tensor
total_value = 0.0  # summed as a Python float
rows = []
print("batch  depth(loss)  depth(total_loss)  depth(total_value)")
for batch in range(1, BATCHES + 1):
    x, y = torch.randn(BATCH, FEATURES), torch.randn(BATCH, 1)
    loss = F.mse_loss(x @ w, y)
    total_loss += loss          # tensor + tensor: one more AddBackward0 on top
    total_value += loss.item()  # float + float: no graph at all
    row = (batch, depth(loss), depth(total_loss), depth(total_value))
    rows.append(row)
    print(f"{row[0]:5}  {row[1]:11}  {row[2]:17}  {row[3]:18}")
    glue(f"rg_depth_{batch}", row[2])

glue("rg_loss_depth", rows[-1][1])
grad_fn = type(total_loss.grad_fn).__name__
print(f"total_loss:  {type(total_loss).__name__}, grad_fn={grad_fn}, "
      f"value {total_loss.item():.4f}")
print(f"total_value: {type(total_value).__name__}, value {total_value:.4f}")

fig, ax = figure(height=3.0)
batches = [row[0] for row in rows]
for column, style, label in [(2, "o-", "total_loss += loss"),
                             (1, "s--", "loss (each batch)"),
                             (3, "^:", "total_value += loss.item()")]:
    ax.plot(batches, [row[column] for row in rows], style, label=label)
ax.set_xticks(batches)
ax.set_xlabel("batches summed")
ax.set_ylabel("graph depth (nodes)")
ax.legend(loc="upper left")
glue("rg_depth_fig", fig)
