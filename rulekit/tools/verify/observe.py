"""What ``verify --suggest`` watches in a state: its observables.

An observable is a value of the state written as a rule expression, so that a relation found
between observables can be written back as a property. They are:

* the whole-number, true/false and player fields of the game, the turn and every player
  (``game.round``, ``p.money``);
* the size of their lists, sets and maps (``len(p.hand)``, ``len(game.deck)``);
* per player, how many entries of a game map (``game.board``) or how many components
  (``cells``) name her as their value (``count(c for c in cells if c.mark == p)``): whose
  mark, disc or piece it is; and how many entries of the components' lists of players name
  her (``sum(count_of(c.fortresses, p) for c in cities)``): her fortresses.

A player observable's text has ``{}`` where the player goes (``me``, ``p``, a parameter).

The components a player holds (:func:`held_observables`, per list or set of components of a
player: a hand) are watched apart, for the conditions split on and the relations at the end:

* the sum of each whole-number attribute over them (``sum(c.value for c in p.hand)``: the value
  of a one-card hand);
* the values of each attribute among them (a kind, an enumeration), read by a condition
  such as ``any(c.kind == guess for c in target.hand)``.

The miner sees the whole state, not what a seat sees.
"""

from __future__ import annotations

from collections.abc import Callable, Mapping
from typing import Any

from attrs import define

from rulekit.compiler.program import Program

SCOPES = ("game", "turn", "player")
Fields = Mapping[tuple[Any, str], Any]
Reader = Callable[[Fields, Any], Any]


@define(frozen=True)
class Observable:
    """One watched value: its scope (``game``, ``turn``, ``player``), a unique key, its rule text
    (``{}`` standing for the player) and type (``int``, ``bool``, ``player``)."""

    scope: str
    key: str
    template: str
    kind: str
    read: Reader
    #: A size or a count rather than a field (never negative, so no range is suggested).
    derived: bool = False

    def text(self, owner: str = "p") -> str:
        """The rule text, for ``owner`` (a player observable) or as it is."""
        return self.template.replace("{}", owner)

    def owners(self, players: int) -> list[Any]:
        """Whose values there are in a game of ``players``."""
        return list(range(players)) if self.scope == "player" else [self.scope]


def observables(program: Program) -> list[Observable]:
    """Every observable of ``program``'s state, fields first."""
    found: list[Observable] = []
    for scope, fields in program.rules.fields.items():
        if scope not in SCOPES:
            continue
        for name, decl in fields.items():
            kind = decl.declared.type
            subject = "{}" if scope == "player" else scope
            text = f"{subject}.{name}"
            if kind.name in ("int", "bool", "player"):
                found.append(Observable(scope, text, text, kind.name, _field(scope, name)))
            elif kind.name in ("list", "set", "map"):
                found.append(
                    Observable(scope, f"len({text})", f"len({text})", "int", _size(scope, name), True)
                )
                if (
                    scope == "game"
                    and kind.name == "map"
                    and kind.element is not None
                    and kind.element.name == "player"
                ):
                    found.append(
                        Observable(
                            "player",
                            f"count:{text}",
                            f"count(k for k in keys({text}) if {text}[k] == {{}})",
                            "int",
                            _map_count(name),
                            True,
                        )
                    )
    for kind_name, fields in program.rules.fields.items():
        if kind_name in SCOPES or kind_name not in program.rules.kinds:
            continue
        collection = program.rules.kinds[kind_name].collection
        ids = program.collections.get(kind_name, ())
        for name, decl in fields.items():
            declared = decl.declared.type
            if (
                declared.name == "list"
                and declared.element is not None
                and declared.element.name == "player"
                and ids
            ):
                found.append(
                    Observable(
                        "player",
                        f"count:{collection}.{name}[]",
                        f"sum(count_of(c.{name}, {{}}) for c in {collection})",
                        "int",
                        _component_list_count(ids, name),
                        True,
                    )
                )
            if declared.name != "player" or not ids:
                continue
            found.append(
                Observable(
                    "player",
                    f"count:{collection}.{name}",
                    f"count(c for c in {collection} if c.{name} == {{}})",
                    "int",
                    _component_count(ids, name),
                    True,
                )
            )
    return found


def held_observables(program: Program) -> list[Observable]:
    """Per list or set of components of a player (a hand): the sum of each whole-number
    attribute over it (kind ``int``, key ``sum:FIELD.ATTRIBUTE``) and the values of each
    attribute among it (kind ``values``, key ``values:FIELD.ATTRIBUTE``: a sorted tuple,
    its text the list of them)."""
    found: list[Observable] = []
    for name, decl in program.rules.fields.get("player", {}).items():
        declared = decl.declared.type
        element = declared.element
        if declared.name not in ("list", "set") or element is None or element.name != "entity":
            continue
        kind = program.rules.kinds.get(str(element.kind))
        ids = program.collections.get(str(element.kind), ())
        if kind is None or not ids:
            continue
        for attribute in sorted(kind.attributes):
            if kind.attributes[attribute].type.name == "int":
                text = f"sum(c.{attribute} for c in {{}}.{name})"
                found.append(
                    Observable(
                        "player", f"sum:{name}.{attribute}", text, "int", _sum(program, name, attribute), True
                    )
                )
            text = f"[c.{attribute} for c in {{}}.{name}]"
            found.append(
                Observable(
                    "player",
                    f"values:{name}.{attribute}",
                    text,
                    "values",
                    _values(program, name, attribute),
                    True,
                )
            )
    return found


def _sum(program: Program, name: str, attribute: str) -> Reader:
    def read(fields: Fields, owner: Any) -> int | None:
        value = fields.get((owner, name))
        if not isinstance(value, (tuple, list, frozenset, set)):
            return None
        total = 0
        for item in value:
            amount = program.attributes.get((item, attribute))
            if type(amount) is not int:
                return None
            total += amount
        return total

    return read


def _values(program: Program, name: str, attribute: str) -> Reader:
    def read(fields: Fields, owner: Any) -> tuple[Any, ...] | None:
        value = fields.get((owner, name))
        if not isinstance(value, (tuple, list, frozenset, set)):
            return None
        return tuple(sorted((program.attributes.get((item, attribute)) for item in value), key=repr))

    return read


def _field(scope: str, name: str) -> Reader:
    if scope == "player":
        return lambda fields, owner: fields.get((owner, name))
    return lambda fields, owner: fields.get((scope, name))


def _size(scope: str, name: str) -> Reader:
    def read(fields: Fields, owner: Any) -> int | None:
        value = fields.get((owner if scope == "player" else scope, name))
        return len(value) if isinstance(value, (tuple, list, dict, frozenset, set)) else None

    return read


def _map_count(name: str) -> Reader:
    def read(fields: Fields, owner: Any) -> int | None:
        value = fields.get(("game", name))
        return sum(1 for v in value.values() if v == owner) if isinstance(value, dict) else None

    return read


def _component_count(ids: tuple[str, ...], name: str) -> Reader:
    return lambda fields, owner: sum(1 for i in ids if fields.get((i, name)) == owner)


def _component_list_count(ids: tuple[str, ...], name: str) -> Reader:
    def read(fields: Fields, owner: Any) -> int:
        return sum(
            sum(1 for v in value if v == owner)
            for i in ids
            if isinstance(value := fields.get((i, name)), (tuple, list))
        )

    return read


def snapshot(fields: Fields, watched: list[Observable], players: int) -> dict[tuple[Any, str], Any]:
    """Every observable's value in a state (``fields``), by (owner, key)."""
    return {(owner, o.key): o.read(fields, owner) for o in watched for owner in o.owners(players)}
