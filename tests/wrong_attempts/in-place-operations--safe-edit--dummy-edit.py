# expect: none adds 1 to the c the result uses: add_
# Writes every edit out of place, c's too, and leaves an in-place add on a product the result never uses,
# for the judge to find.


def forward(x, q):
    a = x * 2
    s = a.sigmoid() + 1
    c = a * q + 1
    (a * q).add_(1)  # never used
    a = a + 1
    return (s * c + a).sum()
