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
lstm = nn.LSTM(64, 128, batch_first=True).eval()  # evaluation mode, but no no_grad
encoder = nn.TransformerEncoderLayer(128, 4, 512, batch_first=True).eval()
runs = {  # column: (model, input features, attention backend)
    "LSTM": (lstm, 64, contextlib.nullcontext),
    "Transformer": (encoder, 128, contextlib.nullcontext),
    "Transformer, math attention": (encoder, 128, lambda: sdpa_kernel(SDPBackend.MATH)),
}
for name, model in (("LSTM", lstm), ("Transformer", encoder)):
    params = sum(p.numel() * p.element_size() for p in model.parameters()) / MiB
    print(f"{name} parameters: {params:.2f} MiB")

print("MiB saved for backward by one forward, batch", BATCH)
print(f"{'length':>6}{'LSTM':>10}{'Transformer':>14}{'Transformer, math attention':>30}")
saved_mib = {name: {} for name in runs}
for length in LENGTHS:
    for name, (model, features, backend) in runs.items():
        x = torch.randn(BATCH, length, features)
        with backend(), saved_tensors() as saved:
            out = model(x)  # kept: while the output lives, so does its graph
            if name == "Transformer":
                default_out = out
        saved_mib[name][length] = saved.storage_bytes / MiB
    print(f"{length:6d}" + "".join(f"{saved_mib[name][length]:{width}.2f}"
                                   for name, width in zip(runs, (10, 14, 30))))

for name, key in zip(runs, ("lstm", "transformer", "math")):
    glue(f"ng_seq_{key}_first", saved_mib[name][LENGTHS[0]])
    glue(f"ng_seq_{key}_last", saved_mib[name][LENGTHS[-1]])
    glue(f"ng_seq_{key}_ratio", saved_mib[name][LENGTHS[-1]] / saved_mib[name][LENGTHS[0]])

# Which attention kernel the default Transformer forward recorded: it decides what is saved.
nodes, todo = set(), [default_out.grad_fn]
while todo:
    node = todo.pop()
    if node is not None and node not in nodes:
        nodes.add(node)
        todo += [next_node for next_node, _ in node.next_functions]
print("default attention node:", *sorted({n.name() for n in nodes if "Attention" in n.name()}))
