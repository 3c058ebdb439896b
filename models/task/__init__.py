"""Puzzles as planning tasks: the IR (`ir`), compiling a model to it (`compile`), and a model
over a task (`model`, what the rules and PDDL families load into)."""
