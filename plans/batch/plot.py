"""Pictures of a batch's results: a cactus plot, a scatter plot of two configurations, and the
summary table (as a picture or as text).

A configuration is one (metric, config) pair of the table, named by `crosscheck.label`. Repeats
of one run are folded into one outcome per (configuration, instance): the median of their
`total_seconds`, solved when most of them solved it. A run whose time is missing cannot be
placed on a time axis and counts as not solved. matplotlib is imported inside the functions
that draw (the CLI must start fast) and used without pyplot, so nothing global changes.
"""
from __future__ import annotations

import csv
import io
import statistics
from collections import defaultdict
from dataclasses import dataclass
from pathlib import Path
from typing import Any, Sequence

from puzzleplan.plans.batch.crosscheck import ANSWERED, PROVED, ConfigSummary, label, summarize, summary_text
from puzzleplan.plans.batch.table import normalized, read_rows

KINDS = ("cactus", "scatter", "table")
PICTURES = (".png", ".svg")
TEXTS = (".txt", ".md", ".csv")
SOLVED = {"answered": ANSWERED, "proved": PROVED}
FLOOR = 1e-3            # seconds: a log axis cannot show 0, so shorter times are drawn here
_MARKERS = ("o", "s", "^", "D", "v", "P", "X")   # 7 against the 10 colours: 70 distinct pairs
_SUMMARY_HEAD = ("configuration", "runs", "answered", "optimal", "proved none", "limit", "unsupported", "error",
                 "median s", "total s")

Config = tuple[str, str]      # (metric, config)


@dataclass(frozen=True)
class Outcome:
    """One configuration on one instance, over its repeats."""

    seconds: float | None     # median total_seconds over the repeats that have one
    solved: bool              # most repeats solved it, and there is a time to place it at


@dataclass(frozen=True)
class ScatterPoint:
    """One instance on a scatter plot."""

    instance: str
    x: float                  # seconds, or the border value when not solved
    y: float
    x_solved: bool
    y_solved: bool


# -- reading and folding rows -------------------------------------------------------------------

def _rows(results: str | Path | list[dict[str, Any]], metric: str | None) -> tuple[list[dict[str, Any]], str]:
    """The rows to draw (filtered to `metric`) and a name for messages."""
    if isinstance(results, (str, Path)):
        source, rows = str(results), read_rows(results)
    else:
        source, rows = "results", [normalized(r) for r in results]
    if not rows:
        raise ValueError(f"{source}: the results table has no rows")
    if metric is not None:
        have = sorted({r["metric"] or "" for r in rows})
        rows = [r for r in rows if (r["metric"] or "") == metric]
        if not rows:
            raise ValueError(f"{source}: no rows for --metric {metric!r} (the table has: {', '.join(have)})")
    return rows, source


def _solved_statuses(solved: str) -> tuple[str, ...]:
    if solved not in SOLVED:
        raise ValueError(f"--solved is 'answered' or 'proved', not {solved!r}")
    return SOLVED[solved]


def configurations(rows: Sequence[dict[str, Any]]) -> dict[Config, str]:
    """(metric, config) -> its name, in the order the table first has them."""
    keys = list(dict.fromkeys((r["metric"] or "", r["config"] or "") for r in rows))
    metrics = len({m for m, _ in keys})
    return {key: label(key[0], key[1], metrics) for key in keys}


def outcomes(rows: Sequence[dict[str, Any]], statuses: Sequence[str]) -> dict[Config, dict[str, Outcome]]:
    """Per configuration, per instance (in table order): its repeats folded into one outcome."""
    runs: dict[Config, dict[str, list[dict[str, Any]]]] = defaultdict(lambda: defaultdict(list))
    for r in rows:
        runs[(r["metric"] or "", r["config"] or "")][r["instance"] or ""].append(r)
    out: dict[Config, dict[str, Outcome]] = {}
    for key, per_instance in runs.items():
        out[key] = {}
        for instance, group in per_instance.items():
            times = [r["total_seconds"] for r in group if r["total_seconds"] is not None]
            seconds = statistics.median(times) if times else None
            majority = 2 * sum(r["status"] in statuses for r in group) > len(group)
            out[key][instance] = Outcome(seconds, majority and seconds is not None)
    return out


def cactus_series(rows: Sequence[dict[str, Any]], solved: str = "answered") -> dict[str, list[tuple[int, float]]]:
    """Per configuration name: its solved instances' times sorted ascending, the k-th at (k, time)."""
    names = configurations(rows)
    folded = outcomes(rows, _solved_statuses(solved))
    series: dict[str, list[tuple[int, float]]] = {}
    for key, name in names.items():
        times = sorted(o.seconds for o in folded[key].values() if o.solved and o.seconds is not None)
        series[name] = [(k, t) for k, t in enumerate(times, start=1)]
    return series


def border_value(rows: Sequence[dict[str, Any]]) -> float:
    """Where a scatter plot puts runs not solved: the largest time limit, else 1.5 x the largest time."""
    limits = [r["time_limit"] for r in rows if r["time_limit"] is not None and r["time_limit"] > 0]
    if limits:
        return max(limits)
    times = [r["total_seconds"] for r in rows if r["total_seconds"] is not None]
    return 1.5 * max(times) if times and max(times) > 0 else 1.0


def _pick(names: dict[Config, str], x: str | None, y: str | None, source: str) -> tuple[Config, Config]:
    """The configurations named by --x and --y (defaults: the first two in table order)."""
    if len(names) < 2:
        raise ValueError(f"{source}: a scatter plot needs two configurations, the table has "
                         f"{len(names)} ({', '.join(names.values())})")
    by_name = {name: key for key, name in names.items()}
    for option, value in (("--x", x), ("--y", y)):
        if value is not None and value not in by_name:
            under = [name for name in by_name if name.startswith(f"{value} (")]
            hint = (f"; it ran under several metrics: name one with --metric, or write {under[0]!r}"
                    if under else "")
            raise ValueError(f"{option} {value!r} names no configuration (choose from: {', '.join(by_name)}){hint}")
    if x is not None and x == y:
        raise ValueError(f"--x and --y name the same configuration {x!r}; a scatter plot compares two")
    order = list(by_name)
    xname = x if x is not None else next(n for n in order if n != y)
    yname = y if y is not None else next(n for n in order if n != xname)
    return by_name[xname], by_name[yname]


def scatter_points(rows: Sequence[dict[str, Any]], x: str | None = None, y: str | None = None,
                   solved: str = "answered", source: str = "results") -> tuple[str, str, float, list[ScatterPoint]]:
    """(x name, y name, border value, one point per instance both configurations ran)."""
    names = configurations(rows)
    xkey, ykey = _pick(names, x, y, source)
    folded = outcomes(rows, _solved_statuses(solved))
    border = border_value(rows)
    points: list[ScatterPoint] = []
    for instance, xo in folded[xkey].items():
        yo = folded[ykey].get(instance)
        if yo is None:
            continue
        points.append(ScatterPoint(instance, xo.seconds if xo.solved and xo.seconds is not None else border,
                                   yo.seconds if yo.solved and yo.seconds is not None else border,
                                   xo.solved, yo.solved))
    return names[xkey], names[ykey], border, points


# -- the summary as text --------------------------------------------------------------------------

def _summary_cells(summaries: list[ConfigSummary]) -> list[list[str]]:
    metrics = len({s.metric for s in summaries})
    return [[label(s.metric, s.config, metrics), str(s.runs), str(s.answered), str(s.optimal), str(s.proved_none),
             str(s.limit), str(s.unsupported), str(s.errors),
             "-" if s.median_seconds is None else f"{s.median_seconds:.2f}", f"{s.total_seconds:.1f}"]
            for s in summaries]


def summary_markdown(summaries: list[ConfigSummary]) -> str:
    """The summary as a Markdown table."""
    def line(cells: Sequence[str]) -> str:
        return "| " + " | ".join(c.replace("|", "\\|") for c in cells) + " |"
    rule = "|" + "|".join(["---"] + ["---:"] * (len(_SUMMARY_HEAD) - 1)) + "|"
    return "\n".join([line(_SUMMARY_HEAD), rule, *(line(r) for r in _summary_cells(summaries))])


def summary_csv(summaries: list[ConfigSummary]) -> str:
    """The summary as CSV, one row per `ConfigSummary.as_dict()` (a missing value is empty)."""
    buffer = io.StringIO()
    fields = list(ConfigSummary.__dataclass_fields__)
    writer = csv.DictWriter(buffer, fieldnames=fields, lineterminator="\n")
    writer.writeheader()
    for s in summaries:
        writer.writerow({k: "" if v is None else v for k, v in s.as_dict().items()})
    return buffer.getvalue()


# -- drawing ----------------------------------------------------------------------------------

LEGEND_INSIDE = 6   # configurations whose legend fits inside a cactus plot's axes
LEGEND_ROWS = 30    # names a column of the legend beside them


def _figure(width: float, height: float) -> Any:
    from matplotlib.figure import Figure
    return Figure(figsize=(width, height), layout="constrained")


def cactus_figure(series: dict[str, list[tuple[int, float]]], solved: str = "answered",
                  title: str | None = None) -> Any:
    """The cactus plot of `cactus_series`: one step line per configuration (instances solved vs
    seconds, log)."""
    from matplotlib import colormaps
    from matplotlib.ticker import MaxNLocator
    many = len(series) > LEGEND_INSIDE
    # beside the axes, a legend of LEGEND_ROWS names a column, the figure as tall as it needs
    columns = -(-len(series) // LEGEND_ROWS)
    fig = _figure((9.5 + 2.5 * (columns - 1)) if many else 7.0,
                  max(4.8, 0.8 + 0.19 * min(len(series), LEGEND_ROWS)) if many else 4.8)
    ax = fig.add_subplot()
    # past ten lines the default cycle repeats its colours: twenty distinct ones instead
    colours = colormaps["tab20"].colors if len(series) > 10 else [None] * len(series)
    for i, (name, points) in enumerate(series.items()):
        xs = [k for k, _ in points]
        ys = [max(t, FLOOR) for _, t in points]
        ax.step(xs, ys, where="post", marker=_MARKERS[i % len(_MARKERS)], markersize=4, label=name,
                color=colours[i % len(colours)])
    ax.set_yscale("log")
    if not any(series.values()):
        ax.set_ylim(0.1, 10.0)
        ax.set_xlim(0, 1)
        ax.text(0.5, 0.5, "no instance solved", transform=ax.transAxes, ha="center", va="center")
    ax.set_xlim(left=0)
    ax.xaxis.set_major_locator(MaxNLocator(integer=True))
    ax.set_xlabel("instances solved" + (" (proved)" if solved == "proved" else ""))
    ax.set_ylabel("seconds (total, per instance)")
    ax.grid(True, which="major", alpha=0.5)
    ax.grid(True, which="minor", alpha=0.15)
    if many:   # beside the axes: inside, a long legend hid the lines
        fig.legend(loc="outside right upper", fontsize="small", ncols=columns)
    else:
        ax.legend(loc="upper left", fontsize="small")
    ax.set_title(title if title is not None else "cactus: instances solved within a time")
    return fig


def scatter_figure(xname: str, yname: str, border: float, points: Sequence[ScatterPoint],
                   title: str | None = None) -> Any:
    """The scatter plot of `scatter_points`: x against y, log-log, with the diagonal and the
    'not solved' border."""
    fig = _figure(5.8, 5.6)
    ax = fig.add_subplot()
    values = [max(v, FLOOR) for p in points for v in (p.x, p.y)]
    lo = min([*values, border]) / 2
    hi = border * 2
    ax.plot([lo, hi], [lo, hi], color="0.6", linewidth=1, zorder=1)
    ax.axvline(border, color="0.35", linestyle="--", linewidth=1, zorder=1)
    ax.axhline(border, color="0.35", linestyle="--", linewidth=1, zorder=1)
    ax.text(border * 1.05, lo * 1.2, "not solved", rotation=90, ha="left", va="bottom", fontsize="small", color="0.35")
    ax.text(lo * 1.2, border * 1.05, "not solved", ha="left", va="bottom", fontsize="small", color="0.35")
    groups = (("solved by both", True, True, "o"), (f"solved by {xname} only", True, False, "^"),
              (f"solved by {yname} only", False, True, "v"), ("solved by neither", False, False, "x"))
    for text, xs, ys, marker in groups:
        chosen = [p for p in points if p.x_solved == xs and p.y_solved == ys]
        if chosen:
            ax.scatter([max(p.x, FLOOR) for p in chosen], [max(p.y, FLOOR) for p in chosen],
                       marker=marker, s=22, label=f"{text} ({len(chosen)})", zorder=2)
    ax.set_xscale("log")
    ax.set_yscale("log")
    ax.set_xlim(lo, hi)
    ax.set_ylim(lo, hi)
    if hi / lo < 100:   # within two decades matplotlib labelled minor ticks too, on top of each other
        from matplotlib.ticker import FormatStrFormatter, LogLocator, NullFormatter
        for axis in (ax.xaxis, ax.yaxis):
            axis.set_major_locator(LogLocator(base=10, subs=(1.0, 2.0, 5.0)))
            axis.set_major_formatter(FormatStrFormatter("%g"))
            axis.set_minor_formatter(NullFormatter())
    ax.set_aspect("equal")
    ax.set_xlabel(f"x: {xname} (seconds)")
    ax.set_ylabel(f"y: {yname} (seconds)")
    ax.grid(True, alpha=0.3)
    if points:
        fig.legend(loc="outside lower center", ncols=2, fontsize="small")
    ax.set_title(title if title is not None else f"x: {xname}  vs  y: {yname}", fontsize="medium")
    return fig


def table_figure(summaries: list[ConfigSummary], title: str | None = None) -> Any:
    """The summary as a picture (a matplotlib table), sized to its text."""
    cells = _summary_cells(summaries)
    # inches per character at 9 pt, and per cell for padding; rows 0.25 in high
    chars = [max(len(r[i]) for r in [list(_SUMMARY_HEAD), *cells]) for i in range(len(_SUMMARY_HEAD))]
    inches = [0.08 * c + 0.2 for c in chars]
    fig = _figure(sum(inches) + 0.2, 0.25 * (len(cells) + 1) + (0.45 if title is not None else 0.1))
    ax = fig.add_subplot()
    ax.axis("off")
    table = ax.table(cellText=cells, colLabels=list(_SUMMARY_HEAD), colWidths=[w / sum(inches) for w in inches],
                     bbox=(0.0, 0.0, 1.0, 1.0), cellLoc="right", colLoc="right")
    table.auto_set_font_size(False)
    table.set_fontsize(9)
    for (row, col), cell in table.get_celld().items():
        if col == 0:
            cell.set_text_props(ha="left")
            cell.PAD = 0.03     # the default pads 10% of the width: too much for the wide name column
        if row == 0:
            cell.set_text_props(weight="bold")
    if title is not None:
        ax.set_title(title)
    return fig


def _picture(fig: Any, suffix: str) -> bytes:
    import matplotlib
    buffer = io.BytesIO()
    # no date and fixed ids in an SVG, so one table always draws the same file
    with matplotlib.rc_context({"svg.hashsalt": "puzzleplan"}):
        fig.savefig(buffer, format=suffix[1:], dpi=150, metadata={"Date": None} if suffix == ".svg" else None)
    return buffer.getvalue()


def _write(out: Path, data: bytes) -> None:
    """All or nothing: written beside the target, then renamed onto it."""
    from puzzleplan.plans.core.files import write_bytes
    try:
        write_bytes(out, data, make_folder=True)
    except OSError as exc:
        raise ValueError(f"{out}: cannot write: {exc.strerror or exc}") from None


def _check_options(kind: str, out: Path) -> str:
    if kind not in KINDS:
        raise ValueError(f"--kind is one of {', '.join(KINDS)}, not {kind!r}")
    suffix = out.suffix.lower()
    allowed = PICTURES + TEXTS if kind == "table" else PICTURES
    if suffix not in allowed:
        raise ValueError(f"{out}: --kind {kind} writes {', '.join(allowed)}, not "
                         f"{suffix or 'a name without suffix'!r}")
    return suffix


def plot_results(results: str | Path | list[dict[str, Any]], kind: str, out: str | Path, *, x: str | None = None,
                 y: str | None = None, metric: str | None = None, solved: str = "answered",
                 title: str | None = None) -> dict[str, Any]:
    """Draw `kind` ("cactus", "scatter" or "table") of a results table (a file or its rows) to
    `out` (.png or .svg; a table also .txt, .md or .csv), atomically. `metric` keeps one metric's
    rows; `solved` ("answered" or "proved") is which statuses count as solved; `x`, `y` name the
    scatter plot's configurations. Returns {"path", "kind", "format", "configurations",
    "instances"} (for a scatter plot, the instances both configurations ran). One-line
    ValueError (TableError for an unreadable file) on bad input."""
    out = Path(out)
    suffix = _check_options(kind, out)
    _solved_statuses(solved)
    rows, source = _rows(results, metric)
    names = list(configurations(rows).values())
    instances = len({r["instance"] or "" for r in rows})
    if kind == "cactus":
        data = _picture(cactus_figure(cactus_series(rows, solved), solved, title), suffix)
    elif kind == "scatter":
        xname, yname, border, points = scatter_points(rows, x, y, solved, source)
        data = _picture(scatter_figure(xname, yname, border, points, title), suffix)
        names, instances = [xname, yname], len(points)
    else:   # the summary counts answered and proved runs itself (`solved` does not apply)
        summaries = summarize(rows)
        if suffix in PICTURES:
            data = _picture(table_figure(summaries, title), suffix)
        else:
            text = {".txt": summary_text, ".md": summary_markdown, ".csv": summary_csv}[suffix](summaries)
            data = (text if text.endswith("\n") else text + "\n").encode("utf-8")
    _write(out, data)
    return {"path": str(out), "kind": kind, "format": suffix, "configurations": names, "instances": instances}


__all__ = ["FLOOR", "KINDS", "Outcome", "ScatterPoint", "border_value", "cactus_figure", "cactus_series",
           "configurations", "outcomes", "plot_results", "scatter_figure", "scatter_points", "summary_csv",
           "summary_markdown", "table_figure"]
