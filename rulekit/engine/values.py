"""Run-time values as text and JSON: the action notation and exact serialization.

Values are ints, bools, strings (component ids too), ``None``, tuples and
dicts; players are ints, written ``P1``, ``P2``... in text.  JSON keeps them
exact: tuples become lists (and lists come back as tuples), dicts become
``{"__map__": [[key, value], ...]}``.
"""

from __future__ import annotations

import re
from typing import Any

from rulekit.dsl import types as t
from rulekit.dsl.names import is_name
from rulekit.dsl.types import Type
from rulekit.limits import LIMITS


def format_value(value: Any, type_: Type = t.ANY) -> str:
    """A value in the action notation."""
    if type_ in (t.PLAYER, t.OWNER) and isinstance(value, int) and not isinstance(value, bool):
        return "bank" if value == -1 else f"P{value + 1}"
    if value is None:
        return "none"
    if isinstance(value, bool):
        return "true" if value else "false"
    if isinstance(value, int):
        return str(value)
    if isinstance(value, str):
        return value if is_name(value) and value not in ("none", "true", "false", "bank") else _quote(value)
    if isinstance(value, tuple):
        if type_.is_list:  # a list reads back as written: [11] (a tuple is (11,))
            return "[" + ", ".join(format_value(v, t.element_type(type_)) for v in value) + "]"
        return "(" + ", ".join(format_value(v) for v in value) + ("," if len(value) == 1 else "") + ")"
    return _quote(str(value))


def _quote(text: str) -> str:
    return '"' + text.replace("\\", "\\\\").replace('"', '\\"') + '"'


_TOKEN = re.compile(
    r'\s*(?:(?P<num>-?[0-9]+)|(?P<name>[A-Za-z_][A-Za-z0-9_]*)|(?P<str>"(?:[^"\\]|\\.)*")|(?P<punct>[(),\[\]]))'
)


#: Digits of a number in action text (Python refuses to convert beyond ~4300).
_MAX_DIGITS = 100


class NotationError(ValueError):
    """The text is not in the action notation."""


def parse_action_text(text: str) -> tuple[str, tuple[Any, ...]]:
    """Split ``name(arg, ...)`` into the name and raw argument values.

    Player arguments come back as the strings ``P1``...; :func:`coerce` turns
    them into players once the parameter types are known.
    """
    tokens = _tokenize(text)
    if not tokens or tokens[0][0] != "name":
        raise NotationError(f"an action starts with its name: {text!r}")
    name = tokens[0][1]
    rest = tokens[1:]
    if not rest:
        return name, ()
    value, position = _parse_value(rest, 0)
    if position != len(rest):
        raise NotationError(f"unexpected {rest[position][1]!r} in {text!r}")
    if not isinstance(value, tuple):
        raise NotationError(f"arguments go in parentheses: {text!r}")
    return name, value


def _tokenize(text: str) -> list[tuple[str, str]]:
    tokens = []
    position = 0
    text = text.strip()
    while position < len(text):
        match = _TOKEN.match(text, position)
        if not match or match.end() == position:
            rest = text[position:].lstrip()
            if rest.startswith('"'):
                raise NotationError("a string is never closed")
            raise NotationError(f"cannot read {rest!r}")
        kind = match.lastgroup or "punct"
        tokens.append((kind, match.group(kind)))
        position = match.end()
    return tokens


def _parse_value(tokens: list[tuple[str, str]], i: int, depth: int = 0) -> tuple[Any, int]:
    if i >= len(tokens):
        raise NotationError("unexpected end of action text")
    if depth > LIMITS.max_depth:
        raise NotationError(f"values nested more than {LIMITS.max_depth} levels deep")
    kind, text = tokens[i]
    if kind == "num":
        if len(text) > _MAX_DIGITS:
            raise NotationError(f"a number with more than {_MAX_DIGITS} digits")
        return int(text), i + 1
    if kind == "str":
        return _unquote(text), i + 1
    if kind == "name":
        return {"true": True, "false": False, "none": None}.get(text, text), i + 1
    if text not in ("(", "["):
        raise NotationError(f"unexpected {text!r}")
    close = ")" if text == "(" else "]"
    items = []
    i += 1
    while i < len(tokens) and tokens[i][1] != close:
        value, i = _parse_value(tokens, i, depth + 1)
        items.append(value)
        if i < len(tokens) and tokens[i][1] == ",":
            i += 1
        elif i < len(tokens) and tokens[i][1] != close:
            raise NotationError(f"expected ',' or '{close}' but found {tokens[i][1]!r}")
    if i >= len(tokens):
        raise NotationError(f"a '{text}' is never closed")
    return tuple(items), i + 1


def _unquote(text: str) -> str:
    return re.sub(r"\\(.)", r"\1", text[1:-1])


def coerce(value: Any, type_: Type) -> Any:
    """Turn a value read from text into the run-time value for ``type_``."""
    if type_ in (t.PLAYER, t.OWNER) and isinstance(value, str):
        if value == "bank":
            return -1
        match = re.fullmatch(r"P([0-9]{1,9})", value)
        if match:
            return int(match.group(1)) - 1
    if isinstance(value, tuple) and type_.is_list:
        return tuple(coerce(v, t.element_type(type_)) for v in value)
    return value


def to_json(value: Any) -> Any:
    """A JSON-compatible form of a run-time value (exactly reversible)."""
    if isinstance(value, tuple):
        return [to_json(v) for v in value]
    if isinstance(value, dict):
        return {"__map__": [[to_json(k), to_json(v)] for k, v in value.items()]}
    return value


def from_json(value: Any) -> Any:
    """The run-time value of a :func:`to_json` form."""
    if isinstance(value, list):
        return tuple(from_json(v) for v in value)
    if isinstance(value, dict):
        if "__map__" in value:
            return {from_json(k): from_json(v) for k, v in value["__map__"]}
        return {k: from_json(v) for k, v in value.items()}
    return value
