"""``python -m ikchain`` runs the command line."""

import sys

from ikchain.cli import main

sys.exit(main())
