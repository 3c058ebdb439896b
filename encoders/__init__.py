"""Bounded-horizon encodings of the puzzles for OR-Tools CP-SAT and for SAT (python-sat)."""
