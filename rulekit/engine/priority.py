"""Actions offered only if nothing else is possible (Ludii's ``priority``).

An action with ``only_if_nothing_else`` (a "pass" that the rules allow only when a
player can do nothing else) is legal when its own requirements hold *and* no other
action of the decision is legal, except the ones it names as ``ignoring`` (actions
that do not count as doing something, e.g. buying a card) -- always, or only when a
condition on the ignored action's parameters holds (``{action: buy_card, when: "not
card_playable(me, card)"}``: buying a card she could play does count).  Its rejection
names the message the rules give and a few of the actions still possible.
"""

from __future__ import annotations

from collections.abc import Callable, Iterator, Mapping, Sequence
from operator import itemgetter
from typing import Any


def keep(
    found: list[Any], names: Sequence[str], actions: Mapping[str, Any], state: Any, me: int
) -> list[Any]:
    """``found`` without the fallback actions that something else legal rules out (order kept).

    The names present are collected once (``found`` holds ``(name, args)`` tuples); a fallback
    is decided from them alone when no condition of its ``ignoring ... when`` applies to an
    action present, else by walking ``found`` in order (:func:`_blocking`), so the conditions
    asked, and the steps they charge, are the same either way."""
    keeper = filtering(names, actions)
    return found if keeper is None else keeper(found, state, me)


#: The fallback filter of one decision: ``keeper(found, state, me)`` (see :func:`keep`).
Keeper = Callable[[list[Any], Any, int], list[Any]]


def filtering(names: Sequence[str], actions: Mapping[str, Any]) -> Keeper | None:
    """The fallback filter of the decision of the actions ``names`` (its fallback actions
    found once), or None when none of them is a fallback: :func:`keep` without the search."""
    fallbacks = [actions[name] for name in names if actions[name].fallback is not None]
    if not fallbacks:
        return None
    fallback_names = [f.name for f in fallbacks]

    def keeper(found: list[Any], state: Any, me: int) -> list[Any]:
        present = set(map(_name, found))
        others = present.difference(fallback_names)  # what may block a fallback
        ruled_out = set()
        for f in fallbacks:
            conditional = others & f.fallback_ignoring
            if conditional and not conditional.isdisjoint(f.fallback_when):
                if any(True for _ in _blocking(f, found, actions, state, me)):
                    ruled_out.add(f.name)
            elif not others <= f.fallback_ignoring:
                ruled_out.add(f.name)
        if not ruled_out or ruled_out.isdisjoint(present):
            return found
        return [a for a in found if a[0] not in ruled_out]

    return keeper


_name = itemgetter(0)


def blocking(
    compiled: Any, legal: Sequence[Any], actions: Mapping[str, Any], state: Any, me: int
) -> list[Any]:
    """The legal actions that keep a fallback action from being offered."""
    return list(_blocking(compiled, legal, actions, state, me))


def _blocking(
    compiled: Any, legal: Sequence[Any], actions: Mapping[str, Any], state: Any, me: int
) -> Iterator[Any]:
    when = compiled.fallback_when
    ignoring = compiled.fallback_ignoring
    skipped: dict[str, bool] = {}  # per name: itself or another fallback (never blocks)
    for a in legal:
        name = a[0]  # (name, args): read as a tuple, not through Action's properties
        skip = skipped.get(name)
        if skip is None:
            skip = skipped[name] = name == compiled.name or actions[name].fallback is not None
        if skip:
            continue
        if name not in ignoring:
            yield a
        elif name in when and not when[name](state.fields, state.game.runtime, me, *a[1]):
            yield a  # ignored only when its condition holds, and it does not


def refusal(compiled: Any, others: Sequence[str]) -> str:
    """Why a fallback action is not legal: its message, and some of what is possible instead."""
    shown = ", ".join(others[:4]) + (", ..." if len(others) > 4 else "")
    return f"{compiled.fallback} (possible: {shown})"
