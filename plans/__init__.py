"""Everything about plans: core types, the native search engines, the plan checker and the CLI."""
from puzzleplan.plans.core.types import Limits, Plan, Request, Result, Stats, Status

__all__ = ["Limits", "Plan", "Request", "Result", "Stats", "Status"]
