"""Checks python/hpcnetsim/_core.pyi against the compiled extension: the same top-level names,
the same methods and properties per class, and, where the extension exposes a signature, the
same parameter names in the same order. Exits 1 and lists every difference."""

from __future__ import annotations

import ast
import inspect
import sys
from pathlib import Path

import hpcnetsim._core as core

STUB = Path(__file__).resolve().parent.parent / "python" / "hpcnetsim" / "_core.pyi"


def _params(node: ast.FunctionDef) -> list[str]:
    a = node.args
    names = [p.arg for p in [*a.posonlyargs, *a.args, *a.kwonlyargs]]
    return [n for n in names if n not in ("self", "cls")]


def _runtime_params(obj) -> list[str] | None:
    try:
        sig = inspect.signature(obj)
    except (TypeError, ValueError):
        return None
    return [n for n in sig.parameters if n not in ("self", "cls", "$self", "$cls")]


def _public(names) -> set[str]:
    return {n for n in names if not n.startswith("_") or n == "__version__"}


def check() -> list[str]:
    problems: list[str] = []
    tree = ast.parse(STUB.read_text())
    declared: dict[str, ast.AST] = {}
    for node in tree.body:
        if isinstance(node, (ast.FunctionDef, ast.ClassDef)):
            declared[node.name] = node
        elif isinstance(node, ast.AnnAssign) and isinstance(node.target, ast.Name):
            declared[node.target.id] = node
    runtime = _public(n for n in dir(core) if not inspect.ismodule(getattr(core, n)))
    for name in sorted(runtime - set(declared)):
        problems.append(f"{name}: in the extension, missing from _core.pyi")
    for name in sorted(set(declared) - runtime):
        problems.append(f"{name}: in _core.pyi, missing from the extension")
    for name, node in declared.items():
        if name not in runtime:
            continue
        obj = getattr(core, name)
        if isinstance(node, ast.FunctionDef):
            got = _runtime_params(obj)
            if got is not None and got != _params(node):
                problems.append(f"{name}: parameters {got} in the extension, {_params(node)} in _core.pyi")
        elif isinstance(node, ast.ClassDef):
            members = {m.name: m for m in node.body if isinstance(m, ast.FunctionDef)}
            if issubclass(obj, BaseException):
                continue
            have = _public(n for n in vars(obj) if not n.startswith("__"))
            for m in sorted(have - set(members)):
                problems.append(f"{name}.{m}: in the extension, missing from _core.pyi")
            for m in sorted(set(members) - have - {"__init__", "__new__"}):
                problems.append(f"{name}.{m}: in _core.pyi, missing from the extension")
            for m, fn in members.items():
                attr = vars(obj).get(m)
                if attr is None or isinstance(attr, property) or type(attr).__name__ == "getset_descriptor":
                    continue
                got = _runtime_params(getattr(obj, m))
                if got is not None and got != _params(fn):
                    problems.append(f"{name}.{m}: parameters {got} in the extension, {_params(fn)} in _core.pyi")
    return problems


def main() -> int:
    problems = check()
    for p in problems:
        print(f"_core.pyi: {p}", file=sys.stderr)
    if not problems:
        print("_core.pyi matches the extension")
    return 1 if problems else 0


if __name__ == "__main__":
    sys.exit(main())
