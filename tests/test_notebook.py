"""Notebooks: what models, states and results show in Jupyter, and the example notebook.

The reprs are tested directly (every example's model draws its start; a result draws its plan's
player; what cannot be drawn falls back to the text repr, never an error). Then
examples/notebook.ipynb, one puzzle of each family, is run by nbclient in a fresh IPython kernel
from examples/ (as Jupyter does when the notebook is opened there): any cell's error fails the
test, which is skipped, with the reason, only when no kernel can start. The player's iframe is
stepped in a real browser where Chromium is installed.
"""
from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest

import puzzleplan
from catalogue import CASES
from puzzleplan.plans.core.types import Plan, Result, Status
from puzzleplan.plans.render.notebook import Page, Picture

MODELS = sorted({case.path for case in CASES})
CHROMIUM, CHROMEDRIVER = Path("/usr/bin/chromium"), Path("/usr/bin/chromedriver")

EXAMPLES = Path(__file__).resolve().parent.parent / "examples"
NOTEBOOK = EXAMPLES / "notebook.ipynb"
CELL_SECONDS = 120      # a cold numba cache compiles the tiles kernels in the first solve


# -- the reprs ------------------------------------------------------------------------------------
@pytest.mark.parametrize("path", MODELS, ids=lambda p: f"{p.parent.name}/{p.stem}")
def test_every_model_shows_its_start_as_svg(path: Path) -> None:
    model = puzzleplan.load(path)
    svg = model._repr_svg_()
    assert svg is not None and "<svg" in svg and svg == puzzleplan.render(model, to="svg")


def test_a_result_shows_its_player_and_animates(tmp_path: Path) -> None:
    model = puzzleplan.load(EXAMPLES / "rush-hour/walls.yaml")
    result = puzzleplan.solve(model)
    assert result.model is model
    page = result.animate()
    assert isinstance(page, str) and isinstance(page, Page) and page == puzzleplan.render(model, result, to="html")
    assert page.boards == result.plan.length + 1 and repr(page).startswith("<Page: an HTML player of 10 moves")
    frame = result._repr_html_()
    assert frame is not None and frame.startswith('<iframe srcdoc="&lt;!DOCTYPE html&gt;') and "<script" not in frame
    # the model is no part of the result's data
    data = result.as_dict()
    assert "model" not in data and json.loads(json.dumps(data)) == data
    assert repr(result) == "<Result optimal 10 moves by bfs>" and result == Result(**{**vars(result), "model": None})


def test_without_a_plan_or_a_model_the_text_repr_shows() -> None:
    model = puzzleplan.load(EXAMPLES / "rush-hour/unsolvable.yaml")
    result = puzzleplan.solve(model)
    assert result.status is Status.UNSOLVABLE and result.model is model
    assert result._repr_html_() is None
    with pytest.raises(ValueError, match=r"^the result holds no plan \(unsolvable\): nothing to animate$"):
        result.animate()
    bare = Result(Status.OPTIMAL, "bfs", Plan.of(["A+1"]))      # made by hand: no model to draw on
    assert bare._repr_html_() is None
    with pytest.raises(ValueError, match="does not hold its model"):
        bare.animate()


def test_a_picture_that_cannot_be_drawn_falls_back_to_text(tmp_path: Path) -> None:
    source = (EXAMPLES / "user/hanoi.py").read_text()
    (tmp_path / "broken.py").write_text(source + "\n\nclass Broken(Hanoi):\n    def render(self, state):\n"
                                        "        raise RuntimeError('no picture')\n")
    (tmp_path / "broken.yaml").write_text("puzzle: python:./broken.py:Broken\ndiscs: 2\n")
    model = puzzleplan.load(tmp_path / "broken.yaml")
    assert model._repr_svg_() is None
    result = puzzleplan.solve(model)
    assert result.plan is not None and result._repr_html_() is None
    with pytest.raises(ValueError, match="no picture"):   # asked for by name, the error is told
        result.animate()


def test_show_draws_any_state() -> None:
    model = puzzleplan.load(EXAMPLES / "sokoban/two-boxes.yaml")
    _, state = next(iter(model.successors(model.initial())))
    picture = puzzleplan.show(model, state)
    assert isinstance(picture, Picture) and picture._repr_svg_() == str(picture) and "<svg" in picture
    assert repr(picture) == model.render(state) and picture != puzzleplan.show(model)
    assert str(puzzleplan.show(model)) == puzzleplan.render(model, to="svg")


# -- the example notebook --------------------------------------------------------------------------
def _outputs(nb: Any) -> list[dict[str, Any]]:
    return [out for cell in nb.cells if cell.cell_type == "code" for out in cell.get("outputs", [])]


def test_notebook_is_committed_without_outputs() -> None:
    nbformat = pytest.importorskip("nbformat")
    nb = nbformat.read(NOTEBOOK, as_version=4)
    nbformat.validate(nb)
    assert _outputs(nb) == []
    assert all(cell.get("execution_count") is None for cell in nb.cells if cell.cell_type == "code")


@pytest.fixture(scope="module")
def executed() -> Any:
    nbformat = pytest.importorskip("nbformat", reason="nbformat is not installed (pip install -e '.[test]')")
    nbclient = pytest.importorskip("nbclient", reason="nbclient is not installed (pip install -e '.[test]')")
    nb = nbformat.read(NOTEBOOK, as_version=4)
    client = nbclient.NotebookClient(nb, timeout=CELL_SECONDS, kernel_name="python3",
                                     resources={"metadata": {"path": str(EXAMPLES)}})
    setup = client.setup_kernel()
    try:
        setup.__enter__()
    except Exception as exc:   # no kernel here (ipykernel missing, no sockets): say why
        pytest.skip(f"no Jupyter kernel could start: {type(exc).__name__}: {exc}")
    try:
        for index, cell in enumerate(nb.cells):
            client.execute_cell(cell, index)   # CellExecutionError (the cell's traceback) on any error
    finally:
        setup.__exit__(None, None, None)
    return nb


def test_notebook_runs_top_to_bottom(executed: Any) -> None:
    errors = [out for out in _outputs(executed) if out.get("output_type") == "error"]
    assert errors == []
    code = [cell for cell in executed.cells if cell.cell_type == "code"]
    assert all(cell.execution_count is not None for cell in code)


def test_notebook_shows_pictures_and_players(executed: Any) -> None:
    shown = [out.get("data", {}) for out in _outputs(executed) if out.get("output_type") in ("display_data",
                                                                                           "execute_result")]
    svgs = [d["image/svg+xml"] for d in shown if "image/svg+xml" in d]
    players = [d["text/html"] for d in shown if "text/html" in d]
    # the models displayed (tiles, Rush Hour, blocks, rules, user) and the Sokoban state
    assert len(svgs) >= 6 and all("<svg" in s for s in svgs)
    # a player per family's result, plus result.animate()'s page
    assert len(players) >= 7 and all(p.startswith("<iframe srcdoc=") for p in players)
    text = "".join(out.get("text", "") for out in _outputs(executed) if out.get("output_type") == "stream")
    assert "verified: the minimal move count is 15" in text


# -- the player in a notebook's page, in a real browser ----------------------------------------------
def test_two_players_on_one_page_step_apart(tmp_path: Path) -> None:
    """Each player sits in its own iframe: stepping one leaves the other alone."""
    if not (CHROMIUM.exists() and CHROMEDRIVER.exists()):
        pytest.skip("headless Chromium is not installed (apt-get install chromium chromium-driver)")
    webdriver = pytest.importorskip("selenium.webdriver", reason="selenium is not installed (pip install -e '.[test]')")
    from selenium.webdriver.common.by import By
    results = [puzzleplan.solve(puzzleplan.load(EXAMPLES / p)) for p in ("rush-hour/walls.yaml", "blocks/three.yaml")]
    page = tmp_path / "notebook.html"
    page.write_text("<!DOCTYPE html><html><body>" + "".join(f"<div>{r._repr_html_()}</div>" for r in results)
                    + "</body></html>")
    options = webdriver.ChromeOptions()
    options.binary_location = str(CHROMIUM)
    for flag in ("--headless", "--no-sandbox", "--disable-gpu", "--disable-dev-shm-usage", "--no-first-run",
                 f"--user-data-dir={tmp_path / 'profile'}", "--window-size=1200,900"):
        options.add_argument(flag)
    driver = webdriver.Chrome(service=webdriver.ChromeService(executable_path=str(CHROMEDRIVER)), options=options)
    try:
        driver.get(page.as_uri())
        frames = driver.find_elements(By.TAG_NAME, "iframe")
        assert len(frames) == 2
        for frame, steps in zip(frames, (3, 1)):
            driver.switch_to.frame(frame)
            for _ in range(steps):
                driver.find_element(By.ID, "step").click()
            driver.switch_to.default_content()
        counters = []
        for frame in frames:
            driver.switch_to.frame(frame)
            counters.append(driver.find_element(By.ID, "counter").text)
            driver.switch_to.default_content()
        assert counters == ["3 / 10", "1 / 4"]
    finally:
        driver.quit()
