"""The import graphs of the Rust core and of the Python package have no cycle.

A module graph with cycles cannot be read bottom-up, and a new component there tends to grow
the cycle it lands in. Edges are read from the sources: in Rust every `crate::a::b` and
`super::b` path outside comments and unit-test modules, also the modules named in a braced
import (`use super::{graph, wiring::Peer}`) (module granularity: the crate's top-level
modules, and the modules one level below them); in Python every import of the package, also
those inside functions (a deferred import hides a cycle, it does not remove it).

RUST_CYCLES lists the cycles the Rust core has, at each depth: none. It is checked exactly,
so that a new cycle fails the test (the last one, the topology family dispatching to the
builders that returned it, was broken by putting the builders on `wiring.rs`, below the
family enum and the `Topology` it becomes)."""

import ast
import re
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
RUST = ROOT / "crates" / "hpcnetsim-core" / "src"
PYTHON = ROOT / "python" / "hpcnetsim"

#: depth -> the strongly connected components (of more than one module) the Rust graph still has.
RUST_CYCLES: dict[int, list[set[str]]] = {1: [], 2: []}


def cycles(graph: dict[str, set[str]]) -> list[set[str]]:
    """The strongly connected components of more than one node (Tarjan, iterative)."""
    index: dict[str, int] = {}
    low: dict[str, int] = {}
    stack: list[str] = []
    on_stack: set[str] = set()
    found: list[set[str]] = []
    for root in sorted(graph):
        if root in index:
            continue
        work = [(root, iter(sorted(graph.get(root, ()))))]
        index[root] = low[root] = len(index)
        stack.append(root)
        on_stack.add(root)
        while work:
            v, children = work[-1]
            w = next(children, None)
            if w is not None:
                if w not in index:
                    index[w] = low[w] = len(index)
                    stack.append(w)
                    on_stack.add(w)
                    work.append((w, iter(sorted(graph.get(w, ())))))
                elif w in on_stack:
                    low[v] = min(low[v], index[w])
                continue
            work.pop()
            if work:
                low[work[-1][0]] = min(low[work[-1][0]], low[v])
            if low[v] == index[v]:
                comp = set()
                while True:
                    w = stack.pop()
                    on_stack.discard(w)
                    comp.add(w)
                    if w == v:
                        break
                if len(comp) > 1:
                    found.append(comp)
    return found


def _rust_module(path: Path) -> list[str]:
    parts = list(path.relative_to(RUST).with_suffix("").parts)
    if parts[-1] == "mod":
        parts.pop()
    return [] if parts == ["lib"] else parts


def rust_graph(depth: int) -> dict[str, set[str]]:
    """Module -> modules it uses, both cut to their first `depth` path segments."""
    graph: dict[str, set[str]] = {}
    for path in RUST.rglob("*.rs"):
        module = _rust_module(path)
        text = re.sub(r"#\[cfg\(test\)\]\s*mod tests\s*\{.*", "", path.read_text(), flags=re.S)
        text = re.sub(r"//[^\n]*", "", text)
        used = []
        for m in re.finditer(r"\b(crate|super)::((?:[a-z_][a-z0-9_]*::)*)(?:([a-z_][a-z0-9_]*)|\{([^}]*)\})", text):
            root, prefix, name, braced = m.groups()
            if root == "super" and not module:
                continue
            base = (module[:-1] if root == "super" else []) + [p for p in prefix.split("::") if p]
            # In braces, the lower-case names are modules (or functions, which lead nowhere).
            names = [name] if name else [n.strip().split("::")[0] for n in braced.split(",")]
            used += [base + [n] for n in names if re.fullmatch(r"[a-z_][a-z0-9_]*", n)] or [base]
        a = "::".join(module[:depth])
        for target in used:
            b = "::".join(target[:depth])
            # A module using its own parent or child is one unit at this depth.
            if a and b and a != b and not a.startswith(b + "::") and not b.startswith(a + "::"):
                graph.setdefault(a, set()).add(b)
    return graph


def python_graph() -> dict[str, set[str]]:
    """Module -> package modules it imports (anywhere in the file)."""
    modules = {}
    for path in PYTHON.rglob("*.py"):
        name = ".".join(("hpcnetsim", *path.relative_to(PYTHON).with_suffix("").parts)).removesuffix(".__init__")
        modules[name] = path
    graph: dict[str, set[str]] = {}
    for name, path in modules.items():
        package = name if path.name == "__init__.py" else name.rpartition(".")[0]
        used = set()
        for node in ast.walk(ast.parse(path.read_text())):
            if isinstance(node, ast.ImportFrom):
                if node.level:
                    base = package.split(".")[: len(package.split(".")) - (node.level - 1)]
                    target = ".".join(base + ([node.module] if node.module else []))
                else:
                    target = node.module
                # `from package import name`: the package, and the module `name` when it is one.
                used |= {target} | {f"{target}.{a.name}" for a in node.names}
            elif isinstance(node, ast.Import):
                used |= {a.name for a in node.names}
        graph[name] = {u for u in used if u in modules and u != name}
    return graph


def test_the_python_package_has_no_import_cycle():
    graph = python_graph()
    assert len(graph) > 30, "the package's modules were found"
    assert "hpcnetsim.reports.plots" in graph["hpcnetsim.reports.compare"], "imports inside functions count"
    assert "hpcnetsim.experiments.store" in graph["hpcnetsim.reports.report"], "`from ..package import module` counts"
    assert "hpcnetsim.cli.topo" in graph["hpcnetsim.cli"], "a package's __init__ is a module"
    assert cycles(graph) == [], f"import cycles: {cycles(graph)}"


def test_the_rust_core_has_no_new_module_cycle():
    for depth, known in RUST_CYCLES.items():
        graph = rust_graph(depth)
        assert len(graph) > 5
        if depth == 2:
            assert "config::presets" in graph["config::sources"], "a module in a braced import counts"
        got = sorted(cycles(graph), key=sorted)
        assert got == sorted(known, key=sorted), f"module cycles at depth {depth} changed: {got}"


def test_a_cycle_through_a_sub_package_is_found(tmp_path, monkeypatch):
    """The graph sees `from ..package import module` and `from . import module`, so a cycle
    between sub-packages is caught."""
    for name, text in {
        "__init__.py": "",
        "a/__init__.py": "",
        "a/x.py": "from ..b import y\n",
        "b/__init__.py": "",
        "b/y.py": "def f():\n    from ..a import x\n",
    }.items():
        (tmp_path / name).parent.mkdir(parents=True, exist_ok=True)
        (tmp_path / name).write_text(text)
    monkeypatch.setattr(sys.modules[__name__], "PYTHON", tmp_path)
    assert cycles(python_graph()) == [{"hpcnetsim.a.x", "hpcnetsim.b.y"}]


def test_the_cycle_finder_finds_cycles():
    assert cycles({"a": {"b"}, "b": {"c"}, "c": {"a"}, "d": {"a"}}) == [{"a", "b", "c"}]
    assert cycles({"a": {"b"}, "b": {"c"}, "c": set()}) == []
