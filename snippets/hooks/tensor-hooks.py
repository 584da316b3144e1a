import torch

from measured import glue

# Two leaves and one intermediate result h on the way to the loss.
x = torch.tensor([1.0, 2.0], requires_grad=True)
w = torch.tensor([3.0, 4.0], requires_grad=True)
h = x * w
loss = (h * h).sum()  # d loss / d h = 2h


def watch(grad):
    # Returning None: the gradient passes on unchanged.
    print("hook on h sees       ", grad.tolist(), "(= 2h)")


handle = h.register_hook(watch)
loss.backward()
handle.remove()
print("x.grad, w.grad       ", x.grad.tolist(), w.grad.tolist())
plain_x, plain_w = x.grad.clone(), w.grad.clone()
glue("hooks_h_grad0", 2 * h[0])

# The same forward again; this time the hook on h returns a tensor: it replaces
# the gradient that flows on from h, so every leaf upstream of h gets the new one.
x.grad = w.grad = None
h = x * w
handle = h.register_hook(lambda grad: grad * 10)
(h * h).sum().backward()
handle.remove()
print("h's hook returns x10:", x.grad.tolist(), w.grad.tolist())
print("  both leaves got 10 times their gradient:",
      torch.equal(x.grad, plain_x * 10) and torch.equal(w.grad, plain_w * 10))
glue("hooks_factor", 10)
glue("hooks_x_grad0", plain_x[0])
glue("hooks_x_grad0_scaled", x.grad[0])

# A hook on a leaf runs before the gradient is added into .grad: what it
# returns is what lands there. The other leaf is untouched.
x.grad = w.grad = None
handle = x.register_hook(lambda grad: grad.clamp(max=20.0))
h = x * w
(h * h).sum().backward()
handle.remove()
print("x's hook clamps at 20:", x.grad.tolist(), w.grad.tolist())
glue("hooks_clamp", 20)
glue("hooks_x_grad1", plain_x[1])
