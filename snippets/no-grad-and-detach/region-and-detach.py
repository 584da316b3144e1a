import torch

from measured import glue

w = torch.tensor([1.0, 2.0, 3.0], requires_grad=True)

# no_grad is a region: nothing inside it is recorded, whatever the inputs.
with torch.no_grad():
    inside = w * 2
print(f"inside no_grad:  w.requires_grad={w.requires_grad}"
      f"  (w * 2).requires_grad={inside.requires_grad}"
      f"  grad_fn={inside.grad_fn}")

# detach acts on one tensor: the same numbers, cut off from the graph.
b = w.sigmoid()  # recorded; SigmoidBackward0 saves its output b
d = b.detach()
print(f"b.detach():      requires_grad={d.requires_grad}"
      f"  grad_fn={d.grad_fn}"
      f"  same storage as b: {d.data_ptr() == b.data_ptr()}")

# Shared storage: a write through d changes b, and both version
# counters see it.
before = b[0].item()
d[0] = 10.0
print(f"after d[0] = 10: b[0] went from {before:.4f} to {b[0].item():g};"
      f"  b._version={b._version}  d._version={d._version}")
glue("ng_detach_write", d[0])

# b was saved for backward, so backward notices the write.
try:
    b.sum().backward()
except RuntimeError as error:
    print(f"RuntimeError: {error}")
