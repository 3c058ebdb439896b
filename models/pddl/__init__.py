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

# The matrix's cost row: the same walk where going through the kitchen costs more than the
# longer way round (action costs: the cheapest plan is not the shortest)
COST_SAMPLE = """\
puzzle: pddl
name: three rooms, priced
domain: |
  (define (domain rooms)
    (:requirements :strips :typing :action-costs)
    (:types room)
    (:predicates (at ?r - room) (door ?a ?b - room))
    (:functions (total-cost) - number (toll ?a ?b - room) - number)
    (:action go
      :parameters (?a ?b - room)
      :precondition (and (at ?a) (door ?a ?b))
      :effect (and (at ?b) (not (at ?a)) (increase (total-cost) (toll ?a ?b)))))
problem: |
  (define (problem walk)
    (:domain rooms)
    (:objects hall kitchen garden porch - room)
    (:init (at hall) (door hall kitchen) (door kitchen garden) (door hall porch) (door porch garden)
           (= (toll hall kitchen) 1) (= (toll kitchen garden) 5) (= (toll hall porch) 1)
           (= (toll porch garden) 2) (= (total-cost) 0))
    (:goal (at garden))
    (:metric minimize (total-cost)))
"""

FAMILY = Family(
    name="pddl",
    model="puzzleplan.models.pddl.model:PddlModel",
    summary="PDDL domain and problem: STRIPS, typing, negative preconditions, equality, action costs",
    metrics=("cost",),
    checker="puzzleplan.plans.check.pddl:replay",
    tokens="puzzleplan.models.pddl.plan:tokens",
    sample="puzzleplan.models.pddl:SAMPLE",
    samples={"cost": "puzzleplan.models.pddl:COST_SAMPLE"},
)
