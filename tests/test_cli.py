"""The command-line contract: solve / explore / check output, JSON fields, exit codes."""
from __future__ import annotations

from pathlib import Path

import pytest

from catalogue import EXAMPLES
from helpers import run_cli, run_json
from puzzleplan.models import load
from puzzleplan.plans.check import check_plan

SAFE = EXAMPLES / "tiles" / "malok-safe.yaml"
SMALL = EXAMPLES / "tiles" / "seed-002-small.yaml"
EIGHT = EXAMPLES / "tiles" / "eight-31.yaml"
LOYD = EXAMPLES / "tiles" / "unsolvable-loyd.yaml"
SEED_PLAN = "00032103210321032330111223010323032112233000121221"


def test_solve_safe_text(capsys) -> None:
    code, out, _ = run_cli(capsys, "solve", SAFE)
    assert code == 0
    assert "optimal" in out and "proved optimal" in out and "within the cap of 59" in out
    plan = next(line for line in out.splitlines() if line.startswith("plan:")).split()[1]
    assert check_plan(load(SAFE), plan).valid


def test_solve_json_fields(capsys) -> None:
    code, data = run_json(capsys, "solve", SMALL)
    assert code == 0
    for key in ("status", "length", "plan", "engine", "lower_bound", "stats"):
        assert key in data
    for key in ("nodes", "states", "seconds"):
        assert key in data["stats"]
    assert data["status"] == "optimal" and data["length"] == 11 == len(data["plan"])
    assert check_plan(load(SMALL), data["plan"]).valid


def test_any_gives_a_plan_within_the_cap(capsys) -> None:
    code, data = run_json(capsys, "solve", SAFE, "--any")
    assert code == 0 and data["status"] in ("solved", "optimal")
    assert data["length"] <= 59
    assert check_plan(load(SAFE), data["plan"]).valid


def test_max_moves_overrides_file_cap(capsys) -> None:
    code, data = run_json(capsys, "solve", SMALL, "--max-moves", "10")
    assert code == 1 and data["status"] == "no_plan_within_cap" and data["plan"] is None
    code, data = run_json(capsys, "solve", SAFE, "--max-moves", "40", "--engine", "dfs")
    assert code == 0 and data["length"] <= 40


def test_unsolvable_exit_1_with_reason(capsys) -> None:
    code, data = run_json(capsys, "solve", LOYD)
    assert code == 1 and data["status"] == "unsolvable" and "parity" in data["message"]


def test_time_limit_reached_exit_3(capsys) -> None:
    code, data = run_json(capsys, "solve", EIGHT, "--engine", "bfs", "--time-limit", "0.0001")
    assert code == 3 and data["status"] == "limit_reached" and "time limit" in data["message"]


def test_state_limit_reached_exit_3(capsys) -> None:
    code, data = run_json(capsys, "explore", EIGHT, "--max-states", "5000")
    assert code == 3 and data["status"] == "limit_reached"


def test_show_prints_every_board(capsys) -> None:
    code, out, _ = run_cli(capsys, "solve", SMALL, "--show")
    assert code == 0
    assert out.count("move ") == 11 and "start" in out


def test_explore_eight_puzzle(capsys) -> None:
    code, data = run_json(capsys, "explore", EIGHT)
    assert code == 0
    assert data["reachable"] == 181440 and data["max_depth"] == 31 and data["goal_distance"] == 31
    assert sum(data["per_depth"]) == 181440


@pytest.mark.parametrize("path", [SAFE, EXAMPLES / "tiles" / "seed-002-renumbered.yaml"])
def test_check_seed_plan(capsys, path: Path) -> None:
    code, data = run_json(capsys, "check", path, SEED_PLAN)
    assert code == 0 and data["valid"] and data["length"] == 50


def test_check_plan_from_file(capsys, tmp_path: Path) -> None:
    plan = tmp_path / "plan.txt"
    plan.write_text(SEED_PLAN + "\n")
    code, out, _ = run_cli(capsys, "check", SAFE, f"@{plan}")
    assert code == 0 and out.startswith("valid: 50 moves")


def test_check_names_first_illegal_move(capsys) -> None:
    code, data = run_json(capsys, "check", SMALL, "UUUUR")
    assert code == 1 and not data["valid"]
    assert data["index"] == 4 and data["move"] == "U" and "cannot move up" in data["error"]


def test_check_goal_not_reached(capsys) -> None:
    code, data = run_json(capsys, "check", SMALL, "UL")
    assert code == 1 and "goal is not reached" in data["error"]


def test_check_over_cap(capsys) -> None:
    code, data = run_json(capsys, "check", SAFE, SEED_PLAN + "0202020202")
    assert code == 1 and "over the cap" in data["error"]


def test_check_tile_names(capsys) -> None:
    """The known 11-move plan of seed-002-small, named by the faces that slide into the blank."""
    model = load(SMALL)
    grid = [list(r) for r in model.start_grid]
    br, bc = 3, 3
    faces = []
    for m in "UULDLUULDDD":
        dr, dc = {"U": (-1, 0), "D": (1, 0), "L": (0, -1), "R": (0, 1)}[m]
        r, c = br + dr, bc + dc
        faces.append(grid[r][c])
        grid[br][bc], grid[r][c] = grid[r][c], "_"
        br, bc = r, c
    code, data = run_json(capsys, "check", SMALL, " ".join(faces))
    assert code == 0 and data["valid"], data


def test_engines_lists_registry(capsys) -> None:
    code, out, _ = run_cli(capsys, "engines")
    assert code == 0 and "idastar" in out and "bfs" in out


def test_solve_with_an_explicit_partition(capsys) -> None:
    code, out = run_json(capsys, "solve", EXAMPLES / "tiles" / "eight-31.yaml", "--partition", "1 2 3 4 / 5 6 7 8")
    assert code == 0 and out["cost"] == 31 and out["stats"]["heuristic"] == "pdb"
    assert out["stats"]["setup_seconds"] >= 0 and out["stats"]["search_seconds"] >= 0


@pytest.mark.parametrize("spec, fragment", [("1 2 / 2 3", "two patterns"), ("1 2 / zz", "unknown face 'zz'")])
def test_a_bad_partition_is_one_line(capsys, spec: str, fragment: str) -> None:
    code, out, err = run_cli(capsys, "solve", EXAMPLES / "tiles" / "eight-31.yaml", "--partition", spec)
    assert code == 2 and out == "" and len(err.strip().splitlines()) == 1
    assert "eight-31.yaml: --partition:" in err and fragment in err
