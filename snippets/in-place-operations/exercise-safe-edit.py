"""Exercise: make a function with in-place edits safe for backward, without changing its value.

`forward` below computes the right number, but backward through it raises
"modified by an inplace operation". Make it backward-safe: it must return the same value, and
backward must give x and q the gradients of the same computation written without any in-place edit.
Then judge it:
    python -m exercise_judge in-place-operations/safe-edit exercise-safe-edit.py
(pip installs the judge: see the chapter's exercises). Add --lang zh for a verdict in Chinese.
"""

import torch


def forward(x, q):
    """From a = 2x: s = sigmoid(a) + 1, c = a * q + 1, then a + 1; return the sum of s * c + (a + 1).

    x and q are 1-D tensors of the same length that require grad. Change only the edits that
    break backward, without saved-tensor hooks: an in-place edit of a tensor that no node saved
    is harmless, keep it.
    """
    a = x * 2
    s = a.sigmoid()
    c = a * q
    c.add_(1)
    s.add_(1)
    a.add_(1)
    return (s * c + a).sum()


if __name__ == "__main__":
    torch.manual_seed(0)
    x = torch.randn(6, dtype=torch.float64, requires_grad=True)
    q = torch.randn(6, dtype=torch.float64, requires_grad=True)
    out = forward(x, q)
    print(f"value {out.item():.6f}")
    out.backward()  # raises until the breaking edits are fixed
    print("x.grad", x.grad)
    print("q.grad", q.grad)
