import warnings

import torch

from measured import glue

x = torch.tensor([2.0, 3.0], requires_grad=True)  # a leaf: we created it
h = x * 3                                         # an intermediate result
loss = (h * h).sum()
loss.backward()

print(f"{'tensor':7}{'is_leaf':9}{'requires_grad':15}grad")
for name, t in [("x", x), ("h", h), ("loss", loss)]:
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        grad = t.grad
    shown = None if grad is None else grad.tolist()
    print(f"{name:7}{t.is_leaf!s:9}{t.requires_grad!s:15}{shown}")
glue("leaf_x0", x[0])
glue("leaf_x1", x[1])
glue("leaf_x_grad0", x.grad[0])
glue("leaf_x_grad1", x.grad[1])

# Reading h.grad is not an error, only a warning; the value is simply None.
with warnings.catch_warnings(record=True) as caught:
    warnings.simplefilter("always")
    h.grad
for warning in caught:
    # The tail names a file in PyTorch's build tree; the message ends before.
    message = str(warning.message).split(" (Triggered internally at")[0]
    print(f"{warning.category.__name__}: {message}")
