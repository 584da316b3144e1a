# expect: c.add_(1) was rewritten too
# Rewrites every edit out of place, the harmless c.add_(1) too: it runs, but skips the diagnosis.


def forward(x, q):
    a = x * 2
    s = a.sigmoid() + 1
    c = a * q + 1
    a = a + 1
    return (s * c + a).sum()
