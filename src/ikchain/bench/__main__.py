"""``python -m ikchain.bench``: the same as ``ikchain bench``."""

import sys

from ikchain.bench import main

sys.exit(main())
