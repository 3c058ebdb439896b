"""The results table of a batch: one row per run, its columns and types, read and written.

One schema serves both formats, so a table reads back the same from Parquet or CSV: whole
numbers stay whole (nullable), a missing value is null, never NaN or "". The file is always
written whole, to a temporary name and renamed (`write_rows`), so a reader never sees half a
table; while a batch runs, finished rows are appended to a journal beside it (`Journal`), which
is what survives a hard kill and what `--resume` reads back together with the table.
"""
from __future__ import annotations

import json
from pathlib import Path
from typing import Any, Iterable, Iterator

from puzzleplan.plans.core.files import replaced

# (name, type, what it holds); type is one of str, int, float, bool
COLUMNS: tuple[tuple[str, str, str], ...] = (
    ("run_id", "str", "a hash of everything that defines the run (resume skips ids already in the table)"),
    ("index", "int", "the run's place in the spec's cross product"),
    ("instance", "str", "the puzzle file (relative to the spec), `FILE#N` for level N of a collection"),
    ("title", "str", "the puzzle's name"),
    ("family", "str", "the puzzle family"),
    ("metric", "str", "the move metric"),
    ("config", "str", "the configuration: engine, encoding, solver and options, e.g. sat/tiles-moves/cadical195"),
    ("engine", "str", "the engine"),
    ("encoding", "str", "the SAT or CP-SAT encoding (null for native engines)"),
    ("solver", "str", "the python-sat solver (null unless the engine is sat)"),
    ("options", "str", "other engine options as JSON (null when none)"),
    ("repeat", "int", "1-based repetition"),
    ("max_moves", "int", "the move cap (null: none)"),
    ("any_plan", "bool", "the first plan within the cap would do"),
    ("time_limit", "float", "seconds allowed"),
    ("memory_mb", "int", "MiB allowed (null: no limit)"),
    ("max_states", "int", "stored states allowed (null: no limit)"),
    ("status", "str", "optimal, solved, unsolvable, no_plan_within_cap, limit_reached, unsupported or error"),
    ("length", "int", "moves in the plan"),
    ("cost", "int", "the plan's cost under the metric"),
    ("lower_bound", "int", "proved: no plan costs less"),
    ("nodes", "int", "states expanded"),
    ("states", "int", "states stored"),
    ("variables", "int", "variables of the last formula or model solved"),
    ("clauses", "int", "clauses (SAT) or constraints (CP-SAT) of the last formula or model solved"),
    ("build_seconds", "float", "reading the puzzle and building encodings"),
    ("solve_seconds", "float", "searching or solving"),
    ("total_seconds", "float", "the run from reading the puzzle to the checked plan"),
    ("peak_mb", "float", "the run's peak resident memory in MiB"),
    ("plan_checked", "bool", "true: the independent checker replayed the plan; false: it rejected it; null: no plan"),
    ("plan", "str", "the plan's moves as `puzzleplan check` reads them"),
    ("error", "str", "why there is no answer: the limit reached, the engine's reason, the crash"),
    ("host", "str", "the machine the run ran on"),
)
NAMES = tuple(name for name, _, _ in COLUMNS)
TYPES = {name: kind for name, kind, _ in COLUMNS}
FORMATS = (".parquet", ".csv")
TIME_COLUMNS = ("build_seconds", "solve_seconds", "total_seconds", "peak_mb", "host")


class TableError(ValueError):
    """A results file that cannot be read or written (one line, naming the file)."""


def table_format(path: str | Path) -> str:
    """'.parquet' or '.csv' from the file name; TableError otherwise."""
    suffix = Path(path).suffix.lower()
    if suffix not in FORMATS:
        raise TableError(f"{path}: a results table is .parquet or .csv, not {suffix or 'a name without suffix'!r}")
    return suffix


def normalized(row: dict[str, Any]) -> dict[str, Any]:
    """`row` with exactly the table's columns, each of its type or None."""
    out: dict[str, Any] = {}
    for name in NAMES:
        value = row.get(name)
        if value is not None and value == value:      # NaN counts as missing
            kind = TYPES[name]
            value = (int(value) if kind == "int" else float(value) if kind == "float"
                     else bool(value) if kind == "bool" else str(value))
        else:
            value = None
        out[name] = value
    return out


def _schema() -> Any:
    import pyarrow as pa
    types = {"str": pa.string(), "int": pa.int64(), "float": pa.float64(), "bool": pa.bool_()}
    return pa.schema([(name, types[kind]) for name, kind, _ in COLUMNS])


def write_rows(path: str | Path, rows: Iterable[dict[str, Any]]) -> None:
    """Write the whole table to `path` (.parquet or .csv), all or nothing."""
    import pyarrow as pa
    fmt = table_format(path)
    rows = [normalized(r) for r in rows]
    table = pa.Table.from_pylist(rows, schema=_schema())
    try:
        with replaced(path, make_folder=True) as tmp:
            if fmt == ".parquet":
                import pyarrow.parquet as pq
                pq.write_table(table, tmp)
            else:
                import pyarrow.csv as pcsv
                pcsv.write_csv(table, tmp)
    except OSError as exc:
        raise TableError(f"{path}: cannot write: {exc.strerror or exc}") from None


def read_rows(path: str | Path) -> list[dict[str, Any]]:
    """Every row of a results table (TableError naming the file when it is not one)."""
    fmt = table_format(path)
    if not Path(path).is_file():
        raise TableError(f"{path}: no such file")
    try:
        if fmt == ".parquet":
            import pyarrow.parquet as pq
            table = pq.read_table(path)
        else:
            import pyarrow.csv as pcsv
            schema = _schema()
            table = pcsv.read_csv(path, convert_options=pcsv.ConvertOptions(
                column_types={f.name: f.type for f in schema}, strings_can_be_null=True))
    except Exception as exc:   # pyarrow raises several types for a file that is not a table
        raise TableError(f"{path}: not a results table ({' '.join(str(exc).split())[:160]})") from None
    missing = [name for name in ("run_id", "instance", "config", "status") if name not in table.column_names]
    if missing:
        raise TableError(f"{path}: not a puzzleplan results table (no column {missing[0]!r})")
    return [normalized(r) for r in table.to_pylist()]


class Journal:
    """Finished rows appended as JSON lines beside the table (`.NAME.journal`), flushed one by
    one; it outlives a hard kill and is removed once the table holds its rows."""

    def __init__(self, table_path: str | Path) -> None:
        table = Path(table_path)
        self.path = table.with_name(f".{table.name}.journal")
        self._handle: Any = None

    def rows(self) -> Iterator[dict[str, Any]]:
        """The rows journaled so far (a line cut short by a kill is skipped)."""
        if not self.path.is_file():
            return
        with self.path.open(encoding="utf-8") as f:
            for line in f:
                try:
                    yield normalized(json.loads(line))
                except (json.JSONDecodeError, TypeError, ValueError):
                    continue

    def append(self, row: dict[str, Any]) -> None:
        if self._handle is None:
            self.path.parent.mkdir(parents=True, exist_ok=True)
            self._handle = self.path.open("a", encoding="utf-8")
        self._handle.write(json.dumps(normalized(row), separators=(",", ":")) + "\n")
        self._handle.flush()

    def close(self, remove: bool) -> None:
        if self._handle is not None:
            self._handle.close()
            self._handle = None
        if remove and self.path.exists():
            self.path.unlink()


def existing_rows(path: str | Path) -> list[dict[str, Any]]:
    """The rows a resumed batch keeps: the table's (if any) and its journal's, one per run id
    (the journal's, written later, wins)."""
    rows: dict[str, dict[str, Any]] = {}
    if Path(path).exists():
        for row in read_rows(path):
            rows[row["run_id"]] = row
    for row in Journal(path).rows():
        rows[row["run_id"]] = row
    return sorted(rows.values(), key=lambda r: (r["index"] if r["index"] is not None else -1, r["run_id"]))


__all__ = ["COLUMNS", "FORMATS", "Journal", "NAMES", "TIME_COLUMNS", "TableError", "existing_rows", "normalized",
           "read_rows", "table_format", "write_rows"]
