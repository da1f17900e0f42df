"""The building blocks of the rules format's declaration (:mod:`rulekit.rules.schema`).

A value's *shape* says what may be written there: DSL text (:class:`Expr`,
:class:`Block`), a scalar (:class:`Text`, :class:`Name`, :class:`Flag`, :class:`Int`,
:class:`Enum`), a type (:class:`TypeText`), game data (:class:`Data`) or a container
(:class:`ListOf`, :class:`MapOf`, :class:`Table`, :class:`Either`, :class:`Tagged`).
:mod:`rulekit.rules.structure` checks YAML against shapes and
:mod:`rulekit.tools.schema` turns them into JSON Schema.
"""

from __future__ import annotations

from typing import Any

from attrs import frozen

# ---------------------------------------------------------------- shapes of values


@frozen
class Expr:
    """A DSL expression: a string, or a literal int / true / false / none."""


@frozen
class Block:
    """DSL statements (a string; a ``|`` block for several lines)."""


@frozen
class Text:
    """Plain text: a name, a message, a citation, a description."""

    max_length: int | None = None


@frozen
class Name:
    """An identifier: letters, digits and ``_``."""


@frozen
class Flag:
    """``true`` or ``false`` (YAML booleans only: the string ``"false"`` is refused)."""


@frozen
class Int:
    """A whole number between ``low`` and ``high`` (inclusive, when given)."""

    low: int | None = None
    high: int | None = None


@frozen
class Enum:
    """One of a few words."""

    choices: tuple[str, ...]


@frozen
class TypeText:
    """A type as written in rules files: ``int``, ``player?``, ``list[card]``, a component kind."""


@frozen
class Data:
    """Game data as written in YAML (checked against a declared type where there is one)."""


@frozen
class Names:
    """A list of names; ``one_ok``: a single name may stand for a list of one."""

    one_ok: bool = True


@frozen
class ListOf:
    """A list of values of one shape; ``one_ok``: a single value stands for a list of one."""

    item: Shape
    one_ok: bool = False


@frozen
class MapOf:
    """A mapping from names (identifiers, not reserved) to values of one shape; ``what`` names a key."""

    value: Shape
    what: str
    #: Keys are not checked as identifiers (state scopes, action names of bots.weights).
    free: bool = False
    #: Keys may be reserved words (attributes are read as ``x.turn``, never alone).
    reserved_ok: bool = False


@frozen
class Ref:
    """A shape defined in :data:`DEFS` by name (for recursive shapes such as flow steps)."""

    name: str


@frozen
class Custom:
    """A value checked by its own module (``view``: rules/view.py); ``doc`` describes it."""

    name: str


@frozen
class Key:
    """One key of a table."""

    name: str
    shape: Shape
    doc: str
    required: bool = False
    #: The message when a required key is missing (default: "WHAT needs 'NAME'").
    missing: str | None = None
    default: Any = None
    #: A module's or variant's ``extend:`` may append to this list-valued key.
    extend: bool = False
    #: Top-level keys only: ``named`` (a map of names to entries) or ``single`` (one value).
    section: str | None = None


@frozen
class Table:
    """A mapping with known keys, e.g. an action.

    ``what`` names it in messages ("unknown action key ..."); ``short`` is the key a
    bare scalar stands for (``n: int`` means ``n: {type: int}``); ``one_of`` lists groups
    of keys of which at least one must be written, with the message when none is.
    """

    what: str
    keys: tuple[Key, ...]
    doc: str
    short: str | None = None
    one_of: tuple[tuple[tuple[str, ...], str], ...] = ()

    def key(self, name: str) -> Key | None:
        for key in self.keys:
            if key.name == name:
                return key
        return None

    @property
    def names(self) -> tuple[str, ...]:
        return tuple(k.name for k in self.keys)


@frozen
class Tagged:
    """A mapping that is one of several tables, told apart by which tag key it has (flow steps).

    ``tables`` maps each tag to its table; the table lists the tag key itself and the
    keys allowed beside it.
    """

    what: str
    tables: tuple[tuple[str, Table], ...]
    doc: str

    @property
    def tags(self) -> tuple[str, ...]:
        return tuple(tag for tag, _ in self.tables)

    def table(self, tag: str) -> Table:
        return dict(self.tables)[tag]


@frozen
class Either:
    """A scalar standing for ``table``'s ``short`` key, or the full ``table``."""

    table: Table


Shape = (
    Expr
    | Block
    | Text
    | Name
    | Flag
    | Int
    | Enum
    | TypeText
    | Data
    | Names
    | ListOf
    | MapOf
    | Ref
    | Custom
    | Table
    | Tagged
    | Either
)
