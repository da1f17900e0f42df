"""Scenario values: YAML data written in a scenario (``setup:``, ``start:``, ``equals:``) turned
into run-time values of the field's declared type, or a located error.

``P1``..``PN`` are players and ``none`` is none, in typed fields and inside untyped containers
(``any``, ``map``, ``tuple``) alike; a player name the game does not have is an error there too
(quote it, ``'P7'``, to mean the text).  ``none`` is refused where the field's type has no empty
value (``int``, ``bool``, ``str``, lists, ``map``, ``tuple``) unless the type is optional (``int?``).
"""

from __future__ import annotations

import re
from typing import Any

from rulekit.dsl import types as t
from rulekit.dsl.types import Type
from rulekit.errors import Span, did_you_mean
from rulekit.rules.yaml_source import LocDict, LocStr, span_of
from rulekit.tools.scenario.context import ScenarioRun

PLAYER = re.compile(r"P([0-9]{1,9})\Z")
#: Types whose fields start with a value (0, false, "", empty): none is only allowed if optional.
_NOT_EMPTY = frozenset({"int", "bool", "str", "list", "map", "tuple"})


def assignments(run: ScenarioRun, values: LocDict) -> list[tuple[tuple[Any, str], Any]]:
    """The (field key, run-time value) pairs of a PATH: VALUE mapping; problems go to the bag."""
    found = []
    for key, value in values.items():
        where = values.key_spans.get(key) or run.span(values)
        target = resolve_path(run, str(key), where)
        if target is None:
            continue
        owner, scope, name = target
        type_ = run.program.field_types[scope][name]
        optional = run.program.rules.fields[scope][name].declared.optional
        found.append(((owner, name), convert(run, value, type_, span_of(value) or where, optional=optional)))
    return found


def resolve_path(run: ScenarioRun, text: str, where: Span) -> tuple[Any, str, str] | None:
    """The (owner, scope, field) a setup path such as ``P1.coins`` names; problems go to the bag."""
    owner_text, dot, name = text.partition(".")
    program = run.program
    rules = program.rules
    kinds = {item: kind for kind, ids in program.collections.items() for item in ids}
    players = [f"P{p + 1}" for p in range(run.game.num_players)]
    owner: Any
    if owner_text in ("game", "turn"):
        owner, scope = owner_text, owner_text
    elif PLAYER.match(owner_text) and owner_text in players:
        owner, scope = int(owner_text[1:]) - 1, "player"
    elif owner_text in kinds:
        owner, scope = owner_text, kinds[owner_text]
    else:
        hint = did_you_mean(owner_text, ["game", "turn", *players, *kinds])
        item = name.partition(".")[0]
        if item in kinds:
            hint = f"a component's field is written {item}.FIELD (its id, then the field)"
        run.bag.error(
            f"unknown owner '{owner_text}' in setup path '{text}'",
            where,
            hint=hint or "a path is game.FIELD, turn.FIELD, P1.FIELD or COMPONENT_ID.FIELD",
        )
        return None
    fields = rules.fields.get(scope, {})
    if not dot or name not in fields:
        what = "player" if scope == "player" else scope
        run.bag.error(
            f"{what} has no field '{name}' (setup path '{text}')"
            if dot
            else f"setup path '{text}' needs a field: {text}.FIELD",
            where,
            hint=did_you_mean(name, fields) or (f"fields: {', '.join(fields)}" if fields else None),
        )
        return None
    return owner, scope, name


def convert(run: ScenarioRun, value: Any, type_: Type, where: Span, *, optional: bool = True) -> Any:
    """A YAML value as the run-time value of ``type_``; problems go to the bag."""
    if value is None or (value == "none" and not _quoted(value)):
        if not optional and type_.name in _NOT_EMPTY:
            run.bag.error(
                f"none is not a {type_}",
                where,
                hint=f"the field is declared '{type_}'; declare it '{type_}?' to allow none",
            )
        return None
    name = type_.name
    players = run.game.num_players
    if type_ in (t.PLAYER, t.OWNER):
        if type_ == t.OWNER and value == "bank":
            return -1
        match = PLAYER.match(str(value)) if isinstance(value, str) else None
        if match and 1 <= int(match.group(1)) <= players:
            return int(match.group(1)) - 1
        bank = " or bank" if type_ == t.OWNER else ""
        run.bag.error(f"expected a player P1..P{players}{bank}, not {_shown(value)}", where)
        return None
    if type_ == t.INT:
        if isinstance(value, int) and not isinstance(value, bool):
            return value
        run.bag.error(f"expected a whole number, not {_shown(value)}", where)
        return None
    if type_ == t.BOOL:
        if isinstance(value, bool):
            return value
        run.bag.error(f"expected true or false, not {_shown(value)}", where)
        return None
    if type_ == t.STR:
        if isinstance(value, str):
            return str(value)
        run.bag.error(f"expected text, not {_shown(value)}", where)
        return None
    if name == "entity":
        ids = run.program.collections.get(type_.kind or "", ())
        if isinstance(value, str) and value in ids:
            return str(value)
        run.bag.error(
            f"{_shown(value)} is not a {type_.kind}",
            where,
            hint=did_you_mean(str(value), ids)
            or f"{type_.kind} ids: {', '.join(ids[:8])}" + (", ..." if len(ids) > 8 else ""),
        )
        return None
    if name == "enum":
        members = type_.members or ()
        if isinstance(value, str) and value in members:
            return str(value)
        run.bag.error(
            f"{_shown(value)} is not a {type_.kind}",
            where,
            hint=did_you_mean(str(value), members) or _some(f"{type_.kind} values", members),
        )
        return None
    if type_.is_record:
        return _record(run, value, type_, where)
    if type_.is_list or type_ == t.TUPLE:
        if not isinstance(value, list):
            run.bag.error(f"expected a list for {type_}, not {_shown(value)}", where)
            return ()
        element = t.element_type(type_)
        return tuple(convert(run, v, element, span_of(v) or where) for v in value)
    if type_ == t.MAP and not isinstance(value, dict):
        run.bag.error(f"expected a mapping for map, not {_shown(value)}", where)
        return {}
    return plain(run, value, where)


def _record(run: ScenarioRun, value: Any, type_: Type, where: Span) -> Any:
    """A record written as a mapping with exactly its fields, each converted to its type."""
    fields = dict(type_.fields or ())
    if not isinstance(value, dict):
        example = ", ".join(f"{f}: ..." for f in fields)
        run.bag.error(f"expected a record {type_}, not {_shown(value)}", where, hint=f"write {{{example}}}")
        return None
    spans = value.key_spans if isinstance(value, LocDict) else {}
    extra = [key for key in value if str(key) not in fields]
    for key in extra:
        run.bag.error(
            f"the record {type_} has no field '{key}'",
            spans.get(key) or where,
            hint=did_you_mean(str(key), fields) or _some("its fields", tuple(fields)),
        )
    missing = [f for f in fields if f not in value]
    if missing:
        run.bag.error(f"the record {type_} needs a value for {', '.join(missing)}", where)
    if extra or missing:
        return None
    return {str(k): convert(run, v, fields[str(k)], span_of(v) or where) for k, v in value.items()}


def plain(run: ScenarioRun, value: Any, where: Span) -> Any:
    """Untyped YAML data (``any``, ``map``, ``tuple``) as run-time values: lists become tuples,
    ``none`` is none and ``P1``..``PN`` are players, also inside containers."""
    if isinstance(value, list):
        return tuple(plain(run, v, span_of(v) or where) for v in value)
    if isinstance(value, dict):
        spans = value.key_spans if isinstance(value, LocDict) else {}
        return {
            plain(run, k, spans.get(k) or where): plain(run, v, span_of(v) or spans.get(k) or where)
            for k, v in value.items()
        }
    if isinstance(value, str):
        if _quoted(value):
            return str(value)
        match = PLAYER.match(value)
        if match:
            if 1 <= int(match.group(1)) <= run.game.num_players:
                return int(match.group(1)) - 1
            run.bag.error(
                f"there is no player {value} in a {run.game.num_players}-player game",
                where,
                hint=f"players are P1..P{run.game.num_players}; write '{value}' in quotes to mean the text",
            )
            return None
        return None if value == "none" else str(value)
    return value


def _some(what: str, names: tuple[str, ...]) -> str:
    return f"{what}: {', '.join(names[:8])}" + (", ..." if len(names) > 8 else "")


def _quoted(value: Any) -> bool:
    """Whether a YAML string was written in quotes (or as a block): then it is only text."""
    if not isinstance(value, LocStr):
        return False
    return (value.origin.line, value.origin.column) != (value.span.line, value.span.column)


def _shown(value: Any) -> str:
    """A YAML value as the author wrote it: true, none, 'text', [1, 2]."""
    if value is None:
        return "none"
    if isinstance(value, bool):
        return "true" if value else "false"
    if isinstance(value, str):
        return repr(str(value))
    if isinstance(value, list):
        return "[" + ", ".join(_shown(v) for v in value) + "]"
    if isinstance(value, dict):
        return "{" + ", ".join(f"{k}: {_shown(v)}" for k, v in value.items()) + "}"
    return str(value)
