"""The import graph of the code (read with ast, nothing imported): no import circles, and no module importing one
on a higher floor (ARCHITECTURE.md). Every import counts, inside functions too; only ``if TYPE_CHECKING:``
imports (annotations, never run) are left out."""

from __future__ import annotations

import ast
from pathlib import Path

import pytest

ROOT = Path(__file__).parent.parent

#: The floors, lowest first. A module may import modules on its own floor or below, never above. An entry is a
#: module's exact name, or ``package.*`` for a package and everything in it.
FLOORS: list[tuple[str, list[str]]] = [
    (
        "ground floor",
        [
            "mapgen",
            "mapgen.board",
            "mapgen.terrain",
            "mapgen.model",
            "mapgen.errors",
            "mapgen.inputs",
            "mapgen.workers",
        ],
    ),
    ("rules", ["constraints.*"]),
    (
        "files",
        [
            "mapgen.output",
            "mapgen.mapfile",
            "mapgen.profile",
            "mapgen.design",
            "mapgen.reference",
            "mapgen.validate",
            "mapgen.deduce_text",
            "mapgen.campaign",
            "maps",
        ],
    ),
    ("solving", ["mapgen.solving.*"]),
    ("jobs", ["mapgen.generate", "mapgen.repair", "mapgen.deduce", "mapgen.report", "mapgen.batch"]),
    ("engine", ["mapgen.engine.*"]),
    ("grading", ["mapgen.quality", "mapgen.grade", "mapgen.target", "mapgen.pack"]),
    ("pictures", ["mapgen.render.*"]),
    ("front doors", ["mapgen.cli.*", "cli", "mapgen.web.*", "maps.build", "mapgen.openspiel"]),
]

#: Where an import inside a function must say why it is deferred (``# deferred: reason`` on its line): everywhere.
DEFERRED_CHECKED = ["cli.py", "mapgen", "constraints", "maps"]


def _modules() -> dict[str, Path]:
    found = {"cli": ROOT / "cli.py"}
    for top in ("mapgen", "constraints", "maps"):
        for path in (ROOT / top).rglob("*.py"):
            parts = path.relative_to(ROOT).with_suffix("").parts
            found[".".join(parts[:-1] if parts[-1] == "__init__" else parts)] = path
    return found


MODULES = _modules()


def _type_checking_nodes(tree: ast.AST) -> set[int]:
    out: set[int] = set()
    for node in ast.walk(tree):
        if isinstance(node, ast.If) and "TYPE_CHECKING" in ast.unparse(node.test):
            out.update(id(n) for n in ast.walk(node))
    return out


def _imports(name: str, path: Path) -> set[str]:
    """The modules of this tree that module NAME imports."""
    tree = ast.parse(path.read_text(encoding="utf-8"))
    skip = _type_checking_nodes(tree)
    package = name if path.name == "__init__.py" else name.rpartition(".")[0]
    out = set()
    for node in ast.walk(tree):
        if id(node) in skip:
            continue
        targets: list[str] = []
        if isinstance(node, ast.Import):
            targets = [a.name for a in node.names]
        elif isinstance(node, ast.ImportFrom):
            base = node.module or ""
            if node.level:
                parts = package.split(".")[: len(package.split(".")) - node.level + 1]
                base = ".".join([*parts, *([node.module] if node.module else [])])
            targets = [f"{base}.{a.name}" if f"{base}.{a.name}" in MODULES else base for a in node.names]
        for target in targets:
            while target and target not in MODULES:
                target = target.rpartition(".")[0]
            if target and target != name:
                out.add(target)
    return out


GRAPH = {name: _imports(name, path) for name, path in MODULES.items()}


def floor(module: str) -> int | None:
    best, length = None, -1
    for k, (_, entries) in enumerate(FLOORS):
        for entry in entries:
            package = entry.removesuffix(".*")
            hit = module == package or (entry.endswith(".*") and module.startswith(package + "."))
            if hit and len(package) > length:
                best, length = k, len(package)
    return best


def test_every_module_has_a_floor():
    assert [m for m in MODULES if floor(m) is None] == []


def test_nothing_imports_upward():
    upward = [
        f"{a} ({FLOORS[floor(a)][0]}) imports {b} ({FLOORS[floor(b)][0]})"
        for a, targets in GRAPH.items()
        for b in sorted(targets)
        if floor(b) > floor(a)
    ]
    assert upward == []


def _cycles(graph: dict[str, set[str]]) -> list[list[str]]:
    """The strongly connected components of more than one module (Tarjan)."""
    index: dict[str, int] = {}
    low: dict[str, int] = {}
    stack: list[str] = []
    on_stack: set[str] = set()
    found: list[list[str]] = []

    def visit(v: str) -> None:
        index[v] = low[v] = len(index)
        stack.append(v)
        on_stack.add(v)
        for w in sorted(graph[v]):
            if w not in index:
                visit(w)
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
                found.append(sorted(component))

    for v in sorted(graph):
        if v not in index:
            visit(v)
    return found


def test_no_import_circles():
    assert _cycles(GRAPH) == []


def test_the_checks_see_a_circle_and_an_upward_arrow():
    assert _cycles({"a": {"b"}, "b": {"c"}, "c": {"a"}, "d": {"a"}}) == [["a", "b", "c"]]
    assert floor("mapgen.model") < floor("constraints.rules") < floor("mapgen.solving.sat") < floor("mapgen.cli.solve")
    assert "constraints.catalogue" in GRAPH["mapgen.mapfile"]  # imports are read, relative ones too
    assert GRAPH["mapgen.openspiel"] == {"mapgen.engine.openspiel"}


@pytest.mark.parametrize(
    "module", ["mapgen.board", "mapgen.terrain", "mapgen.model", "mapgen.errors", "mapgen.inputs", "mapgen.workers"]
)
def test_the_ground_floor_imports_only_the_ground_floor(module):
    assert {floor(m) for m in GRAPH[module]} <= {0}


def test_the_rules_import_only_the_ground_floor_and_themselves():
    outside = {m for name, targets in GRAPH.items() if name.startswith("constraints") for m in targets}
    assert {m for m in outside if not m.startswith("constraints")} <= set(FLOORS[0][1])


def test_the_engine_s_bots_do_not_import_above_the_engine():
    for name, targets in GRAPH.items():
        if name.startswith("mapgen.engine.bots"):
            assert all(floor(m) <= floor("mapgen.engine") for m in targets), name
            assert "mapgen.openspiel" not in targets


def _function_imports(path: Path) -> list[tuple[int, str]]:
    text = path.read_text(encoding="utf-8")
    lines = text.splitlines()
    tree = ast.parse(text)
    out = []
    for fn in ast.walk(tree):
        if isinstance(fn, ast.FunctionDef | ast.AsyncFunctionDef):
            for node in ast.walk(fn):
                if isinstance(node, ast.Import | ast.ImportFrom):
                    out.append((node.lineno, lines[node.lineno - 1].strip()))
    return out


def _checked_files() -> list[Path]:
    files: list[Path] = []
    for entry in DEFERRED_CHECKED:
        path = ROOT / entry
        files.extend(sorted(path.rglob("*.py")) if path.is_dir() else [path])
    return files


@pytest.mark.parametrize("path", _checked_files(), ids=lambda p: str(p.relative_to(ROOT)))
def test_an_import_inside_a_function_says_why_it_is_deferred(path):
    unexplained = [f"{n}: {line}" for n, line in _function_imports(path) if "# deferred:" not in line]
    assert unexplained == []


def test_help_lists_every_command_with_its_own_summary_and_imports_none_of_them():
    """`mapgen --help` is read off ``SUMMARIES`` (the playtest command alone imports ortools and pandas):
    each summary must shorten exactly as the command's own help does, and the help must load no command."""
    import subprocess
    import sys

    import click

    from mapgen.cli import COMMANDS, SUMMARIES, main

    assert list(SUMMARIES) == list(COMMANDS)
    ctx = click.Context(main)
    for name in COMMANDS:
        cmd = main.get_command(ctx, name)
        for limit in (40, 60, 72, 200):
            assert click.Command(name, help=SUMMARIES[name]).get_short_help_str(limit) == cmd.get_short_help_str(limit)
    probe = (
        "import sys\nfrom click.testing import CliRunner\nfrom mapgen.cli import main\n"
        "r = CliRunner().invoke(main, ['--help'])\nassert r.exit_code == 0, r.output\n"
        "print(sorted(m for m in sys.modules if m.startswith(('mapgen.cli.', 'ortools', 'numpy'))))\n"
        "print(r.output)"
    )
    out = subprocess.run([sys.executable, "-c", probe], capture_output=True, text=True, check=True).stdout
    loaded, _, shown = out.partition("\n")
    assert loaded == "['mapgen.cli.errors']"
    for name in COMMANDS:
        assert f"  {name} " in shown
