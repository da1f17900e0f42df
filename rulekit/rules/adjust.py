"""A variant's ``adjust:``: numbers set relative to their old value.

``adjust: {constants.START_MONEY: "old + 5", components.city.lyon.harbor_cost: "old * 2"}``
changes a whole number found by path (the same paths as ``set:``,
:mod:`rulekit.rules.paths`) to an expression of ``old``, its value before the variant,
so the variant states the change rather than a copy of the result and keeps meaning the
same when the base value is edited.  The expression is DSL arithmetic on whole numbers:
``old``, number literals, ``+ - * // %``, unary ``-`` and ``half``, ``div_up``,
``least``, ``greatest``, evaluated by the one load-time evaluator
(:mod:`rulekit.rules.evaluate`, with its step budget); errors point at the variant's line and column.
"""

from __future__ import annotations

from typing import Any

from rulekit.dsl import parse_expression
from rulekit.errors import DiagnosticBag, DslSyntaxError
from rulekit.rules.evaluate import Call, Scope, Unevaluable, evaluate
from rulekit.rules.paths import put, resolve
from rulekit.rules.yaml_source import LocDict, LocStr, span_of

_CALLS = {
    "half": Call(1, lambda x: x // 2),
    "div_up": Call(2, lambda x, y: -(-x // y), divisor=1),
    "least": Call(None, min),
    "greatest": Call(None, max),
}


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
            value = evaluate(expression, _scope(old))
        except DslSyntaxError as error:
            bag.extend(error.diagnostics)
            continue
        except Unevaluable as problem:
            bag.error(f"{path}: {problem.message}", problem.span or where)
            continue
        put(parent, key, value, key_span)
        constants = data.get("constants")
        if trail[0] == "constants" and isinstance(constants, LocDict) and key_span is not None:
            constants.key_spans[trail[1]] = key_span


def _scope(old: int) -> Scope:
    """What an adjustment may use: ``old``, whole numbers, arithmetic and four built-ins."""
    return Scope(
        names={"old": old},
        calls=_CALLS,
        unknown=lambda name: Unevaluable(f"'{name}' is unknown here: an adjustment reads only 'old'", None),
        only_numbers=True,
        refused="an adjustment is whole-number arithmetic on old: + - * // %, half, div_up, least, greatest",
    )
