import torch
import torch.nn.functional as F

from measured import glue

BATCHES, BATCH, FEATURES = 4, 128, 1024

torch.manual_seed(0)
w = torch.zeros(FEATURES, 1, requires_grad=True)
optimizer = torch.optim.SGD([w], lr=0.01)

total_loss = 0.0
for batch in range(1, BATCHES + 1):
    x, y = torch.randn(BATCH, FEATURES), torch.randn(BATCH, 1)
    optimizer.zero_grad()
    loss = F.mse_loss(x @ w, y)
    loss.backward()     # backward() through this batch's graph, once: fine
    optimizer.step()
    total_loss += loss  # the bug: the used graph now hangs on total_loss
    print(f"batch {batch}: loss.backward() ran, loss = {loss.item():.4f}")

try:
    total_loss.backward()  # walks back into a batch's graph that its own backward() freed
except RuntimeError as error:
    print(f"total_loss.backward(): RuntimeError: {error}")
glue("rg_batches_ok", batch)

# Where "the second batch already fails" comes from: calling backward() on the total.
total_loss = 0.0
for batch in range(1, BATCHES + 1):
    x, y = torch.randn(BATCH, FEATURES), torch.randn(BATCH, 1)
    total_loss += F.mse_loss(x @ w, y)
    try:
        total_loss.backward()  # batch 2 walks into batch 1's graph again
        print(f"batch {batch}: total_loss.backward() ran")
    except RuntimeError as error:
        short = str(error).split(" (")[0]
        print(f"batch {batch}: total_loss.backward(): "
              f"RuntimeError: {short} (…)")
        glue("rg_total_fails_at", batch)
        break
