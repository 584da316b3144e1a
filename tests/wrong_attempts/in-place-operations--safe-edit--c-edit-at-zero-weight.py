# expect: none adds 1 to the c the result uses
# Keeps c.add_(1) in place on a product that stays in the graph only with weight 0, while the result uses
# a second product written out of place.

def forward(x, q):
    a = x * 2
    s = a.sigmoid() + 1
    c = a * q
    c.add_(1)          # kept in place, but only as a zero-weight term
    c2 = a * q + 1     # the product the result really uses
    a = a + 1
    return (s * c2 + a).sum() + 0 * c.sum()
