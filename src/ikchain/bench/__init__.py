"""The benchmark suite behind ``ikchain bench`` (work in progress).

:func:`ikchain.bench.reach.sweeps_to_tolerance` is the convergence-against-reach
computation shared with the lesson's table 2b.
"""

from __future__ import annotations
