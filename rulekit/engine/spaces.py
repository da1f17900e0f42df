"""Fixed-size spaces over a game: stable integer actions and per-player observations.

Reinforcement-learning and search libraries (OpenSpiel, PettingZoo) want every move
as an integer below a known bound, the same integer meaning the same move in every
state, and observations of a fixed shape.  Both are derived here from the ruleset
alone (action parameters, field declarations and their visibility); no game code.

**Actions.**  Every parameter gets a finite *universe* of values, in this order of
preference:

1. its static type, when that is finite: a component kind (all its ids, in
   declaration order), ``player`` (``P1..Pn``), ``owner`` (the bank, then the
   players) or ``bool``;
2. its domain expression, when that reads no state (literals, constants,
   collections, ``range`` and other pure built-ins over those): the evaluated list;
3. otherwise the parameter is *open* and its values are numbers in a box (half-width
   ``bound``: the ruleset's ``spaces: {bound: N}``, else 12):
   ``int`` -> the integers ``-bound..bound``; ``tuple`` -> pairs of those;
   ``any`` -> those integers, then those pairs.

An action's integer is ``offset(action) + mixed-radix index of its arguments`` (the
first parameter is the most significant digit); actions are numbered in the order
the ruleset declares them.  A legal move outside the space (an open value beyond
``bound``) raises a :class:`~rulekit.errors.RulekitError` naming the move: nothing
is dropped silently.

**Observations.**  ``observation_text`` is what :meth:`State.view` shows the player,
as text: who decides now and every declared field, hidden contents replaced by their
size.  ``ObservationEncoder`` lays every declared field out in a flat float vector:
ints and bools as one number, players and component references one-hot, lists of
components or players as counts per id plus the length; any other value (maps,
lists of numbers, text) by its size only.  What the viewer may not see is encoded
as zeros, except the size of a list.
"""

from __future__ import annotations

import bisect
import itertools
import json
from collections.abc import Iterator, Sequence
from typing import Any

from rulekit.compiler.program import CompiledAction, Program
from rulekit.dsl import ast
from rulekit.dsl import types as t
from rulekit.dsl.printer import print_expr
from rulekit.engine.game import Action, Game, State
from rulekit.engine.information import unseen
from rulekit.engine.values import format_value
from rulekit.errors import Diagnostic, RulekitError
from rulekit.runtime.builtins import BUILTINS
from rulekit.runtime.errors import RuleFailure

#: The default half-width of the box that open parameters' values must lie in.
DEFAULT_BOUND = 12


def default_bound(program: Program) -> int:
    """The box of open parameters: the ruleset's ``spaces.bound``, else :data:`DEFAULT_BOUND`."""
    declared = program.rules.space_bound
    return DEFAULT_BOUND if declared is None else declared


def uses_randomness(program: Program) -> bool:
    """Whether the rules ever draw from the game's seeded RNG (a built-in whose
    implementation calls the runtime's ``random_below``, ``shuffled`` or ``pick``: a chance step)."""
    for name, builtin in BUILTINS.items():
        code = getattr(builtin.impl, "__code__", None)
        if code is None or not {"random_below", "shuffled", "pick"} & set(code.co_names):
            continue
        if f"_{name}(" in program.source:
            return True
    return False


class ParamUniverse:
    """The finite, ordered set of values one action parameter can take."""

    __slots__ = ("index", "name", "source", "values")

    def __init__(self, name: str, values: Sequence[Any], source: str) -> None:
        self.name = name
        self.values = tuple(values)
        self.index = {_key(v): i for i, v in enumerate(self.values)}
        #: How the universe was found: ``type``, ``constant`` or ``open``.
        self.source = source

    def __len__(self) -> int:
        return len(self.values)


def _key(value: Any) -> Any:
    # True == 1 in Python: keep them apart.  (Ids read from YAML are str subclasses and
    # equal to the plain strings of a parsed action, so they share a key.)
    return (isinstance(value, bool), value)


class ActionSpace:
    """Every move of a game as a stable integer ``0 <= id < size``."""

    def __init__(self, game: Game, bound: int | None = None) -> None:
        if bound is None:
            bound = default_bound(game.program)
        if bound < 0:
            raise ValueError(f"bound must be 0 or more, not {bound}")
        self.game = game
        self.bound = bound
        program = game.program
        self.actions: tuple[CompiledAction, ...] = tuple(program.actions.values())
        self.universes: dict[str, tuple[ParamUniverse, ...]] = {}
        self.offsets: list[int] = []
        self._offset_of: dict[str, int] = {}
        total = 0
        probe = game.new_initial_state(0)
        for compiled in self.actions:
            universes = tuple(self._universe(compiled, i, probe) for i in range(len(compiled.params)))
            self.universes[compiled.name] = universes
            self.offsets.append(total)
            self._offset_of[compiled.name] = total
            total += _product(len(u) for u in universes)
        self.size = total

    # ------------------------------------------------------------ encoding
    def encode(self, action: Action) -> int:
        """The integer of ``action``.

        Raises:
            RulekitError: the action is outside the space (an open value beyond ``bound``).
        """
        universes = self.universes[action.name]
        number = 0
        for universe, value in zip(universes, action.args, strict=True):
            digit = universe.index.get(_key(value))
            if digit is None:
                raise RulekitError(
                    Diagnostic(
                        f"{self.game.action_to_string(action)} is outside the integer action space: "
                        f"{format_value(value)} is not among the {len(universe)} values of '{universe.name}'",
                        hint=f"open parameters take integers within +-{self.bound}; "
                        "load the game with a larger bound (or declare spaces.bound in the ruleset)",
                    )
                )
            number = number * len(universe) + digit
        return self._offset_of[action.name] + number

    def decode(self, number: int) -> Action:
        """The action numbered ``number`` (legal or not).

        Raises:
            ValueError: ``number`` is outside ``0..size-1``.
        """
        if not 0 <= number < self.size:
            raise ValueError(f"action {number} is outside 0..{self.size - 1}")
        position = bisect.bisect_right(self.offsets, number) - 1
        # An action with an empty universe takes no integers; bisect_right skips it.
        compiled = self.actions[position]
        rest = number - self.offsets[position]
        digits = []
        for universe in reversed(self.universes[compiled.name]):
            rest, digit = divmod(rest, len(universe))
            digits.append(universe.values[digit])
        return Action(compiled.name, tuple(reversed(digits)))

    def legal_ids(self, state: State) -> list[int]:
        """The current player's legal actions as sorted integers."""
        return sorted(self.encode(a) for a in state.legal_actions())

    def describe(self) -> Iterator[str]:
        """One line per action: its integers and each parameter's universe."""
        for compiled, offset in zip(self.actions, self.offsets, strict=True):
            universes = self.universes[compiled.name]
            count = _product(len(u) for u in universes)
            params = ", ".join(f"{u.name}: {len(u)} ({u.source})" for u in universes)
            yield f"{offset:>8}..{offset + count - 1:<8} {compiled.name}({params})"

    # ------------------------------------------------------------ universes
    def _universe(self, compiled: CompiledAction, i: int, probe: State) -> ParamUniverse:
        name = compiled.params[i]
        type_ = compiled.param_types[i]
        game = self.game
        if type_.name == "entity" and type_.kind is not None:
            return ParamUniverse(name, game.program.collections[type_.kind], "type")
        if type_ == t.PLAYER:
            return ParamUniverse(name, range(game.num_players), "type")
        if type_ == t.OWNER:
            return ParamUniverse(name, (-1, *range(game.num_players)), "type")
        if type_ == t.BOOL:
            return ParamUniverse(name, (False, True), "type")
        domain = compiled.decl.params[i].domain
        if _reads_no_state(domain, game.program):
            fn, _ = game.program.compile_expression(
                print_expr(domain),
                params=tuple(zip(compiled.params[:i], compiled.param_types[:i], strict=True)),
            )
            try:
                values = fn(probe.fields, game.runtime, 0, *([None] * i))
            except (RuleFailure, ArithmeticError, LookupError, TypeError, ValueError):
                values = None  # it fails in every state, so no move uses it; still, stay open
            if values is not None:
                unique = list(dict.fromkeys(v for v in values if v is not None))
                return ParamUniverse(name, unique, "constant")
        ints = list(range(-self.bound, self.bound + 1))
        pairs = list(itertools.product(ints, ints))
        if type_ == t.INT:
            return ParamUniverse(name, ints, "open")
        if type_ == t.TUPLE:
            return ParamUniverse(name, pairs, "open")
        return ParamUniverse(name, ints + pairs, "open")


def _product(sizes: Iterator[int]) -> int:
    result = 1
    for size in sizes:
        result *= size
    return result


def _reads_no_state(node: ast.Expr, program: Program) -> bool:
    """Whether an expression is built only from literals, constants, collections and
    pure built-ins, so that it has the same value in every state."""
    rules = program.rules
    if isinstance(node, ast.Literal):
        return True
    if isinstance(node, ast.ListExpr | ast.TupleExpr):
        return all(_reads_no_state(item, program) for item in node.items)
    if isinstance(node, ast.Name):
        collections = {kind.collection for kind in rules.kinds.values()}
        return node.id in rules.constants or node.id in collections or node.id == "num_players"
    if isinstance(node, ast.Call):
        builtin = BUILTINS.get(node.function)
        return (
            builtin is not None
            and not builtin.effect
            and not builtin.fields
            and all(_reads_no_state(a, program) for a in node.args)
            and all(_reads_no_state(k.value, program) for k in node.keywords)
        )
    if isinstance(node, ast.Unary):
        return _reads_no_state(node.operand, program)
    if isinstance(node, ast.Binary):
        return _reads_no_state(node.left, program) and _reads_no_state(node.right, program)
    if isinstance(node, ast.Conditional):
        return all(_reads_no_state(n, program) for n in (node.condition, node.then, node.otherwise))
    return False


# ---------------------------------------------------------------- observations
def observation_text(state: State, player: int | None) -> str:
    """What ``player`` sees (``None``: a spectator), one ``field=value`` line each;
    hidden contents appear as their size.  The same as :meth:`State.view`, as text."""
    return ObservationEncoder.of(state.game).text(state, player)


class _Slot:
    __slots__ = ("encoding", "ids", "key", "label", "offset", "width")

    def __init__(self, key: tuple[Any, str], encoding: str, ids: dict[Any, int], width: int) -> None:
        self.key = key
        owner, name = key
        self.label = f"P{owner + 1}.{name}" if isinstance(owner, int) else f"{owner}.{name}"
        self.encoding = encoding
        self.ids = ids
        self.width = width
        self.offset = 0


class ObservationEncoder:
    """A flat float vector of everything one player may see, laid out from the
    ruleset's field declarations (the same layout in every state)."""

    def __init__(self, game: Game) -> None:
        self.game = game
        program = game.program
        n = game.num_players
        players = {p: p for p in range(n)}
        self.slots: list[_Slot] = []
        for scope, fields in program.rules.fields.items():
            for name in fields:
                type_ = program.field_types[scope][name]
                for owner in game.owners(scope):
                    self.slots.append(self._slot((owner, name), type_, players))
        # Engine part: the observing player, then who decides now (n = nobody).
        self.header = 2 * n + 1
        offset = self.header
        for slot in self.slots:
            slot.offset = offset
            offset += slot.width
        self.size = offset

    @classmethod
    def of(cls, game: Game) -> ObservationEncoder:
        """The encoder of ``game`` (made once per game object, kept with it)."""
        encoder = game.derived.get(cls)
        if encoder is None:
            encoder = game.derived[cls] = cls(game)
        return encoder

    def text(self, state: State, player: int | None) -> str:
        """What ``player`` sees: who decides, then each field (hidden contents as their size)."""
        current = state.current_player()
        shown = "nobody" if current < 0 else f"P{current + 1} ({', '.join(state.allowed_action_names())})"
        lines = [f"decides={shown}", f"moves={state.moves()}"]
        fields = state.fields
        hidden = unseen(state, player)
        for slot in self.slots:
            value = fields[slot.key]
            if slot.key in hidden:
                lines.append(f"{slot.label}=hidden({_size(value)})")
            else:
                lines.append(f"{slot.label}={_text(value)}")
        told = state.told(player)
        if told:  # private notes to this player only (never in another's observation)
            lines.append(f"told={_text(told)}")
        return "\n".join(lines)

    def _slot(self, key: tuple[Any, str], type_: t.Type, players: dict[Any, int]) -> _Slot:
        program = self.game.program
        if type_ in (t.INT, t.BOOL):
            return _Slot(key, "number", {}, 1)
        if type_ in (t.PLAYER, t.OWNER):
            return _Slot(key, "one_hot", players, len(players) + 1)
        if type_.name == "entity" and type_.kind is not None:
            ids = _ids(program, type_.kind)
            return _Slot(key, "one_hot", ids, len(ids) + 1)
        if type_.is_list and type_.element is not None:
            element = type_.element
            if element == t.PLAYER:
                return _Slot(key, "counts", players, len(players) + 1)
            if element.name == "entity" and element.kind is not None:
                ids = _ids(program, element.kind)
                return _Slot(key, "counts", ids, len(ids) + 1)
        return _Slot(key, "size", {}, 1)

    def encode(self, state: State, player: int) -> list[float]:
        """The observation vector of ``player`` (``size`` floats)."""
        n = self.game.num_players
        vector = [0.0] * self.size
        vector[player] = 1.0
        current = state.current_player()
        vector[n + (current if 0 <= current < n else n)] = 1.0
        fields = state.fields
        hidden = unseen(state, player)
        for slot in self.slots:
            value = fields[slot.key]
            visible = slot.key not in hidden
            base = slot.offset
            encoding = slot.encoding
            if encoding == "number":
                if visible:
                    vector[base] = float(value)
            elif encoding == "one_hot":
                if visible:
                    vector[base + slot.ids.get(value, slot.width - 1)] = 1.0
            elif encoding == "counts":
                if visible:
                    ids = slot.ids
                    for item in value:
                        position = ids.get(item)
                        if position is not None:
                            vector[base + position] += 1.0
                vector[base + slot.width - 1] = float(len(value))
            elif visible or isinstance(value, tuple | dict):
                vector[base] = float(_size(value))
        return vector

    def describe(self) -> Iterator[str]:
        """One line per slot: where it starts, its width and how it is encoded."""
        n = self.game.num_players
        yield f"{0:>6} {n:>4}  observer (one-hot)"
        yield f"{n:>6} {n + 1:>4}  current player (one-hot, last = nobody)"
        for slot in self.slots:
            owner, name = slot.key
            shown = f"P{owner + 1}" if isinstance(owner, int) else owner
            yield f"{slot.offset:>6} {slot.width:>4}  {shown}.{name} ({slot.encoding})"


def _text(value: Any) -> str:
    if value is None:
        return "none"
    if value is True or value is False:
        return "true" if value else "false"
    if isinstance(value, tuple):
        return "[" + ", ".join(_text(v) for v in value) + "]"
    if isinstance(value, dict):
        return "{" + ", ".join(f"{_text(k)}: {_text(v)}" for k, v in value.items()) + "}"
    if isinstance(value, str):
        return str(value) if value.isidentifier() else json.dumps(str(value))
    return str(value)


def _ids(program: Program, kind: str) -> dict[Any, int]:
    return {id_: i for i, id_ in enumerate(program.collections[kind])}


def _size(value: Any) -> int:
    """The size a hidden value shows, as ``State.view`` gives it: a list's or map's length,
    else 1 (a hidden text's length or a hidden id's spelling would tell what it is)."""
    return len(value) if isinstance(value, tuple | dict) else 1
