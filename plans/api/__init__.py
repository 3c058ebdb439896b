"""puzzleplan: move puzzles stated declaratively, solved three independent ways (placeholder)."""
__version__ = "0.2.0"
