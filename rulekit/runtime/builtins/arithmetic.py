"""Arithmetic built-ins: whole-number helpers."""

from __future__ import annotations

from rulekit.dsl.types import (
    INT,
)
from rulekit.runtime.errors import RuleFailure
from rulekit.runtime.registry import register as _register

# --------------------------------------------------------------- arithmetic


@_register("half", [("x", INT)], INT, "Half of x, rounded down.", example="half(15) == 7")
def _half(x: int) -> int:
    return x // 2


@_register(
    "div_up", [("x", INT), ("y", INT)], INT, "x divided by y, rounded up.", example="div_up(7, 2) == 4"
)
def _div_up(x: int, y: int) -> int:
    if y == 0:
        raise RuleFailure("division by zero in div_up")
    return -(-x // y)


@_register("abs", [("x", INT)], INT, "The absolute value of x.", example="abs(-3) == 3")
def _abs(x: int) -> int:
    return abs(x)


@_register(
    "least",
    [("a", INT), ("b", INT)],
    INT,
    "The smaller of its arguments (any number of them).",
    variadic=True,
    example="least(3, money) ",
)
def _least(*xs: int) -> int:
    return min(xs)


@_register(
    "greatest",
    [("a", INT), ("b", INT)],
    INT,
    "The larger of its arguments (any number of them).",
    variadic=True,
    example="greatest(0, money - 5)",
)
def _greatest(*xs: int) -> int:
    return max(xs)


@_register(
    "clamp",
    [("x", INT), ("low", INT), ("high", INT)],
    INT,
    "x limited to the range low..high.",
    example="clamp(7, 0, 5) == 5",
)
def _clamp(x: int, low: int, high: int) -> int:
    return max(low, min(high, x))
