"""Independent per-family plan replays used by `puzzleplan.plans.check`."""
