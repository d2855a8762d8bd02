"""Axis values computed from the point's topology: ``"=min(1, 0.5 * ideal)"``.

Only arithmetic, numbers, the names of :data:`NAMES` and the functions of :data:`FUNCTIONS` are
allowed, so an experiment file cannot run arbitrary code.
"""

from __future__ import annotations

import ast
import functools
import operator
from typing import Any

from ._core import ConfigError
from .canonical import shown

#: Names usable in expressions → key of ``Topology.describe()``.
NAMES = {
    "ideal": "ideal_throughput",
    "spread": "minimal_spread_throughput",
    "theta": "bisection_throughput",
    "terminals": "terminals",
}
FUNCTIONS = {"min": min, "max": max, "round": round, "abs": abs}
#: Largest magnitude an intermediate value may reach, and longest expression text: the
#: evaluator refuses ``=9**9**9**9`` at once instead of computing a number with billions of digits.
MAX_MAGNITUDE = 1e300
MAX_LENGTH = 500


def _bounded_pow(base, exponent):
    """``base ** exponent``, refused when the result would exceed :data:`MAX_MAGNITUDE`."""
    import math

    b, e = abs(float(base)), float(exponent)
    if b > 1 and e > 0 and e * math.log10(b) > 300:
        raise ValueError(f"{base} ** {exponent} is too large (more than 1e300)")
    if 0 < b < 1 and e < 0 and -e * math.log10(1 / b) > 300:
        raise ValueError(f"{base} ** {exponent} is too large (more than 1e300)")
    return operator.pow(base, exponent)


_BINARY = {ast.Add: operator.add, ast.Sub: operator.sub, ast.Mult: operator.mul, ast.Div: operator.truediv,
           ast.Pow: _bounded_pow}  # fmt: skip
ALLOWED = "arithmetic on numbers, ideal, spread, theta, terminals and min(), max(), round(), abs()"


def is_expression(value: Any) -> bool:
    """Whether an axis value is an expression (a string starting with '=')."""
    return isinstance(value, str) and value.startswith("=")


@functools.cache
def topology_properties(spec: str) -> dict[str, Any]:
    from .topology import Topology

    return Topology.from_spec(spec).describe()


def evaluate(text: str, topology: str, where: str) -> float | int:
    """The value of expression ``text`` (with its leading '=') for ``topology``."""
    try:
        if len(text) > MAX_LENGTH:
            raise ValueError(f"longer than {MAX_LENGTH} characters")
        tree = ast.parse(text[1:].strip(), mode="eval")
        return _eval(tree.body, topology)
    except (SyntaxError, ValueError, TypeError, ZeroDivisionError, OverflowError, RecursionError) as e:
        raise ConfigError(f"{where} = {shown(text)} is invalid: {ALLOWED} ({e})") from None


def _eval(node: ast.AST, topology: str):
    if (
        isinstance(node, ast.Constant)
        and isinstance(node.value, (int, float))
        and not isinstance(node.value, bool)
    ):
        return node.value
    if isinstance(node, ast.Name) and node.id in NAMES:
        value = topology_properties(topology)[NAMES[node.id]]
        if value is None:  # the bound of every routing is not computed for very large irregular networks
            raise ValueError(f"'{node.id}' is not available for {topology} (use spread or theta)")
        return value
    if isinstance(node, ast.BinOp) and type(node.op) in _BINARY:
        value = _BINARY[type(node.op)](_eval(node.left, topology), _eval(node.right, topology))
        if isinstance(value, complex) or abs(value) > MAX_MAGNITUDE:
            raise ValueError(f"'{ast.unparse(node)}' is out of range (a real number of magnitude up to 1e300)")
        return value
    if isinstance(node, ast.UnaryOp) and isinstance(node.op, ast.USub):
        return -_eval(node.operand, topology)
    if (
        isinstance(node, ast.Call)
        and isinstance(node.func, ast.Name)
        and node.func.id in FUNCTIONS
        and not node.keywords
    ):
        return FUNCTIONS[node.func.id](*(_eval(a, topology) for a in node.args))
    raise ValueError(f"'{ast.unparse(node)}' is not allowed")
