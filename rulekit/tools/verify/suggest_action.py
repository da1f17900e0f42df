"""``verify --suggest``: the relations mined per action kind (its postconditions, ``ensures:``).

For every observable (:mod:`rulekit.tools.verify.observe`) and every player an action may
concern -- ``me``, a player parameter, a player field of the game or the turn that the action
does not change (the player whose turn it is) -- the applications of the action are compared
before and after:

* amounts: the change, or the new value, is a constant (named after it), a parameter, an
  attribute of a component parameter (the price of the card bought), an entry of a table of
  constants indexed by a parameter or a field (``BONUS[before(game.round) - 1]``), or another
  field's value before; otherwise the change is one of at most three values, or never negative
  (or positive);
* who: which players' values change (``all(after(p.money) == before(p.money) for p in players
  if p != me and p != to)``), who receives what ``me`` pays, who a player field is set to
  (``after(game.winner) == before(game.winner) or after(game.winner) == me``) -- first in the
  rule's own terms, the player with the lowest or highest value of hers (``after(game.start) ==
  before(game.start) or all(after(game.start.power) <= after(q.power) for q in players)``) --,
  what a true/false field is set to, and a players' total the action never changes although it
  moves it between them (``sum(after(p.money) for p in players) == sum(before(p.money) for p
  in players)``);
* preconditions: what a true/false field is when the action is taken, and a lower bound of a
  whole number of the game (``before(game.round) >= 2``: never in the first round);
* frames: the values other actions change that this one never does, in one postcondition.

A relation is kept only with enough distinct observations behind it (:class:`Confidence`).
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from typing import Any

from attrs import define, frozen

from rulekit.compiler.program import Program
from rulekit.tools.verify.observe import Observable
from rulekit.tools.verify.suggest_model import Step, Suggestion


@frozen
class Confidence:
    """How much play a relation needs behind it before it is suggested (Daikon's justification).

    ``support``: applications of an action kind (or actions in all) before anything is said
    about it; ``changes``: observations in which the value changed, for a relation about a
    change; ``distinct``: distinct values of what explains an amount (a parameter, a price, a
    field) -- an amount equal to a value that never varied is a constant, or a coincidence.
    """

    support: int = 10
    changes: int = 3
    distinct: int = 2


#: The most values a change takes to be suggested as "one of".
MAX_ONE_OF = 3


@define
class _Target:
    label: str
    owner: Callable[[Step], Any]
    #: A player field of the game or turn (not ``me`` or a parameter): only exact relations
    #: (an amount, who pays and receives) are said of it, not ranges that ``me`` implies.
    field: bool = False


def changers(steps: list[Step], watched: list[Observable]) -> dict[str, set[str]]:
    """Per observable's key, the action kinds that changed it in some application."""
    found: dict[str, set[str]] = {o.key: set() for o in watched}
    for s in steps:
        for (_, key), value in s.after.items():
            seen = found.get(key)
            if seen is not None and s.name not in seen and s.before.get((_, key)) != value:
                seen.add(s.name)
    return found


def per_action(
    action: str,
    mine: list[Step],
    steps: list[Step],
    changed: dict[str, set[str]],
    watched: list[Observable],
    program: Program,
    confidence: Confidence,
    signature: Any = None,
) -> list[Suggestion]:
    """The postconditions of ``action`` that held in all its applications ``mine``
    (``changed``: :func:`changers` of all the actions watched). ``signature``: what is bound
    instead of the action's parameters and ``me`` (a trigger's firings:
    :class:`~rulekit.tools.verify.suggest_model.Signature`)."""
    compiled = signature or program.actions[action]
    what = getattr(compiled, "what", "actions")
    said = f"in all {len(mine)} '{action}' {what} watched"
    taken = "is taken" if what == "actions" else "fires"
    players = _player_targets(mine, compiled, watched)
    amounts = _Amounts(mine, compiled, program, watched, confidence)
    found: list[Suggestion] = []
    frames: list[str] = []
    framed: list[str] = []
    for o in watched:
        targets = players if o.scope == "player" else [_Target(o.scope, _constant_owner(o.scope))]
        for target in targets:
            read = o.text(target.label)
            before = [s.before.get((target.owner(s), o.key)) for s in mine]
            after = [s.after.get((target.owner(s), o.key)) for s in mine]
            changes = sum(1 for a, b in zip(before, after, strict=True) if a != b)
            if o.kind == "bool" and not target.field and _always(before) and _seen_other(steps, o, before[0]):
                value = "true" if before[0] else "false"
                found.append(
                    Suggestion(
                        action,
                        f"before({read}) == {value}",
                        f"suggested: {read} is {value} when '{action}' {taken} ({said})",
                        len(mine),
                        relation="precondition",
                    )
                )
            if o.kind == "int" and o.scope == "game" and not o.derived:
                bound = _lower_bound(read, before, steps, o, confidence)
                if bound is not None:
                    found.append(
                        Suggestion(
                            action,
                            bound[0],
                            f"suggested: {bound[1]} when '{action}' {taken} ({said})",
                            len(mine),
                            relation="precondition",
                        )
                    )
            if changes == 0:
                if o.scope != "player" and changed[o.key] - {action}:
                    frames.append(f"after({read}) == before({read})")
                    framed.append(read)
                continue
            if changes < confidence.changes:
                continue
            relation = _relation(o, read, before, after, mine, program, amounts, players, confidence)
            if relation is not None and target.field and relation[2] != "amount":
                relation = None
            if relation is not None:
                holds, what, kind = relation
                found.append(
                    Suggestion(action, holds, f"suggested: {what} ({said})", len(mine), relation=kind)
                )
        if o.scope == "player" and o.kind in ("int", "bool"):
            found += _who(action, o, mine, changed, players, confidence, said, frames, framed)
    found += _transfers(action, mine, watched, players, confidence, said)
    found += _conserved(action, mine, watched, confidence, said)
    if frames:
        found.append(
            Suggestion(
                action,
                " and ".join(frames),
                f"suggested: '{action}' changes none of {', '.join(framed)} (other actions do; {said})",
                len(mine),
                relation="frame",
            )
        )
    return found


def _player_targets(mine: list[Step], compiled: Any, watched: list[Observable]) -> list[_Target]:
    """``me``, the player parameters, and the game's and turn's player fields the action leaves
    alone (the player whose turn it is), each once: a target always the same player as an
    earlier one is left out."""
    targets = [_Target("me", _acting)] if getattr(compiled, "me", True) else []
    for i, param in enumerate(compiled.params):
        if compiled.param_types[i].name == "player":
            targets.append(_Target(param, _argument(i)))
    for o in watched:
        if o.kind == "player" and o.scope != "player":
            key = (o.scope, o.key)
            if all(s.before.get(key) is not None and s.before.get(key) == s.after.get(key) for s in mine):
                targets.append(_Target(o.text(), _value_before(key), field=True))
    kept: list[_Target] = []
    for target in targets:
        if not any(all(target.owner(s) == k.owner(s) for s in mine) for k in kept):
            kept.append(target)
    return kept


def _relation(
    o: Observable,
    read: str,
    before: list[Any],
    after: list[Any],
    mine: list[Step],
    program: Program,
    amounts: _Amounts,
    players: list[_Target],
    confidence: Confidence,
) -> tuple[str, str, str] | None:
    """What a changing value does in every application: (holds, message, kind of relation)."""
    if o.kind == "bool":
        if len(set(after)) == 1 and isinstance(after[0], bool):
            value = "true" if after[0] else "false"
            return f"after({read}) == {value}", f"{read} is {value} after it", "set"
        return None
    if o.kind == "player":
        # a rule's own terms first (the lowest power card starts), then who took it or is named
        extreme = _extreme_holder(read, before, after, mine, amounts.watched, confidence)
        if extreme is not None:
            return extreme
        for target in players:
            if all(b == a or b == target.owner(s) for a, b, s in zip(before, after, mine, strict=True)):
                if target.label == read:
                    continue
                return (
                    f"after({read}) == before({read}) or after({read}) == {target.label}",
                    f"{read}, when it changes, becomes {target.label}",
                    "who",
                )
        return None
    if any(type(v) is not int for v in before + after):
        return None
    deltas = [b - a for a, b in zip(before, after, strict=True)]
    explained = _amount(read, deltas, program, amounts.get(), confidence)
    if explained is not None:
        return (*explained, "amount")
    settled = _set_to(read, after, program, amounts.get(), confidence)
    if settled is not None:
        return (*settled, "amount")
    values = sorted(set(deltas))
    if len(values) <= MAX_ONE_OF and all(deltas.count(v) >= 2 for v in values):
        listed = ", ".join(str(v) for v in values)
        return (
            f"after({read}) - before({read}) in [{listed}]",
            f"{read} changes by one of {listed}",
            "one-of",
        )
    if not o.derived and min(deltas) >= 0:
        return f"after({read}) >= before({read})", f"{read} never falls", "sign"
    if not o.derived and max(deltas) <= 0:
        return f"after({read}) <= before({read})", f"{read} never rises", "sign"
    return None


def _extreme_holder(
    read: str,
    before: list[Any],
    after: list[Any],
    mine: list[Step],
    watched: list[Observable],
    confidence: Confidence,
) -> tuple[str, str, str] | None:
    """A player field that, whenever it changes, names a player with the lowest (or highest)
    whole number of players after it (the next start player: the lowest power card), the only
    one in at least ``Confidence.changes`` of the changes (else it may be a coincidence)."""
    changed = [(s, a) for s, b, a in zip(mine, before, after, strict=True) if a != b and type(a) is int]
    if len(changed) < confidence.changes:
        return None
    for o in watched:
        if o.scope != "player" or o.kind != "int" or o.derived:
            continue
        for op, pick, word in (("<=", min, "lowest"), (">=", max, "highest")):
            alone = 0
            for s, who in changed:
                read_values = [s.after.get((p, o.key)) for p in range(s.players)]
                values = [v for v in read_values if type(v) is int]
                if who >= len(read_values) or len(values) < len(read_values) or values[who] != pick(values):
                    break
                alone += values.count(values[who]) == 1
            else:
                if alone >= confidence.changes:
                    field = o.text("q")
                    return (
                        f"after({read}) == before({read}) or "
                        f"all(after({o.text(read)}) {op} after({field}) for q in players)",
                        f"{read}, when it changes, becomes a player with the {word} {o.text('player')}",
                        "who",
                    )
    return None


@define
class _Amounts:
    """The amounts of one action kind (:func:`_candidates`), worked out when first needed and
    only the varied ones."""

    mine: list[Step]
    compiled: Any
    program: Program
    watched: list[Observable]
    confidence: Confidence = Confidence()
    found: list[tuple[str, list[Any]]] | None = None

    def get(self) -> list[tuple[str, list[Any]]]:
        if self.found is None:
            every = _candidates(self.mine, self.compiled, self.program, self.watched)
            self.found = [(text, values) for text, values in every if _varied(values, self.confidence)]
        return self.found


def _candidates(
    mine: list[Step], compiled: Any, program: Program, watched: list[Observable]
) -> list[tuple[str, list[Any]]]:
    """Amounts an action's change may be: (rule text, its value in each application)."""
    found: list[tuple[str, list[Any]]] = []
    tables = [
        (c.name, c.value)
        for c in program.rules.constants.values()
        if isinstance(c.value, (tuple, list)) and c.value and all(type(v) is int for v in c.value)
    ]
    indices: list[tuple[str, list[Any]]] = []
    for i, param in enumerate(compiled.params):
        kind = compiled.param_types[i].name
        values = [s.args[i] for s in mine]
        if kind == "int":
            found.append((param, values))
            indices.append((param, values))
        elif kind == "entity":
            for attribute in _int_attributes(program, values):
                found.append(
                    (f"{param}.{attribute}", [program.attributes.get((v, attribute)) for v in values])
                )
    subjects: list[tuple[str, Callable[[Step], Any]]] = []
    if getattr(compiled, "me", True):
        subjects.append(("me", _acting))
    else:  # a trigger of an event: its player parameters
        subjects += [
            (param, _argument(i))
            for i, param in enumerate(compiled.params)
            if compiled.param_types[i].name == "player"
        ]
    for o in watched:
        if o.kind != "int":
            continue
        for label, owner in subjects if o.scope == "player" else [("", _constant_owner(o.scope))]:
            values = [s.before.get((owner(s), o.key)) for s in mine]
            text = f"before({o.text(label)})"
            found.append((text, values))
            if not o.derived:
                indices.append((text, values))
                indices.append((f"{text} - 1", [v - 1 if type(v) is int else None for v in values]))
        if o.scope != "player" and not o.derived:  # a value the action sets: a face rolled
            found.append((f"after({o.text()})", [s.after.get((o.scope, o.key)) for s in mine]))
    for name, table in tables:
        for index, values in indices:
            entries = [table[v] if type(v) is int and 0 <= v < len(table) else None for v in values]
            found.append((f"{name}[{index}]", entries))
    return found


def _amount(
    read: str,
    deltas: list[int],
    program: Program,
    candidates: list[tuple[str, list[Any]]],
    confidence: Confidence,
) -> tuple[str, str] | None:
    """The change as a constant, or as a parameter, price, table entry or field before."""
    first = deltas[0]
    if all(d == first for d in deltas):
        amount, note = _constant(program, abs(first))
        sign = "+" if first > 0 else "-"
        return f"after({read}) == before({read}) {sign} {amount}", f"{read} changes by {sign}{amount}{note}"
    for text, values in candidates:
        if text in (f"before({read})", f"after({read})"):
            continue
        for factor, op in ((1, "+"), (-1, "-")):
            if all(type(v) is int and d == factor * v for d, v in zip(deltas, values, strict=True)):
                return f"after({read}) == before({read}) {op} {text}", f"{read} changes by {op}{text}"
    return None


def _set_to(
    read: str,
    after: list[Any],
    program: Program,
    candidates: list[tuple[str, list[Any]]],
    confidence: Confidence,
) -> tuple[str, str] | None:
    """The new value as a constant, or as a parameter, price, table entry or field before."""
    if len(set(after)) == 1:
        amount, note = _constant(program, after[0]) if after[0] > 1 else (str(after[0]), "")
        return f"after({read}) == {amount}", f"{read} is {amount} after it{note}"
    for text, values in candidates:
        if text == f"after({read})":
            continue
        if _varied(values, confidence) and all(
            type(v) is int and a == v for a, v in zip(after, values, strict=True)
        ):
            return f"after({read}) == {text}", f"{read} is set to {text}"
    return None


def _varied(values: Sequence[Any], confidence: Confidence) -> bool:
    return all(type(v) is int for v in values) and len(set(values)) >= confidence.distinct


def _who(
    action: str,
    o: Observable,
    mine: list[Step],
    changed_by: dict[str, set[str]],
    players: list[_Target],
    confidence: Confidence,
    said: str,
    frames: list[str],
    framed: list[str],
) -> list[Suggestion]:
    """Whose value an action changes: the fewest of its targets covering every change."""
    changed = [
        {p for p in range(s.players) if s.before.get((p, o.key)) != s.after.get((p, o.key))} for s in mine
    ]
    everyone = f"all(after({o.text('p')}) == before({o.text('p')}) for p in players"
    if not any(changed):
        if changed_by[o.key] - {action}:
            frames.append(everyone + ")")
            framed.append(o.text("every player"))
        return []
    if sum(1 for c in changed if c) < confidence.changes:
        return []
    for size in (1, 2):
        for chosen in _subsets(players, size):
            if all(c <= {t.owner(s) for t in chosen} for c, s in zip(changed, mine, strict=True)):
                names = " and ".join(t.label for t in chosen)
                condition = " and ".join(f"p != {t.label}" for t in chosen)
                return [
                    Suggestion(
                        action,
                        f"{everyone} if {condition})",
                        f"suggested: '{action}' changes {o.text('p')} of {names} only ({said})",
                        len(mine),
                        relation="who",
                    )
                ]
    return []


def _acting(step: Step) -> Any:
    return step.me


def _constant_owner(owner: str) -> Callable[[Step], Any]:
    def read(step: Step) -> Any:
        return owner

    return read


def _argument(index: int) -> Callable[[Step], Any]:
    def read(step: Step) -> Any:
        return step.args[index]

    return read


def _value_before(key: tuple[Any, str]) -> Callable[[Step], Any]:
    def read(step: Step) -> Any:
        return step.before[key]

    return read


def _always(values: list[Any]) -> bool:
    return bool(values) and isinstance(values[0], bool) and all(v is values[0] for v in values)


def _lower_bound(
    read: str,
    before: list[Any],
    steps: list[Step],
    o: Observable,
    confidence: Confidence,
) -> tuple[str, str] | None:
    """A whole number of the game that was never below ``m`` when the action was taken (and
    was ``m`` in at least ``Confidence.changes`` of them: the bound is the action's, not a
    coincidence of how late it came), while other states watched had it below ``m`` at least
    ``Confidence.support`` times (no loan in the first round: ``before(game.round) > 1``)."""
    values = [v for v in before if type(v) is int]
    if len(values) < len(before) or not values:
        return None
    least = min(values)
    if values.count(least) < confidence.changes:
        return None
    below = sum(1 for s in steps if type(v := s.before.get(("game", o.key))) is int and v < least)
    if below < confidence.support:
        return None
    # a number: the constant a rule compares with is the reviewer's to name (a coincidence of
    # values would name another)
    return f"before({read}) >= {least}", f"{read} is at least {least}"


def _seen_other(steps: list[Step], o: Observable, value: Any) -> bool:
    """Whether some state watched had ``o`` (of some owner) other than ``value``."""
    return any(s.before.get((w, o.key)) not in (None, value) for s in steps for w in o.owners(s.players))


def _subsets(targets: list[_Target], size: int) -> list[tuple[_Target, ...]]:
    if size == 1:
        return [(t,) for t in targets]
    return [(a, b) for i, a in enumerate(targets) for b in targets[i + 1 :]]


def _transfers(
    action: str,
    mine: list[Step],
    watched: list[Observable],
    players: list[_Target],
    confidence: Confidence,
    said: str,
) -> list[Suggestion]:
    """Who receives what another target pays: a change of one matched by the opposite change
    of another, two different players in every application."""
    found = []
    pairs: set[tuple[str, str, str]] = set()
    for o in watched:
        if o.scope != "player" or o.kind != "int" or o.derived:
            continue
        for payer in players:
            paid = [_delta(s, (payer.owner(s), o.key)) for s in mine]
            if sum(1 for d in paid if d) < confidence.changes:
                continue
            for receiver in players:
                if receiver is payer:
                    continue
                got = [_delta(s, (receiver.owner(s), o.key)) for s in mine]
                if (
                    (receiver.label, payer.label, o.key) not in pairs
                    and all(
                        g is not None and d is not None and g == -d for g, d in zip(got, paid, strict=True)
                    )
                    and all(payer.owner(s) != receiver.owner(s) for s in mine)
                ):
                    pairs.add((payer.label, receiver.label, o.key))
                    r, p = o.text(receiver.label), o.text(payer.label)
                    found.append(
                        Suggestion(
                            action,
                            f"after({r}) - before({r}) == before({p}) - after({p})",
                            f"suggested: what '{action}' takes from {p} goes to {r} ({said})",
                            len(mine),
                            relation="transfer",
                        )
                    )
    return found


def _conserved(
    action: str, mine: list[Step], watched: list[Observable], confidence: Confidence, said: str
) -> list[Suggestion]:
    """A whole number of the players whose total the action never changes, although it moved
    it between at least two players in ``Confidence.changes`` of its applications (a charge
    every other player pays the mover: what they lose, she gains, nothing goes to the bank)."""
    found = []
    for o in watched:
        if o.scope != "player" or o.kind != "int" or o.derived:
            continue
        moved = 0
        for s in mine:
            deltas = [_delta(s, (p, o.key)) for p in range(s.players)]
            changes = [d for d in deltas if d is not None]
            if len(changes) < len(deltas) or sum(changes) != 0:
                break
            moved += int(sum(1 for d in changes if d) >= 2)
        else:
            if moved >= confidence.changes:
                p = o.text("p")
                found.append(
                    Suggestion(
                        action,
                        f"sum(after({p}) for p in players) == sum(before({p}) for p in players)",
                        f"suggested: '{action}' moves {o.text('player')} between players only, "
                        f"their total never changes ({said})",
                        len(mine),
                        relation="conserved",
                    )
                )
    return found


def _delta(step: Step, key: tuple[Any, str]) -> int | None:
    a, b = step.before.get(key), step.after.get(key)
    if type(a) is int and type(b) is int:
        return b - a
    return None


def _int_attributes(program: Program, ids: list[Any]) -> list[str]:
    if not ids or not isinstance(ids[0], str):
        return []
    first = ids[0]
    return sorted(
        attribute
        for (ident, attribute), value in program.attributes.items()
        if ident == first and type(value) is int
    )


def _constant(program: Program, value: int) -> tuple[str, str]:
    """A whole number as the rules name it: the one constant (or game parameter) of that value,
    else the number (with the constants it might be, for the reviewer)."""
    if value <= 1:
        return str(value), ""
    names = [c.name for c in program.rules.constants.values() if type(c.value) is int and c.value == value]
    if len(names) == 1:
        return names[0], ""
    return str(value), f" (the value of {' or '.join(names)})" if names else ""
