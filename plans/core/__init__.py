"""The core every layer stands on: value types, the search context and its limits, the memory
limit's inputs, words, and the engine registry. Imports nothing of search, check or cli."""
