"""The one evaluator of DSL expressions known before any state exists.

Generated components (:mod:`rulekit.rules.generate`: ``for: {n: "range(1, MAX + 1)"}``), a
variant's ``adjust:`` (:mod:`rulekit.rules.adjust`: ``"old + 5"``) and the compiler's
constant folding (:func:`whole_number`: ``between(1, SIZE - 1)`` written as its tuple) all
evaluate DSL arithmetic here: names bound by the caller (constants; ``old``), literals, lists,
``+ - * // %`` and unary ``-`` on whole numbers, and the calls the caller allows.  Like the
compiled rules, an evaluation has a step budget (``max_steps``) and numbers are capped at
``max_int_bits`` (:mod:`rulekit.limits`); every problem is an :class:`Unevaluable` with the
span of the node at fault.
"""

from __future__ import annotations

from collections.abc import Callable, Mapping
from typing import Any

from attrs import field, frozen

from rulekit.dsl import ast
from rulekit.errors import Span
from rulekit.limits import LIMITS

__all__ = ["Call", "Scope", "Unevaluable", "evaluate", "whole_number"]


class Unevaluable(Exception):
    """An expression that cannot be evaluated when the rules load, with where, why and a hint."""

    def __init__(self, message: str, span: Span | None, hint: str | None = None) -> None:
        super().__init__(message)
        self.message = message
        self.span = span
        self.hint = hint


@frozen
class Call:
    """A function an evaluation may call: its arity (None: one or more) and what it computes
    from whole-number arguments; ``divisor`` is the index of an argument that must not be 0."""

    arity: int | None
    function: Callable[..., Any]
    divisor: int | None = None


def _no_name(name: str) -> Unevaluable:
    return Unevaluable(f"'{name}' is unknown here", None)


@frozen
class Scope:
    """What an evaluation may use.

    ``names`` are the bound names; ``unknown`` makes the problem for any other name.
    ``only_numbers`` restricts literals to whole numbers (no text, flags or lists).
    ``refused`` is the message for anything else; ``state`` (if given) the message for
    reading the state (``a.b``, ``a[b]``), which does not exist yet.
    """

    names: Mapping[str, Any]
    refused: str
    calls: Mapping[str, Call] = field(factory=dict)
    unknown: Callable[[str], Unevaluable] = _no_name
    only_numbers: bool = False
    state: str | None = None
    state_hint: str | None = None


_ARITHMETIC: dict[str, Callable[[int, int], int]] = {
    "+": lambda a, b: a + b,
    "-": lambda a, b: a - b,
    "*": lambda a, b: a * b,
    "//": lambda a, b: a // b,
    "%": lambda a, b: a % b,
}


def evaluate(node: ast.Expr, scope: Scope) -> Any:
    """The value of ``node`` in ``scope``.

    Raises:
        Unevaluable: something the scope does not allow, a division by zero, a number beyond
            ``max_int_bits`` or more than ``max_steps`` steps, at the node's span.
    """
    return _Evaluation(scope).value(node)


def whole_number(node: ast.Expr, names: Mapping[str, int]) -> int | None:
    """The whole number ``node`` always is, when it is whole-number arithmetic (``+ - * //
    %``, unary ``-``) on literals and ``names`` (the constants not hidden by a local name):
    what the compiler folds.  None for anything else, or when evaluating it fails (a
    division by zero, a number beyond the cap), which the generated code then meets."""
    try:
        value = evaluate(node, Scope(names, refused="not a constant", only_numbers=True))
    except Unevaluable:
        return None
    return value if type(value) is int else None


class _Evaluation:
    def __init__(self, scope: Scope) -> None:
        self.scope = scope
        self.left = LIMITS.max_steps

    def value(self, node: ast.Expr) -> Any:
        self.left -= 1
        if self.left < 0:
            raise Unevaluable(
                f"the expression ran more than {LIMITS.max_steps} steps (the limit max_steps)", node.span
            )
        scope = self.scope
        if isinstance(node, ast.Literal) and (not scope.only_numbers or type(node.value) is int):
            return node.value
        if isinstance(node, ast.Name):
            if node.id in scope.names:
                return scope.names[node.id]
            problem = scope.unknown(node.id)
            problem.span = problem.span or node.span
            raise problem
        if scope.state is not None and isinstance(node, ast.Attribute | ast.Index):
            raise Unevaluable(scope.state, node.span, scope.state_hint)
        if not scope.only_numbers and isinstance(node, ast.ListExpr | ast.TupleExpr):
            return [self.value(item) for item in node.items]
        if isinstance(node, ast.Unary) and node.op == "-":
            return self.number(-self.integer(node.operand), node.span)
        if isinstance(node, ast.Binary) and node.op in _ARITHMETIC:
            left, right = self.integer(node.left), self.integer(node.right)
            if node.op in ("//", "%") and right == 0:
                raise Unevaluable("division by zero", node.span)
            return self.number(_ARITHMETIC[node.op](left, right), node.span)
        if isinstance(node, ast.Call) and node.function in scope.calls and not node.keywords:
            call = scope.calls[node.function]
            if (call.arity is not None and len(node.args) != call.arity) or not node.args:
                raise Unevaluable(
                    f"{node.function} takes {call.arity or 'one or more'} argument(s)", node.span
                )
            args = [self.integer(arg) for arg in node.args]
            if call.divisor is not None and args[call.divisor] == 0:
                raise Unevaluable("division by zero", node.span)
            result = call.function(*args)
            return self.number(result, node.span) if type(result) is int else result
        raise Unevaluable(scope.refused, getattr(node, "span", None))

    def integer(self, node: ast.Expr) -> int:
        value = self.value(node)
        if isinstance(value, bool) or not isinstance(value, int):
            raise Unevaluable(f"expected a number, not {value!r}", node.span)
        return value

    @staticmethod
    def number(value: int, span: Span | None) -> int:
        if value.bit_length() > LIMITS.max_int_bits:
            raise Unevaluable(f"a number larger than max_int_bits ({LIMITS.max_int_bits})", span)
        return value
