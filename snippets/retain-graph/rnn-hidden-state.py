import torch
import torch.nn.functional as F
from torch import nn

from measured import glue

CHUNKS, CHUNK, BATCH, FEATURES, HIDDEN = 4, 10, 8, 5, 16


def nodes(tensor):
    """How many backward nodes hang below `tensor`."""
    seen, todo = set(), [tensor.grad_fn]
    while todo:
        node = todo.pop()
        if node is not None and node not in seen:
            seen.add(node)
            todo += [parent for parent, _ in node.next_functions]
    return len(seen)


def train(carry):
    """One long sequence per row, fed in chunks of CHUNK time steps; the hidden state is carried
    from chunk to chunk as `carry` says. Returns one line per chunk."""
    torch.manual_seed(0)
    rnn, head = nn.RNN(FEATURES, HIDDEN, batch_first=True), nn.Linear(HIDDEN, 1)
    optimizer = torch.optim.SGD([*rnn.parameters(), *head.parameters()], lr=0.01)
    inputs = torch.randn(BATCH, CHUNKS * CHUNK, FEATURES)
    targets = torch.randn(BATCH, CHUNKS * CHUNK, 1)
    hidden, lines = torch.zeros(1, BATCH, HIDDEN), []
    for chunk in range(CHUNKS):
        window = slice(chunk * CHUNK, (chunk + 1) * CHUNK)
        out, hidden = rnn(inputs[:, window], hidden)
        loss = F.mse_loss(head(out), targets[:, window])
        size = nodes(loss)
        if carry == "as it is":
            sizes.setdefault("graph", []).append(size)
        try:
            optimizer.zero_grad()
            loss.backward(retain_graph=carry == "retain_graph=True")
            optimizer.step()
        except RuntimeError as error:
            message = str(error).split(" (")[0].split(": [")[0]  # the first clause is enough to tell them apart
            lines.append(f"chunk {chunk + 1}: {size:3d} nodes, RuntimeError: {message}")
            failed[carry] = chunk + 1
            return lines
        lines.append(f"chunk {chunk + 1}: {size:3d} nodes, loss {loss.item():.3f}")
        sizes.setdefault(carry, []).append(size)
        if carry == "hidden.detach()":
            hidden = hidden.detach()
    return lines


failed, sizes = {}, {}
for carry in ("as it is", "retain_graph=True", "hidden.detach()"):
    print(f"hidden state carried {carry}:")
    for line in train(carry):
        print("  " + line)

glue("rg_rnn_chunk", CHUNK)
glue("rg_rnn_chunks", CHUNKS)
glue("rg_rnn_nodes_first", sizes["graph"][0])
glue("rg_rnn_nodes_second", sizes["graph"][1])
glue("rg_rnn_fails_at", failed["as it is"])
glue("rg_rnn_retain_fails_at", failed["retain_graph=True"])
glue("rg_rnn_detach_nodes", max(sizes["hidden.detach()"]))
assert set(sizes["hidden.detach()"]) == {sizes["graph"][0]}  # every chunk's graph as small as the first
