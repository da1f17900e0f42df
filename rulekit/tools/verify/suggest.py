"""``rulekit verify RULESET --suggest``: likely properties mined from play, for the author to review.

In the manner of Daikon: many seeded random games are watched; every action's state before and
after is recorded (the whole-number, true/false and player fields of the game, the turn and each
player), and candidate relations are kept only if they held at every observation, with enough
support. The survivors are written as a variant file (``add: properties:`` and
``extend: actions: NAME: ensures:``, the format of the rules' own properties) that the author
reads, deletes what is wrong or accidental, and keeps: as a variant (``--variant FILE``) or
moved into the ruleset. A later edit or variant that breaks an accepted suggestion is then a
property violation of ``verify``, with its counterexample.

The relations (``F`` a field, ``A`` an action kind, ``me`` who took it):

* per action kind (postconditions): ``F`` changes by a fixed amount (named after a constant of
  that value when there is one), by a parameter or an attribute of a component parameter (the
  price of the card bought), or by another field's value before the action (the turn's total
  banked); a player parameter's field changes by the opposite of ``me``'s (who receives the
  payment); the other players' field is unchanged (nobody else pays); a field that other actions
  change is unchanged by this one (frame conditions, a few per action);
* over every action: a field never decreases (monotonic counters), changes by at most a small
  step (a round counter advancing by one at a time), is never negative, or once set never
  changes (a winner);
* over every turn (turns counted as verify counts them for ``over: turn``): a field that moves
  by at most a small amount in one turn although the turn's actions could move it more (one
  build a turn).

What held in the games watched may be accidental (a bound never reached, a case never played):
it is a suggestion, and says how often it was seen.
"""

from __future__ import annotations

import random
import re
from collections.abc import Callable, Iterator
from typing import Any

from attrs import define, field

from rulekit.compiler.program import Program
from rulekit.engine.game import Game, State
from rulekit.rules.yaml_source import dump_text
from rulekit.tools.verify.checker import flow_context
from rulekit.tools.verify.explore import player_counts
from rulekit.tools.verify.options import MAX_SEED, VerifyOptions

#: Applications of an action kind (or actions in all) needed before anything is said about it.
MIN_SUPPORT = 5
#: Observations in which a delta was not zero needed for an equality about it.
MIN_CHANGES = 2
#: Frame conditions (a field another action changes, unchanged by this one) per action kind.
MAX_FRAMES = 4
#: The largest step kept as a bound (a counter advancing by at most this much per action).
MAX_STEP = 2

_SCOPES = ("game", "turn", "player")


@define
class Suggestion:
    """One likely property: where it goes, its condition and what backs it."""

    action: str | None  # None: a property over every action
    holds: str
    message: str
    support: int
    over: str = "action"  # of a property (action None): over every action or every turn


@define
class Mined:
    """What :func:`suggest` found."""

    program: Program
    games: int
    actions: int
    suggestions: list[Suggestion] = field(factory=list)

    def variant_text(self, ruleset: str) -> str:
        """The suggestions as a variant file for review."""
        header = [
            f"# Likely properties of {self.program.name}, suggested by `rulekit verify {ruleset} --suggest`",
            f"# from {self.games} games ({self.actions} actions). Each held in every action watched; that",
            "# does not make it a rule. Review them: delete what is wrong or accidental, then keep the",
            "# file as a variant (`rulekit verify RULESET --variant THIS_FILE`) or move the properties",
            "# into the ruleset.",
        ]
        data: dict[str, Any] = {
            "variant": f"{self.program.name}_suggested",
            "title": f"Suggested properties of {self.program.name}",
            "description": "Likely properties mined from play by rulekit verify --suggest, for review.",
            "ruleset": self.program.name,
        }
        properties = {}
        ensures: dict[str, list[dict[str, str]]] = {}
        for n, s in enumerate(self.suggestions, start=1):
            entry = {"holds": s.holds, "message": s.message, "cite": "suggested by rulekit verify --suggest"}
            if s.over != "action":
                entry = {"over": s.over, **entry}
            if s.action is None:
                properties[f"suggested_{n}_{_slug(s.holds)}"] = entry
            else:
                ensures.setdefault(s.action, []).append(entry)
        if properties:
            data["add"] = {"properties": properties}
        if ensures:
            data["extend"] = {"actions": {name: {"ensures": items} for name, items in ensures.items()}}
        body = dump_text(data)
        return "\n".join(header) + "\n" + body


def _slug(text: str) -> str:
    words = re.findall(r"[a-z][a-z0-9]*", text.lower())
    skip = {"after", "before", "for", "in", "if", "p", "players", "and", "or", "all", "me", "none", "not"}
    kept = [w for w in words if w not in skip][:4]
    return "_".join(dict.fromkeys(kept)) or "relation"


# ---------------------------------------------------------------- watching games


@define
class _Step:
    name: str
    me: int
    args: tuple[Any, ...]
    before: dict[tuple[Any, str], Any]
    after: dict[tuple[Any, str], Any]
    players: int
    #: When this action ended a turn (as verify's properties over a turn count turns): the
    #: state at that turn's start and how many actions it had.
    turn: tuple[dict[tuple[Any, str], Any], int] | None = None


def _fields(program: Program) -> dict[tuple[str, str], str]:
    """(scope, field) -> type name, for the scalar fields of the game, the turn and the players."""
    found = {}
    for scope, fields in program.rules.fields.items():
        if scope not in _SCOPES:
            continue
        for name, decl in fields.items():
            kind = decl.declared.type.name
            if kind in ("int", "bool", "player"):
                found[(scope, name)] = kind
    return found


def _snapshot(state: State, fields: dict[tuple[str, str], str], players: int) -> dict[tuple[Any, str], Any]:
    values = {}
    for scope, name in fields:
        owners: list[Any] = list(range(players)) if scope == "player" else [scope]
        for owner in owners:
            values[(owner, name)] = state.fields.get((owner, name))
    return values


def _watch(options: VerifyOptions, program: Program, counts: list[int]) -> Iterator[_Step]:
    fields = _fields(program)
    games: dict[int, Game] = {}
    for number in range(options.examples):
        rng = random.Random(f"{options.seed}:{number}")
        players, seed = rng.choice(counts), rng.randrange(MAX_SEED)
        game = games.get(players) or games.setdefault(players, Game(program, players))
        state = game.new_initial_state(seed)
        before = _snapshot(state, fields, players)
        turn = (before, state.current_player() if not state.is_terminal() else None, flow_context(state), 0)
        for _ in range(options.max_actions):
            if state.is_terminal():
                break
            legal = state.legal_actions()
            action = legal[rng.randrange(len(legal))]
            me = state.current_player()
            state.apply_action(action)
            after = _snapshot(state, fields, players)
            step = _Step(action.name, me, tuple(action.args), before, after, players)
            start, player, context, length = turn
            length += 1
            ended = program.actions[action.name].decl.ends_turn
            if (
                state.is_terminal()
                or ended
                or state.current_player() != player
                or flow_context(state) != context
            ):  # the turn ends here, as verify's Checker counts turns
                step.turn = (start, length)
                turn = (
                    after,
                    None if state.is_terminal() else state.current_player(),
                    flow_context(state),
                    0,
                )
            else:
                turn = (start, player, context, length)
            yield step
            before = after


# ---------------------------------------------------------------- mining


def suggest(options: VerifyOptions) -> Mined:
    """Watch ``options.examples`` seeded random games and mine likely properties.

    Raises:
        RulekitError: the rules do not load.
    """
    program, counts = player_counts(options)
    steps = list(_watch(options, program, counts))
    mined = Mined(program, options.examples, len(steps))
    fields = _fields(program)
    mined.suggestions += _global(steps, fields, program)
    mined.suggestions += _per_turn(steps, fields)
    for name in program.rules.actions:
        mine = [s for s in steps if s.name == name]
        if len(mine) >= MIN_SUPPORT:
            mined.suggestions += _per_action(name, mine, steps, fields, program)
    return mined


def _owners(scope: str, step: _Step) -> list[Any]:
    return list(range(step.players)) if scope == "player" else [scope]


def _global(steps: list[_Step], fields: dict[tuple[str, str], str], program: Program) -> list[Suggestion]:
    found: list[Suggestion] = []
    if len(steps) < MIN_SUPPORT:
        return found
    for (scope, name), kind in fields.items():
        pairs = [(s.before[(o, name)], s.after[(o, name)]) for s in steps for o in _owners(scope, s)]
        subject = "p" if scope == "player" else scope
        read = f"{subject}.{name}"

        def over(condition: str, scope: str = scope) -> str:
            return f"all({condition} for p in players)" if scope == "player" else condition

        if kind == "player":
            if all(a is None or a == b for a, b in pairs) and any(
                a is None and b is not None for a, b in pairs
            ):
                found.append(
                    Suggestion(
                        None,
                        over(f"before({read}) == none or after({read}) == before({read})"),
                        f"suggested: {scope}.{name}, once set, never changes",
                        len(pairs),
                    )
                )
            continue
        if kind != "int":
            continue
        deltas = [b - a for a, b in pairs if isinstance(a, int) and isinstance(b, int)]
        changed = [d for d in deltas if d != 0]
        if len(changed) < MIN_CHANGES:
            continue
        low, high = min(deltas), max(deltas)
        if scope != "turn" and low >= 0:
            step = f" by at most {high}" if high <= MAX_STEP else ""
            holds = f"after({read}) >= before({read})"
            if high <= MAX_STEP:
                holds += f" and after({read}) - before({read}) <= {high}"
            found.append(
                Suggestion(None, over(holds), f"suggested: {scope}.{name} never decreases{step}", len(deltas))
            )
        values = [b for _, b in pairs if isinstance(b, int)]
        if values and min(values) >= 0 and max(values) > 0:
            found.append(
                Suggestion(
                    None,
                    over(f"after({read}) >= 0"),
                    f"suggested: {scope}.{name} is never negative",
                    len(values),
                )
            )
    return found


def _per_turn(steps: list[_Step], fields: dict[tuple[str, str], str]) -> list[Suggestion]:
    """Per-turn counts: a field of the game or of a player that moves by at most a small amount
    in one turn, although turns of several actions moved it more than once (one build a turn)."""
    found: list[Suggestion] = []
    turns = [(s.turn[0], s.after, s.turn[1], s.players) for s in steps if s.turn is not None]
    if len(turns) < MIN_SUPPORT:
        return found
    for (scope, name), kind in fields.items():
        if kind != "int" or scope == "turn":
            continue
        subject = "p" if scope == "player" else scope
        read = f"{subject}.{name}"
        per_turn = [
            (after[(o, name)] - start[(o, name)], length)
            for start, after, length, players in turns
            for o in (range(players) if scope == "player" else [scope])
            if type(start.get((o, name))) is int and type(after.get((o, name))) is int
        ]
        for direction, sign in (("rises", 1), ("falls", -1)):
            moves = [sign * d for d, _ in per_turn]
            most = max(moves, default=0)
            if most <= 0 or most > MAX_STEP:
                continue
            steps_moving = [s for s in steps if sign * (_delta_any(s, scope, name)) > 0]
            if (
                not any(length > 1 for d, length in per_turn if sign * d > 0)
                or len(steps_moving) < MIN_CHANGES
            ):
                continue  # never more than one action a turn: the per-action bound says as much
            change = f"after({read}) - before({read})" if sign > 0 else f"before({read}) - after({read})"
            holds = (
                f"all({change} <= {most} for p in players)" if scope == "player" else f"{change} <= {most}"
            )
            found.append(
                Suggestion(
                    None,
                    holds,
                    f"suggested: {scope}.{name} {direction} by at most {most} in one turn "
                    f"(in all {len(turns)} turns watched)",
                    len(turns),
                    over="turn",
                )
            )
    return found


def _delta_any(step: _Step, scope: str, name: str) -> int:
    """The largest change of a field in one action (over the players for a player field)."""
    owners: list[Any] = list(range(step.players)) if scope == "player" else [scope]
    changes = [_delta(step, (o, name)) for o in owners]
    values = [c for c in changes if c is not None]
    return max(values, key=abs, default=0)


def _per_action(
    action: str,
    mine: list[_Step],
    steps: list[_Step],
    fields: dict[tuple[str, str], str],
    program: Program,
) -> list[Suggestion]:
    compiled = program.actions[action]
    found: list[Suggestion] = []
    frames = 0
    count = len(mine)
    said = f"in all {count} '{action}' actions watched"
    for (scope, name), kind in fields.items():
        if kind not in ("int", "bool"):
            continue
        targets: list[tuple[str, Callable[[_Step], Any]]]
        if scope == "player":
            targets = [("me", _acting)]
            targets += [
                (param, _param_player(i))
                for i, param in enumerate(compiled.params)
                if compiled.param_types[i].name == "player"
            ]
        else:
            targets = [(scope, _scope(scope))]
        for label, owner in targets:
            read = f"{label}.{name}"
            keys = [(owner(s), name) for s in mine]
            if kind == "int":
                deltas = [_delta(s, k) for s, k in zip(mine, keys, strict=True)]
                if any(d is None for d in deltas):
                    continue
                if sum(1 for d in deltas if d) >= MIN_CHANGES:
                    explained = _explain_delta(read, deltas, mine, compiled, program, fields)
                    if explained is not None:
                        holds, what = explained
                        found.append(Suggestion(action, holds, f"suggested: {what} ({said})", count))
                    continue
            if scope == "turn" or (label != "me" and scope == "player") or frames >= MAX_FRAMES:
                continue  # frame conditions: of the game's and the acting player's fields
            unchanged = all(s.before.get(k) == s.after.get(k) for s, k in zip(mine, keys, strict=True))
            elsewhere = any(
                s.name != action and s.before.get((owner(s), name)) != s.after.get((owner(s), name))
                for s in steps
            )
            if unchanged and elsewhere:
                frames += 1
                found.append(
                    Suggestion(
                        action,
                        f"after({read}) == before({read})",
                        f"suggested: '{action}' leaves {read} unchanged (other actions change it; {said})",
                        count,
                    )
                )
    found += _payments(action, mine, fields, compiled, said)
    return found


def _acting(step: _Step) -> Any:
    return step.me


def _scope(scope: str) -> Callable[[_Step], Any]:
    return lambda step: scope


def _param_player(index: int) -> Callable[[_Step], Any]:
    return lambda s: s.args[index]


def _delta(step: _Step, key: tuple[Any, str]) -> int | None:
    a, b = step.before.get(key), step.after.get(key)
    if type(a) is int and type(b) is int:
        return b - a
    return None


def _explain_delta(
    read: str,
    deltas: list[int | None],
    mine: list[_Step],
    compiled: Any,
    program: Program,
    fields: dict[tuple[str, str], str],
) -> tuple[str, str] | None:
    """``read``'s change as a constant, a parameter, a parameter's attribute or a field before."""
    first = deltas[0]
    if all(d == first for d in deltas) and first is not None:
        named = _constant_named(program, abs(first))
        amount = named or str(abs(first))
        sign = "+" if first > 0 else "-"
        return (f"after({read}) == before({read}) {sign} {amount}", f"{read} changes by {sign}{amount}")
    for i, param in enumerate(compiled.params):
        kind = compiled.param_types[i]
        if kind.name == "int":
            values = [s.args[i] for s in mine]
            for factor in (1, -1):
                if all(d == factor * v for d, v in zip(deltas, values, strict=True)):
                    op = "+" if factor > 0 else "-"
                    return (f"after({read}) == before({read}) {op} {param}", f"{read} changes by {op}{param}")
        if kind.name == "entity":
            for attribute in _int_attributes(program, [s.args[i] for s in mine]):
                values = [program.attributes.get((s.args[i], attribute)) for s in mine]
                for factor in (1, -1):
                    if all(d == factor * v for d, v in zip(deltas, values, strict=True)):
                        op = "+" if factor > 0 else "-"
                        text = f"{param}.{attribute}"
                        return (
                            f"after({read}) == before({read}) {op} {text}",
                            f"{read} changes by {op}{text}",
                        )
    for (scope, name), kind in fields.items():
        if kind != "int":
            continue
        owner_of: Any = (lambda s: s.me) if scope == "player" else (lambda s, scope=scope: scope)
        values = [s.before.get((owner_of(s), name)) for s in mine]
        if any(type(v) is not int for v in values) or not any(values):
            continue
        other = f"{'me' if scope == 'player' else scope}.{name}"
        if other == read:
            continue
        for factor in (1, -1):
            if all(d == factor * v for d, v in zip(deltas, values, strict=True)):
                op = "+" if factor > 0 else "-"
                return (
                    f"after({read}) == before({read}) {op} before({other})",
                    f"{read} changes by {op}{other} (as it was before the action)",
                )
    return None


def _payments(
    action: str, mine: list[_Step], fields: dict[tuple[str, str], str], compiled: Any, said: str
) -> list[Suggestion]:
    """Who receives what ``me`` pays: a player parameter, or nobody among the players."""
    found = []
    for (scope, name), kind in fields.items():
        if scope != "player" or kind != "int":
            continue
        paid = [_delta(s, (s.me, name)) for s in mine]
        if sum(1 for d in paid if d) < MIN_CHANGES:
            continue
        others_same = all(
            s.before.get((p, name)) == s.after.get((p, name))
            for s in mine
            for p in range(s.players)
            if p != s.me
        )
        if others_same:
            found.append(
                Suggestion(
                    action,
                    f"all(after(p.{name}) == before(p.{name}) for p in players if p != me)",
                    f"suggested: '{action}' changes no other player's {name} ({said})",
                    len(mine),
                )
            )
            continue
        for i, param in enumerate(compiled.params):
            if compiled.param_types[i].name != "player":
                continue
            received = [_delta(s, (s.args[i], name)) for s in mine]
            if all(
                r is not None and d is not None and r == -d for r, d in zip(received, paid, strict=True)
            ) and all(s.args[i] != s.me for s in mine):
                found.append(
                    Suggestion(
                        action,
                        f"after({param}.{name}) - before({param}.{name}) "
                        f"== before(me.{name}) - after(me.{name})",
                        f"suggested: what '{action}' takes from me.{name} goes to {param}.{name} ({said})",
                        len(mine),
                    )
                )
    return found


def _int_attributes(program: Program, ids: list[Any]) -> list[str]:
    if not ids:
        return []
    first = ids[0]
    return sorted(
        attribute
        for (ident, attribute), value in program.attributes.items()
        if ident == first and type(value) is int
    )


def _constant_named(program: Program, value: int) -> str | None:
    if value <= 1:
        return None
    names = [c.name for c in program.rules.constants.values() if type(c.value) is int and c.value == value]
    return names[0] if len(names) == 1 else None
