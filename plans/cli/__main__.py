"""`python -m puzzleplan.plans.cli ...`: the same as the `puzzleplan` command."""
import sys

from puzzleplan.plans.cli import main

sys.exit(main())
