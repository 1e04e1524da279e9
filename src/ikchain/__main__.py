"""``python -m ikchain`` runs the command line."""

import sys

from ikchain.cli import main

if __name__ == "__main__":  # not when a spawned server process imports this module
    sys.exit(main())
