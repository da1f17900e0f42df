"""The DSL's static types, written as they appear in rules files.

A type is a small frozen value: ``int``, ``bool``, ``str``, ``player``,
``owner`` (a player or the bank), ``none``, ``any``, a component kind
(``city``), ``list[T]``, ``map`` or ``tuple``.  ``any`` is compatible with
everything; ``none`` with every type (fields may be empty).
"""

from __future__ import annotations

from attrs import frozen


@frozen
class Type:
    """A static type; ``element`` is set for lists, ``kind`` for components."""

    name: str
    element: Type | None = None
    kind: str | None = None

    def __str__(self) -> str:
        if self.name == "list":
            return f"list[{self.element}]"
        if self.name == "entity":
            return str(self.kind)
        return self.name

    @property
    def is_list(self) -> bool:
        return self.name == "list"


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


def entity(kind: str) -> Type:
    return Type("entity", kind=kind)


ANY_LIST = list_of(ANY)


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
    return expected.name == "map" and actual.name == "map"


def comparable(left: Type, right: Type) -> bool:
    """Whether ``==`` between the two types can ever be true."""
    return compatible(left, right) or compatible(right, left)


def element_type(collection: Type) -> Type:
    if collection.name == "list" and collection.element is not None:
        return collection.element
    return ANY


def parse_type(text: str, kinds: set[str]) -> Type | None:
    """Parse a field type such as ``int``, ``city?`` or ``list[card]``; None if unknown."""
    text = text.strip()
    if text.endswith("?"):
        text = text[:-1].strip()
    if text.startswith("list[") and text.endswith("]"):
        inner = parse_type(text[5:-1], kinds)
        return list_of(inner) if inner is not None else None
    if text == "list":
        return ANY_LIST
    simple = {
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
    if text in simple:
        return simple[text]
    if text in kinds:
        return entity(text)
    return None


def value_type(value: object, kinds_of_ids: dict[str, str] | None = None) -> Type:
    """The type of a constant value from YAML."""
    if isinstance(value, bool):
        return BOOL
    if isinstance(value, int):
        return INT
    if isinstance(value, str):
        if kinds_of_ids and value in kinds_of_ids:
            return STR
        return STR
    if value is None:
        return NONE
    if isinstance(value, list | tuple):
        elements = {value_type(v) for v in value}
        return list_of(elements.pop() if len(elements) == 1 else ANY)
    if isinstance(value, dict):
        return MAP
    return ANY
