"""Text built-ins, for display panels and notes."""

from __future__ import annotations

from collections.abc import Sequence
from typing import TYPE_CHECKING, Any

from rulekit.dsl.types import (
    ANY,
    ANY_LIST,
    INT,
    OWNER,
    STR,
)
from rulekit.limits import LIMITS
from rulekit.runtime.errors import RuleFailure
from rulekit.runtime.registry import register as _register

if TYPE_CHECKING:
    from rulekit.runtime.memory import Memory

# -------------------------------------------------------------------- text
# For display panels and notes.  Values become text as in the action notation
# (none, true, false); players are ints at run time, so use player_name(p).


def text_of(value: Any) -> str:
    if value is None:
        return "none"
    if isinstance(value, bool):
        return "true" if value else "false"
    if isinstance(value, tuple | list):
        return "[" + ", ".join(text_of(v) for v in value) + "]"
    if isinstance(value, dict):
        return "{" + ", ".join(f"{text_of(k)}: {text_of(v)}" for k, v in value.items()) + "}"
    return str(value)


@_register(
    "concat",
    [("value", ANY)],
    STR,
    "The values written as text, one after the other (any number of them); players as P1, P2.",
    variadic=True,
    example='concat("round ", 3) == "round 3"',
    memory=True,
)
def _concat(memory: Memory, *values: Any) -> str:
    return bounded_text(memory, "".join(text_of(v) for v in values))


@_register(
    "join",
    [("items", ANY_LIST), ("separator", STR)],
    STR,
    "The elements of a list written as text, with the separator between them.",
    example='join(["X", "O", "."], " | ") == "X | O | ."',
    memory=True,
)
def _join(memory: Memory, items: Sequence[Any], separator: str) -> str:
    return bounded_text(memory, separator.join(text_of(v) for v in items))


def bounded_text(memory: Memory, text: str) -> str:
    """Text no longer than the limit (doubling a text in a loop would exhaust memory),
    counted in the program's ``memory.text_built``."""
    if len(text) > LIMITS.max_text_chars:
        raise RuleFailure(f"a text grew beyond {LIMITS.max_text_chars} characters (the limit max_text_chars)")
    memory.text_built += len(text)
    return text


def _width(width: int) -> int:
    """A width to pad to, refused beyond the text limit before any text is made."""
    if width > LIMITS.max_text_chars:
        raise RuleFailure(f"a text grew beyond {LIMITS.max_text_chars} characters (the limit max_text_chars)")
    return width


@_register(
    "pad",
    [("value", ANY), ("width", INT)],
    STR,
    "The value as text, left-aligned: spaces added on the right up to width.",
    example='pad("ab", 4) == "ab  "',
    memory=True,
)
def _pad(memory: Memory, value: Any, width: int) -> str:
    return bounded_text(memory, text_of(value).ljust(_width(width)))


@_register(
    "pad_left",
    [("value", ANY), ("width", INT)],
    STR,
    "The value as text, right-aligned: spaces added on the left up to width.",
    example='pad_left(7, 3) == "  7"',
    memory=True,
)
def _pad_left(memory: Memory, value: Any, width: int) -> str:
    return bounded_text(memory, text_of(value).rjust(_width(width)))


@_register(
    "center",
    [("value", ANY), ("width", INT)],
    STR,
    "The value as text, centred in width characters.",
    example='center("X", 3) == " X "',
    memory=True,
)
def _center(memory: Memory, value: Any, width: int) -> str:
    return bounded_text(memory, text_of(value).center(_width(width)))


@_register(
    "repeat_text",
    [("text", STR), ("times", INT)],
    STR,
    "The text repeated a number of times (at most 10000 characters).",
    example='repeat_text("-", 3) == "---"',
)
def _repeat_text(text: str, times: int) -> str:
    if len(text) * max(0, times) > 10_000:
        raise RuleFailure("repeat_text() is limited to 10000 characters")
    return text * max(0, times)


@_register(
    "player_name",
    [("player", OWNER)],
    STR,
    'A player as text: "P1", "P2"...; "bank" for the bank and "none" for none.',
    example='player_name(player_at(2)) == "P2"',
)
def _player_name(player: int | None) -> str:
    if player is None:
        return "none"
    return "bank" if player == -1 else f"P{player + 1}"
