"""SAT encodings (python-sat): variables keyed by readable tuples through IDPool."""
