"""Components generated from parameters: a kind's ``generate: {for: ..., id: ...}``.

Each loop variable of ``for`` is a DSL expression over constants only (numbers, text,
lists, arithmetic and ``range(a, b)``), evaluated when the rules load; the items are
the product of the loops (the first variable outermost), each with the loop
variables as its attributes and ``id`` the template with ``{variable}`` filled in.
Every problem is reported once at its ``file:line:col`` and generates nothing.
"""

from __future__ import annotations

import string
from collections.abc import Mapping, Sequence
from itertools import product
from typing import Any

from rulekit.dsl import ast
from rulekit.dsl.names import is_name
from rulekit.errors import DiagnosticBag, Span, did_you_mean
from rulekit.limits import LIMITS
from rulekit.rules.yaml_source import LocDict

__all__ = ["generate_items"]

_ARITHMETIC = {
    "+": lambda a, b: a + b,
    "-": lambda a, b: a - b,
    "*": lambda a, b: a * b,
    "//": lambda a, b: a // b,
    "%": lambda a, b: a % b,
}


class _Refused(Exception):
    """An expression that cannot be evaluated at load time, with where and why."""

    def __init__(self, message: str, span: Span | None, hint: str | None = None) -> None:
        super().__init__(message)
        self.span = span
        self.hint = hint


def generate_items(
    kind: str,
    loops: Mapping[str, ast.Expr],
    loop_spans: Mapping[str, Span | None],
    template: str,
    template_span: Span | None,
    attributes: Sequence[str],
    constants: Mapping[str, Any],
    bag: DiagnosticBag,
) -> list[LocDict]:
    """The generated items of ``kind`` as located mappings ``{id: ..., variable: value}``.

    Problems go to ``bag`` (and nothing is generated): a loop that is not a constant
    list, attributes the loops do not cover, an id template naming something other
    than a loop variable, too many items, an id that is not a name, a duplicate id.
    """
    where = f"components.{kind}.generate"
    names = list(loops)
    if set(names) != set(attributes):
        missing = [a for a in attributes if a not in loops]
        extra = [n for n in names if n not in attributes]
        if missing:
            bag.error(
                f"{where}.for does not give attribute{'s' if len(missing) > 1 else ''} "
                + ", ".join(f"'{a}'" for a in missing),
                template_span,
                hint="generated items have exactly the loop variables as attributes",
            )
        for name in extra:
            bag.error(
                f"{where}.for: '{name}' is not an attribute of {kind}",
                loop_spans.get(name),
                hint=did_you_mean(name, attributes) or f"declare it under components.{kind}.attributes",
            )
        return []
    fields = _fields(template, names, where, template_span, bag)
    if fields is None:
        return []
    values: list[Sequence[Any]] = []
    for name, expression in loops.items():
        try:
            value = _evaluate(expression, constants)
        except _Refused as refused:
            bag.error(
                f"{where}.for.{name}: {refused}", refused.span or loop_spans.get(name), hint=refused.hint
            )
            return []
        if not isinstance(value, list | tuple | range):
            bag.error(
                f"{where}.for.{name} must be a list or range(a, b), not {type(value).__name__}",
                expression.span,
            )
            return []
        values.append(value)
    count = 1
    for value in values:
        count *= max(0, value.stop - value.start) if isinstance(value, range) else len(value)
    if count > LIMITS.max_generated_items:
        bag.error(
            f"{where} would make {count} items, more than max_generated_items ({LIMITS.max_generated_items})",
            template_span,
            hint="raise it with --limit max_generated_items=N if the file is trusted",
        )
        return []
    span = template_span or Span("<rules>", 1, 1)
    items: list[LocDict] = []
    seen: set[str] = set()
    for combination in product(*values):
        bound = dict(zip(names, combination, strict=True))
        item_id = template.format(**bound)
        if not is_name(item_id):
            bag.error(f"{where}.id makes '{item_id}', which is not a name", template_span)
            return []
        if item_id in seen:
            bag.error(f"{where}.id makes '{item_id}' twice", template_span, hint="use every loop variable")
            return []
        seen.add(item_id)
        item = LocDict(id=item_id, **bound)
        item.span = span
        item.key_spans = dict.fromkeys(item, span)
        items.append(item)
    return items


def _fields(
    template: str, names: Sequence[str], where: str, span: Span | None, bag: DiagnosticBag
) -> list[str] | None:
    """The ``{variable}`` fields of the id template, or None (reported) when one is wrong."""
    try:
        parts = list(string.Formatter().parse(template))
    except ValueError as error:
        bag.error(f"{where}.id is not a valid template: {error}", span, hint="write {x} for a loop variable")
        return None
    fields = []
    for _, field, spec, conversion in parts:
        if field is None:
            continue
        if field not in names:
            bag.error(
                f"{where}.id names '{{{field}}}', which is not a loop variable",
                span,
                hint=did_you_mean(field, names) or "loop variables: " + ", ".join(names),
            )
            return None
        if spec or conversion:
            bag.error(f"{where}.id: write {{{field}}} without a format or conversion", span)
            return None
        fields.append(field)
    return fields


def _evaluate(node: ast.Expr, constants: Mapping[str, Any]) -> Any:
    """The value of a load-time expression: constants, literals, lists, arithmetic, ``range``."""
    if isinstance(node, ast.Literal):
        return node.value
    if isinstance(node, ast.Name):
        if node.id in constants:
            return constants[node.id]
        raise _Refused(
            f"'{node.id}' is not a constant (generated items are made when the rules load, before any state)",
            node.span,
            hint=did_you_mean(node.id, constants),
        )
    if isinstance(node, ast.Attribute | ast.Index):
        raise _Refused(
            "reads the state, which does not exist yet: generated items are made when the rules load",
            node.span,
            hint="use constants, numbers, lists and range(a, b)",
        )
    if isinstance(node, ast.ListExpr | ast.TupleExpr):
        return [_evaluate(item, constants) for item in node.items]
    if isinstance(node, ast.Unary) and node.op == "-":
        return -_integer(_evaluate(node.operand, constants), node.span)
    if isinstance(node, ast.Binary) and node.op in _ARITHMETIC:
        left = _integer(_evaluate(node.left, constants), node.left.span)
        right = _integer(_evaluate(node.right, constants), node.right.span)
        if node.op in ("//", "%") and right == 0:
            raise _Refused("division by zero", node.span)
        result = _ARITHMETIC[node.op](left, right)
        if result.bit_length() > LIMITS.max_int_bits:
            raise _Refused(f"a number larger than max_int_bits ({LIMITS.max_int_bits})", node.span)
        return result
    if isinstance(node, ast.Call) and node.function == "range" and len(node.args) == 2 and not node.keywords:
        low, high = (_integer(_evaluate(arg, constants), arg.span) for arg in node.args)
        return range(low, high)
    raise _Refused(
        "only constants, numbers, text, lists, + - * // % and range(a, b) can be used here "
        "(generated items are made when the rules load, before any state)",
        node.span,
    )


def _integer(value: Any, span: Span | None) -> int:
    if isinstance(value, bool) or not isinstance(value, int):
        raise _Refused(f"expected a number, not {value!r}", span)
    return value
