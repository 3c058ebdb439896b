"""OR-Tools CP-SAT encodings: tuple-keyed variables with readable names."""
