import torch

x = torch.tensor([2.0], requires_grad=True)  # a leaf that wants gradients
c = torch.tensor([5.0])                      # a constant: no gradient wanted
y = x * c
z = y.sum()

print(f"{'tensor':7}{'is_leaf':9}{'requires_grad':15}grad_fn")
for name, t in [("x", x), ("c", c), ("y", y), ("z", z)]:
    node = type(t.grad_fn).__name__ if t.grad_fn else None
    print(f"{name:7}{t.is_leaf!s:9}{t.requires_grad!s:15}{node}")

# Walk the graph from the output back to the leaves, the way backward will.
print("z.grad_fn.next_functions =", z.grad_fn.next_functions)
print("y.grad_fn.next_functions =", y.grad_fn.next_functions)
accumulate = y.grad_fn.next_functions[0][0]
print("AccumulateGrad.variable is x:", accumulate.variable is x)
