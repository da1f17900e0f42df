"""``verify --suggest``: who decides next, and conditional relations (implications).

Who decides after an action (``decider()`` in a property): the same player (``me``), the next
player in seating order (``next_player(me)``), or -- at the end -- nobody.

Conditional relations split the applications of one action kind by a condition and mine each
side as :mod:`rulekit.tools.verify.suggest_action` mines the whole, keeping what held on one
side but not over all of them, written ``not (CONDITION) or (RELATION)``. The conditions are

* a chance outcome or any whole-number value of the game or turn the action sets, equal to a
  named constant that an action or a trigger compares a value with (``after(game.last_roll)
  == PIG``: a roll of 1, as ``when: face == PIG`` branches);
* a true/false value before the action, of the game, the turn, ``me`` or a player parameter
  (``before(target.protected)``);
* two values of the same field, of ``me`` and of a player parameter, equal before the action
  (``before(me.strength) == before(target.strength)``);
* the components players hold (:mod:`rulekit.tools.verify.suggest_held`): two players' hidden
  cards compared, a guess against a hand.

Each side needs ``Confidence.support`` applications behind it, and a relation about a change
``Confidence.changes`` changes in it (Daikon's justification): a rare branch proposes nothing.
"""

from __future__ import annotations

import re
from collections.abc import Callable, Sequence
from typing import Any

from rulekit.compiler.callgraph import walk
from rulekit.compiler.program import Program
from rulekit.dsl import ast
from rulekit.tools.verify.observe import Observable
from rulekit.tools.verify.suggest_action import Confidence, per_action
from rulekit.tools.verify.suggest_held import held_splits
from rulekit.tools.verify.suggest_model import Step, Suggestion

#: How often a relation held, at the end of its message: "(in all N ...)", "(other actions do; in all N ...)".
_SAID = re.compile(r" \((?:[^()]*; )?in all [^()]*\)$")

#: The most distinct values a value set by an action takes to be split on (a die's faces).
MAX_SPLIT_VALUES = 6

Test = Callable[[Step], bool]


def decider(
    action: str, mine: list[Step], confidence: Confidence, watched: Sequence[Observable] = ()
) -> list[Suggestion]:
    """Who decides after ``action`` in all its applications ``mine``: ``me``, the next player, or
    the next player for whom a true/false player value of ``watched`` is false after it (the
    next player still in the round)."""
    if len(mine) < confidence.support:
        return []
    ended = any(s.next is None for s in mine)
    going = [s for s in mine if s.next is not None]
    if not going:
        return []
    said = f"in all {len(mine)} '{action}' actions watched"
    candidates: list[tuple[str, Callable[[Step], Any], str]] = [
        ("me", lambda s: s.me, "the same player decides again"),
        ("next_player(me)", lambda s: (s.me + 1) % s.players, "the next player in seating order decides"),
    ]
    for o in watched:
        if o.scope == "player" and o.kind == "bool":
            candidates.append(
                (
                    f"first(q for q in players_from(next_player(me)) if not {o.text('q')})",
                    _next_without(o.key),
                    f"the next player in seating order without {o.text('p')} decides",
                )
            )
    for text, who, what in candidates:
        if all(s.next == who(s) for s in going):
            holds = f"after(decider()) == {text}"
            return [
                Suggestion(
                    action,
                    f"after(decider()) == none or {holds}" if ended else holds,
                    f"suggested: after '{action}', {what}"
                    f"{' (or the game is over)' if ended else ''} ({said})",
                    len(mine),
                    relation="decider",
                )
            ]
    return []


def conditional(
    action: str,
    mine: list[Step],
    program: Program,
    watched: list[Observable],
    confidence: Confidence,
    found: list[Suggestion],
    held: Sequence[Observable] = (),
    signature: Any = None,
) -> list[Suggestion]:
    """The relations of ``action`` that held on one side of a split of its applications
    ``mine`` and are not among those ``found`` over all of them (``held``: the observables of
    the components players hold, split on by :mod:`rulekit.tools.verify.suggest_held`;
    ``signature``: a trigger's, as :func:`~rulekit.tools.verify.suggest_action.per_action`
    takes it)."""
    what = getattr(signature, "what", "actions")
    unconditional = {s.holds for s in found}
    changed_here = {
        key for s in mine for (_, key), value in s.after.items() if s.before.get((_, key)) != value
    }
    # frames on one side: what the action changes on the other side
    changed = {o.key: ({"another side"} if o.key in changed_here else set()) for o in watched}
    kept: list[tuple[frozenset[int], str, Suggestion, int]] = []
    splits = _splits(action, mine, program, watched, signature)
    if signature is None:  # an action's: held components are split on for actions only
        splits += held_splits(action, mine, program, held)
    for condition, test, subject in splits:
        for text, truth in ((condition[0], True), (condition[1], False)):
            branch = [i for i, s in enumerate(mine) if test(s) is truth]
            if len(branch) < confidence.support or len(branch) == len(mine):
                continue
            steps = [mine[i] for i in branch]
            mined = per_action(action, steps, steps, changed, watched, program, confidence, signature)
            if signature is None:
                mined += decider(action, steps, confidence, watched)
            for relation in mined:
                if (
                    relation.relation == "precondition"
                    or relation.holds in unconditional
                    or relation.holds.startswith((f"after({subject})", f"before({subject})"))
                ):
                    continue
                kept.append((frozenset(branch), text, relation, len(mine)))
    result: list[Suggestion] = []
    for side, text, relation, total in kept:
        if any(
            other.holds == relation.holds and wider > side for wider, _, other, _ in kept
        ):  # it holds on a wider side: said there
            continue
        holds = f"not ({text}) or ({relation.holds})"
        if any(s.holds == holds for s in result):
            continue
        said = _SAID.sub("", relation.message.removeprefix("suggested: "))
        result.append(
            Suggestion(
                action,
                holds,
                f"suggested: when {text}, {said} (in all {len(side)} such '{action}' {what} "
                f"of {total} watched)",
                len(side),
                relation=f"if-{relation.relation}",
            )
        )
    return result


def _splits(
    action: str, mine: list[Step], program: Program, watched: list[Observable], signature: Any = None
) -> list[tuple[tuple[str, str], Test, str]]:
    """The conditions the applications are split by: (its text, its negation's), its test and
    the value it reads (a relation about that value only says the condition again; ``""``:
    none)."""
    found: list[tuple[tuple[str, str], Test, str]] = []
    compared = _compared_constants(program)
    constants = {
        c.value: c.name
        for c in program.rules.constants.values()
        if type(c.value) is int and c.value >= 0 and c.name in compared
    }
    compiled = signature or program.actions[action]
    people: list[tuple[str, Callable[[Step], Any]]] = []
    if getattr(compiled, "me", True):
        people.append(("me", lambda s: s.me))
    for i, param in enumerate(compiled.params):
        if compiled.param_types[i].name == "player":
            people.append((param, _argument(i)))
    for o in watched:
        if o.scope != "player":
            key = (o.scope, o.key)
            if o.kind == "int" and not o.derived:
                values = {s.after.get(key) for s in mine}
                changes = any(s.before.get(key) != s.after.get(key) for s in mine)
                if changes and 2 <= len(values) <= MAX_SPLIT_VALUES:
                    for value in sorted(v for v in values if type(v) is int):
                        name = constants.get(value)
                        if name is not None:
                            read = f"after({o.text()})"
                            found.append(
                                (
                                    (f"{read} == {name}", f"{read} != {name}"),
                                    _equals_after(key, value),
                                    o.text(),
                                )
                            )
            elif o.kind == "bool":
                found.append(
                    ((f"before({o.text()})", f"not before({o.text()})"), _true_before(key), o.text())
                )
            continue
        if o.kind == "bool":
            for label, who in people:
                found.append(
                    (
                        (f"before({o.text(label)})", f"not before({o.text(label)})"),
                        _true_before_of(o.key, who),
                        o.text(label),
                    )
                )
        elif o.kind == "int" and not o.derived and people and people[0][0] == "me":
            for label, who in people[1:]:
                a, b = f"before({o.text('me')})", f"before({o.text(label)})"
                found.append(((f"{a} == {b}", f"{a} != {b}"), _same_before(o.key, who), ""))
    return found


def _next_without(key: str) -> Callable[[Step], Any]:
    """The first player after ``me`` in seating order whose value ``key`` is false after the step."""

    def who(step: Step) -> Any:
        for k in range(1, step.players + 1):
            q = (step.me + k) % step.players
            if step.after.get((q, key)) is False:
                return q
        return None

    return who


def _compared_constants(program: Program) -> set[str]:
    """The constants the actions and triggers compare a value with (``face == PIG``): the
    conditions the rules themselves branch on."""
    rules = program.rules
    found: set[str] = set()
    for node in walk((*rules.actions.values(), *rules.triggers.values())):
        if isinstance(node, ast.Binary) and node.op in ("==", "!="):
            for side in (node.left, node.right):
                if isinstance(side, ast.Name) and side.id in rules.constants:
                    found.add(side.id)
    return found


def _argument(index: int) -> Callable[[Step], Any]:
    return lambda s: s.args[index]


def _equals_after(key: tuple[Any, str], value: int) -> Test:
    return lambda s: s.after.get(key) == value


def _true_before(key: tuple[Any, str]) -> Test:
    return lambda s: s.before.get(key) is True


def _true_before_of(key: str, who: Callable[[Step], Any]) -> Test:
    return lambda s: s.before.get((who(s), key)) is True


def _same_before(key: str, who: Callable[[Step], Any]) -> Test:
    return lambda s: s.before.get((s.me, key)) == s.before.get((who(s), key))
