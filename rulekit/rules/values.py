"""Declared types of rules data, parsed once, and YAML data checked against them.

A type is written as text in rules files (``int``, ``player?``, ``list[card]``);
:func:`parse_declared` reads it once, through :func:`rulekit.dsl.types.parse_type`,
into a :class:`Declared` with an explicit optional flag.  :func:`convert` checks a
YAML value (a component attribute, a typed constant, a field's literal initial
value) against it and gives the run-time value: players are written ``P1``..``Pn``
and become seat numbers, lists become tuples, component ids must name a component
of the right kind.
"""

from __future__ import annotations

import math
import re
from typing import Any

from attrs import frozen

from rulekit.dsl import types as t
from rulekit.errors import Span, did_you_mean
from rulekit.rules.yaml_source import LocList, LocStr, span_of

#: Type names a rules file may write besides component kinds (``list[T]`` and ``T?`` aside).
TYPE_NAMES = ("int", "bool", "str", "player", "owner", "map", "grid", "tuple", "any", "list")
_PLAYER = re.compile(r"P([1-9][0-9]{0,3})")
BANK = -1


@frozen
class Declared:
    """A declared type: the parsed :class:`~rulekit.dsl.types.Type`, whether ``none`` is allowed, the text."""

    type: t.Type
    optional: bool
    text: str

    def __str__(self) -> str:
        return self.text


class TypeProblem(Exception):
    """A type text that names no type; ``hint`` suggests the nearest."""

    def __init__(self, message: str, hint: str | None) -> None:
        super().__init__(message)
        self.hint = hint


def parse_declared(text: Any, kinds: set[str] | frozenset[str] | dict[str, t.Type]) -> Declared:
    """Parse type text such as ``int``, ``city?`` or ``list[card]``.

    ``kinds`` are the component kinds; a dict also names record types (its values),
    as :func:`rulekit.dsl.types.parse_type` reads it.

    Raises:
        TypeProblem: not text, or no such type (with the nearest type names).
    """
    if not isinstance(text, str) or not text.strip():
        raise TypeProblem(
            f"a type must be written as text, not {text!r}", "e.g. int, str, player?, list[int]"
        )
    stripped = text.strip()
    parsed = t.parse_type(stripped, kinds if isinstance(kinds, dict) else set(kinds))
    if parsed is None:
        inner = stripped.rstrip("?").strip()
        while inner.startswith("list[") and inner.endswith("]"):
            inner = inner[5:-1].strip().rstrip("?")
        hint = did_you_mean(inner, [*TYPE_NAMES, *sorted(kinds)]) or (
            "types are " + ", ".join(TYPE_NAMES[:-1]) + ", list[T] or a component kind"
        )
        raise TypeProblem(f"unknown type '{stripped}'", hint)
    return Declared(parsed, stripped.endswith("?"), stripped)


@frozen
class DataContext:
    """What data checks need to know: which kind each component id is, how many players at most."""

    item_kind: dict[str, str]
    max_players: int


class DataProblem(Exception):
    """A value that does not fit its declared type; ``hint`` says how to write it."""

    def __init__(self, message: str, hint: str | None = None, span: Span | None = None) -> None:
        super().__init__(message)
        self.hint = hint
        self.span = span  # where in the value, when it is an element of it


def convert(value: Any, declared: Declared | t.Type, ctx: DataContext) -> Any:
    """The run-time value of YAML ``value`` for a declared type.

    Raises:
        DataProblem: the value does not fit (what it is, what it should be, how to write it).
    """
    type_ = declared.type if isinstance(declared, Declared) else declared
    optional = isinstance(declared, Declared) and declared.optional
    if value == "none" and optional and type_ != t.STR:
        value = None  # `none` as the DSL writes it (YAML's own is null)
    if value is None:
        if isinstance(declared, Declared) and not declared.optional and type_ not in (t.ANY, t.MAP):
            raise DataProblem(
                f"must be {_a(declared.text)}, not none", f"declare the type as '{declared.text}?'"
            )
        return None
    name = type_.name
    if name == "int":
        if isinstance(value, bool) or not isinstance(value, int):
            raise DataProblem(f"must be an int, not {_show(value)}", _int_hint(value))
        return value
    if name == "bool":
        if not isinstance(value, bool):
            raise DataProblem(f"must be true or false, not {_show(value)}", _bool_hint(value))
        return value
    if name == "str":
        if not isinstance(value, str):
            raise DataProblem(f"must be text, not {_show(value)}", f'write "{plain(value)}" in quotes')
        return str(value)
    if name in ("player", "owner"):
        return _player(value, ctx, owner=name == "owner")
    if name == "enum":
        members = type_.members or ()
        if value not in members:
            raise DataProblem(
                f"'{plain(value)}' is not a {type_.kind} (one of {', '.join(members)})",
                did_you_mean(str(value), members),
            )
        return str(value)
    if name == "entity":
        kind = type_.kind or ""
        if not isinstance(value, str) or ctx.item_kind.get(str(value)) != kind:
            ids = [i for i, k in ctx.item_kind.items() if k == kind]
            raise DataProblem(f"'{plain(value)}' is not {_a(kind)}", did_you_mean(str(value), ids))
        return str(value)
    if name == "list":
        if not isinstance(value, list | tuple):
            raise DataProblem(
                f"must be a list ({type_}), not {_show(value)}", f"write a list, e.g. [{plain(value)}]"
            )
        element = t.element_type(type_)
        result = []
        for index, item in enumerate(value):
            try:
                result.append(convert(item, element, ctx))
            except DataProblem as problem:
                if problem.span is not None or span_of(item) is not None:
                    raise DataProblem(str(problem), problem.hint, problem.span or span_of(item)) from None
                raise DataProblem(f"element {index + 1} {problem}", problem.hint) from None
        return tuple(result)
    if name in ("map", "record"):
        if not isinstance(value, dict):
            raise DataProblem(f"must be a mapping ({type_}), not {_show(value)}")
        return _mapping(value, type_, ctx)
    return plain(value)


def _mapping(value: dict[Any, Any], type_: t.Type, ctx: DataContext) -> dict[Any, Any]:
    """A typed map's keys and values, or a record's fields, checked one by one."""
    if type_.name == "record":
        fields = dict(type_.fields or ())
        for missing in [f for f in fields if f not in value]:
            raise DataProblem(f"has no value for '{missing}' ({type_})")
        for extra in [k for k in value if k not in fields]:
            hint = did_you_mean(str(extra), fields)
            raise DataProblem(f"has no field '{extra}' ({type_})", hint, span_of(extra))
        pairs = [(str(k), v, fields[str(k)]) for k, v in value.items()]
    elif type_.key is None:
        return plain(value)
    else:
        pairs = [(convert(k, type_.key, ctx), v, type_.element or t.ANY) for k, v in value.items()]
    result = {}
    for key, item, declared in pairs:
        try:
            result[key] = convert(item, declared, ctx)
        except DataProblem as problem:
            raise DataProblem(f"'{key}' {problem}", problem.hint, problem.span or span_of(item)) from None
    return result


def _player(value: Any, ctx: DataContext, *, owner: bool) -> int:
    what = "a player (P1, P2, ...) or bank" if owner else "a player (P1, P2, ...)"
    if owner and value == "bank":
        return BANK
    if isinstance(value, int) and not isinstance(value, bool):
        hint = f"write P{value + 1} for seat {value + 1}" if 0 <= value < ctx.max_players else None
        raise DataProblem(f"must be {what}, not the number {value}", hint or "players are written P1..Pn")
    match = _PLAYER.fullmatch(value) if isinstance(value, str) else None
    if match is None:
        raise DataProblem(
            f"must be {what}, not {_show(value)}", did_you_mean(str(value), ["P1", "P2", "bank"])
        )
    seat = int(match.group(1))
    if seat > ctx.max_players:
        raise DataProblem(f"there is no player {value}: the game has at most {ctx.max_players} players")
    return seat - 1


def plain(value: Any) -> Any:
    """YAML data as plain run-time values: lists become tuples, located strings plain strings."""
    if isinstance(value, dict):
        return {str(k) if isinstance(k, LocStr) else k: plain(v) for k, v in value.items()}
    if isinstance(value, LocList | list | tuple):
        return tuple(plain(v) for v in value)
    if isinstance(value, LocStr):
        return str(value)
    return value


def finite(value: Any) -> bool:
    """Whether YAML data holds only finite numbers (``.inf`` and ``.nan`` have no DSL literal)."""
    if isinstance(value, float):
        return math.isfinite(value)
    if isinstance(value, dict):
        return all(finite(k) and finite(v) for k, v in value.items())
    if isinstance(value, list | tuple):
        return all(finite(v) for v in value)
    return True


def _a(text: str) -> str:
    return f"{'an' if text[:1] in 'aeiou' else 'a'} {text}"


def _show(value: Any) -> str:
    if isinstance(value, str):
        return f"the text '{value}'"
    if isinstance(value, bool):
        return str(value).lower()
    if isinstance(value, list | tuple):
        return "a list"
    if isinstance(value, dict):
        return "a mapping"
    if isinstance(value, int | float):
        return f"the number {value}"
    return repr(plain(value))


def _int_hint(value: Any) -> str | None:
    if isinstance(value, str):
        try:
            return f"write {int(value)} without quotes"
        except ValueError:
            return None
    return None


def _bool_hint(value: Any) -> str | None:
    if isinstance(value, str) and value.strip().lower() in ("true", "false", "yes", "no"):
        word = "true" if value.strip().lower() in ("true", "yes") else "false"
        return f"write {word} without quotes"
    return None
