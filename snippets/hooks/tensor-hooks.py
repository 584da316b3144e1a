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

# The same forward again, and the hook on h returns a tensor: it replaces the
# gradient that flows on from h, so x and w (upstream of h) get the new one.
x.grad = w.grad = None
h = x * w
factor = 10
handle = h.register_hook(lambda grad: grad * factor)
(h * h).sum().backward()
handle.remove()
print(f"h's hook returns x{factor}:", x.grad.tolist(), w.grad.tolist())
scaled = torch.equal(x.grad, plain_x * factor) and torch.equal(w.grad, plain_w * factor)
print(f"  both leaves got {factor} times their gradient:", scaled)
glue("hooks_factor", factor)
glue("hooks_x_grad0", plain_x[0])
glue("hooks_x_grad0_scaled", x.grad[0])

# A hook on a leaf runs before the gradient is added into .grad: what it
# returns is what lands there. The other leaf is untouched.
x.grad = w.grad = None
limit = 20.0
handle = x.register_hook(lambda grad: grad.clamp(max=limit))
h = x * w
(h * h).sum().backward()
handle.remove()
print(f"x's hook clamps at {limit:g}:", x.grad.tolist(), w.grad.tolist())
glue("hooks_clamp", limit)
glue("hooks_x_grad1", plain_x[1])
