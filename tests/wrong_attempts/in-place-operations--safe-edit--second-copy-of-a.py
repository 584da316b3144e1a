# expect: do not both take a = x * 2 as it was before any edit
# Computes x * 2 twice, so that the copy the sigmoid reads can be edited in place (sigmoid saves its output,
# not its input) while the product saves the other: the starter's a is duplicated instead of the edit fixed.


def forward(x, q):
    a = x * 2
    a_for_q = x * 2
    s = a.sigmoid()
    c = a_for_q * q
    c.add_(1)
    s = s + 1
    a.add_(1)
    return (s * c + a).sum()
