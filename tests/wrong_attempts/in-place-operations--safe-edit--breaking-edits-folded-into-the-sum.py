# expect: reaches no such addition to s or a
# Deletes the two breaking edits and folds their +1 into the final sum: the same value and gradients,
# but neither s + 1 nor a + 1 is ever computed.

def forward(x, q):
    a = x * 2
    s = a.sigmoid()
    c = a * q
    c.add_(1)
    return (s * c + c + a + 1).sum()   # the two breaking edits deleted, their +1 folded into the sum
