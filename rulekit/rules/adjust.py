"""A variant's ``adjust:``: numbers set relative to their old value.

``adjust: {constants.START_MONEY: "old + 5", components.city.lyon.harbor_cost: "old * 2"}``
changes a whole number found by path (the same paths as ``set:``,
:mod:`rulekit.rules.paths`) to an expression of ``old``, its value before the variant,
so the variant states the change rather than a copy of the result and keeps meaning the
same when the base value is edited.  The expression is DSL arithmetic on whole numbers:
``old``, number literals, ``+ - * // %``, unary ``-`` and ``half``, ``div_up``,
``least``, ``greatest``; errors point at the variant's line and column.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

from rulekit.dsl import ast, parse_expression
from rulekit.errors import DiagnosticBag, DslSyntaxError, Span
from rulekit.rules.paths import put, resolve
from rulekit.rules.yaml_source import LocDict, LocStr, span_of

_CALLS: dict[str, tuple[int | None, Callable[..., int]]] = {
    "half": (1, lambda x: x // 2),
    "div_up": (2, lambda x, y: -(-x // y)),
    "least": (None, min),
    "greatest": (None, max),
}


class _Problem(Exception):
    def __init__(self, message: str, span: Span | None) -> None:
        super().__init__(message)
        self.message = message
        self.span = span


def apply_adjust(data: LocDict, ops: Any, owner: LocDict, bag: DiagnosticBag) -> None:
    """Run ``adjust:`` on ``data`` (each problem reported at the variant's line)."""
    if not isinstance(ops, LocDict):
        bag.error(
            "'adjust' must map paths to expressions of old, e.g. constants.START_MONEY: \"old + 5\"",
            span_of(ops) or owner.key_spans.get("adjust"),
        )
        return
    for path, text in ops.items():
        key_span = ops.key_spans.get(path)
        found = resolve(data, str(path), key_span, bag, for_set=False)
        if found is None:
            continue
        parent, key, trail = found
        old = parent[key]
        where = span_of(text) or key_span
        if type(old) is not int:
            bag.error(
                f"{path}: adjust changes whole numbers, and this value is {old!r}",
                key_span,
                hint="use 'set:' to give it a new value",
            )
            continue
        if not isinstance(text, str) or isinstance(text, bool):
            bag.error(
                f'{path}: write the new value as an expression of old, e.g. "old + 1", not {text!r}',
                where,
                hint="use 'set:' for a value that does not depend on the old one",
            )
            continue
        try:
            expression = parse_expression(str(text), text.origin if isinstance(text, LocStr) else None)
            value = _evaluate(expression, old)
        except DslSyntaxError as error:
            bag.extend(error.diagnostics)
            continue
        except _Problem as problem:
            bag.error(f"{path}: {problem.message}", problem.span or where)
            continue
        put(parent, key, value, key_span)
        constants = data.get("constants")
        if trail[0] == "constants" and isinstance(constants, LocDict) and key_span is not None:
            constants.key_spans[trail[1]] = key_span


def _evaluate(node: ast.Expr, old: int) -> int:
    if isinstance(node, ast.Literal) and type(node.value) is int:
        return node.value
    if isinstance(node, ast.Name):
        if node.id == "old":
            return old
        raise _Problem(f"'{node.id}' is unknown here: an adjustment reads only 'old'", node.span)
    if isinstance(node, ast.Unary) and node.op == "-":
        return -_evaluate(node.operand, old)
    if isinstance(node, ast.Binary) and node.op in ("+", "-", "*", "//", "%"):
        left, right = _evaluate(node.left, old), _evaluate(node.right, old)
        if node.op in ("//", "%") and right == 0:
            raise _Problem("division by zero", node.span)
        if node.op == "+":
            return left + right
        if node.op == "-":
            return left - right
        if node.op == "*":
            return left * right
        return left // right if node.op == "//" else left % right
    if isinstance(node, ast.Call) and node.function in _CALLS and not node.keywords:
        arity, function = _CALLS[node.function]
        if (arity is not None and len(node.args) != arity) or not node.args:
            raise _Problem(f"{node.function} takes {arity or 'one or more'} argument(s)", node.span)
        if node.function == "div_up" and _evaluate(node.args[1], old) == 0:
            raise _Problem("division by zero", node.span)
        return int(function(*(_evaluate(a, old) for a in node.args)))
    raise _Problem(
        "an adjustment is whole-number arithmetic on old: + - * // %, half, div_up, least, greatest",
        getattr(node, "span", None),
    )
