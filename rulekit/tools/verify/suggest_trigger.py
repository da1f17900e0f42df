"""``verify --suggest``: the relations mined per trigger firing (a trigger's ``ensures:``).

Most payouts of a big game happen inside triggers fired by the flow (a payday) or by an
action's event; mined per action they are mixed with everything else the action does. Here
each firing is a transition of its own: the observables just before and just after the
trigger's effect (:func:`rulekit.engine.triggers.watch`), with its parameters bound (the
event's, or the action's and ``me``). Its firings are mined as an action's applications are
(:func:`~rulekit.tools.verify.suggest_action.per_action`: amounts, whose values change,
frames; :func:`~rulekit.tools.verify.suggest_if.conditional`: conditional splits), and, for a
trigger that pays every player, per player:

* every-amount: each player's change is a value of hers before, or an entry of a table of
  constants indexed by one (``all(after(p.money) == before(p.money) + get(PROLIFERATION,
  before(proliferation_count(p)), last(PROLIFERATION)) for p in players)``);
* every-none: the players for whom a count of hers was 0 before receive nothing
  (``all(after(p.money) == before(p.money) for p in players if before(OBS) == 0)``).

Besides the fields, sizes and counts of :mod:`rulekit.tools.verify.observe`, the ruleset's
own functions of one player returning a whole number (``proliferation_count(p)``) are
observed at each firing: an amount or a condition may read them.

Also here: a whole-number field that starts at 0 and, once non-zero, never changes (a bonus
card taken), over every action and as the ensures of each trigger that sets it; and *when* a
trigger fires: a whole number of the game that, at every firing, was one of a few values with
a gap between them that the game passed through without a firing (a scoring after rounds 4 and
7 only: ``before(game.round) in SCORING_ROUNDS``, named by the constant list of exactly those
values if there is one). An action's legality is in its requirements, where an author reads
it; a trigger's timing often hides in the flow (an ``emit`` in a step, a ``when:``), so this
is said of triggers only.
"""

from __future__ import annotations

from collections.abc import Callable, Iterable
from typing import Any

from rulekit.compiler.program import Program
from rulekit.dsl import ast
from rulekit.dsl import types as t
from rulekit.engine.game import Game
from rulekit.engine.triggers import watch
from rulekit.errors import RulekitError
from rulekit.tools.verify.observe import Observable, snapshot
from rulekit.tools.verify.properties import trigger_params
from rulekit.tools.verify.suggest_action import MAX_ONE_OF, Confidence, changers, per_action
from rulekit.tools.verify.suggest_if import conditional
from rulekit.tools.verify.suggest_model import Signature, Step, Suggestion

#: Watched firings, by trigger.
Firings = dict[str, list[Step]]


class Functions:
    """The ruleset's functions of one player returning a whole number, as observables (read
    with the runtime of the game being watched: :attr:`runtime`)."""

    def __init__(self, program: Program) -> None:
        self.runtime: Any = None
        self.observables: list[Observable] = []
        for name, decl in program.rules.functions.items():
            if len(decl.params) != 1:
                continue
            param = decl.params[0][0]
            try:
                fn, type_ = program.compile_function(
                    ast.Call(name, (ast.Name(param),)), params=[(param, t.PLAYER)], me=False
                )
            except RulekitError:
                continue  # not a function of a player
            if type_ == t.INT:
                self.observables.append(
                    Observable("player", f"fn:{name}", f"{name}({{}})", "int", self._reader(fn), True)
                )

    def _reader(self, fn: Callable[..., Any]) -> Callable[[Any, Any], Any]:
        def read(fields: Any, owner: Any) -> Any:
            try:
                self.runtime.reset_steps()
                value = fn(fields, self.runtime, -1, owner)
            except Exception:  # a function that fails in some state reads nothing there
                return None
            return value if type(value) is int else None

        return read


class TriggerWatch:
    """Records every trigger firing of the games it is installed on (:meth:`install`)."""

    def __init__(self, program: Program, watched: list[Observable]) -> None:
        self.program = program
        self.functions = Functions(program)
        self.watched = [*watched, *self.functions.observables]
        self.firings: Firings = {}
        self.signatures = {name: _signature(program, name) for name in program.rules.triggers}

    def install(self, game: Game) -> None:
        players = game.num_players
        runtime = game.runtime

        def fired(name: str, before: Any, after: Any, me: int, args: tuple[Any, ...]) -> None:
            self.functions.runtime = runtime
            R = runtime
            budget = (R.max_steps, R.left, R.charged)  # the functions read: not the action's steps
            try:
                step = Step(
                    name,
                    me,
                    args,
                    snapshot(before, self.watched, players),
                    snapshot(after, self.watched, players),
                    players,
                )
            finally:
                R.max_steps, R.left, R.charged = budget
            self.firings.setdefault(name, []).append(step)

        watch(game, fired)


def _signature(program: Program, name: str) -> Signature:
    params, me = trigger_params(program, name)
    return Signature(tuple(p for p, _ in params), tuple(ty for _, ty in params), me)


def per_trigger(tw: TriggerWatch, actions: list[Step], confidence: Confidence) -> list[Suggestion]:
    """The postconditions of every trigger that fired often enough in the games watched."""
    everything = [*actions, *(s for steps in tw.firings.values() for s in steps)]
    changed = changers(everything, tw.watched)
    found: list[Suggestion] = []
    for name in tw.program.rules.triggers:
        mine = tw.firings.get(name, [])
        if len(mine) < confidence.support:
            continue
        signature = tw.signatures[name]
        mined = per_action(name, mine, everything, changed, tw.watched, tw.program, confidence, signature)
        mined += conditional(name, mine, tw.program, tw.watched, confidence, mined, signature=signature)
        mined += every_player(name, mine, tw.watched, tw.program, confidence, signature)
        mined += set_once(mine, tw.watched, confidence, f"in all {len(mine)} '{name}' firings watched")
        mined += fires_at(name, mine, everything, tw.watched, tw.program, confidence)
        for s in mined:
            s.trigger, s.action = name, None
            if s.relation == "set-once":
                s.message = s.message.replace("suggested: ", f"suggested: in '{name}', ", 1)
        found += mined
    return found


# ---------------------------------------------------------------- over every player


def every_player(
    name: str,
    mine: list[Step],
    watched: list[Observable],
    program: Program,
    confidence: Confidence,
    signature: Signature,
) -> list[Suggestion]:
    """Each player's change in a trigger's firings: an amount of hers (every-amount), nothing
    for a player whose count was 0 (every-none) -- of a trigger that changes the value of a
    player it is not given (``me``, a player parameter): one that goes over every player."""
    said = f"in all {len(mine)} '{name}' firings watched"
    rows = [(s, p) for s in mine for p in range(s.players)]
    mine_int = [o for o in watched if o.scope == "player" and o.kind == "int"]
    tables = [
        (c.name, c.value)
        for c in program.rules.constants.values()
        if isinstance(c.value, (tuple, list)) and c.value and all(type(v) is int for v in c.value)
    ]
    found: list[Suggestion] = []
    for o in mine_int:
        if o.derived or not _unbound(mine, o.key, signature):
            continue
        deltas = [_delta(s, p, o.key) for s, p in rows]
        if any(d is None for d in deltas) or sum(1 for d in deltas if d) < confidence.changes:
            continue
        read = o.text("p")
        amount = _every_amount(o, deltas, rows, mine_int, tables, confidence)
        if amount is not None:
            text, sign = amount
            found.append(
                Suggestion(
                    name,
                    f"all(after({read}) == before({read}) {sign} {text} for p in players)",
                    f"suggested: every player's {read} changes by {sign}{text} ({said})",
                    len(mine),
                    relation="every-amount",
                )
            )
            continue
        kept: list[frozenset[int]] = []
        for other in mine_int:
            if other is o:
                continue
            values = [s.before.get((p, other.key)) for s, p in rows]
            zero = frozenset(i for i, v in enumerate(values) if v == 0)
            if len(zero) < confidence.changes or zero in kept:
                continue
            paid = sum(1 for i, d in enumerate(deltas) if d and i not in zero)
            if paid < confidence.changes or any(deltas[i] for i in zero):
                continue
            kept.append(zero)
            condition = f"before({other.text('p')}) == 0"
            found.append(
                Suggestion(
                    name,
                    f"all(after({read}) == before({read}) for p in players if {condition})",
                    f"suggested: a player with {other.text('p')} 0 gets no change of {read} ({said})",
                    len(mine),
                    relation="every-none",
                )
            )
    return found


def _every_amount(
    o: Observable,
    deltas: list[Any],
    rows: list[tuple[Step, int]],
    candidates: list[Observable],
    tables: list[tuple[str, Any]],
    confidence: Confidence,
) -> tuple[str, str] | None:
    """A value of each player's before (or a table's entry it indexes) equal to her change."""
    for other in candidates:
        if other is o:
            continue
        values: list[int] = [s.before.get((p, other.key)) for s, p in rows]  # type: ignore[misc]
        if any(type(v) is not int for v in values):
            continue
        options: list[tuple[str, list[Any]]] = [(f"before({other.text('p')})", values)]
        for table, entries in tables:
            options.append(
                (
                    f"get({table}, before({other.text('p')}), last({table}))",
                    [
                        entries[v] if 0 <= v < len(entries) else entries[-1] if v >= 0 else None
                        for v in values
                    ],
                )
            )
        for text, amounts in options:
            if len({a for a in amounts if type(a) is int}) < confidence.distinct:
                continue
            for factor, sign in ((1, "+"), (-1, "-")):
                if all(type(a) is int and d == factor * a for d, a in zip(deltas, amounts, strict=True)):
                    return text, sign
    return None


def _unbound(mine: list[Step], key: str, signature: Signature) -> bool:
    """Whether some firing changed ``key`` of a player the trigger is not given."""
    given = [i for i, ty in enumerate(signature.param_types) if ty.name == "player"]
    for s in mine:
        bound = {s.args[i] for i in given} | ({s.me} if signature.me else set())
        if any(s.before.get((p, key)) != s.after.get((p, key)) for p in range(s.players) if p not in bound):
            return True
    return False


def _delta(step: Step, owner: Any, key: str) -> int | None:
    a, b = step.before.get((owner, key)), step.after.get((owner, key))
    return b - a if type(a) is int and type(b) is int else None


# ---------------------------------------------------------------- set once


def set_once(
    steps: Iterable[Step], watched: list[Observable], confidence: Confidence, said: str
) -> list[Suggestion]:
    """Whole-number fields that, once non-zero, never change in ``steps`` (and were set from 0
    in at least ``Confidence.changes`` of them)."""
    steps = list(steps)
    found: list[Suggestion] = []
    for o in watched:
        if o.kind != "int" or o.derived or o.scope == "turn":
            continue
        pairs = [
            (s.before.get((w, o.key)), s.after.get((w, o.key))) for s in steps for w in o.owners(s.players)
        ]
        if any(type(a) is not int or type(b) is not int for a, b in pairs):
            continue
        if any(a != 0 and b != a for a, b in pairs):
            continue
        if sum(1 for a, b in pairs if a == 0 and b != 0) < confidence.changes:
            continue
        read = o.text("p")
        holds = f"before({read}) == 0 or after({read}) == before({read})"
        found.append(
            Suggestion(
                None,
                f"all({holds} for p in players)" if o.scope == "player" else holds,
                f"suggested: {o.text('player')}, once non-zero, never changes ({said})",
                len(pairs),
                relation="set-once",
            )
        )
    return found


# ---------------------------------------------------------------- when it fires


def fires_at(
    name: str,
    mine: list[Step],
    steps: list[Step],
    watched: list[Observable],
    program: Program,
    confidence: Confidence,
) -> list[Suggestion]:
    """The few values a whole number of the game had at every firing of ``name``, when the
    game also passed, without a firing, through a value between them (``steps``: every action
    and firing watched): ``before(game.round) in SCORING_ROUNDS``."""
    found: list[Suggestion] = []
    for o in watched:
        if o.kind != "int" or o.scope != "game":
            continue
        read = [s.before.get(("game", o.key)) for s in mine]
        values = [v for v in read if type(v) is int]
        if len(values) < len(read):
            continue
        chosen = sorted(set(values))
        if not 2 <= len(chosen) <= MAX_ONE_OF or any(values.count(v) < confidence.changes for v in chosen):
            continue
        gaps = {
            v
            for s in steps
            for v in (s.before.get(("game", o.key)), s.after.get(("game", o.key)))
            if type(v) is int and chosen[0] < v < chosen[-1] and v not in chosen
        }
        if not gaps:
            continue
        text = o.text()
        listed = _constant_list(program, chosen) or f"[{', '.join(str(v) for v in chosen)}]"
        passed = ", ".join(str(v) for v in sorted(gaps))
        found.append(
            Suggestion(
                None,
                f"before({text}) in {listed}",
                f"suggested: '{name}' fires only when {text} is one of {listed} "
                f"(in all {len(mine)} firings watched; never at {passed})",
                len(mine),
                relation="fires-at",
            )
        )
    return found


def _constant_list(program: Program, values: list[int]) -> str | None:
    """The one constant list of exactly ``values`` (in any order), if there is one."""
    names = [
        c.name
        for c in program.rules.constants.values()
        if isinstance(c.value, (list, tuple))
        and all(type(v) is int for v in c.value)
        and sorted(c.value) == values
    ]
    return names[0] if len(names) == 1 else None
