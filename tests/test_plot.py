"""`plot_results`: cactus, scatter and summary-table pictures of a batch's results table."""
from __future__ import annotations

import csv
import io
import subprocess
import sys
import xml.etree.ElementTree as ET
from itertools import count
from pathlib import Path
from typing import Any

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from PIL import Image

from helpers import run_cli
from puzzleplan.plans.batch.crosscheck import ANSWERED, summarize, summary_text
from puzzleplan.plans.batch.plot import (FLOOR, cactus_figure, cactus_series, outcomes, plot_results,
                                         scatter_figure, scatter_points)
from puzzleplan.plans.batch.table import NAMES, TableError, read_rows, write_rows

_ids = count()


def row(instance: str, config: str, status: str, seconds: float | None, **fields: Any) -> dict[str, Any]:
    """A valid results row from a few fields; every other column is None."""
    n = next(_ids)
    out: dict[str, Any] = {name: None for name in NAMES}
    out.update(run_id=f"r{n}", index=n, instance=instance, config=config, status=status, total_seconds=seconds,
               metric="step", repeat=1)
    out.update(fields)
    return out


def three_instances() -> list[dict[str, Any]]:
    """Config A solves i1 (0.5 s) and i3 (2.0 s) and reaches its limit on i2; B solves all three."""
    return [row("i1", "A", "optimal", 0.5), row("i2", "A", "limit_reached", 10.2, time_limit=10.0),
            row("i3", "A", "solved", 2.0),
            row("i1", "B", "optimal", 0.25), row("i2", "B", "unsolvable", 4.0), row("i3", "B", "optimal", 1.0)]


def one_line_error(excinfo: pytest.ExceptionInfo[BaseException], *words: str) -> None:
    message = str(excinfo.value)
    assert "\n" not in message and message
    for word in words:
        assert word in message, message


# -- the data behind the pictures ------------------------------------------------------------------

def test_cactus_series_holds_each_configurations_solved_times_in_order() -> None:
    series = cactus_series(three_instances())
    assert series == {"A": [(1, 0.5), (2, 2.0)], "B": [(1, 0.25), (2, 1.0), (3, 4.0)]}


def test_cactus_figure_draws_the_series_with_a_legend_and_log_time() -> None:
    series = cactus_series(three_instances() + [row("i4", "A", "optimal", 0.0)])
    fig = cactus_figure(series)
    ax = fig.axes[0]
    lines = {line.get_label(): [tuple(p) for p in line.get_xydata()] for line in ax.get_lines()}
    assert lines["A"] == [(1, FLOOR), (2, 0.5), (3, 2.0)]     # 0 s is drawn at the floor of the log axis
    assert lines["B"] == [(1, 0.25), (2, 1.0), (3, 4.0)]
    assert ax.get_yscale() == "log"
    assert [t.get_text() for t in ax.get_legend().get_texts()] == ["A", "B"]
    assert ax.get_xlabel() and ax.get_ylabel()


def test_many_configurations_keep_their_legend_beside_the_axes_and_distinct_colours() -> None:
    series = {f"config-{i}": [(1, 0.1 * (i + 1))] for i in range(12)}
    fig = cactus_figure(series)
    ax = fig.axes[0]
    assert ax.get_legend() is None and len(fig.legends[0].get_texts()) == 12   # a long legend hid the lines
    assert len({line.get_color() for line in ax.get_lines()}) == 12            # the default cycle repeats after 10


@pytest.mark.parametrize("n", [12, 40, 75])
def test_a_long_legend_stays_inside_the_picture(n: int) -> None:
    fig = cactus_figure({f"engine-{i}/encoding-{i}/solver": [(1, 0.1 * (i + 1))] for i in range(n)})
    fig.canvas.draw()
    box, legend = fig.bbox, fig.legends[0].get_window_extent()
    assert box.x0 <= legend.x0 and legend.x1 <= box.x1 and box.y0 <= legend.y0 and legend.y1 <= box.y1


def test_proved_counts_only_proved_answers() -> None:
    series = cactus_series(three_instances(), solved="proved")
    assert series["A"] == [(1, 0.5)]                         # i3 was only "solved"
    assert series["B"] == [(1, 0.25), (2, 1.0), (3, 4.0)]    # unsolvable is a proved answer


def test_repeats_use_the_median_time_and_the_majority() -> None:
    rows = [row("i1", "A", "optimal", t, repeat=k) for k, t in enumerate((1.0, 5.0, 3.0), start=1)]
    rows += [row("i2", "A", s, t, repeat=k)
             for k, (s, t) in enumerate((("optimal", 1.0), ("limit_reached", 9.0), ("optimal", 2.0)), start=1)]
    rows += [row("i3", "A", s, t, repeat=k)
             for k, (s, t) in enumerate((("optimal", 1.0), ("limit_reached", 9.0), ("error", 0.1)), start=1)]
    rows += [row("i4", "A", s, t, repeat=k)
             for k, (s, t) in enumerate((("optimal", 1.0), ("limit_reached", 9.0)), start=1)]   # a tie is no majority
    folded = outcomes(rows, ANSWERED)[("step", "A")]
    assert {i: (o.seconds, o.solved) for i, o in folded.items()} == {
        "i1": (3.0, True), "i2": (2.0, True), "i3": (1.0, False), "i4": (5.0, False)}
    assert cactus_series(rows) == {"A": [(1, 2.0), (2, 3.0)]}


def test_a_run_without_a_time_counts_as_not_solved() -> None:
    rows = [row("i1", "A", "optimal", None), row("i2", "A", "optimal", 1.5)]
    assert cactus_series(rows) == {"A": [(1, 1.5)]}


def test_scatter_places_unsolved_runs_on_the_time_limit_border() -> None:
    xname, yname, border, points = scatter_points(three_instances())
    assert (xname, yname, border) == ("A", "B", 10.0)
    by_instance = {p.instance: (p.x, p.y, p.x_solved, p.y_solved) for p in points}
    assert by_instance == {"i1": (0.5, 0.25, True, True), "i2": (10.0, 4.0, False, True),
                           "i3": (2.0, 1.0, True, True)}
    fig = scatter_figure(xname, yname, border, points)
    ax = fig.axes[0]
    assert ax.get_xscale() == ax.get_yscale() == "log"
    assert "A" in ax.get_title() and "B" in ax.get_title()
    assert ax.get_xlabel().startswith("x: A") and ax.get_ylabel().startswith("y: B")
    assert sum(t.get_text() == "not solved" for t in ax.texts) == 2
    plotted = sorted(tuple(p) for c in ax.collections for p in c.get_offsets())
    assert plotted == sorted({(0.5, 0.25), (10.0, 4.0), (2.0, 1.0)})


def test_scatter_border_without_time_limits_and_chosen_axes() -> None:
    rows = [row("i1", "A", "optimal", 2.0), row("i1", "B", "limit_reached", 6.0),
            row("i1", "C", "optimal", 1.0), row("i2", "A", "optimal", 1.0)]     # i2: only A ran it
    xname, yname, border, points = scatter_points(rows, x="C", y="B")
    assert (xname, yname, border) == ("C", "B", 9.0)                          # 1.5 x the largest time
    assert [(p.instance, p.x, p.y) for p in points] == [("i1", 1.0, 9.0)]
    assert scatter_points(rows, y="A")[:2] == ("B", "A")                      # x: the first one that is not y
    assert scatter_points(rows, x="B")[:2] == ("B", "A")


def test_a_narrow_scatter_labels_plain_numbers_that_do_not_overlap() -> None:
    """Within two decades matplotlib also labelled the minor ticks ('3x10^0 4x10^0' overlapping)."""
    rows = [row("i1", "A", "optimal", 0.6), row("i1", "B", "optimal", 0.9),
            row("i2", "A", "optimal", 0.7), row("i2", "B", "optimal", 1.3)]
    fig = scatter_figure(*scatter_points(rows))
    from matplotlib.backends.backend_agg import FigureCanvasAgg
    FigureCanvasAgg(fig).draw()   # tick labels are made when drawn
    ax = fig.axes[0]
    labels = [t.get_text() for t in ax.xaxis.get_majorticklabels() if t.get_text()]
    assert labels and all(text.replace(".", "").isdigit() for text in labels), labels
    assert not [t.get_text() for t in ax.xaxis.get_minorticklabels() if t.get_text()]


def test_metric_filter_keeps_one_metric_and_names_drop_it(tmp_path: Path) -> None:
    rows = three_instances() + [row("i1", "A", "optimal", 7.0, metric="slide"),
                                row("i2", "A", "optimal", 8.0, metric="slide")]
    with pytest.raises(ValueError) as info:   # A ran under two metrics: say how to name one
        scatter_points(rows, x="A", y="B (step)")
    one_line_error(info)
    assert "name one with --metric, or write 'A (step)'" in str(info.value)
    assert cactus_series(rows)["A (slide)"] == [(1, 7.0), (2, 8.0)]
    result = plot_results(rows, "cactus", tmp_path / "slide.svg", metric="slide")
    assert result == {"path": str(tmp_path / "slide.svg"), "kind": "cactus", "format": ".svg",
                      "configurations": ["A"], "instances": 2}
    result = plot_results(rows, "cactus", tmp_path / "all.svg")
    assert result["configurations"] == ["A (step)", "B (step)", "A (slide)"] and result["instances"] == 3


# -- files -----------------------------------------------------------------------------------------

@pytest.mark.parametrize("table_suffix", [".parquet", ".csv"])
def test_every_kind_writes_a_real_picture(tmp_path: Path, table_suffix: str) -> None:
    results = tmp_path / f"results{table_suffix}"
    write_rows(results, three_instances())
    for kind, name in (("cactus", "c.png"), ("scatter", "s.svg"), ("table", "t.png"), ("table", "t.svg")):
        out = tmp_path / "pics" / name
        result = plot_results(results, kind, out, title="a title" if kind == "table" else None)
        assert result["path"] == str(out) and result["kind"] == kind and result["format"] == out.suffix
        assert result["configurations"] == ["A", "B"] and result["instances"] == 3
        if out.suffix == ".png":
            with Image.open(out) as image:
                assert image.format == "PNG" and image.size[0] > 200
        else:
            root = ET.parse(out).getroot()
            assert root.tag.endswith("svg") and b"<svg" in out.read_bytes()
    assert sorted(p.name for p in (tmp_path / "pics").iterdir()) == ["c.png", "s.svg", "t.png", "t.svg"]


def test_table_as_text_markdown_and_csv(tmp_path: Path) -> None:
    rows = three_instances()
    summaries = summarize(rows)
    plot_results(rows, "table", tmp_path / "t.txt")
    assert (tmp_path / "t.txt").read_text() == summary_text(summaries) + "\n"
    plot_results(rows, "table", tmp_path / "t.md")
    md = (tmp_path / "t.md").read_text().splitlines()
    assert len(md) == 2 + len(summaries) and md[0].startswith("| configuration |") and md[1].startswith("|---|")
    assert md[2].startswith("| A | 3 | 2 |") and md[3].startswith("| B | 3 | 3 |")
    plot_results(rows, "table", tmp_path / "t.csv")
    got = list(csv.DictReader(io.StringIO((tmp_path / "t.csv").read_text())))
    want = [{k: "" if v is None else str(v) for k, v in s.as_dict().items()} for s in summaries]
    assert got == want


def test_a_write_replaces_the_file_whole_and_leaves_no_temporary(tmp_path: Path) -> None:
    out = tmp_path / "c.png"
    out.write_bytes(b"old")
    plot_results(three_instances(), "cactus", out)
    assert out.read_bytes().startswith(b"\x89PNG")
    assert [p.name for p in tmp_path.iterdir()] == ["c.png"]


def test_an_svg_is_the_same_file_every_time(tmp_path: Path) -> None:
    plot_results(three_instances(), "scatter", tmp_path / "a.svg")
    plot_results(three_instances(), "scatter", tmp_path / "b.svg")
    assert (tmp_path / "a.svg").read_bytes() == (tmp_path / "b.svg").read_bytes()


def test_nothing_solved_still_draws(tmp_path: Path) -> None:
    rows = [row("i1", "A", "limit_reached", 3.0), row("i1", "B", "error", 0.1)]
    assert plot_results(rows, "cactus", tmp_path / "c.png")["configurations"] == ["A", "B"]
    assert plot_results(rows, "scatter", tmp_path / "s.png")["instances"] == 1


def test_matplotlib_is_imported_only_to_draw() -> None:
    code = "import sys, puzzleplan.plans.batch.plot; print('matplotlib' in sys.modules)"
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True)
    assert out.stdout.strip() == "False"


# -- errors ----------------------------------------------------------------------------------------

def test_errors_are_one_line(tmp_path: Path) -> None:
    rows = three_instances()
    cases: list[tuple[dict[str, Any], tuple[str, ...]]] = [
        (dict(kind="pie", out=tmp_path / "p.png"), ("--kind", "pie", "cactus")),
        (dict(kind="cactus", out=tmp_path / "p.pdf"), ("p.pdf", ".png", ".pdf")),
        (dict(kind="scatter", out=tmp_path / "p.txt"), ("p.txt", "scatter")),
        (dict(kind="cactus", out=tmp_path / "p"), ("without suffix",)),
        (dict(kind="cactus", out=tmp_path / "p.png", solved="maybe"), ("--solved", "maybe")),
        (dict(kind="cactus", out=tmp_path / "p.png", metric="piece"), ("--metric", "piece", "step")),
        (dict(kind="scatter", out=tmp_path / "p.png", x="A", y="A"), ("--x", "--y", "A")),
        (dict(kind="scatter", out=tmp_path / "p.png", x="Z"), ("--x", "Z", "A, B")),
        (dict(kind="scatter", out=tmp_path / "p.png", y="Z"), ("--y", "Z")),
    ]
    for options, words in cases:
        with pytest.raises(ValueError) as excinfo:
            plot_results(rows, **options)
        one_line_error(excinfo, *words)
    with pytest.raises(ValueError) as excinfo:
        plot_results([r for r in rows if r["config"] == "A"], "scatter", tmp_path / "p.png")
    one_line_error(excinfo, "two configurations", "1")
    with pytest.raises(ValueError) as excinfo:
        plot_results([], "table", tmp_path / "p.md")
    one_line_error(excinfo, "no rows")
    assert not list(tmp_path.iterdir())


def test_file_errors_name_the_file(tmp_path: Path) -> None:
    empty = tmp_path / "empty.parquet"
    write_rows(empty, [])
    assert read_rows(empty) == []
    with pytest.raises(ValueError) as excinfo:
        plot_results(empty, "cactus", tmp_path / "c.png")
    one_line_error(excinfo, str(empty), "no rows")
    with pytest.raises(TableError) as table_error:
        plot_results(tmp_path / "missing.csv", "cactus", tmp_path / "c.png")
    one_line_error(table_error, "missing.csv")
    with pytest.raises(ValueError) as excinfo:
        plot_results(three_instances(), "cactus", empty / "c.png")     # a file where a folder should be
    one_line_error(excinfo, "c.png", "cannot write")


# -- property --------------------------------------------------------------------------------------

STATUSES = ("optimal", "solved", "unsolvable", "no_plan_within_cap", "limit_reached", "unsupported", "error")


@st.composite
def random_rows(draw: st.DrawFn) -> list[dict[str, Any]]:
    rows = []
    repeats = draw(st.integers(1, 3))
    for instance in draw(st.lists(st.sampled_from(["i1", "i2", "i3", "i4", "i5"]), min_size=1, unique=True)):
        for config in draw(st.lists(st.sampled_from(["A", "B", "C"]), min_size=1, unique=True)):
            for metric in draw(st.lists(st.sampled_from(["step", "slide"]), min_size=1, max_size=2, unique=True)):
                for k in range(1, repeats + 1):
                    rows.append(row(instance, config, draw(st.sampled_from(STATUSES)),
                                    draw(st.floats(0.0, 100.0, allow_nan=False)), metric=metric, repeat=k))
    return rows


@settings(max_examples=60, deadline=None)
@given(random_rows(), st.sampled_from(["answered", "proved"]))
def test_cactus_series_is_sorted_and_counts_the_solved_instances(rows: list[dict[str, Any]], solved: str) -> None:
    from puzzleplan.plans.batch.crosscheck import PROVED
    statuses = ANSWERED if solved == "answered" else PROVED
    metrics = len({r["metric"] for r in rows})
    series = cactus_series(rows, solved)
    for name, points in series.items():
        group = [r for r in rows if (f"{r['config']} ({r['metric']})" if metrics > 1 else r["config"]) == name]
        assert group
        solved_instances = 0
        for instance in {r["instance"] for r in group}:
            runs = [r for r in group if r["instance"] == instance]
            solved_instances += 2 * sum(r["status"] in statuses for r in runs) > len(runs)
        assert len(points) == solved_instances
        assert [k for k, _ in points] == list(range(1, len(points) + 1))
        assert all(a[1] <= b[1] for a, b in zip(points, points[1:]))


def test_options_a_kind_does_not_read_are_refused(tmp_path: Path, capsys) -> None:
    table = tmp_path / "r.csv"
    write_rows(table, three_instances())
    for args, says in ((["--kind", "table", "--x", "A"], "--x and --y choose a scatter plot's axes"),
                       (["--kind", "cactus", "--y", "B"], "not with --kind cactus"),
                       (["--kind", "table", "--solved", "proved"], "the table shows both")):
        code, out, err = run_cli(capsys, "plot", str(table), "-o", str(tmp_path / "p.png"), *args)
        assert code == 2 and says in err and err.count("\n") == 1, err
    assert not (tmp_path / "p.png").exists()
