import torch

from measured import glue


def grow(x):
    y = x
    while y.norm() < 100:  # how many steps depends on the data, not on the code
        y = y * 2
    print(f"  forward of x={x.item():g}: stopped at y={y.item():g}")  # print works inside forward
    return y


for start in (1.0, 30.0):
    x = torch.tensor([start], requires_grad=True)
    y = grow(x)
    nodes, node = 0, y.grad_fn
    while node is not None and type(node).__name__ == "MulBackward0":
        nodes, node = nodes + 1, node.next_functions[0][0]
    y.backward()
    print(f"x={start:g}: {nodes} MulBackward0 nodes, x.grad={x.grad.item():g}")
    glue(f"loop_nodes_{start:g}", nodes)
    glue(f"loop_grad_{start:g}", x.grad)

# Two forwards of the same code build two separate graphs.
x = torch.tensor([1.0], requires_grad=True)
print("same graph object on two forwards:", grow(x).grad_fn is grow(x).grad_fn)
