"""`decode` on outside solvers' answers that hold no plan (UNSAT, empty, malformed, incomplete):
one line naming the solution file, exit 2; a real model still decodes. And a PDDL puzzle whose
`domain:` or `problem:` names a missing file: the error names the YAML file and the field."""
from __future__ import annotations

import json
import shutil
from pathlib import Path

import pytest

from catalogue import EXAMPLES
from helpers import run_cli, run_json
from puzzleplan.encoders.export import read_model_literals
from puzzleplan.encoders.sat.base import UndecodableModel

# (puzzle, its optimum: the horizon of the export)
CASES = {
    "sokoban": (EXAMPLES / "sokoban" / "turn.yaml", 5),
    "tiles": (EXAMPLES / "tiles" / "small-2x3.yaml", 13),
    "rush-hour": (EXAMPLES / "rush-hour" / "walls.yaml", 10),
}

BAD = {
    "unsat": ("s UNSATISFIABLE\n", "the solver reported UNSATISFIABLE: there is no plan to decode"),
    "empty": ("", "no model (expected DIMACS 'v' lines of literals ending in 0)"),
    "status-only": ("s SATISFIABLE\n", "no model (expected DIMACS 'v' lines of literals ending in 0)"),
    "garbage": ("s SATISFIABLE\nv 1 2 garbage 0\n", "line 2: 'garbage' is not a literal"),
    "unknown": ("s UNKNOWN\n", "the solver reported UNKNOWN: there is no model to decode"),
    "huge-number": ("v 1 " + "9" * 5000 + " 0\n", "line 1: '" + "9" * 37 + "...' is not a literal"),   # not the map's
}


def export(capsys, tmp_path: Path, family: str, horizon: int | None = None) -> tuple[Path, Path]:
    """The puzzle and the CNF of its export at `horizon` (default: its optimum)."""
    puzzle, optimum = CASES[family]
    cnf = tmp_path / f"{family}.cnf"
    code, _, err = run_cli(capsys, "export", puzzle, "--to", "dimacs", "--horizon", horizon or optimum, "-o", cnf)
    assert code == 0, err
    return puzzle, cnf


def solve(cnf: Path) -> str:
    """A SAT-competition answer to `cnf` by an in-process solver."""
    from pysat.formula import CNF
    from pysat.solvers import Solver
    with Solver(name="cadical195", bootstrap_with=CNF(from_file=str(cnf)).clauses) as sat:
        if not sat.solve():
            return "s UNSATISFIABLE\n"
        return "s SATISFIABLE\nv " + " ".join(map(str, sat.get_model())) + " 0\n"


def variables(cnf: Path) -> dict[str, str]:
    """The export's variable map: DIMACS number -> readable key."""
    return json.loads(Path(f"{cnf}.map.json").read_text())["variables"]


def decode_error(capsys, puzzle: Path, cnf: Path, solution: Path | str) -> str:
    """decode's one stderr line, asserting exit 2 and nothing on stdout."""
    code, out, err = run_cli(capsys, "decode", puzzle, "--map", f"{cnf}.map.json", solution)
    assert (code, out) == (2, ""), err
    assert len(err.strip().splitlines()) == 1 and "Traceback" not in err
    return err.strip()


# -- answers holding no plan ---------------------------------------------------------------------
@pytest.mark.parametrize("kind", sorted(BAD))
@pytest.mark.parametrize("family", ["sokoban", "tiles", "rush-hour"])
def test_a_solution_without_a_model_is_one_line_naming_the_file(capsys, tmp_path: Path, family: str,
                                                                 kind: str) -> None:
    puzzle, cnf = export(capsys, tmp_path, family)
    text, message = BAD[kind]
    sol = tmp_path / f"{kind}.sol"
    sol.write_text(text)
    err = decode_error(capsys, puzzle, cnf, sol)
    assert err.startswith("puzzleplan: error: ") and err.endswith(f"/{sol.name}: {message}")


def test_a_real_unsat_answer_is_reported_as_such(capsys, tmp_path: Path) -> None:
    puzzle, cnf = export(capsys, tmp_path, "sokoban", horizon=4)   # one below the optimum
    sol = tmp_path / "below.sol"
    sol.write_text(solve(cnf))
    assert decode_error(capsys, puzzle, cnf, sol).endswith(f"/{sol.name}: the solver reported UNSATISFIABLE: "
                                                           "there is no plan to decode")


def test_sokoban_model_without_a_player_cell_names_the_step(capsys, tmp_path: Path) -> None:
    puzzle, cnf = export(capsys, tmp_path, "sokoban")
    literals = [int(w) for w in solve(cnf).split("\nv ")[1].split()]
    step1 = {int(v) for v, name in variables(cnf).items() if name.startswith("player ") and name.endswith(" 1")}
    sol = tmp_path / "noplayer.sol"   # the model with the player on no cell at step 1
    sol.write_text("v " + " ".join(str(-lit if lit in step1 else lit) for lit in literals) + "\n")
    err = decode_error(capsys, puzzle, cnf, sol)
    assert err.endswith(f"/{sol.name}: the model puts the player on no cell at step 1")


@pytest.mark.parametrize("family", ["tiles", "rush-hour"])
def test_a_partial_model_is_not_a_model_of_the_formula(capsys, tmp_path: Path, family: str) -> None:
    puzzle, cnf = export(capsys, tmp_path, family)
    sol = tmp_path / "short.sol"
    sol.write_text("v 1 -2 3 0\n")
    err = decode_error(capsys, puzzle, cnf, sol)
    assert f"/{sol.name}: the model falsifies clause " in err


def test_another_exports_model_is_rejected(capsys, tmp_path: Path) -> None:
    _, other = export(capsys, tmp_path, "rush-hour")
    puzzle, cnf = export(capsys, tmp_path, "tiles")
    sol = tmp_path / "other.sol"
    sol.write_text(solve(other))
    assert "the model falsifies clause" in decode_error(capsys, puzzle, cnf, sol)


def test_solution_given_as_text_is_called_solution(capsys, tmp_path: Path) -> None:
    puzzle, cnf = export(capsys, tmp_path, "tiles")
    assert decode_error(capsys, puzzle, cnf, "s UNSATISFIABLE") == \
        "puzzleplan: error: SOLUTION: the solver reported UNSATISFIABLE: there is no plan to decode"
    missing = tmp_path / "missing.sol"   # a path to no file is named as such, not read as literals
    assert decode_error(capsys, puzzle, cnf, str(missing)).endswith("missing.sol: no such file")


# -- the good path -------------------------------------------------------------------------------
@pytest.mark.parametrize("family", ["sokoban", "tiles", "rush-hour"])
def test_a_model_decodes_into_a_valid_plan(capsys, tmp_path: Path, family: str) -> None:
    puzzle, cnf = export(capsys, tmp_path, family)
    sol = tmp_path / "good.sol"
    sol.write_text(solve(cnf))
    code, data = run_json(capsys, "decode", puzzle, "--map", f"{cnf}.map.json", sol)
    assert code == 0 and data["valid"] is True and data["length"] == CASES[family][1]


def test_decode_reads_under_the_metric_the_export_was_made_under(capsys, tmp_path: Path) -> None:
    """The map records the export's metric: without --metric decode takes it (it used the file's
    default and named a clause the model falsified); another --metric is refused by name."""
    puzzle, cnf = EXAMPLES / "rush-hour" / "walls.yaml", tmp_path / "slide.cnf"
    code, _, err = run_cli(capsys, "export", puzzle, "--metric", "slide", "--to", "dimacs", "--horizon", 6, "-o", cnf)
    assert code == 0, err
    sol = tmp_path / "slide.sol"
    sol.write_text(solve(cnf))
    code, data = run_json(capsys, "decode", puzzle, "--map", f"{cnf}.map.json", sol)
    assert code == 0 and data["valid"] is True
    code, out, err = run_cli(capsys, "decode", puzzle, "--map", f"{cnf}.map.json", sol, "--metric", "step")
    assert code == 2 and "exported under the metric 'slide'" in err and "--metric slide" in err
    deep = tmp_path / "deep.json"   # the map is parsed once, for its metric too: its errors still name it
    deep.write_text("[" * 100_000 + "]" * 100_000)
    code, out, err = run_cli(capsys, "decode", puzzle, "--map", deep, sol)
    assert code == 2 and "deep.json: not a variable map of this puzzle: nested too deeply" in err


# -- the reader ----------------------------------------------------------------------------------
@pytest.mark.parametrize("text, true", [
    ("SAT\n1 -2 3 0\n", {1, 3}),                               # MiniSat's result file
    ("c comment\ns SATISFIABLE\nv 1 -2\nv 3 -4 0\n", {1, 3}),   # the model over two v lines
    ("1 2 -3", {1, 2}),                                         # bare integers
])
def test_reader_accepts_models(text: str, true: set[int]) -> None:
    assert read_model_literals(text) == true


@pytest.mark.parametrize("text, message", [
    ("UNSAT\n", "the solver reported UNSATISFIABLE: there is no plan to decode"),
    ("v 1 -1 0\n", "variable 1 is both true and false"),
    ("v 1 0\nv 2 0\n", "line 2: literal 2 after the model's closing 0"),
    ("s MAYBE\n", "line 1: unknown solver status 'MAYBE' (expected SATISFIABLE or UNSATISFIABLE)"),
    ("v 1 2x 0\n", "line 1: '2x' is not a literal"),
])
def test_reader_rejects_what_holds_no_model(text: str, message: str) -> None:
    with pytest.raises(UndecodableModel) as caught:
        read_model_literals(text)
    assert str(caught.value) == message


# -- PDDL files named by the YAML ----------------------------------------------------------------
@pytest.mark.parametrize("field", ["domain", "problem"])
def test_pddl_missing_file_names_the_yaml_file_and_field(capsys, tmp_path: Path, field: str) -> None:
    source = EXAMPLES / "pddl"
    for name in ("ferry-domain.pddl", "ferry-3.pddl"):
        shutil.copy(source / name, tmp_path / name)
    lines = (source / "ferry.yaml").read_text().splitlines()
    at = next(i for i, line in enumerate(lines) if line.startswith(f"{field}:"))
    lines[at] = f"{field}: nosuch.pddl"
    bad = tmp_path / "bad.yaml"
    bad.write_text("\n".join(lines) + "\n")
    code, out, err = run_cli(capsys, "solve", bad)
    assert (code, out) == (2, "")
    missing = tmp_path / "nosuch.pddl"
    assert err.strip() == f"puzzleplan: error: {bad}:{at + 1}: field '{field}': {missing}: no such file"


@pytest.mark.parametrize("change, words", [
    ({"horizon": 10 ** 12}, "field 'horizon': expected a whole number from 0 to 100,000"),
    ({"horizon": "7"}, "field 'horizon': expected a whole number"),
    ({"options": {"goal": 3}}, "field 'options': expected an object of encoding options"),
    ({"options": {"nonsense": True}}, "field 'options': expected an object of encoding options"),
    ({"variables": []}, "field 'variables': expected an object"),
    ({"encoding": 5}, "field 'encoding': expected an encoding's name"),
])
def test_an_edited_map_is_refused_by_field_before_anything_is_built(capsys, tmp_path: Path, change: dict,
                                                                    words: str) -> None:
    """A map's horizon of 10**12 had decode build the encoding until memory ran out."""
    puzzle, cnf = export(capsys, tmp_path, "tiles")
    path = Path(f"{cnf}.map.json")
    path.write_text(json.dumps({**json.loads(path.read_text()), **change}))
    sol = tmp_path / "any.sol"
    sol.write_text(solve(cnf))
    err = decode_error(capsys, puzzle, cnf, sol)
    assert f"{path.name}: not a variable map of this puzzle: {words}" in err
