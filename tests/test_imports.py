"""No import circles anywhere in puzzleplan: the graph of every import statement of every module
(at the top or inside a function; only `if TYPE_CHECKING:` blocks are left out) has no cycle.

Run as a script to print the graph's depth: `python tests/test_imports.py`.
"""
from __future__ import annotations

import ast
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
FOLDERS = {"models": "puzzleplan.models", "plans": "puzzleplan.plans", "encoders": "puzzleplan.encoders",
           "plans/api": "puzzleplan"}


def module_files() -> dict[str, Path]:
    """Module name -> file, following pyproject's package-dir mapping."""
    out: dict[str, Path] = {}
    for folder, package in sorted(FOLDERS.items(), key=lambda kv: -len(kv[0])):
        for path in (ROOT / folder).rglob("*.py"):
            rel = path.relative_to(ROOT / folder)
            if folder == "plans" and rel.parts[0] == "api":
                continue  # mapped to `puzzleplan` itself
            parts = list(rel.with_suffix("").parts)
            if parts[-1] == "__init__":
                parts = parts[:-1]
            out[".".join([package] + parts)] = path
    return out


def _is_type_checking(node: ast.If) -> bool:
    test = node.test
    return (isinstance(test, ast.Name) and test.id == "TYPE_CHECKING") or (
        isinstance(test, ast.Attribute) and test.attr == "TYPE_CHECKING")


def imports_of(name: str, path: Path, modules: set[str]) -> set[str]:
    """The puzzleplan modules `name` imports (relative imports resolved)."""
    tree = ast.parse(path.read_text(encoding="utf-8"))
    package = name if path.name == "__init__.py" else name.rpartition(".")[0]
    found: set[str] = set()

    def visit(node: ast.AST) -> None:
        for child in ast.iter_child_nodes(node):
            if isinstance(child, ast.If) and _is_type_checking(child):
                for other in child.orelse:
                    visit(other)
                continue
            if isinstance(child, ast.Import):
                for alias in child.names:
                    if alias.name in modules:
                        found.add(alias.name)
            elif isinstance(child, ast.ImportFrom):
                base = child.module or ""
                if child.level:
                    anchor = package
                    for _ in range(child.level - 1):
                        anchor = anchor.rpartition(".")[0]
                    base = f"{anchor}.{base}" if base else anchor
                for alias in child.names:
                    target = f"{base}.{alias.name}"
                    if target in modules:
                        found.add(target)
                    elif base in modules:
                        found.add(base)
            visit(child)
    visit(tree)
    found.discard(name)
    return found


def graph() -> dict[str, set[str]]:
    files = module_files()
    names = set(files)
    return {name: imports_of(name, path, names) for name, path in files.items()}


def cycles(edges: dict[str, set[str]]) -> list[list[str]]:
    """Strongly connected components with more than one module (Tarjan)."""
    index: dict[str, int] = {}
    low: dict[str, int] = {}
    stack: list[str] = []
    on_stack: set[str] = set()
    out: list[list[str]] = []
    counter = [0]
    sys.setrecursionlimit(10_000)

    def strong(v: str) -> None:
        index[v] = low[v] = counter[0]
        counter[0] += 1
        stack.append(v)
        on_stack.add(v)
        for w in edges.get(v, ()):
            if w not in index:
                strong(w)
                low[v] = min(low[v], low[w])
            elif w in on_stack:
                low[v] = min(low[v], index[w])
        if low[v] == index[v]:
            component = []
            while True:
                w = stack.pop()
                on_stack.discard(w)
                component.append(w)
                if w == v:
                    break
            if len(component) > 1:
                out.append(sorted(component))
    for v in edges:
        if v not in index:
            strong(v)
    return out


def depth(edges: dict[str, set[str]]) -> int:
    """The longest chain of imports (the graph has no cycle)."""
    memo: dict[str, int] = {}

    def longest(v: str) -> int:
        if v not in memo:
            memo[v] = 1 + max((longest(w) for w in edges.get(v, ())), default=0)
        return memo[v]
    return max(longest(v) for v in edges)


def test_no_import_cycles() -> None:
    found = cycles(graph())
    assert found == [], "import cycles: " + "; ".join(" <-> ".join(c) for c in found)


def test_the_walk_sees_every_module() -> None:
    edges = graph()
    assert "puzzleplan.plans.cli" in edges and "puzzleplan.models.family" in edges
    assert "puzzleplan.models.family" in edges["puzzleplan.models"]


if __name__ == "__main__":
    edges = graph()
    print(f"{len(edges)} modules, {sum(len(v) for v in edges.values())} imports, "
          f"cycles: {cycles(edges) or 'none'}")
    if not cycles(edges):
        print(f"depth: {depth(edges)}")


def test_sat_alone_never_loads_cp_sat() -> None:
    """Listing a model's encodings imports every encoding class, CP-SAT's too; ortools' cp_model
    (half a second: it imports pandas) is loaded lazily, at its first use, so a SAT run skips it.
    A fresh interpreter, as the command line is."""
    import subprocess
    code = ("import sys\n"
            "from puzzleplan.encoders.base import encodings_for, encoding_class\n"
            "from puzzleplan.models import load\n"
            "model = load(sys.argv[1])\n"
            "names = encodings_for(model)\n"
            "assert 'cp-rh-int' in names, names\n"
            "encoding_class('rh-order')(model).clauses(3)\n"
            "print('pandas' in sys.modules)\n"
            "encoding_class('cp-rh-int')(model).build(3)\n"
            "print('pandas' in sys.modules)\n")
    seed = ROOT / "examples" / "rush-hour" / "seed-000-hardest.yaml"
    out = subprocess.run([sys.executable, "-c", code, str(seed)], capture_output=True, text=True, check=True)
    assert out.stdout.split() == ["False", "True"]
