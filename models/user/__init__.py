"""Families of the user's own, written as a Python class (`puzzle: python:FILE:Class`, a module,
or an entry point): `model` wraps the class so every generic engine, `explore` and `check` run."""
