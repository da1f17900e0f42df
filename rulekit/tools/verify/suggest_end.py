"""``verify --suggest``: relations at the end of the game (properties ``over: game``).

The last state of every game watched is recorded with each seat's return (``result(p)``), and
these relations between the returns and the state are proposed when they held at every end:

* the returns' values (``all(result(p) in [-1, 1] for p in players)``: no draw) and their sum
  (zero-sum);
* a player field of the game names the best return (``game.winner``: she does better than
  everyone else), and when it is ``none`` every return is equal (a draw);
* the returns are ordered like a value of the players (the most points, not knocked out): a
  player with more of it does at least as well, or strictly better;
* ties on such a value are broken by another (``p.out == q.out and p.G > q.G``);
* the returns against the scores (``score(p)``, the ruleset's ``scoring: score``): a player
  with a higher score does at least as well, and when every return is equal (a draw) every
  score is the same number (a draw scored as a win for both is seen, although the returns of a
  draw stay equal).

A player's values at the end are the player observables (:mod:`rulekit.tools.verify.observe`)
and the sums of a whole-number attribute over her lists of components
(``sum(c.value for c in p.hand)``). A relation needs ``Confidence.changes`` games behind it in
which it decided something (two players whose values and returns differ), and
``Confidence.support`` games in all.
"""

from __future__ import annotations

from itertools import permutations
from typing import Any

from attrs import define

from rulekit.compiler.program import Program
from rulekit.tools.verify.observe import Fields, Observable, held_observables
from rulekit.tools.verify.suggest_action import Confidence
from rulekit.tools.verify.suggest_model import Suggestion

#: The most distinct returns listed as "the returns' values".
MAX_VALUES = 4


@define
class End:
    """The last state of one game watched: the observables (by (owner, key)) and the returns."""

    values: dict[tuple[Any, str], Any]
    results: tuple[Any, ...]
    players: int
    #: Each seat's score at the end (``score(p)``).
    scores: tuple[Any, ...] = ()


def end_observables(program: Program, watched: list[Observable]) -> list[Observable]:
    """The player values compared at the end: the player observables and, per list of
    components a player holds, the sum of each whole-number attribute of its components."""
    found = [o for o in watched if o.scope == "player" and o.kind in ("int", "bool")]
    return found + [o for o in held_observables(program) if o.kind == "int"]


def record(
    fields: Fields,
    results: list[float],
    watched: list[Observable],
    players: int,
    scores: list[int] | tuple[int, ...] = (),
) -> End:
    """The end of one game: ``watched``'s values in its last state, its returns and scores."""
    values = {(w, o.key): o.read(fields, w) for o in watched for w in o.owners(players)}
    returns = tuple(int(r) if float(r).is_integer() else r for r in results)
    return End(values, returns, players, tuple(scores))


def end_relations(
    ends: list[End],
    watched: list[Observable],
    game_players: list[Observable],
    confidence: Confidence,
    optional: frozenset[str] = frozenset(),
) -> list[Suggestion]:
    """The relations between the returns and the last state that held in every game ``ends``
    (``watched``: :func:`end_observables`; ``game_players``: the player fields of the game,
    ``optional`` the keys of those that may be ``none``)."""
    if len(ends) < confidence.support:
        return []
    said = f"at the end of all {len(ends)} games watched"
    found = _values(ends, said, confidence)
    found += _scored(ends, said, confidence)
    for o in game_players:
        found += _named(ends, o, said, confidence, o.key in optional)
    orders: list[tuple[Observable, str]] = []
    for o in watched:
        for sign in (1, -1):
            relation = _ordered(ends, o, sign, said, confidence)
            if relation is not None:
                found.append(relation)
                orders.append((o, "p.x > q.x"))
                break
    for primary, _ in orders:
        for o in watched:
            if o.kind != "int" or o is primary or any(o is k for k, _ in orders):
                continue
            for sign in (1, -1):
                relation = _tie_break(ends, primary, o, sign, said, confidence)
                if relation is not None:
                    found.append(relation)
                    break
    return found


def _values(ends: list[End], said: str, confidence: Confidence) -> list[Suggestion]:
    found = []
    values = sorted({r for e in ends for r in e.results})
    if 2 <= len(values) <= MAX_VALUES:
        listed = ", ".join(str(v) for v in values)
        found.append(
            Suggestion(
                None,
                f"all(result(p) in [{listed}] for p in players)",
                f"suggested: every return is one of {listed} ({said})",
                len(ends),
                over="game",
                relation="end-values",
            )
        )
    sums = {sum(e.results) for e in ends}
    if len(sums) == 1 and sum(1 for e in ends if len(set(e.results)) > 1) >= confidence.changes:
        total = sums.pop()
        found.append(
            Suggestion(
                None,
                f"sum(result(p) for p in players) == {total}",
                f"suggested: the returns sum to {total} ({said})",
                len(ends),
                over="game",
                relation="end-sum",
            )
        )
    return found


def _scored(ends: list[End], said: str, confidence: Confidence) -> list[Suggestion]:
    """The returns against the scores: ordered like them, and a draw's scores all one number."""
    scored = [e for e in ends if len(e.scores) == e.players]
    if len(scored) < confidence.support or not any(any(e.scores) for e in scored):
        return []  # no scores (or none but 0): nothing to relate
    found = []
    pairs = [
        (e, [(p, q) for p in range(e.players) for q in range(e.players) if e.scores[p] > e.scores[q]])
        for e in scored
    ]
    if all(e.results[p] >= e.results[q] for e, found_ in pairs for p, q in found_):
        deciding = sum(1 for e, found_ in pairs if any(e.results[p] > e.results[q] for p, q in found_))
        if deciding >= confidence.changes:
            strict = all(e.results[p] > e.results[q] for e, found_ in pairs for p, q in found_)
            op, how = (">", "does better") if strict else (">=", "does at least as well")
            found.append(
                Suggestion(
                    None,
                    f"all(result(p) {op} result(q) for p in players for q in players if score(p) > score(q))",
                    f"suggested: a player with a higher score {how} ({said})",
                    deciding,
                    over="game",
                    relation="end-score",
                )
            )
    draws = [e for e in scored if len(set(e.results)) == 1]
    level = {s for e in draws for s in e.scores}
    if len(draws) >= confidence.changes and len(level) == 1:
        draw = "all(result(p) == result(q) for p in players for q in players)"
        found.append(
            Suggestion(
                None,
                f"not {draw} or all(score(p) == {level.pop()} for p in players)",
                f"suggested: when every return is equal (a draw), every score is that number ({said})",
                len(draws),
                over="game",
                relation="end-score",
            )
        )
    return found


def _named(
    ends: list[End], o: Observable, said: str, confidence: Confidence, optional: bool
) -> list[Suggestion]:
    """A player field of the game and the best return: she does better than all others; when
    it is ``none``, all returns are equal."""
    found = []
    field = o.text()
    named = [(e, e.values.get((o.scope, o.key))) for e in ends]
    some = [(e, w) for e, w in named if type(w) is int and 0 <= w < e.players]
    nobody = [e for e, w in named if w is None]
    if len(some) >= confidence.changes:
        if all(all(e.results[p] < e.results[w] for p in range(e.players) if p != w) for e, w in some):
            holds = f"all(result(p) < result({field}) for p in players if p != {field})"
            what = "does better than every other player"
        elif all(all(e.results[p] <= e.results[w] for p in range(e.players)) for e, w in some):
            holds = f"all(result(p) <= result({field}) for p in players)"
            what = "does at least as well as every other player"
        else:
            holds = ""
            what = ""
        if holds:
            found.append(
                Suggestion(
                    None,
                    f"{field} == none or {holds}" if nobody else holds,
                    f"suggested: the player {field} names {what} ({said})",
                    len(some),
                    over="game",
                    relation="end-named",
                )
            )
    if optional and not nobody and len(some) >= confidence.support:
        found.append(
            Suggestion(
                None,
                f"{field} != none",
                f"suggested: {field} names a player when the game ends ({said})",
                len(some),
                over="game",
                relation="end-named",
            )
        )
    if len(nobody) >= confidence.changes and all(len(set(e.results)) == 1 for e in nobody):
        found.append(
            Suggestion(
                None,
                f"{field} != none or all(result(p) == result(q) for p in players for q in players)",
                f"suggested: when {field} is none, every return is equal ({said})",
                len(nobody),
                over="game",
                relation="end-named",
            )
        )
    return found


def _pairs(e: End, o: Observable, sign: int) -> list[tuple[int, int]]:
    """The players (p, q) of one end with ``o`` greater for p (``sign`` -1: smaller)."""
    out = []
    for p, q in permutations(range(e.players), 2):
        a, b = _number(e.values.get((p, o.key))), _number(e.values.get((q, o.key)))
        if a is not None and b is not None and sign * (a - b) > 0:
            out.append((p, q))
    return out


def _number(value: Any) -> int | None:
    return int(value) if type(value) in (int, bool) else None


def _condition(o: Observable, sign: int) -> str:
    p, q = o.text("p"), o.text("q")
    if o.kind == "bool":
        return f"{p} and not {q}" if sign > 0 else f"{q} and not {p}"
    return f"{p} > {q}" if sign > 0 else f"{p} < {q}"


def _ordered(
    ends: list[End], o: Observable, sign: int, said: str, confidence: Confidence
) -> Suggestion | None:
    """The returns ordered like ``o`` (``sign`` -1: the other way round)."""
    pairs = [(e, _pairs(e, o, sign)) for e in ends]
    if not all(e.results[p] >= e.results[q] for e, found in pairs for p, q in found):
        return None
    deciding = sum(1 for e, found in pairs if any(e.results[p] > e.results[q] for p, q in found))
    if deciding < confidence.changes:
        return None
    strict = all(e.results[p] > e.results[q] for e, found in pairs for p, q in found)
    op, how = (">", "does better") if strict else (">=", "does at least as well")
    more = _words(o, sign)
    return Suggestion(
        None,
        f"all(result(p) {op} result(q) for p in players for q in players if {_condition(o, sign)})",
        f"suggested: a player {more} {how} ({said})",
        deciding,
        over="game",
        relation="end-order",
    )


def _tie_break(
    ends: list[End], primary: Observable, o: Observable, sign: int, said: str, confidence: Confidence
) -> Suggestion | None:
    """Ties on ``primary`` broken by ``o`` (``sign`` -1: the smaller wins)."""
    pairs = [
        (
            e,
            [
                (p, q)
                for p, q in _pairs(e, o, sign)
                if e.values.get((p, primary.key)) == e.values.get((q, primary.key))
            ],
        )
        for e in ends
    ]
    if not all(e.results[p] >= e.results[q] for e, found in pairs for p, q in found):
        return None
    deciding = sum(1 for e, found in pairs if any(e.results[p] > e.results[q] for p, q in found))
    if deciding < confidence.changes:
        return None
    same = f"{primary.text('p')} == {primary.text('q')}"
    return Suggestion(
        None,
        f"all(result(p) >= result(q) for p in players for q in players if {same} and {_condition(o, sign)})",
        f"suggested: between players tied on {primary.text('p')}, one {_words(o, sign)} "
        f"does at least as well ({said})",
        deciding,
        over="game",
        relation="end-tiebreak",
    )


def _words(o: Observable, sign: int) -> str:
    if o.kind == "bool":
        return f"with {o.text('p')}" if sign > 0 else f"without {o.text('p')}"
    return f"with more {o.text('p')}" if sign > 0 else f"with less {o.text('p')}"
