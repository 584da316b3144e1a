# expect: changed after it was saved (in place, through .data, NumPy or otherwise)
# Keeps both breaking edits in place, written through NumPy (no version bump), and undoes each with a prehook just
# before the node that saved the tensor reads it: value and gradients come out right.


def forward(x, q):
    a = x * 2
    s = a.sigmoid()
    c = a * q
    product = c.grad_fn  # MulBackward0 of a * q: saved a
    c.add_(1)
    s_np, a_np = s.detach().numpy(), a.detach().numpy()
    s_np += 1
    a_np += 1

    def undo_s(grad_outputs):
        s_np[...] -= 1

    def undo_a(grad_outputs):
        a_np[...] -= 1

    s.grad_fn.register_prehook(undo_s)  # SigmoidBackward0: saved s
    product.register_prehook(undo_a)
    return (s * c + a).sum()
