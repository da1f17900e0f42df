"""Paths into composed rules: what a variant's ``set`` and ``remove`` name, and which values fit.

A path is dotted: ``constants.START_MONEY``, ``components.city.lyon.harbor_costs``,
``actions.buy.cost``, ``flow.0.repeat.until``.  Each segment must exist (with the nearest
names when it does not), except the last one of a ``set``, which may add any key the
schema (:mod:`rulekit.rules.schema`) declares for that entry, so a variant can set every
key a ruleset can.  The new value is checked where it is written: game data against its
declared type (:mod:`rulekit.rules.values`), flags, numbers, words and types by the same
structuring code as rules files, DSL text when the rules are built.
"""

from __future__ import annotations

import json
from typing import Any

from rulekit.errors import DiagnosticBag, Span, did_you_mean
from rulekit.rules import schema
from rulekit.rules.schema import NAMED_SECTIONS, SINGLE_SECTIONS
from rulekit.rules.structure import Structurer
from rulekit.rules.values import DataContext, DataProblem, TypeProblem, convert, parse_declared
from rulekit.rules.yaml_source import LocDict, LocList, LocStr, plain_data, span_of


def apply_set(data: LocDict, ops: Any, owner: LocDict, bag: DiagnosticBag) -> None:
    if not isinstance(ops, LocDict):
        bag.error(
            "'set' must map paths to values, e.g. constants.START_MONEY: 30",
            span_of(ops) or owner.key_spans.get("set"),
        )
        return
    for path, value in ops.items():
        key_span = ops.key_spans.get(path)
        found = resolve(data, str(path), key_span, bag, for_set=True)
        if found is None:
            continue
        parent, key, trail = found
        exists = _has(parent, key)
        if not exists:
            if not _refused(data, trail, str(path), None, value, key_span, bag):
                put(parent, key, value, key_span)
            continue
        if _refused(data, trail, str(path), parent[key], value, key_span, bag):
            continue
        put(parent, key, value, key_span)
        constants = data.get("constants")
        if trail[0] == "constants" and isinstance(constants, LocDict) and key_span is not None:
            # errors about the constant's value (e.g. unknown ids) then point at the variant
            constants.key_spans[trail[1]] = key_span


# ---------------------------------------------------------------- paths


def _segment_span(key_span: Span | None, path: str, index: int, origin_column: int | None) -> Span | None:
    """The span of the ``index``-th dotted segment of a path key written on one line."""
    if key_span is None:
        return None
    segments = path.split(".")
    offset = sum(len(s) + 1 for s in segments[:index])
    column = (origin_column if origin_column is not None else key_span.column) + offset
    return Span(key_span.file, key_span.line, column, key_span.line, column + len(segments[index]))


def resolve(
    data: LocDict, path: str, key_span: Span | None, bag: DiagnosticBag, *, for_set: bool
) -> tuple[Any, Any, list[str]] | None:
    """Find the container and key a path names; report the first missing segment."""
    segments = path.split(".")
    origin_column = None
    if isinstance(path, LocStr) and key_span is not None and path.origin.line == key_span.line:
        origin_column = path.origin.column
    if len(segments) < 2 or not all(segments):
        bag.error(
            f"'{path}' is not a path: write SECTION.NAME[.KEY...], e.g. constants.START_MONEY",
            key_span,
            expected=(*NAMED_SECTIONS, *SINGLE_SECTIONS),
        )
        return None
    current: Any = data
    trail: list[str] = []
    for index, segment in enumerate(segments):
        last = index == len(segments) - 1
        here = ".".join(segments[:index]) or "the ruleset"
        container, key = _step(current, segment, trail)
        if key is _MISSING:
            if last and for_set and _may_add(trail, current, segment):
                return current, segment, [*trail, segment]
            bag.error(
                f"{path}: there is no '{segment}' in {here}",
                _segment_span(key_span, path, index, origin_column),
                hint=did_you_mean(segment, [*_choices(current, trail), *_declared_keys(current, trail)])
                or _list_choices(current, trail),
            )
            return None
        trail.append(segment)
        if last:
            if (
                len(trail) == 2
                and trail[0] == "constants"
                and isinstance(container[key], LocDict)
                and set(container[key]) == {"type", "value"}
            ):
                return container[key], "value", [*trail, "value"]
            return container, key, trail
        current = container[key]
        if not isinstance(current, dict | list):
            bag.error(
                f"{path}: '{'.'.join(trail)}' is a value, not a mapping",
                _segment_span(key_span, path, index + 1, origin_column),
            )
            return None
    return None


class _Missing:
    pass


_MISSING: Any = _Missing()


def _step(current: Any, segment: str, trail: list[str]) -> tuple[Any, Any]:
    if isinstance(current, dict):
        if segment in current:
            return current, segment
        for key in current:
            if str(key) == segment:
                return current, key
        # constants.NAME.value for typed constants; components.KIND.ITEM_ID
        if len(trail) == 2 and trail[0] == "components" and isinstance(current.get("items"), list):
            return _step(current["items"], segment, [*trail, "items"])
        if len(trail) == 2 and trail[0] == "constants" and set(current) == {"type", "value"}:
            return _step(current["value"], segment, [*trail, "value"])
        return current, _MISSING
    if isinstance(current, list):
        if segment.isascii() and segment.isdigit() and len(segment) < 10 and int(segment) < len(current):
            return current, int(segment)
        for index, item in enumerate(current):
            if isinstance(item, dict) and str(item.get("id")) == segment:
                return current, index
        return current, _MISSING
    return current, _MISSING


def _choices(current: Any, trail: list[str]) -> list[str]:
    names: list[str] = []
    if isinstance(current, dict):
        names = [str(k) for k in current]
        if len(trail) == 2 and trail[0] == "components" and isinstance(current.get("items"), list):
            names += [str(i.get("id")) for i in current["items"] if isinstance(i, dict)]
    elif isinstance(current, list):
        names = [str(i.get("id")) for i in current if isinstance(i, dict) and "id" in i]
    return names


def _declared_keys(current: Any, trail: list[str]) -> tuple[str, ...]:
    """The keys the schema declares for the entry at ``trail`` (those ``set`` may add)."""
    table = schema.table_of(schema.shape_at(trail) or schema.Data()) if isinstance(current, dict) else None
    return table.names if table is not None else ()


def _list_choices(current: Any, trail: list[str]) -> str | None:
    names = _choices(current, trail)
    if not names:
        if isinstance(current, list):
            return f"a list of {len(current)}: use an index 0..{len(current) - 1}" if current else None
        return None
    shown = ", ".join(names[:12]) + (f", ... ({len(names)} in all)" if len(names) > 12 else "")
    return f"existing names here: {shown}"


def _may_add(trail: list[str], current: Any, segment: str) -> bool:
    """May ``set`` create ``segment`` in ``current``?  Only a key the schema declares for it."""
    table = schema.table_of(schema.shape_at(trail) or schema.Data())
    return isinstance(current, dict) and table is not None and table.key(segment) is not None


def _has(parent: Any, key: Any) -> bool:
    if isinstance(parent, dict):
        return key in parent
    return isinstance(key, int) and 0 <= key < len(parent)


def put(parent: Any, key: Any, value: Any, key_span: Span | None) -> None:
    """``parent[key] = value``, remembering where the change was written: a mapping's key
    span, or for an element of a list (a value like ``2`` carries no span) the list's
    ``item_spans``, so ``rulekit diff`` credits the change to the file that made it."""
    parent[key] = value
    if key_span is None:
        return
    if isinstance(parent, LocDict):
        parent.key_spans[key] = key_span
    elif isinstance(parent, LocList):
        parent.item_spans = {**parent.item_spans, key: key_span}


# ---------------------------------------------------------------- values

#: Shapes whose values the structuring code checks on their own (no DSL, no game data).
_SCALARS = (schema.Flag, schema.Int, schema.Enum, schema.Text, schema.Name, schema.TypeText, schema.Names)
#: Sections whose values are DSL text, where an int literal and an expression are interchangeable.
_DSL_SECTIONS = ("actions", "triggers", "functions", "invariants", "properties", "scoring", "flow", "setup")


def _refused(
    data: LocDict, trail: list[str], path: str, old: Any, new: Any, key_span: Span | None, bag: DiagnosticBag
) -> bool:
    """Whether ``new`` cannot stand at ``trail`` (each reason reported, at the variant's line)."""
    where = span_of(new) or key_span
    declared = _declared_type(data, trail)
    if declared is not None:
        try:
            convert(new, parse_declared(declared, _kinds(data)), _context(data))
        except TypeProblem:
            return False  # the declaration itself is wrong: reported when the rules are built
        except DataProblem as problem:
            bag.error(f"{path}: {problem}", problem.span or where, hint=problem.hint)
            return True
        return False
    shape = schema.shape_at(trail)
    if isinstance(shape, _SCALARS):
        scratch = DiagnosticBag()
        Structurer(scratch, _kinds(data)).value(shape, new, key_span, path)
        bag.extend(scratch.items)
        return bool(scratch.items)
    if old is None:
        return False
    if trail[0] in _DSL_SECTIONS or trail[-1] == "initial":
        reason = _dsl_problem(old, new)
    else:
        reason = _same_shape(old, new)
    if reason is not None:
        bag.error(f"{path}: {reason}", where, hint=_type_hint(old, new))
        return True
    return False


def _kinds(data: LocDict) -> frozenset[str]:
    components = data.get("components")
    return frozenset(str(k) for k in components) if isinstance(components, dict) else frozenset()


def _context(data: LocDict) -> DataContext:
    components = data.get("components")
    kinds = components.values() if isinstance(components, dict) else ()
    items = [
        (i.get("id"), name)
        for name, k in zip(components or (), kinds, strict=False)
        if isinstance(k, dict)
        for i in k.get("items") or ()
        if isinstance(i, dict)
    ]
    players = data.get("players")
    high = players.get("max", players.get("min", 99)) if isinstance(players, dict) else 99
    return DataContext({str(i): str(k) for i, k in items}, high if isinstance(high, int) else 99)


def _kind(value: Any) -> str:
    if value is None:
        return "none"
    if isinstance(value, bool):
        return "bool"
    if isinstance(value, int):
        return "int"
    if isinstance(value, float):
        return "number"
    if isinstance(value, str):
        return "str"
    if isinstance(value, list):
        return "list"
    if isinstance(value, dict):
        return "mapping"
    return type(value).__name__


_ARTICLE = {
    "int": "an int",
    "bool": "a bool (true/false)",
    "str": "a string",
    "list": "a list",
    "mapping": "a mapping",
    "none": "none",
    "number": "a number",
}


def _describe(kind: str) -> str:
    return _ARTICLE.get(kind, kind)


def _dsl_problem(old: Any, new: Any) -> str | None:
    scalar = ("int", "bool", "str", "none")
    if _kind(old) in scalar and _kind(new) in scalar:
        return None
    if _kind(old) == _kind(new):
        return None
    return f"was {_describe(_kind(old))}, cannot become {_describe(_kind(new))}"


def _declared_type(data: LocDict, trail: list[str]) -> str | None:
    """The declared type of a typed constant's value or a component attribute, if ``trail`` is one."""
    if trail[0] == "constants" and len(trail) == 3 and trail[2] == "value":
        spec = data.get("constants", {}).get(trail[1])
        if isinstance(spec, dict) and "type" in spec:
            return str(spec["type"])
    if trail[0] == "components" and len(trail) == 4 and trail[3] != "id":
        kind = data.get("components", {}).get(trail[1])
        if isinstance(kind, dict) and isinstance(kind.get("attributes"), dict):
            attr = kind["attributes"].get(trail[3])
            if attr is not None:
                return str(attr)
    return None


def _same_shape(old: Any, new: Any) -> str | None:
    old_kind, new_kind = _kind(old), _kind(new)
    if old_kind != new_kind:
        return f"was {_describe(old_kind)} ({_show(old)}), cannot become {_describe(new_kind)} {_show(new)}"
    if old_kind == "list" and old and new:
        kinds = {_kind(x) for x in old}
        if len(kinds) == 1:
            for element in new:
                problem = _same_shape(old[0], element)
                if problem is not None:
                    return f"the elements {problem.replace('was', 'were', 1)}"
    return None


def _show(value: Any) -> str:
    text = json.dumps(plain_data(value))
    return text if len(text) <= 40 else text[:37] + "..."


def _type_hint(old: Any, new: Any) -> str | None:
    if isinstance(new, str) and isinstance(old, int) and not isinstance(old, bool):
        try:
            int(new)
        except ValueError:
            return None
        return f"write {int(new)} without quotes"
    nested = isinstance(old, list) and any(isinstance(x, list | dict) for x in old)
    if isinstance(old, list) and not isinstance(new, list) and not nested:
        return f"write a list, e.g. [{new}]"
    return None
