"""The package layout shows the paper's pipeline, and data flows one way through it.

Read from the source (every import, including those inside functions): no import cycle between modules,
no edge from an earlier phase to a later one, no private name imported across packages, and an explicit
public API (``__all__``) in every package. ``DEBT`` lists what is still wrong (issue 16); it may only
shrink: an entry that no longer occurs fails the test too, so a fix also removes its line.
"""

from __future__ import annotations

import ast
from collections import defaultdict
from pathlib import Path

PACKAGE = Path(__file__).resolve().parent.parent / "medrealmm"

#: Rank of each top-level part: a module may import only parts of the same or a lower rank.
#: 0 foundation (neutral, no phase), 1 adapters every phase may use (datasets, engines), 2–8 the paper's
#: phases in order, 9 the orchestrators that run them.
RANK = {
    **dict.fromkeys(["__init__", "schema", "atomic", "csvsafe", "config", "config_schema", "manifest", "runrecord",
                     "catalog", "common", "shards", "store"], 0),
    **dict.fromkeys(["data", "inference"], 1),
    "corpus": 2, "deid": 3, "mccp": 4, "rubric": 5, "judge": 6, "scoring": 7, "report": 8,
    **dict.fromkeys(["pipeline", "plan", "doctor", "cli", "testing", "config_groups"], 9),
}

#: Known debt (issue 16), as ``"importer -> imported"`` module names or ``"no __all__: package"``.
DEBT: set[str] = set()


def _modules() -> dict[str, Path]:
    out = {}
    for path in PACKAGE.rglob("*.py"):
        parts = path.relative_to(PACKAGE.parent).with_suffix("").parts
        name = ".".join(parts[:-1] if parts[-1] == "__init__" else parts)
        out[name] = path
    return out


MODULES = _modules()


def _imports() -> dict[str, set[tuple[str, str]]]:
    """Per module: (imported module, imported name or "") for every import of our own package."""
    found: dict[str, set[tuple[str, str]]] = defaultdict(set)
    for name, path in MODULES.items():
        package = name if path.name == "__init__.py" else name.rpartition(".")[0]
        for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"))):
            if isinstance(node, ast.Import):
                found[name] |= {(a.name, "") for a in node.names if a.name.startswith("medrealmm")}
            elif isinstance(node, ast.ImportFrom):
                base = node.module or ""
                if node.level:
                    up = package.split(".")[: len(package.split(".")) - node.level + 1]
                    base = ".".join(up + ([node.module] if node.module else []))
                if not base.startswith("medrealmm"):
                    continue
                for alias in node.names:
                    sub = f"{base}.{alias.name}"
                    found[name].add((sub, "") if sub in MODULES else (base, alias.name))
    return found


IMPORTS = _imports()


def _part(module: str) -> str:
    parts = module.split(".")
    return parts[1] if len(parts) > 1 else "__init__"


def _problems() -> set[str]:
    out = set()
    graph = {m: {t for t, _ in targets if t in MODULES} for m, targets in IMPORTS.items()}
    for m, targets in IMPORTS.items():
        for target, name in targets:
            if target not in MODULES:
                continue
            a, b = _part(m), _part(target)
            if a != b and RANK.get(b, 0) > RANK.get(a, 0):
                out.add(f"{m} -> {target}")
            if name.startswith("_") and not name.startswith("__"):
                out.add(f"private: {m} -> {target}._")
    out |= {"cycle: " + ", ".join(sorted(c)) for c in _cycles(graph)}
    for name, path in MODULES.items():
        if path.name == "__init__.py" and name != "medrealmm" and "__all__" not in path.read_text(encoding="utf-8"):
            out.add(f"no __all__: {name}")
    return out


def _cycles(graph: dict[str, set[str]]) -> list[list[str]]:
    """Strongly connected components with more than one module (Tarjan, iterative)."""
    index: dict[str, int] = {}
    low: dict[str, int] = {}
    stack: list[str] = []
    on: set[str] = set()
    comps: list[list[str]] = []
    counter = 0
    for root in sorted(graph):
        if root in index:
            continue
        work = [(root, iter(sorted(graph.get(root, ()))))]
        index[root] = low[root] = counter
        counter += 1
        stack.append(root)
        on.add(root)
        while work:
            v, it = work[-1]
            for w in it:
                if w not in index:
                    index[w] = low[w] = counter
                    counter += 1
                    stack.append(w)
                    on.add(w)
                    work.append((w, iter(sorted(graph.get(w, ())))))
                    break
                if w in on:
                    low[v] = min(low[v], index[w])
            else:
                work.pop()
                if work:
                    low[work[-1][0]] = min(low[work[-1][0]], low[v])
                if low[v] == index[v]:
                    comp = []
                    while True:
                        w = stack.pop()
                        on.discard(w)
                        comp.append(w)
                        if w == v:
                            break
                    if len(comp) > 1:
                        comps.append(comp)
    return comps


def test_every_part_has_a_rank() -> None:
    assert {_part(m) for m in MODULES} <= set(RANK), sorted({_part(m) for m in MODULES} - set(RANK))


def test_data_flows_one_way_and_debt_only_shrinks() -> None:
    problems = _problems()
    new = sorted(problems - DEBT)
    paid = sorted(DEBT - problems)
    assert not new, "new layering problems (fix them; do not add them to DEBT):\n" + "\n".join(new)
    assert not paid, "fixed — remove these lines from DEBT in tests/test_architecture.py:\n" + "\n".join(paid)


def test_runtime_code_never_imports_the_tests() -> None:
    bad = [m for m, targets in IMPORTS.items() for t, _ in targets if t.startswith("tests")]
    assert not bad
