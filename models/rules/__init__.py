"""Puzzles stated as rules in YAML (`puzzle: rules`), grounded into the planning-task IR.

A file declares sets, state variables over finite domains, a start and a goal, and action
schemas with parameters, requirements, effects, costs and move names; the grounder turns them
into a `Task` (models/task/ir.py) and the model is a `TaskModel`, so every generic engine,
encoding, the PDDL export and the generic checker work on it.

The file (every field but `actions:` and the goal optional where noted):

    puzzle: rules
    name, description, max_moves, expect (optimal, optimal_step, optimal_cost, solvable,
        reachable, max_depth, valid_plans), metric (step: every move counts 1; cost: the
        actions' `cost:`; the default is cost when an action states one, else step)
    sets:       {disc: 1..4, peg: [a, b, c]}        lists of numbers or words, or ranges a..b
    constants:  {n: 3, capacity: {1: 3, 2: 5}}     values, or tables looked up as capacity[j]
                                                    (nested mappings: road[a, b]; (a, b) in road)
    variables:                                      name: domain (a set, a list or a range)
      boat: [left, right]                           one variable
      on[disc]: peg                                 one per element (several sets: light[row, col])
      "peg[r, c] for r in row for c in col if c <= r": 0..1     one per element kept
    init:       every variable; `on[*]: a` sets a whole family (`light[*, 2]` one column),
                `on[1]: b` one variable (it wins over `*`), `on: {1: a, 2: b}` by index
    goal:       the same forms, any subset of the variables
    invariant:  conditions every state must keep (a move into a state breaking them is no move)
    actions:
      move:
        params:   {d: disc, to: peg}                each ranges over a set, a list or a range
        let:      {top: ...}                        named expressions (lazily evaluated; each uses those above it)
        requires: [on[d] != to, ...]                conditions on parameters and the state
        effects:  {on[d]: to}                       new values, all computed in the current state;
                                                    a key may be `light[x, y] for x in row ... if ...`
        cost:     1                                 optional expression, a whole number >= 0
        name:     "{on[d]}>{to}"                    the move's name: one word, {expression} fields
    show: |                                         optional picture of a state, {expression} fields
      a: {(d for d in disc if on[d] == a)}

Expressions are Python's syntax restricted to names, numbers, text, + - * // %, comparisons,
in / not in (`(r, c) in peg` asks whether peg[r, c] exists), and / or / not, `x if c else y`,
subscripts of variables and tables, and all/any/sum/min/max/abs/len over generator expressions
over sets (expressions.py). A move must change the state; one whose effect leaves a domain
where its requirements hold is an error, as are unknown names, values outside a domain, a move
name given by two actions, or to two moves that can apply in the same state.

Modules, bottom up: `frames` (the names, scopes and frames expressions run against),
`expressions` (the restricted evaluator: `ast`, never `eval`), `lines` (the line of a nested
field, for errors), `schema` (sets, constants, variables, init, goal, invariant, show),
`actions` (the action schemas), `file` (the whole file read), `ground` (schemas -> grounded
actions), and `model` on top. The plan checker, `puzzleplan.plans.check.rules`, runs the
file's rules on whole states without the grounder; the generic task checker is a second opinion.
"""
from puzzleplan.models.family import Family

SAMPLE = """\
puzzle: rules
name: three discs
sets:
  disc: 1..3
  peg: [a, b, c]
variables:
  on[disc]: peg
init:
  on[*]: a
goal:
  on[*]: c
actions:
  move:
    params: {d: disc, to: peg}
    requires:
      - on[d] != to
      - all(on[e] != on[d] and on[e] != to for e in disc if e < d)
    effects:
      on[d]: to
    name: "{on[d]}>{to}"
"""

# The matrix's cost row: a puzzle whose actions cost other than 1 (the cheapest plan, two
# steps of 2, is not the shortest, a jump of 5)
COST_SAMPLE = """\
puzzle: rules
name: step or jump
variables:
  x: 0..2
init:
  x: 0
goal:
  x: 2
actions:
  step:
    requires: [x < 2]
    effects: {x: x + 1}
    cost: 2
    name: s
  jump:
    requires: [x == 0]
    effects: {x: 2}
    cost: 5
    name: j
"""

FAMILY = Family(
    name="rules",
    model="puzzleplan.models.rules.model:RulesModel",
    summary="puzzles stated as rules in YAML (sets, variables, action schemas), grounded to a task",
    metrics=("step", "cost"),
    checker="puzzleplan.plans.check.rules:replay",
    sample="puzzleplan.models.rules:SAMPLE",
    samples={"cost": "puzzleplan.models.rules:COST_SAMPLE"},
    notations=("yaml",),
    task=None,
)
