"""PDDL: a domain and problem as a puzzle (`puzzle: pddl`), the family package.

Modules, bottom up: `source` (the two texts, inline or files, parsed by unified-planning with
errors naming file and line), `ground` (the library's grounder, then the planning task of the
IR: one binary variable per atom an action changes, static atoms folded, costs from
total-cost), `plan` (Fast Downward plan text read as moves), and `model` on top. Plans are
checked on the lifted problem by unified-planning's validator (`puzzleplan.plans.check.pddl`);
the generic task checker is a second opinion.
"""
from puzzleplan.models.family import Family

SAMPLE = """\
puzzle: pddl
name: three rooms
domain: |
  (define (domain rooms)
    (:requirements :strips :typing)
    (:types room)
    (:predicates (at ?r - room) (door ?a ?b - room))
    (:action go
      :parameters (?a ?b - room)
      :precondition (and (at ?a) (door ?a ?b))
      :effect (and (at ?b) (not (at ?a)))))
problem: |
  (define (problem walk)
    (:domain rooms)
    (:objects hall kitchen garden - room)
    (:init (at hall) (door hall kitchen) (door kitchen hall) (door kitchen garden))
    (:goal (at garden)))
"""

FAMILY = Family(
    name="pddl",
    model="puzzleplan.models.pddl.model:PddlModel",
    summary="PDDL domain and problem: STRIPS, typing, negative preconditions, equality, action costs",
    metrics=("cost",),
    checker="puzzleplan.plans.check.pddl:replay",
    tokens="puzzleplan.models.pddl.plan:tokens",
    sample="puzzleplan.models.pddl:SAMPLE",
)
