"""Pictures and animations (plans/render): every family draws, animations hold one board per
state of the plan, bad input is one line, and the HTML player plays plans in a real browser.

The browser tests drive Debian's Chromium through selenium (`apt-get install chromium
chromium-driver`); where it is not installed they are skipped with that reason.
"""
from __future__ import annotations

import html
import io
import re
import time
import xml.etree.ElementTree as ET
from functools import lru_cache
from pathlib import Path
from typing import Any

import pytest
from helpers import run_cli, run_json
from PIL import Image

import puzzleplan
from catalogue import CASES, EXAMPLES
from puzzleplan.models.family import family_of
from puzzleplan.plans.check import states_by_move_names
from puzzleplan.plans.render import RenderError, render, render_file

SVG = "{http://www.w3.org/2000/svg}"
EXAMPLE_FILES = sorted({case.path for case in CASES})
CHROMIUM, CHROMEDRIVER = Path("/usr/bin/chromium"), Path("/usr/bin/chromedriver")
NATIVE_CLICKS = 12        # steps of a plan pressed through WebDriver; the rest through the page's script


@lru_cache(maxsize=None)
def solved(path: str, metric: str | None = None) -> tuple[Any, tuple[str, ...]]:
    """(model, an optimal plan's moves) of an example, solved once per test session."""
    model = puzzleplan.load(EXAMPLES / path, {"metric": metric} if metric else None)
    result = puzzleplan.solve(model, time_limit=60)
    assert result.plan is not None, result
    return model, result.plan.moves


def replayed(model: Any, moves: tuple[str, ...]) -> list[str]:
    """The text boards along a plan, replayed apart from the renderer (the checker's replay)."""
    states = model.states_along(list(moves)) if hasattr(model, "states_along") else \
        states_by_move_names(model, list(moves))
    return [model.render(state) for state in states]


def texts(root: ET.Element) -> list[str]:
    return [t.text or "" for t in root.iter(f"{SVG}text")]


# -- still pictures ------------------------------------------------------------------------------
@pytest.mark.parametrize("path", EXAMPLE_FILES, ids=lambda p: f"{p.parent.name}/{p.stem}")
def test_every_example_draws_its_start(path: Path) -> None:
    """A valid SVG document and a PNG of the same size, for every example of every family."""
    model = puzzleplan.load(path)
    root = ET.fromstring(render(model, to="svg"))
    assert root.tag == f"{SVG}svg"
    width, height = float(root.get("width")), float(root.get("height"))
    assert width > 0 and height > 0 and len(list(root.iter())) > 3
    png = render(model, to="png")
    assert isinstance(png, bytes)
    picture = Image.open(io.BytesIO(png))
    assert picture.format == "PNG" and picture.size == (round(width), round(height))


def test_families_draw_their_own_pieces() -> None:
    rush = puzzleplan.load(EXAMPLES / "rush-hour/seed-000-hardest.yaml")
    assert sorted(texts(ET.fromstring(render(rush)))) == sorted(rush.letters())
    tiles = puzzleplan.load(EXAMPLES / "tiles/eight-31.yaml")
    shown = texts(ET.fromstring(render(tiles)))   # start and goal side by side
    assert sorted(shown) == sorted([str(i) for i in range(1, 9)] * 2 + ["start", "goal"])
    klotski = puzzleplan.load(EXAMPLES / "blocks/klotski.yaml")
    assert sorted(texts(ET.fromstring(render(klotski)))) == sorted("ABCDEFGHIJ")
    sokoban = puzzleplan.load(EXAMPLES / "sokoban/seed-004.yaml")
    fills = [e.get("fill") for e in ET.fromstring(render(sokoban)).iter(f"{SVG}rect")]
    assert fills.count("#c8894b") + fills.count("#59a14f") == len(sokoban.level.boxes) + len(sokoban.level.sealed)
    on_goal = puzzleplan.loads("puzzle: sokoban\nlevel: |\n  ######\n  #+$  #\n  ######\n")
    rings = [e.get("stroke") for e in ET.fromstring(render(on_goal)).iter(f"{SVG}circle")]
    assert "#d62728" in rings and "#d62728" not in [e.get("stroke") for e in ET.fromstring(render(sokoban)).iter(
        f"{SVG}circle")]   # a player on a goal wears the goal's colour; elsewhere not
    for name in ("tiles", "rush-hour", "sokoban", "blocks"):
        assert family_of(puzzleplan.load(next(p for p in EXAMPLE_FILES if p.parent.name == name))).picture


@pytest.mark.parametrize("path, symbols", [("rules/lights-out.yaml", ["1"] * 9),
                                           ("rules/frogs-and-toads.yaml", list("FFF_TTT"))])
def test_the_generic_view_lays_grid_like_text_out_as_cells(path: str, symbols: list[str]) -> None:
    model = puzzleplan.load(EXAMPLES / path)
    assert family_of(model).picture is None
    assert texts(ET.fromstring(render(model))) == symbols


def test_the_generic_view_shows_other_text_as_lines() -> None:
    model = puzzleplan.load(EXAMPLES / "pddl/gripper.yaml")
    assert texts(ET.fromstring(render(model))) == model.render(model.initial()).split("\n")


# -- animations ----------------------------------------------------------------------------------
ANIMATED = [("tiles/small-2x3.yaml", None), ("rush-hour/walls.yaml", None), ("sokoban/seed-004.yaml", "pushes"),
            ("blocks/pawns.yaml", "piece"), ("rules/hanoi.yaml", None), ("pddl/ferry.yaml", None)]


@pytest.mark.parametrize("path, metric", ANIMATED)
def test_animations_hold_one_board_per_state(path: str, metric: str | None) -> None:
    model, moves = solved(path, metric)
    n = len(moves)
    root = ET.fromstring(render(model, moves, to="svg"))
    frames = [g for g in root.iter(f"{SVG}g") if g.get("class") == "frame"]
    assert len(frames) == n + 1
    assert [g.get("visibility") for g in frames] == ["visible"] + ["hidden"] * n
    if n:
        assert all(g.find(f"{SVG}animate") is not None for g in frames)
    gif = Image.open(io.BytesIO(render(model, moves, to="gif")))
    assert gif.format == "GIF" and gif.n_frames == n + 1
    page = render(model, moves, to="html")
    boards = [html.unescape(b) for b in
              re.findall(r'class="frame" id="frame-\d+" data-index="\d+" data-board="([^"]*)"', page)]
    assert boards == replayed(model, moves)
    assert len(re.findall(r"<li data-index=", page)) == n


def test_plans_are_read_as_check_reads_them() -> None:
    model, moves = solved("rush-hour/walls.yaml")
    as_text = render(model, " ".join(moves), to="html")
    assert as_text == render(model, "".join(moves), to="html") == render(model, list(moves), to="html")
    sokoban, steps = solved("sokoban/seed-004.yaml")
    assert render(sokoban, "".join(steps), to="svg") == render(sokoban, puzzleplan.solve(sokoban), to="svg")
    tiles, tile_moves = solved("tiles/small-2x3.yaml")   # the seed's digits and lower case read too
    digits = "".join(str("URDL".index(m)) for m in tile_moves)
    assert render(tiles, digits, to="html") == render(tiles, "".join(tile_moves).lower(), to="html") \
        == render(tiles, tile_moves, to="html")
    hanoi, hanoi_moves = solved("rules/hanoi.yaml")   # a rules family: names run together are read in turn
    assert render(hanoi, "".join(hanoi_moves), to="svg") == render(hanoi, list(hanoi_moves), to="svg")


def test_a_single_board_of_a_plan() -> None:
    model, moves = solved("tiles/small-2x3.yaml")
    last = ET.fromstring(render(model, moves, to="svg", frame=len(moves)))
    goal = [model.faces[f] for f in model.goal if f]
    assert texts(last) == goal
    with pytest.raises(RenderError, match="frame: expected 0 to"):
        render(model, moves, to="svg", frame=len(moves) + 1)
    with pytest.raises(RenderError, match="png is one picture"):
        render(model, moves, to="png")


def test_an_invalid_plan_is_refused_and_a_short_one_drawn_as_far_as_it_goes() -> None:
    model = puzzleplan.load(EXAMPLES / "rush-hour/walls.yaml")
    with pytest.raises(RenderError, match="the plan is invalid"):
        render(model, "A-1", to="html")          # blocked: an illegal move
    assert "<svg" in render(model, "A+1", to="svg", frame=1)   # legal, short of the goal: a mid-game picture
    with pytest.raises(RenderError, match="unknown picture format"):
        render(model, to="jpeg")


def test_render_file_writes_all_or_nothing(tmp_path: Path) -> None:
    model, moves = solved("rush-hour/walls.yaml")
    made = render_file(model, tmp_path / "walls.gif", puzzleplan.solve(model))
    assert made.format == "gif" and made.frames == len(moves) + 1
    assert Image.open(tmp_path / "walls.gif").n_frames == len(moves) + 1
    with pytest.raises(RenderError):
        render_file(model, tmp_path / "bad.html", "A-1")   # an illegal move
    assert sorted(p.name for p in tmp_path.iterdir()) == ["walls.gif"]


def test_the_api_exposes_render() -> None:
    model, moves = solved("tiles/small-2x3.yaml")
    assert puzzleplan.render(model, moves, to="html").startswith("<!DOCTYPE html>")
    assert puzzleplan.render_file is render_file


# -- the command line ------------------------------------------------------------------------------
def test_cli_render(capsys: Any, tmp_path: Path) -> None:
    file = EXAMPLES / "sokoban/seed-004.yaml"
    _, moves = solved("sokoban/seed-004.yaml")
    (tmp_path / "plan.txt").write_text("".join(moves) + "\n")
    code, out, err = run_cli(capsys, "render", file, "--plan", f"@{tmp_path / 'plan.txt'}", "-o", tmp_path / "p.svg")
    assert code == 0 and f"{len(moves) + 1} boards" in out, err
    frames = [g for g in ET.parse(tmp_path / "p.svg").getroot().iter(f"{SVG}g") if g.get("class") == "frame"]
    assert len(frames) == len(moves) + 1
    code, data = run_json(capsys, "render", file, "-o", tmp_path / "start", "--to", "png", "--scale", "2")
    assert code == 0 and data["format"] == "png" and data["frames"] == 1
    assert Image.open(tmp_path / "start").size == tuple(2 * v for v in Image.open(io.BytesIO(render(
        puzzleplan.load(file), to="png"))).size)
    code, out, err = run_cli(capsys, "render", file, "--plan", "".join(moves), "--frame", "2", "-o", tmp_path / "k.png")
    assert code == 0, err


@pytest.mark.parametrize("args, message", [
    (["--plan", "R", "-o", "{tmp}/bad.html"], "the plan is invalid"),
    (["-o", "{tmp}/bad.jpeg"], "cannot tell the picture format"),
    (["--plan", "RRRRUULLL", "-o", "{tmp}/bad.png"], "png is one picture"),
    (["--plan", "@{tmp}/missing.txt", "-o", "{tmp}/bad.html"], "cannot read the plan"),
])
def test_cli_render_refuses_bad_input_in_one_line(capsys: Any, tmp_path: Path, args: list[str], message: str) -> None:
    code, out, err = run_cli(capsys, "render", EXAMPLES / "sokoban/seed-004.yaml",
                             *[a.format(tmp=tmp_path) for a in args])
    assert code == 2 and message in err and err.count("\n") == 1 and err.startswith("puzzleplan: error: ")
    assert list(tmp_path.iterdir()) == []


def test_solve_render(capsys: Any, tmp_path: Path) -> None:
    file = EXAMPLES / "rush-hour/walls.yaml"
    code, out, err = run_cli(capsys, "solve", file, "--render", tmp_path / "w.svg", "--quiet")
    _, moves = solved("rush-hour/walls.yaml")
    assert code == 0 and f"picture: {tmp_path / 'w.svg'} (svg, {len(moves) + 1} boards)" in out
    code, data = run_json(capsys, "solve", file, "--render", tmp_path / "w.html")
    assert code == 0 and data["render"] == {"path": str(tmp_path / "w.html"), "format": "html",
                                            "frames": len(moves) + 1}
    code, out, err = run_cli(capsys, "solve", EXAMPLES / "rush-hour/walls.yaml", "--render", tmp_path / "w.txt")
    assert code == 2 and "cannot tell the picture format" in err and out == ""


# -- the HTML player in a real browser -----------------------------------------------------------
@pytest.fixture(scope="module")
def browser() -> Any:
    if not (CHROMIUM.exists() and CHROMEDRIVER.exists()):
        pytest.skip("headless Chromium is not installed (/usr/bin/chromium and /usr/bin/chromedriver: "
                    "apt-get install chromium chromium-driver)")
    webdriver = pytest.importorskip("selenium.webdriver", reason="selenium is not installed (pip install -e '.[test]')")
    import tempfile
    profile = tempfile.TemporaryDirectory(prefix="puzzleplan-chromium-")
    options = webdriver.ChromeOptions()
    options.binary_location = str(CHROMIUM)
    for flag in ("--headless", "--no-sandbox", "--disable-gpu", "--disable-quic", "--no-first-run",
                 "--disable-background-networking", "--disable-component-update", "--disable-sync",
                 "--disable-dev-shm-usage", f"--user-data-dir={profile.name}", "--window-size=1200,900"):
        options.add_argument(flag)
    driver = webdriver.Chrome(service=webdriver.ChromeService(executable_path=str(CHROMEDRIVER)), options=options)
    try:
        yield driver
    finally:
        driver.quit()
        profile.cleanup()


SHOWN = """return [Array.from(document.querySelectorAll('#frames .frame'))
    .filter(f => getComputedStyle(f).display !== 'none' && f.getBoundingClientRect().height > 0)
    .map(f => [Number(f.dataset.index), f.dataset.board]),
    Array.from(document.querySelectorAll('#moves li.current')).map(li => li.dataset.move)];"""


def _shown(driver: Any) -> tuple[int, str, list[str]]:
    """(index, data-board) of the one board visible, and the moves highlighted."""
    visible, current = driver.execute_script(SHOWN)
    assert len(visible) == 1, f"{len(visible)} boards visible at once"
    return visible[0][0], visible[0][1], current


@pytest.mark.parametrize("path, metric, length", [("rush-hour/seed-000-hardest.yaml", None, 93),
                                                  ("blocks/klotski.yaml", "piece", 81),
                                                  ("sokoban/pocket.yaml", "pushes", None)])
def test_the_page_plays_the_plan_in_a_browser(browser: Any, capsys: Any, tmp_path: Path, path: str,
                                              metric: str | None, length: int | None) -> None:
    """`solve --render OUT.html`, then step through every move: the board shown is the replay's."""
    from selenium.webdriver.common.by import By
    out = tmp_path / "plan.html"
    code, _, err = run_cli(capsys, "solve", EXAMPLES / path, *(["--metric", metric] if metric else []),
                           "--render", out, "--quiet")
    assert code == 0, err
    model, moves = solved(path, metric)
    assert length is None or len(moves) == length
    boards = replayed(model, moves)
    browser.get(out.as_uri())
    assert _shown(browser) == (0, boards[0], [])
    step = browser.find_element(By.ID, "step")
    for k in range(1, len(moves) + 1):
        if k <= NATIVE_CLICKS:   # the browser's own click: the button is there, visible and not covered
            step.click()
        else:                    # the same button pressed from the page's script: ten times faster
            browser.execute_script("arguments[0].click();", step)
        assert _shown(browser) == (k, boards[k], [moves[k - 1]]), f"after move {k}"
    assert browser.find_element(By.ID, "counter").text == f"{len(moves)} / {len(moves)}"
    browser.find_element(By.ID, "back").click()
    assert _shown(browser) == (len(moves) - 1, boards[-2], [moves[-2]])
    browser.find_element(By.ID, "first").click()
    assert _shown(browser) == (0, boards[0], [])


def test_play_runs_to_the_end_and_pause_stops(browser: Any, tmp_path: Path) -> None:
    from selenium.webdriver.common.by import By
    from selenium.webdriver.support.ui import WebDriverWait
    model, moves = solved("sokoban/seed-004.yaml")
    out = tmp_path / "play.html"
    render_file(model, out, moves, seconds=0.15)
    boards = replayed(model, moves)
    browser.get(out.as_uri())
    browser.find_element(By.ID, "play").click()
    WebDriverWait(browser, 20).until(lambda d: d.find_element(By.TAG_NAME, "body").get_attribute("data-frame")
                                     == str(len(moves)))
    assert _shown(browser) == (len(moves), boards[-1], [moves[-1]])
    assert "play" in browser.find_element(By.ID, "play").text          # stopped at the end
    browser.find_element(By.ID, "play").click()                        # from the end: starts again
    WebDriverWait(browser, 20).until(lambda d: d.find_element(By.TAG_NAME, "body").get_attribute("data-frame")
                                     not in ("0", str(len(moves))))
    browser.find_element(By.ID, "play").click()                        # pause
    paused = _shown(browser)[0]
    time.sleep(0.5)                                                    # more than three moves' time
    assert _shown(browser)[0] == paused and "play" in browser.find_element(By.ID, "play").text
    if paused < len(moves):
        browser.find_element(By.ID, "step").click()
        assert _shown(browser) == (paused + 1, boards[paused + 1], [moves[paused]])


def test_the_animated_svg_plays_in_a_browser(browser: Any, tmp_path: Path) -> None:
    """SMIL shows the frames in turn, one at a time, with no script."""
    from selenium.webdriver.support.ui import WebDriverWait
    model, moves = solved("sokoban/seed-004.yaml")
    out = tmp_path / "plan.svg"
    render_file(model, out, moves, seconds=0.1)
    browser.get(out.as_uri())
    visible = ("return Array.from(document.querySelectorAll('g.frame'))"
               ".filter(g => getComputedStyle(g).visibility === 'visible').map(g => g.id);")
    seen: set[str] = set()

    def later(driver: Any) -> bool:
        shown = driver.execute_script(visible)
        assert len(shown) == 1, shown
        seen.add(shown[0])
        return len(seen) >= 3
    WebDriverWait(browser, 20, poll_frequency=0.05).until(later)
    assert seen <= {f"frame-{i}" for i in range(len(moves) + 1)}


def test_solve_render_png_is_refused_before_the_search(capsys: Any, tmp_path: Path) -> None:
    code, out, err = run_cli(capsys, "solve", EXAMPLES / "rush-hour/walls.yaml", "--render", tmp_path / "w.png")
    assert code == 2 and "png is one board" in err and err.count("\n") == 1 and out == ""
    assert list(tmp_path.iterdir()) == []


@pytest.mark.parametrize("option, value", [("--scale", "50"), ("--frame", "99"), ("--seconds", "1e-9")])
def test_a_bad_render_option_is_named_not_blamed_on_the_puzzle(capsys, tmp_path: Path, option: str, value: str) -> None:
    file = EXAMPLES / "sokoban" / "seed-004.yaml"
    code, out, err = run_cli(capsys, "render", file, "--plan", "urRlDldRR", option, value, "-o", tmp_path / "x.gif")
    assert code == 2 and err.startswith(f"puzzleplan: error: {option}:"), err
    assert not (tmp_path / "x.gif").exists()


# -- plans read as check reads them --------------------------------------------------------------
@pytest.mark.parametrize("path, fmt", [("sokoban/seed-004.yaml", "fd"), ("sokoban/seed-004.yaml", "lurd"),
                                       ("rules/hanoi.yaml", "fd"), ("tiles/small-2x3.yaml", "fd"),
                                       ("rush-hour/walls.yaml", "seed-003"), ("rush-hour/walls.yaml", "cells"),
                                       ("rush-hour/walls.yaml", "fd")])
def test_a_plan_file_check_reads_is_drawn_move_for_move(path: str, fmt: str) -> None:
    from puzzleplan.plans.render.frames import replay
    model, moves = solved(path)
    text = "; a note of the plan's author\n" + puzzleplan.write_plan(model, list(moves), fmt)
    assert puzzleplan.check(model, text).valid
    drawn = replay(model, text)
    assert [model.render(s) for s in drawn.states] == replayed(model, moves)


# `u` is the blank's direction up and the face of the tile left of the blank: two legal plans
TWO_READINGS = "puzzle: tiles\nstart: |\n  d r\n  u _\ngoal: |\n  _ d\n  r u\n"


def test_a_plan_of_two_readings_is_drawn_and_written_in_the_notation_asked(tmp_path: Path, capsys) -> None:
    from puzzleplan.plans.check import PlanNotationError
    model = puzzleplan.loads(TWO_READINGS)
    with pytest.raises(PlanNotationError, match="reads both as blank and as tiles"):
        render(model, "u", frame=1)
    blank, tiles = (render(model, "u", frame=1, notation=n) for n in ("blank", "tiles"))
    assert blank != tiles and blank == render(model, ["U"], frame=1) and tiles == render(model, ["L"], frame=1)
    assert puzzleplan.write_plan(model, "u", notation="tiles").split()[-1] == "L"
    with pytest.raises(RenderError, match="expected blank, digits or tiles"):
        render(model, "u", notation="faces")
    puzzle = tmp_path / "two.yaml"
    puzzle.write_text(TWO_READINGS)
    (tmp_path / "u.plan").write_text("u\n")
    out = tmp_path / "u.svg"
    code, _, err = run_cli(capsys, "render", puzzle, "--plan", f"@{tmp_path / 'u.plan'}", "-o", out)
    assert code == 2 and err.strip().endswith("u.plan: the plan 'u' reads both as blank and as tiles moves on this "
                                              "board; give --notation blank|tiles") and not out.exists()
    code, _, _ = run_cli(capsys, "render", puzzle, "--plan", "u", "--notation", "tiles", "--frame", "1", "-o", out)
    assert code == 0 and out.read_text() == render(puzzleplan.load(puzzle), "u", frame=1, notation="tiles")
    code, _, err = run_cli(capsys, "render", EXAMPLES / "rush-hour" / "walls.yaml", "--plan", "A+1", "--notation", "tiles",
                           "-o", out)
    assert code == 2 and "--notation tiles: it chooses how a tiles plan is read" in err
    code, _, err = run_cli(capsys, "render", puzzle, "--notation", "tiles", "-o", out)
    assert code == 2 and err.strip().endswith("--notation tiles: it chooses how the plan is read; give --plan")
    for bad, why in (("faces", "expected blank, digits or tiles"), ("blank", "rush-hour plans are read in their one")):
        target = model if bad == "faces" else puzzleplan.load(EXAMPLES / "rush-hour" / "walls.yaml")
        with pytest.raises(ValueError, match=why):
            puzzleplan.write_plan(target, "u", notation=bad)


def test_a_sokoban_plan_with_a_label_and_commas_is_drawn_move_for_move() -> None:
    from puzzleplan.plans.render.frames import replay
    model, moves = solved("sokoban/seed-004.yaml")
    for text in (f"Solution: {''.join(moves)}", ",".join(moves)):
        assert [model.render(s) for s in replay(model, text).states] == replayed(model, moves)


def test_a_tiles_plan_that_reads_in_one_notation_only_as_a_plan_is_checked_and_drawn(tmp_path: Path) -> None:
    """Faces U and D make the engines' plan fit the blank's and the tiles' notation; only one
    reading is a plan, so it is taken, not refused (the plan file solve wrote read back)."""
    from puzzleplan.plans.render.frames import replay
    (tmp_path / "udlr.yaml").write_text("puzzle: tiles\nname: letters\nstart: |\n  D U L\n  R U _\n")
    model = puzzleplan.load(tmp_path / "udlr.yaml")
    moves = puzzleplan.solve(model).plan.moves
    text = "".join(moves)
    assert puzzleplan.check(model, text).valid
    assert [model.render(s) for s in replay(model, text).states] == replayed(model, moves)
    (tmp_path / "lu.yaml").write_text("puzzle: tiles\nstart: |\n  U a b\n  L _ c\ngoal: |\n  _ a b\n  U L c\n")
    lu = puzzleplan.load(tmp_path / "lu.yaml")   # LU: both readings are plans, and the same moves
    assert puzzleplan.check(lu, "LU").valid and len(replay(lu, "LU").states) == 3
    six, moves = solved("tiles/seed-002-small.yaml")   # a plan written as the faces that slide, drawn
    grid = [list(row) for row in six.start_grid]    # as the blank's moves
    r, c = next((r, c) for r, row in enumerate(grid) for c, face in enumerate(row) if face == "_")
    faces = []
    for move in moves:
        dr, dc = {"U": (-1, 0), "D": (1, 0), "L": (0, -1), "R": (0, 1)}[move]
        faces.append(grid[r + dr][c + dc])
        grid[r][c], grid[r + dr][c + dc] = grid[r + dr][c + dc], "_"
        r, c = r + dr, c + dc
    assert [six.render(s) for s in replay(six, " ".join(faces)).states] == replayed(six, moves)


def test_faces_the_raster_fonts_cannot_draw_are_noted(capsys, tmp_path: Path) -> None:
    from puzzleplan.plans.render import raster
    if getattr(raster._font(12, False, False), "path", None) is None:
        pytest.skip("no TrueType font on this system: Pillow's own font, whose coverage is not read")
    (tmp_path / "zoo.yaml").write_text("puzzle: tiles\nstart: |\n  龙 虎 蛇\n  马 _ 羊\n")
    code, out, err = run_cli(capsys, "render", tmp_path / "zoo.yaml", "-o", tmp_path / "zoo.png")
    assert code == 0 and "note: the fonts found have no glyph for" in err and "龙" in err
    code, out, err = run_cli(capsys, "render", tmp_path / "zoo.yaml", "-o", tmp_path / "zoo.svg")
    assert code == 0 and err == ""   # the viewer's fonts draw svg text
    code, out, err = run_cli(capsys, "render", EXAMPLES / "tiles" / "small-2x3.yaml", "-o", tmp_path / "six.png")
    assert code == 0 and err == ""


@pytest.mark.parametrize("text, kind, cells", [
    ("B.B\n...\nW.W", "symbols", 9),      # rows of characters without spaces: a 3 x 3 grid (was 3 cells of rows)
    ("a b\nc d", "cells", 4),              # words between spaces: one a cell
    ("x=1\ny=2", "symbols", 6),
    ("one line of words", "lines", 0),
])
def test_a_text_picture_is_laid_out_as_its_characters_or_its_words(text: str, kind: str, cells: int) -> None:
    from puzzleplan.plans.render.generic import layout
    found, placed = layout(text)
    assert (found, len(placed)) == (kind, cells)
