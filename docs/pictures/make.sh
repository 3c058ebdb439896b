#!/usr/bin/env bash
# The README's pictures, made by the program itself: `bash docs/pictures/make.sh` (from anywhere)
# rewrites every file here. Pictures are SVG; the one animation is a GIF of a short plan.
set -euo pipefail
cd "$(dirname "$0")/../.."
pp=.venv/bin/puzzleplan
[ -x "$pp" ] || pp=puzzleplan
out=docs/pictures
"$pp" render examples/tiles/words-3x4.yaml -o "$out/tiles.svg"                   # start beside goal
"$pp" render examples/rush-hour/seed-000-hardest.yaml -o "$out/rush-hour.svg"
"$pp" render examples/sokoban/pocket.yaml -o "$out/sokoban.svg"
"$pp" render examples/blocks/klotski-exit.yaml -o "$out/blocks.svg"
"$pp" render examples/rules/peg-solitaire.yaml -o "$out/rules.svg"              # the generic view: cells
"$pp" render examples/pddl/gripper.yaml -o "$out/pddl.svg"                      # the generic view: lines
"$pp" solve examples/sokoban/seed-004.yaml --quiet --render "$out/sokoban-plan.gif" > /dev/null
