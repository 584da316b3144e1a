# expect: do not both take a = x * 2 as it was before any edit
# Keeps the edit of a in place by moving it before anything saves a, and undoes it where a is used: the
# sigmoid and the product get a - 1, a tensor made after the edit, not the fixed edit the exercise asks for.


def forward(x, q):
    a = x * 2
    a.add_(1)
    s = (a - 1).sigmoid()
    c = (a - 1) * q
    c.add_(1)
    s = s + 1
    return (s * c + a).sum()
