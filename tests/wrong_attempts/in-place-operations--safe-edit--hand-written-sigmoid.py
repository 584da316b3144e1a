# expect: its backward does not receive c
# Computes the sigmoid by hand, out of place, and adds a sigmoid multiplied by 0 so that the graph still
# holds a SigmoidBackward0: the result never uses it.
import torch


def forward(x, q):
    a = x * 2
    s = 1 / (1 + torch.exp(-a)) + 1
    c = a * q
    c.add_(1)
    return (s * c + a + 1).sum() + 0 * a.sigmoid().sum()
