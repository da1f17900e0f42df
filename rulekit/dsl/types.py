"""The DSL's static types, written as they appear in rules files.

A type is a small frozen value: ``int``, ``bool``, ``str``, ``player``,
``owner`` (a player or the bank), ``none``, ``any``, a component kind
(``city``), an enumeration (``colour``), ``list[T]``, ``map[K, V]`` (``map`` alone: keys and values of any
type), a record ``{kind: str, strength: int}`` or ``tuple``.  ``any`` is
compatible with everything; ``none`` with every type (fields may be empty).
Records are maps with text keys at run time, so a record and an untyped
``map`` are compatible both ways.
"""

from __future__ import annotations

import re
from collections.abc import Mapping

from attrs import frozen


@frozen
class Type:
    """A static type.

    ``element`` is set for lists (the element) and typed maps (the value), ``key``
    for typed maps, ``kind`` for components, ``fields`` (sorted by name) for records.
    """

    name: str
    element: Type | None = None
    kind: str | None = None
    key: Type | None = None
    fields: tuple[tuple[str, Type], ...] | None = None
    members: tuple[str, ...] | None = None  # an enumeration's values, in order

    def __str__(self) -> str:
        if self.name == "list":
            return f"list[{self.element}]"
        if self.name == "map" and self.key is not None:
            return f"map[{self.key}, {self.element}]"
        if self.name == "record":
            return "{" + ", ".join(f"{n}: {ty}" for n, ty in self.fields or ()) + "}"
        if self.name in ("entity", "enum"):
            return str(self.kind)
        return self.name

    @property
    def is_list(self) -> bool:
        return self.name == "list"

    @property
    def is_map(self) -> bool:
        """A map, typed or not (records are maps too, but not this)."""
        return self.name == "map"

    @property
    def is_record(self) -> bool:
        return self.name == "record"

    def field(self, name: str) -> Type | None:
        """The type of a record's field, None if it has no such field."""
        return dict(self.fields or ()).get(name)


INT = Type("int")
BOOL = Type("bool")
STR = Type("str")
NONE = Type("none")
ANY = Type("any")
PLAYER = Type("player")
OWNER = Type("owner")
MAP = Type("map")
TUPLE = Type("tuple")


def list_of(element: Type) -> Type:
    return Type("list", element=element)


def map_of(key: Type, value: Type) -> Type:
    """``map[key, value]``; ``map[any, any]`` is the untyped ``map``."""
    if key == ANY and value == ANY:
        return MAP
    return Type("map", element=value, key=key)


def record_of(fields: dict[str, Type] | tuple[tuple[str, Type], ...]) -> Type:
    items = fields.items() if isinstance(fields, dict) else fields
    return Type("record", fields=tuple(sorted(items)))


def entity(kind: str) -> Type:
    return Type("entity", kind=kind)


def enum_of(name: str, members: tuple[str, ...]) -> Type:
    """An enumeration: one of a fixed set of named values (``colour.red``), text at run time."""
    return Type("enum", kind=name, members=members)


ANY_LIST = list_of(ANY)


def map_key(table: Type) -> Type:
    """The key type of a map (``str`` for a record)."""
    if table.is_record:
        return STR
    return table.key if table.is_map and table.key is not None else ANY


def map_value(table: Type) -> Type:
    """The value type of a map (any for a record: use a field by name)."""
    return table.element if table.is_map and table.element is not None else ANY


def compatible(expected: Type, actual: Type) -> bool:
    """Whether a value of type ``actual`` may stand where ``expected`` is wanted."""
    if ANY in (expected, actual) or actual == NONE or expected == NONE:
        return True
    if expected == actual:
        return True
    if expected == OWNER and actual == PLAYER:
        return True
    if expected == PLAYER and actual == OWNER:
        return True
    if expected.name == "list" and actual.name in ("list", "tuple"):
        if actual.name == "tuple" or expected.element is None or actual.element is None:
            return True
        return compatible(expected.element, actual.element)
    if expected.name == "tuple" and actual.name == "list":
        return True
    if expected.is_map and actual.is_map:
        return compatible(map_key(expected), map_key(actual)) and compatible(
            map_value(expected), map_value(actual)
        )
    if expected.is_map and actual.is_record:  # a record is a map from field names
        return compatible(map_key(expected), STR) and all(
            compatible(map_value(expected), ty) for _, ty in actual.fields or ()
        )
    if expected.is_record and actual.is_map:
        return actual.key is None  # an untyped map may hold any record
    if expected.is_record and actual.is_record:
        mine, theirs = dict(expected.fields or ()), dict(actual.fields or ())
        return mine.keys() == theirs.keys() and all(compatible(mine[n], theirs[n]) for n in mine)
    return False


def comparable(left: Type, right: Type) -> bool:
    """Whether ``==`` between the two types can ever be true."""
    return compatible(left, right) or compatible(right, left)


def join(left: Type, right: Type) -> Type:
    """The narrowest type holding values of both (``any`` when there is none)."""
    if left == right or right == NONE:
        return left
    if left == NONE:
        return right
    if {left, right} == {PLAYER, OWNER}:
        return OWNER
    if left.is_list and right.is_list:
        return list_of(join(element_type(left), element_type(right)))
    if left.is_map and right.is_map:
        return map_of(join(map_key(left), map_key(right)), join(map_value(left), map_value(right)))
    if left.is_record and right.is_record:
        mine, theirs = dict(left.fields or ()), dict(right.fields or ())
        if mine.keys() == theirs.keys():
            return record_of({n: join(mine[n], theirs[n]) for n in mine})
        return MAP
    if (left.is_record and right.is_map) or (left.is_map and right.is_record):
        return MAP
    return ANY


def element_type(collection: Type) -> Type:
    """What a loop over the collection yields: a list's elements, a map's keys."""
    if collection.name == "list" and collection.element is not None:
        return collection.element
    if collection.is_map or collection.is_record:
        return map_key(collection)
    return ANY


#: The names a type text may use besides the built-in ones: component kinds, or a mapping of
#: names to types (component kinds and declared records).
TypeNames = set[str] | frozenset[str] | Mapping[str, Type]

_SIMPLE = {
    "int": INT,
    "bool": BOOL,
    "str": STR,
    "player": PLAYER,
    "owner": OWNER,
    "any": ANY,
    "map": MAP,
    "grid": MAP,
    "tuple": TUPLE,
}
_TOKEN = re.compile(r"\s*(?:([A-Za-z_][A-Za-z0-9_]*)|([\[\]{},:?]))")


class _TypeSyntax(Exception):
    """The text is not a type."""


def parse_type(text: str, kinds: TypeNames) -> Type | None:
    """Parse a type such as ``int``, ``city?``, ``list[card]``, ``map[tuple, player]`` or
    ``{kind: str, strength: int}``; None if it is not a type.

    ``kinds`` are the component kinds; a dict also names record types (its values).
    """
    tokens: list[str] = []
    position = 0
    text = text.strip()
    while position < len(text):
        match = _TOKEN.match(text, position)
        if match is None or match.end() == position:
            return None
        tokens.append(match.group(1) or match.group(2))
        position = match.end()
        while position < len(text) and text[position].isspace():
            position += 1
    if tokens and tokens[-1] == "?":
        tokens.pop()
    try:
        parsed, rest = _parse(tokens, kinds)
    except _TypeSyntax:
        return None
    return parsed if not rest else None


def _parse(
    tokens: list[str], kinds: set[str] | frozenset[str] | Mapping[str, Type]
) -> tuple[Type, list[str]]:
    if not tokens:
        raise _TypeSyntax
    head, rest = tokens[0], tokens[1:]
    if head == "{":
        fields: dict[str, Type] = {}
        while rest and rest[0] != "}":
            if len(rest) < 2 or not _is_name(rest[0]) or rest[1] != ":" or rest[0] in fields:
                raise _TypeSyntax
            name = rest[0]
            fields[name], rest = _parse(rest[2:], kinds)
            if rest[:1] == [","]:
                rest = rest[1:]
            elif rest[:1] != ["}"]:
                raise _TypeSyntax
        if not rest:
            raise _TypeSyntax
        return record_of(fields), rest[1:]
    if not _is_name(head):
        raise _TypeSyntax
    if head in ("list", "map") and rest[:1] == ["["]:
        first, rest = _parse(rest[1:], kinds)
        if head == "list":
            args = [first]
        else:
            if rest[:1] != [","]:
                raise _TypeSyntax
            second, rest = _parse(rest[1:], kinds)
            args = [first, second]
        if rest[:1] != ["]"]:
            raise _TypeSyntax
        return (list_of(args[0]) if head == "list" else map_of(args[0], args[1])), rest[1:]
    if head == "list":
        return ANY_LIST, rest
    if head in _SIMPLE:
        return _SIMPLE[head], rest
    if isinstance(kinds, Mapping) and head in kinds:
        return kinds[head], rest
    if head in kinds:
        return entity(head), rest
    raise _TypeSyntax


def _is_name(token: str) -> bool:
    return token[:1].isalpha() or token[:1] == "_"


def value_type(value: object, kinds_of_ids: dict[str, str] | None = None) -> Type:
    """The type of a constant value from YAML."""
    if isinstance(value, bool):
        return BOOL
    if isinstance(value, int):
        return INT
    if isinstance(value, str):
        return STR
    if value is None:
        return NONE
    if isinstance(value, list | tuple):
        elements = {value_type(v) for v in value}
        return list_of(elements.pop() if len(elements) == 1 else ANY)
    if isinstance(value, dict):
        return MAP
    return ANY
