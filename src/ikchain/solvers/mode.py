"""Whether the kernels run compiled or as plain Python (``ikchain.solvers.interpret``).

Read once, by :mod:`ikchain.solvers.compiled` when the kernels are first imported; it
imports nothing, so that ``solve()`` and the kernels both reach it without a circle.
"""

from __future__ import annotations

#: Set by :func:`ikchain.solvers.interpret` before the first solve.
INTERPRETED = False
