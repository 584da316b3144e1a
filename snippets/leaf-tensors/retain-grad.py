import warnings

import torch

from measured import glue

x = torch.tensor([2.0, 3.0], requires_grad=True)
h = x * 3
h.retain_grad()  # before backward: keep this intermediate's gradient
loss = (h * h).sum()
loss.backward()

print("h       =", h.tolist())
print("h.grad  =", h.grad.tolist(), " (d loss / d h = 2h)")
print("x.grad  =", x.grad.tolist(), " (= h.grad * 3, the chain rule)")
print("h is still not a leaf:", not h.is_leaf)
glue("leaf_h0", h[0])
glue("leaf_h_grad0", h.grad[0])

# A hook sees the same gradient as it passes, and stores nothing.
seen = []
h2 = x * 3
h2.register_hook(lambda grad: seen.append(grad.tolist()))
(h2 * h2).sum().backward()
print("a hook on h2 saw:", seen[0])

# Two more ways, neither needing retain_grad() (a fresh x: no .grad yet).
x = torch.tensor([2.0, 3.0], requires_grad=True)
h3 = x * 3
(grad,) = torch.autograd.grad((h3 * h3).sum(), h3)
with warnings.catch_warnings():
    warnings.simplefilter("ignore")  # reading a non-leaf's .grad warns
    print("torch.autograd.grad returned:", grad.tolist(),
          "| h3.grad:", h3.grad, "| x.grad:", x.grad)
h4 = x * 3
(h4 * h4).sum().backward(inputs=[h4])
print("backward(inputs=[h4]): h4.grad =", h4.grad.tolist(),
      "| x.grad:", x.grad)
