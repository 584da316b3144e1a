import torch

from measured import glue

LIMIT = 100.0
glue("loop_limit", LIMIT)


def grow(x):
    y = x
    while y.norm() < LIMIT:  # the number of steps depends on the data
        y = y * 2
    # print works inside forward: it is ordinary Python
    print(f"  forward of x={x.item():g}: stopped at y={y.item():g}")
    return y


for size, start in [("small", 1.0), ("large", 30.0)]:
    x = torch.tensor([start], requires_grad=True)
    y = grow(x)
    nodes, node = 0, y.grad_fn
    while node is not None and node.name() == "MulBackward0":
        nodes, node = nodes + 1, node.next_functions[0][0]
    y.backward()
    print(f"x={start:g}: {nodes} MulBackward0 nodes, x.grad={x.grad.item():g}")
    glue(f"loop_{size}_start", start)
    glue(f"loop_{size}_nodes", nodes)
    glue(f"loop_{size}_grad", x.grad)

# Two forwards of the same code build two separate graphs.
x = torch.tensor([1.0], requires_grad=True)
print("same graph object on two forwards:", grow(x).grad_fn is grow(x).grad_fn)
