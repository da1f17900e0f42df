"""The targeted search of shrinking: new short games that go for the failing check.

A long counterexample often needs a few actions far apart (a building put up and, many turns
later, a second one in the same place; most of a player's pieces put on the map before her
reserve overflows); dropping actions from it stalls, as most candidates break the game
somewhere in between. New games are played instead, cut off before the best length so far:

* the action kinds that write what the failing check reads, taking it towards its failing
  values in the counterexample (:mod:`relevance`), are preferred, and those that took it away
  are made rare (each game draws a kind first, a relevant one several times as likely, then
  an instance, so a kind with many instances does not crowd out the others);
* fewer players are preferred, and in some games the actions that end a turn (a hurried game
  reaches later rounds and phases, a payday, in fewer actions); half the games prefer, among
  the instances of a kind, those whose arguments all alias values of the actor's or the
  turn's fields (a piece moved onto the very space the player started from);
* *value guidance*: a game prefix that takes a field the check reads to a new extreme (the
  smallest or largest value of a number, or length of a list, seen so far -- or the same
  extreme in fewer actions) is kept, and later games replay it and go on from there. So the
  search climbs towards the failing values (a court filling, a stock running out) instead of
  waiting for one random game to get there.

Every failure of the same check that is shorter than the best is reported at once.
"""

from __future__ import annotations

import random
import time
from collections.abc import Callable, Sequence
from typing import Any

from attrs import define, field

from rulekit.engine.game import Action, State
from rulekit.tools.verify.explore import ALIAS, held_values, is_held
from rulekit.tools.verify.failures import PropertyFailure
from rulekit.tools.verify.options import MAX_SEED
from rulekit.tools.verify.relevance import measure
from rulekit.tools.verify.replayer import Replayer

#: How much likelier a relevant action kind is (one factor drawn per game).
RELEVANCE_WEIGHTS = (4.0, 20.0, 200.0)
#: How much likelier an action that ends the turn is (one factor drawn per game): a hurried
#: game reaches later rounds and phases in fewer actions (the largest ends every turn as soon
#: as the rules let it, e.g. passing whenever passing is allowed).
HURRY = (1.0, 4.0, 16.0, 256.0)
#: Swarm: in a share of the games each action kind's weight is multiplied by one of these
#: (drawn per kind and game), so games differ in kind, not only in luck.
SWARM = (0.2, 1.0, 5.0)
SWARM_SHARE = 0.5
#: Weight of an action kind that led away from the failure in the counterexample.
AWAY = 0.2
#: Share of the games that start by replaying a prefix that reached an extreme value.
FROM_EXTREMES = 0.6
#: Prefixes kept (the newest).
KEPT = 48
#: Share of the games (of two players or more) in which one seat plays towards the failure and
#: the others end their turns as soon as they may.
FOCUS_SHARE = 0.5
#: Share of the games in which each kind prefers an extreme instance (see ``extreme``); drawn
#: per kind, a kind keeps uniform instances one time in ``2 * whole-number arguments + 1``.
EXTREME_SHARE = 0.5
#: How much likelier the extreme instance of a kind is than the others together.
EXTREME = 8.0
_ENGINE = "_"


@define
class _Prefix:
    players: int
    seed: int
    actions: list[Action]


@define
class TargetedSearch:
    """Searches for a shorter failure of ``key`` (see the module's docstring)."""

    checker: Replayer
    key: str
    min_players: int
    max_players: int
    relevant: dict[str, float]
    reads: frozenset[str]
    away: frozenset[str] = frozenset()
    on_better: Callable[[PropertyFailure], None] = lambda failure: None
    #: Varies the games of searches that start from the same failure (the search is seeded).
    salt: int = 0
    games: int = 0
    _kept: list[_Prefix] = field(factory=list)
    _ends_turn: frozenset[str] = field(init=False)
    _extremes: dict[tuple[str, bool], tuple[int, int]] = field(factory=dict)

    def __attrs_post_init__(self) -> None:
        actions = self.checker.program.actions
        self._ends_turn = frozenset(name for name, action in actions.items() if action.decl.ends_turn)

    def run(
        self,
        best: PropertyFailure,
        until: float,
        patience: int,
        clock: Callable[[], float] = time.perf_counter,
        cpu_until: float = float("inf"),
    ) -> PropertyFailure:
        """Play games until ``clock()`` (shrinking's budget of work; by default the wall
        clock, for a search on its own) reaches ``until``, the process's
        CPU time ``cpu_until``, or after ``patience`` games without a shorter failure; the
        shortest failure found (``best`` if none)."""
        rng = random.Random(f"{best.key}:{len(best.history)}:{self.salt}:{self.games}")
        since = 0
        while clock() < until and time.process_time() < cpu_until and since < patience:
            since += 1
            found = self._game(rng, len(best.history) - 1)
            if found is not None and len(found.history) < len(best.history):
                best, since = found, 0
                self.on_better(found)
        return best

    def _game(self, rng: random.Random, limit: int) -> PropertyFailure | None:
        self.games += 1
        prefix: list[Action] = []
        if self._kept and rng.random() < FROM_EXTREMES:
            kept = self._kept[rng.randrange(len(self._kept))]
            players, seed = kept.players, kept.seed
            # the whole prefix (from the extreme on) or a part of it (another way from there)
            cut = len(kept.actions) if rng.random() < 0.5 else rng.randint(1, len(kept.actions))
            prefix = kept.actions[:cut]
        else:
            players = self.min_players
            if rng.random() >= 0.5:
                players = rng.randint(self.min_players, self.max_players)
            seed = rng.randrange(MAX_SEED)
        weight = rng.choice(RELEVANCE_WEIGHTS) if self.relevant else 1.0
        hurry = rng.choice(HURRY)
        aliasing = rng.random() < 0.5
        swarm: dict[str, float] = {}
        if rng.random() < SWARM_SHARE:
            swarm = {name: rng.choice(SWARM) for name in self.checker.program.actions}
        focus = rng.randrange(players) if players > 1 and rng.random() < FOCUS_SHARE else None
        extremes: dict[str, float] = {}
        if rng.random() < EXTREME_SHARE:
            extremes = {name: rng.random() for name in self.checker.program.actions}
        hurried = max(HURRY)
        checker = self.checker
        played: list[Action] = []
        try:
            state = checker.start(players, seed)
            watched = self._watched(state)
            for index in range(limit):
                if state.is_terminal():
                    break
                legal = state.legal_actions()
                if index < len(prefix) and prefix[index] in legal:
                    action = prefix[index]
                else:
                    prefix = []
                    held = held_values(state) if aliasing else frozenset()
                    if focus is None or state.current_player() == focus:
                        action = pick(
                            rng,
                            legal,
                            self.relevant,
                            weight,
                            self.away,
                            self._ends_turn,
                            hurry,
                            held,
                            swarm,
                            extremes,
                        )
                    else:  # another player: hand the turn on
                        action = pick(rng, legal, {}, 1.0, self.away, self._ends_turn, hurried)
                checker.step(state, action)
                played.append(action)
                if watched and self._new_extreme(state, watched, len(played)):
                    self._kept.append(_Prefix(players, seed, list(played)))
                    del self._kept[:-KEPT]
        except PropertyFailure as failure:
            return failure if failure.key == self.key else None
        return None

    def _watched(self, state: State) -> dict[str, list[Any]]:
        """The state's keys of the fields the check reads, by field name."""
        watched: dict[str, list[Any]] = {}
        for key in state.fields:
            if key[0] != _ENGINE and key[1] in self.reads:
                watched.setdefault(key[1], []).append(key)
        return watched

    def _new_extreme(self, state: State, watched: dict[str, list[Any]], steps: int) -> bool:
        fields = state.fields
        new = False
        for name, keys in watched.items():
            values = [v for v in (measure(fields[k]) for k in keys) if v is not None]
            if not values:
                continue
            for largest, value in ((False, min(values)), (True, max(values))):
                record = self._extremes.get((name, largest))
                better = record is None or (value > record[0] if largest else value < record[0])
                if better or (record is not None and value == record[0] and steps < record[1]):
                    if record is not None:  # the first value seen is no achievement
                        new = True
                    self._extremes[(name, largest)] = (value, steps)
        return new


def pick(
    rng: random.Random,
    legal: Sequence[Action],
    relevant: dict[str, float],
    weight: float,
    away: frozenset[str] = frozenset(),
    ends_turn: frozenset[str] = frozenset(),
    hurry: float = 1.0,
    held: frozenset[Any] = frozenset(),
    swarm: dict[str, float] | None = None,
    extremes: dict[str, float] | None = None,
) -> Action:
    """One of ``legal``: an action kind first (a relevant kind up to ``weight`` times as
    likely, in proportion to its share in ``relevant``; one leading ``away`` from the failure
    ``AWAY`` times; another that ends the turn ``hurry`` times; each times its ``swarm``
    factor), then one of its instances (one whose arguments are all among ``held`` ``ALIAS``
    times as likely; the extreme one the kind's draw in ``extremes`` names ``EXTREME`` times
    as likely as the others together, see :func:`extreme`)."""
    if len(legal) == 1:
        return legal[0]
    kinds: dict[str, list[Action]] = {}
    for action in legal:
        kinds.setdefault(action.name, []).append(action)
    names = list(kinds)
    weights = [
        1.0 + (weight - 1.0) * relevant[name]
        if name in relevant
        else AWAY
        if name in away
        else hurry
        if name in ends_turn
        else 1.0
        for name in names
    ]
    if swarm:
        weights = [w * swarm.get(name, 1.0) for w, name in zip(weights, names, strict=True)]
    name = rng.choices(names, weights)[0]
    chosen = kinds[name]
    if extremes and name in extremes and len(chosen) > 1 and rng.random() < EXTREME / (EXTREME + 1.0):
        found = extreme(chosen, extremes[name])
        if found:
            return found[rng.randrange(len(found))]
    if held and len(chosen) > 1:
        aliased = [ALIAS if a.args and all(is_held(x, held) for x in a.args) else 1.0 for a in chosen]
        return rng.choices(chosen, aliased)[0]
    return chosen[rng.randrange(len(chosen))]


def extreme(instances: Sequence[Action], draw: float) -> list[Action]:
    """The instances with the smallest or the largest value of one whole-number argument, as
    ``draw`` (in [0, 1)) picks among the ``2 * k + 1`` choices of ``k`` such arguments (the
    last choice: none, an empty list)."""
    first = instances[0].args
    positions = [i for i, value in enumerate(first) if _whole(value)]
    choice = int(draw * (2 * len(positions) + 1))
    if choice >= 2 * len(positions):
        return []
    position, largest = positions[choice // 2], choice % 2 == 1
    values = [a.args[position] for a in instances if len(a.args) > position and _whole(a.args[position])]
    if not values:
        return []
    target = max(values) if largest else min(values)
    return [a for a in instances if len(a.args) > position and a.args[position] == target]


def _whole(value: Any) -> bool:
    return isinstance(value, int) and not isinstance(value, bool)
