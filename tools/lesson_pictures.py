"""Write the lesson's stored pictures again (``src/ikchain/lesson/precomputed.npz``).

The server shows them while its kernels compile (``ikchain.lesson.precomputed``);
``tests/test_precomputed.py`` says when they no longer equal a fresh solve. This
renders the page with the compiled kernels and stores every picture it solved ahead.
"""

from __future__ import annotations

from ikchain.lesson import content, precomputed
from ikchain.solvers import compile_kernels


def main() -> int:
    compile_kernels()
    pictures = content.pictures()
    precomputed.write(pictures)
    print(f"wrote {len(pictures)} pictures to {precomputed.STORE}")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
