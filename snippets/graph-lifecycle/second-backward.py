import torch

from measured import glue

a = torch.tensor([3.0], requires_grad=True)
glue("second_backward_a", a)
loss = (a * a).sum()  # MulBackward0 saves a (twice) to compute d(a*a)/da = 2a
loss.backward()
print("after the first backward: a.grad =", a.grad.item())
glue("first_backward_grad", a.grad)

try:
    loss.backward()  # the same graph again
except RuntimeError as error:
    print(f"RuntimeError: {error}")
