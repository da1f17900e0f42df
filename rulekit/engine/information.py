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


# ------------------------------------------------------------------ scores

#: What the scoring formulas read, for :func:`score_knowledge`: every field they read is
#: public (``public``); the hidden ones are only the scored player's own ``owner`` fields
#: (``own``: she knows her score, nobody else does); anything else (``none``).
ScoreReach = str


def score_reach(game: Game) -> ScoreReach:
    """How far the scores (and tie-breaks) are known during play, from what their formulas read.

    The scoring expressions and every function they call are read as syntax trees: a field
    read through ``player`` (the scored player, or a function parameter given it) of an
    ``owner`` field is the scored player's own secret; any other read of a field that is not
    public (a deck, another player's hand, a field of the same name in any scope) hides the
    score from everyone.  ``scoring: {public: true}`` in the rules says the scores are public
    whatever they read (where this reading is too coarse)."""
    cache: dict[str, ScoreReach] = game.__dict__.setdefault("_score_reach", {})
    if "reach" in cache:
        return cache["reach"]
    rules = game.program.rules
    scoring = rules.scoring
    if scoring.public:
        reach = "public"
    else:
        reads: set[tuple[str, bool]] = set()
        walker = _ReadWalker(rules)
        for expr in (scoring.score, *scoring.tiebreak):
            if expr is not None:
                reads |= walker.reads(expr, frozenset({"player"}))
        reach = "public"
        for name, own in reads:
            for scope, decls in rules.fields.items():
                decl = decls.get(name)
                if decl is None or decl.visibility == "public":
                    continue
                if own and scope == "player" and decl.visibility == "owner":
                    reach = "own" if reach == "public" else reach
                else:
                    reach = "none"
    cache["reach"] = reach
    return reach


def known_scores(state: State, seat: int | None) -> list[int | None]:
    """Each player's score as ``seat`` (None: a spectator) may know it: all of them once the
    game is over; during play a score is None where its formulas read what the seat cannot
    see for that player (:func:`score_reach`)."""
    scores: list[int | None] = list(state.scores())
    if state.is_terminal():
        return scores
    reach = score_reach(state.game)
    if reach == "public":
        return scores
    return [value if reach == "own" and p == seat else None for p, value in enumerate(scores)]


class _ReadWalker:
    """The fields an expression reads, each with whether it is read of the scored player."""

    def __init__(self, rules: Any) -> None:
        self.rules = rules
        self.memo: dict[tuple[str, frozenset[str]], set[tuple[str, bool]]] = {}
        self.active: set[tuple[str, frozenset[str]]] = set()

    def reads(self, node: Any, selves: frozenset[str]) -> set[tuple[str, bool]]:
        from rulekit.dsl import ast

        found: set[tuple[str, bool]] = set()
        if isinstance(node, ast.Attribute):
            own = isinstance(node.subject, ast.Name) and node.subject.id in selves
            found.add((node.name, own))
            found |= self.reads(node.subject, selves)
        elif isinstance(node, ast.Call):
            function = self.rules.functions.get(node.function)
            for arg in (*node.args, *(k.value for k in node.keywords)):
                found |= self.reads(arg, selves)
            if function is not None:
                given = frozenset(
                    name
                    for (name, _), arg in zip(function.params, node.args, strict=False)
                    if isinstance(arg, ast.Name) and arg.id in selves
                )
                found |= self.function_reads(node.function, function.body, given)
        elif isinstance(node, ast.Comprehension):
            inner = selves
            for target, iterable in node.loops:
                found |= self.reads(iterable, inner)
                inner = inner - ({target} if isinstance(target, str) else set(target))
            for name, value in node.bindings:  # ``where`` clauses, bound in order
                found |= self.reads(value, inner)
                bound = isinstance(value, ast.Name) and value.id in inner
                inner = inner | {name} if bound else inner - {name}
            for part in (node.element, node.condition, node.key):
                if part is not None:
                    found |= self.reads(part, inner)
        elif isinstance(node, ast.LetIn | ast.Where):
            found |= self.reads(node.value, selves)
            bound = isinstance(node.value, ast.Name) and node.value.id in selves
            inner = selves | {node.name} if bound else selves - {node.name}
            found |= self.reads(node.body, inner)
        elif isinstance(node, tuple):
            for item in node:
                found |= self.reads(item, selves)
        elif hasattr(node, "__attrs_attrs__"):
            for attribute in node.__attrs_attrs__:
                if attribute.name != "span":
                    found |= self.reads(getattr(node, attribute.name), selves)
        return found

    def function_reads(self, name: str, body: Any, selves: frozenset[str]) -> set[tuple[str, bool]]:
        key = (name, selves)
        if key in self.memo:
            return self.memo[key]
        if key in self.active:  # a recursive call: its reads are the ones being gathered
            return set()
        self.active.add(key)
        try:
            found = self.reads(body, selves)
        finally:
            self.active.discard(key)
        self.memo[key] = found
        return found
