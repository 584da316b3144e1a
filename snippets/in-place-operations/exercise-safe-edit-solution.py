"""Reference solution: write the two edits of saved tensors out of place, keep the harmless one."""

import torch


def forward(x, q):
    a = x * 2
    s = a.sigmoid()  # SigmoidBackward0 saves its output s: sigmoid' = s * (1 - s)
    c = a * q        # q requires grad, so MulBackward0 saves a (the gradient of q is a * ...)
    c.add_(1)        # harmless: no node saved c
    s = s + 1        # a new tensor; the saved s is untouched
    a = a + 1        # likewise for the saved a
    return (s * c + a).sum()


if __name__ == "__main__":
    torch.manual_seed(0)
    x = torch.randn(6, dtype=torch.float64, requires_grad=True)
    q = torch.randn(6, dtype=torch.float64, requires_grad=True)
    out = forward(x, q)
    print(f"value {out.item():.6f}")
    out.backward()
    print("x.grad", x.grad)
    print("q.grad", q.grad)
