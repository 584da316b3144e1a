import torch

from measured import glue

w = torch.tensor([1.0, 2.0, 3.0], requires_grad=True)

# no_grad is a region: nothing computed inside it is recorded, whatever its inputs.
with torch.no_grad():
    inside = w * 2
print(f"inside no_grad:  w.requires_grad={w.requires_grad}  (w * 2).requires_grad={inside.requires_grad}"
      f"  grad_fn={inside.grad_fn}")

# detach acts on one tensor: the same numbers, cut off from the graph.
b = w.sigmoid()  # recorded; SigmoidBackward0 saves its output b
d = b.detach()
print(f"b.detach():      requires_grad={d.requires_grad}  grad_fn={d.grad_fn}"
      f"  same storage as b: {d.data_ptr() == b.data_ptr()}")

# Shared storage: writing through d changes b, and both see the write in their version counter.
before = b[0].item()
d[0] = 10.0
print(f"after d[0] = 10: b[0] went from {before:.4f} to {b[0].item():g};"
      f"  b._version={b._version}  d._version={d._version}")
glue("ng_detach_write", d[0])

# b was saved for backward, so the write through d is caught when backward needs it.
try:
    b.sum().backward()
except RuntimeError as error:
    print(f"RuntimeError: {error}")
