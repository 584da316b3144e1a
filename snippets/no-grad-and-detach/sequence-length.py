import contextlib

import torch
from torch import nn
from torch.nn.attention import SDPBackend, sdpa_kernel

from measured import glue, saved_tensors

MiB = 2**20
LENGTHS = (64, 128, 256, 512)
BATCH = 8
glue("ng_seq_batch", BATCH)
glue("ng_seq_first", LENGTHS[0])
glue("ng_seq_last", LENGTHS[-1])
glue("ng_seq_length_ratio", LENGTHS[-1] // LENGTHS[0])

torch.manual_seed(0)
# Evaluation mode, but no no_grad.
lstm = nn.LSTM(64, 128, batch_first=True).eval()
encoder = nn.TransformerEncoderLayer(128, 4, 512, batch_first=True).eval()
math_attention = lambda: sdpa_kernel(SDPBackend.MATH)  # noqa: E731
runs = {  # column: model, input features, attention backend
    "LSTM": (lstm, 64, contextlib.nullcontext),
    "Transformer": (encoder, 128, contextlib.nullcontext),
    "Transformer, math attention": (encoder, 128, math_attention),
}
for name, model in (("LSTM", lstm), ("Transformer", encoder)):
    params = sum(p.numel() * p.element_size() for p in model.parameters())
    print(f"{name} parameters: {params / MiB:.2f} MiB")

print(f"MiB saved for backward by one forward, batch {BATCH}")
print(f"{'length':>6}{'LSTM':>8}{'Transformer':>13}"
      f"{'Transformer, math attention':>29}")
saved_mib = {name: {} for name in runs}
for length in LENGTHS:
    for name, (model, features, backend) in runs.items():
        x = torch.randn(BATCH, length, features)
        with backend(), saved_tensors() as saved:
            out = model(x)  # kept: while the output lives, so does its graph
        if name == "Transformer":
            default_out = out
        saved_mib[name][length] = saved.storage_bytes / MiB
    row = saved_mib["LSTM"][length], saved_mib["Transformer"][length]
    print(f"{length:6d}{row[0]:8.2f}{row[1]:13.2f}"
          f"{saved_mib['Transformer, math attention'][length]:29.2f}")

for name, key in zip(runs, ("lstm", "transformer", "math")):
    first, last = saved_mib[name][LENGTHS[0]], saved_mib[name][LENGTHS[-1]]
    glue(f"ng_seq_{key}_first", first)
    glue(f"ng_seq_{key}_last", last)
    glue(f"ng_seq_{key}_ratio", last / first)

# Which attention kernel the default forward recorded decides what it saved.
nodes, todo = set(), [default_out.grad_fn]
while todo:
    node = todo.pop()
    if node is not None and node not in nodes:
        nodes.add(node)
        todo += [next_node for next_node, _ in node.next_functions]
attention = sorted({n.name() for n in nodes if "Attention" in n.name()})
print("default attention node:", *attention)
