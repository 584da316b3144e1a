# expect: none adds 1 to the c the result uses: requires_grad_
# Writes every edit out of place and calls requires_grad_() on c: a method that ends in "_" but sets a
# flag, edits nothing, and leaves c's grad_fn as it was.


def forward(x, q):
    a = x * 2
    s = a.sigmoid() + 1
    c = a * q
    c.requires_grad_()
    c = c + 1
    a = a + 1
    return (s * c + a).sum()
