import torch

from measured import glue

b = torch.tensor([3.0], requires_grad=True)
glue("retain_b", b)
loss = (b * b).sum()

loss.backward(retain_graph=True)  # this call frees none of the saved tensors
print("first backward:  b.grad =", b.grad.item())
glue("retain_first", b.grad)

loss.backward()  # the last backward may free them
print("second backward: b.grad =", b.grad.item())
glue("retain_second", b.grad)

b.grad = None  # clear, then a fresh forward and backward
(b * b).sum().backward()
print("after clearing:  b.grad =", b.grad.item())
glue("retain_cleared", b.grad)
