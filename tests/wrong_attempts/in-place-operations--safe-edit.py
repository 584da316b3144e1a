# expect: shares the storage but not the version counter
# The usual first try: do the edits through .data, "behind autograd's back". No error any more,
# and a wrong gradient.


def forward(x, q):
    a = x * 2
    s = a.sigmoid()
    c = a * q
    c.add_(1)
    s.data.add_(1)
    a.data.add_(1)
    return (s * c + a).sum()
