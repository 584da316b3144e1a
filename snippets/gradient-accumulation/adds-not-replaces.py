import torch

from measured import glue

FIRST, SECOND = 3.0, 5.0
w = torch.tensor([1.0], requires_grad=True)
glue("accum_w", w)
glue("accum_factor_first", FIRST)
glue("accum_factor_second", SECOND)
(w * FIRST).sum().backward()
print(f"after backward of (w * {FIRST:g}).sum(): w.grad = {w.grad.item()}")
glue("accum_first", w.grad)
(w * SECOND).sum().backward()  # another graph, same leaf: gradient added
print(f"after backward of (w * {SECOND:g}).sum(): w.grad = {w.grad.item()}")
glue("accum_second", w.grad)

# The same graph shape three times: the gradient 2x is added three times.
x = torch.tensor([2.0, 3.0], requires_grad=True)
CALLS = 3
for call in range(1, CALLS + 1):
    (x ** 2).sum().backward()
    print(f"backward {call} of (x ** 2).sum(): x.grad = {x.grad.tolist()}")
glue("accum_calls", CALLS)
glue("accum_x0", x[0])
glue("accum_x1", x[1])
glue("accum_three_0", x.grad[0])
glue("accum_three_1", x.grad[1])
