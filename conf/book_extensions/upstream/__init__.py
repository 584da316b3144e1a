"""The book's workarounds of other packages' internals, each with its canary.

Each workaround relies on something its package does not promise (an internal function, a
template's wording, a copied default, a bug), so an upgrade can make it stop working, or stop
being needed, in silence. Each canary reads the installed package and returns what no longer
holds, each problem naming the file holding the workaround and the package versions it read.
``registry`` keeps them; ``notebook_stack``, ``sphinx_internals`` and ``theme_internals`` hold the
canaries, grouped by the packages they read.
tests/test_upstream.py runs them, and proves each fails on a simulated upgrade (``upstream``: a
modified copy of the upstream text or object; None reads the installed package).
"""

from book_extensions.upstream import notebook_stack, sphinx_internals, theme_internals  # noqa: F401  (they register)
from book_extensions.upstream.registry import WORKAROUNDS, Workaround  # noqa: F401
