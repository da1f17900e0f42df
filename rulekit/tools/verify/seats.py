"""The seat-relabelling check (``engine:seat-symmetry``): a metamorphic test that needs no oracle.

Rules that never single out a seat (no ``player_at``, no ``seat``, no component or constant
naming a player) treat the players alike: rotating the seats (P1 becomes P2, P2 becomes P3,
..., the last becomes P1) in a state and in an action must rotate the result the same way. So
before an action the state is rotated, the rotated action applied to it, and the outcome
compared with the real one rotated: the legal actions before, every field after (notes and
private messages, which are text, aside), and at the end every player's standing (score and
tie-breaks). A rule that reads a seat by its number where it should not (a draw scored for
``player_at(2)``) is found; one that pays the wrong player in a seat-blind way (``next_player``
instead of ``me``) rotates with the seats and is not.

A rotation keeps the seats' cyclic order, so ``next_player`` and ``players_from`` rotate too.
The check is skipped (and says why, :func:`asymmetry`) for rules that name seats, and for
states it cannot rotate: a ``for_each`` of the flow under way (its items are not typed at run
time) or a pending ``ask``.
"""

from __future__ import annotations

from collections.abc import Iterator, Sequence
from typing import Any

from rulekit.compiler.program import Program
from rulekit.dsl import ast
from rulekit.dsl import types as t
from rulekit.engine.game import Action, State

#: Calls that single out a seat by its number.
SEAT_CALLS = frozenset({"player_at", "seat"})
#: The engine's fields that hold players (see rulekit/engine/flow.py and game.py).
_ENGINE = "_"
#: Text fields: not compared (a note names the player in words).
_TEXT = frozenset({(_ENGINE, "notes"), (_ENGINE, "told")})


def asymmetry(program: Program) -> str | None:
    """Why the rules may treat seats differently (``None``: nothing in them singles one out)."""
    rules = program.rules
    for kind in rules.kinds.values():
        for name, declared in kind.attributes.items():
            if names_players(declared.type):
                return f"component attribute {kind.name}.{name} names a player"
    for constant in rules.constants.values():
        if constant.declared is not None and names_players(constant.declared.type):
            return f"constant {constant.name} names a player"
    for scope, fields in program.field_types.items():
        for name, type_ in fields.items():
            if _untyped(type_):
                return f"field {scope}.{name} may hold players without saying so ({type_})"
    parts: Sequence[tuple[str, Any]] = [
        *((f"action {n}", a) for n, a in rules.actions.items()),
        *((f"trigger {n}", tr) for n, tr in rules.triggers.items()),
        ("the flow", rules.flow),
        ("the scoring", rules.scoring),
    ]
    callables = {
        **{f"function {n}": f for n, f in rules.functions.items()},
        **{f"procedure {n}": p for n, p in rules.procedures.items()},
    }
    seen: set[str] = set()
    while parts:
        where, part = parts[0]
        parts = parts[1:]
        for call in _calls(part, 0):
            if call in SEAT_CALLS:
                return f"{where} calls {call}()"
            for name in (f"function {call}", f"procedure {call}"):
                if name in callables and name not in seen:
                    seen.add(name)
                    parts = [*parts, (name, callables[name])]
    return None


def names_players(type_: t.Type) -> bool:
    if type_.name in ("player", "owner"):
        return True
    inner = [type_.element, type_.key, *(ft for _, ft in type_.fields or ())]
    return any(i is not None and names_players(i) for i in inner)


def _untyped(type_: t.Type) -> bool:
    if type_ == t.ANY or (type_.is_map and type_.key is None):
        return True
    inner = [type_.element, type_.key, *(ft for _, ft in type_.fields or ())]
    return any(i is not None and _untyped(i) for i in inner)


def _calls(node: Any, depth: int) -> Iterator[str]:
    """The functions called anywhere in ``node`` (a rules model part)."""
    if depth > 200:
        return
    if isinstance(node, ast.Call):
        yield node.function
    if isinstance(node, (tuple, list)):
        for item in node:
            yield from _calls(item, depth + 1)
    elif isinstance(node, dict):
        for item in node.values():
            yield from _calls(item, depth + 1)
    elif hasattr(node, "__attrs_attrs__"):
        for attribute in node.__attrs_attrs__:
            yield from _calls(getattr(node, attribute.name), depth + 1)


class Relabeller:
    """Rotates the seats in states and actions of one program and player count."""

    def __init__(self, program: Program, players: int, shift: int = 1) -> None:
        self.program = program
        self.sigma = [(p + shift) % players for p in range(players)]
        self.kind_of = {item.id: kind.name for kind in program.rules.kinds.values() for item in kind.items}
        self.turn_nodes = {i for i, node in enumerate(program.flow) if node.kind == "turn"}
        self.each_nodes = {i for i, node in enumerate(program.flow) if node.kind == "for_each"}

    def value(self, value: Any, type_: t.Type) -> Any:
        if value is None:
            return None
        if type_.name in ("player", "owner"):
            return self.sigma[value] if isinstance(value, int) and value >= 0 else value
        if type_.is_list and type_.element is not None and isinstance(value, tuple):
            return tuple(self.value(v, type_.element) for v in value)
        if type_.is_map and type_.key is not None and isinstance(value, dict):
            element = type_.element or t.ANY
            return {self.value(k, type_.key): self.value(v, element) for k, v in value.items()}
        if type_.is_record and isinstance(value, dict):
            return {k: self.value(v, type_.field(k) or t.ANY) for k, v in value.items()}
        return value

    def state(self, fields: dict[Any, Any]) -> dict[Any, Any] | None:
        """The fields with the seats rotated (``None``: a state this check cannot rotate)."""
        types = self.program.field_types
        out: dict[Any, Any] = {}
        for (owner, name), value in fields.items():
            if owner == _ENGINE:
                if name == "asks" and value:
                    return None
                if name == "decision" and value is not None:
                    value = (self.sigma[value[0]], *value[1:])
                elif name == "turn" and isinstance(value, int) and value >= 0:
                    value = self.sigma[value]  # the player whose turn it is
                elif name == "flow":
                    frames = []
                    for frame in value:
                        if frame[0] in self.each_nodes:
                            return None
                        if frame[0] in self.turn_nodes and isinstance(frame[1], int) and frame[1] >= 0:
                            frame = (frame[0], self.sigma[frame[1]], *frame[2:])
                        frames.append(frame)
                    value = tuple(frames)
                out[(owner, name)] = value
            elif isinstance(owner, int) and not isinstance(owner, bool):
                out[(self.sigma[owner], name)] = self.value(value, types["player"][name])
            elif owner in ("game", "turn"):
                out[(owner, name)] = self.value(value, types[owner][name])
            else:
                kind = self.kind_of.get(owner)
                type_ = types.get(kind or "", {}).get(name, t.ANY)
                out[(owner, name)] = self.value(value, type_)
        return out

    def action(self, action: Action) -> Action:
        compiled = self.program.actions[action.name]
        args = tuple(self.value(a, ty) for a, ty in zip(action.args, compiled.param_types, strict=False))
        return Action(action.name, args)


def first_difference(real: dict[Any, Any], other: dict[Any, Any]) -> tuple[Any, Any, Any] | None:
    """The first field (in a stable order: the rules' fields before the engine's own
    bookkeeping under ``_``) where two states differ, text fields aside."""
    for key in sorted(set(real) | set(other), key=lambda k: (k[0] == "_", repr(k))):
        if key in _TEXT:
            continue
        if real.get(key) != other.get(key):
            return key, real.get(key), other.get(key)
    return None


def rotated_run(relabeller: Relabeller, before: State, action: Action) -> tuple[State, Action] | None:
    """``before`` rotated, as a state of the same game, and the rotated action (``None``: the
    state cannot be rotated)."""
    fields = relabeller.state(before.fields)
    if fields is None:
        return None
    return State(before.game, fields), relabeller.action(action)
