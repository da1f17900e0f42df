"""What a player cannot see, and states consistent with what it can (determinizations).

A field declared ``visibility: hidden`` shows nobody its contents, ``visibility: owner``
shows them only to the player it belongs to (see :meth:`State.view`).  A player who
reasons about the game knows the *size* of each such field and, for list fields, which
items could be in it.

:func:`determinize` deals those items again.  The other players' lists of one owner field
(their hands) form a pool, and every hidden list of the same type joins it: the hands were
dealt from those lists, so an unseen card may be in any of them (keeping two decks apart
would keep a two-player opponent's real hand in every determinization).  Without unseen
hands, several hidden lists of one type (a deck of destination cards and a deck of route
cards) are each shuffled on their own, since an item of one may not belong in the other.
Each pool is shuffled and every field refilled with as many items as it had.
It also re-seeds the engine's chance, so the future draws and shuffles are not the real
ones either.  The result is a state the player cannot tell apart from the real one; a
search that only looks at such states never uses what the player does not know
(information-set Monte Carlo tree search).  Unseen fields that are not lists (a hidden
number, a hidden map) are kept as they are: nothing is known about their possible values.
"""

from __future__ import annotations

import random
from typing import Any

from attrs import frozen

from rulekit.engine.game import Game, State
from rulekit.engine.slots import ENGINE as _ENGINE


@frozen
class HiddenPlaces:
    """For one player: the unseen list fields in pools (each pool is dealt as one), and the
    unseen fields left as they are."""

    pools: tuple[tuple[tuple[Any, str], ...], ...]
    kept: tuple[tuple[Any, str], ...]

    @property
    def empty(self) -> bool:
        return not self.pools


def hidden_places(game: Game, player: int | None) -> HiddenPlaces:
    """The fields whose contents ``player`` (None: a spectator) cannot see."""
    cache: dict[int | None, HiddenPlaces] = game.__dict__.setdefault("_hidden_places", {})
    found = cache.get(player)
    if found is not None:
        return found
    rules = game.program.rules
    hidden: dict[str, list[tuple[Any, str]]] = {}  # by type: nobody sees them (decks)
    others: dict[tuple[str, str], list[tuple[Any, str]]] = {}  # by field: the others' hands
    kept: list[tuple[Any, str]] = []
    for scope, fields in rules.fields.items():
        for name, decl in fields.items():
            if decl.visibility == "public":
                continue
            for owner in game.owners(scope):
                if decl.visibility == "owner" and owner == player:
                    continue
                if not decl.declared.type.is_list:
                    kept.append((owner, name))
                elif decl.visibility == "hidden":
                    hidden.setdefault(decl.declared.text, []).append((owner, name))
                else:
                    others.setdefault((decl.declared.text, name), []).append((owner, name))
    pools: list[tuple[tuple[Any, str], ...]] = []
    for type_text, places in sorted(hidden.items()):
        joined = [k for k in others if k[0] == type_text]
        if len(places) == 1 or joined:
            # the unseen hands were dealt from the hidden lists of their type, so a card the
            # player cannot see may be in any of them: they share one pool
            pools.append((*places, *(place for k in joined for place in others.pop(k))))
        else:  # two decks of one type and no hands: an item of one may not fit the other
            pools += [(place,) for place in places]
    pools += [tuple(places) for _, places in sorted(others.items())]
    found = HiddenPlaces(tuple(pools), tuple(kept))
    cache[player] = found
    return found


def determinize(state: State, player: int | None, rng: random.Random) -> State:
    """A copy of ``state`` that ``player`` cannot tell from it: unseen items dealt again
    among the places they could be, and chance re-seeded from ``rng``."""
    copy = state.clone()
    fields = copy.fields
    hidden = hidden_places(state.game, player)
    if not hidden.empty:
        copy._legal = None
    for places in hidden.pools:
        values = [fields[place] for place in places]
        pool = [item for value in values if isinstance(value, tuple) for item in value]
        # in a fixed order first, so the deal depends on which items are unseen, never on where they are
        pool.sort(key=_order)
        rng.shuffle(pool)
        start = 0
        for place, value in zip(places, values, strict=True):
            if not isinstance(value, tuple):
                continue
            fields[place] = tuple(pool[start : start + len(value)])
            start += len(value)
    fields[(_ENGINE, "rng")] = rng.getrandbits(64)
    return copy


def _order(item: Any) -> tuple[str, str]:
    return type(item).__name__, repr(item)
