"""Who wins a finished game, and what each seat gets, by the ruleset's ``scoring.outcome``.

- ``competitive`` (the default): each for herself; the players tied for the best
  (score, tie-breaks...) win; returns +1 to each winner, -1 to the others, 0 to all on a full tie.
- ``cooperative``: one shared score (``score`` evaluated once, for the first seat); the game
  is a *success* when it is at least ``success`` (default 1).  Every seat gets the same
  return, the score divided by ``success``, clamped to [-1, 1] (1: a success; partial credit
  below, so bots have something to play for); the winners are every seat on a success,
  nobody otherwise.
- ``teams``: ``team`` gives each player's team; a team's key is the sum of its members'
  (score, tie-breaks...); the teams tied for the best key win; every member of a winning team
  gets +1, the others -1, all 0 when every team ties.

A competitive game of one player (against the rules) has no one to tie with: she gets +1 with
a positive score, -1 with a negative one, 0 at 0.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import TYPE_CHECKING

if TYPE_CHECKING:
    from rulekit.engine.game import Game, State

COMPETITIVE, COOPERATIVE, TEAMS = "competitive", "cooperative", "teams"


def kind(game: Game) -> str:
    """The game's outcome: ``competitive``, ``cooperative`` or ``teams``."""
    return game.program.rules.scoring.outcome


def success_threshold(game: Game) -> int:
    """The shared score a cooperative game must reach to be a success (``scoring.success``, default 1)."""
    return game.program.rules.scoring.success or 1


def cooperative(game: Game) -> bool:
    return kind(game) == COOPERATIVE


def teams(state: State) -> list[int]:
    """Each seat's team: ``scoring.team`` with ``outcome: teams``, everybody in team 0 in a
    cooperative game, each seat on its own otherwise (its seat number)."""
    game = state.game
    n = game.num_players
    outcome = kind(game)
    if outcome == COOPERATIVE:
        return [0] * n
    team = game.program.team
    if outcome != TEAMS or team is None:
        return list(range(n))
    runtime = game.runtime
    return state.evaluate(
        lambda: [_whole(team(state.fields, runtime, -1, p)) for p in range(n)],
        "computing the teams",
        game.program.rules.scoring.span,
    )


def _whole(value: object) -> int:
    if type(value) is not int:
        raise TypeError(f"a team must be an int, got {type(value).__name__}")
    return value


def team_keys(members: Sequence[int], keys: dict[int, tuple[int, ...]]) -> dict[int, tuple[int, ...]]:
    """Each team's key: the sums of its members' keys (``members[p]``: player p's team)."""
    summed: dict[int, tuple[int, ...]] = {}
    for p, team in enumerate(members):
        key = keys[p]
        old = summed.get(team)
        summed[team] = key if old is None else tuple(a + b for a, b in zip(old, key, strict=True))
    return summed


def outcome_keys(state: State) -> dict[int, tuple[int, ...]]:
    """Each player's key as the outcome compares it: her (score, tie-breaks...), or with
    ``outcome: teams`` her team's summed key (a partner's points count as hers)."""
    keys = dict(state.standings())
    if kind(state.game) != TEAMS:
        return keys
    members = teams(state)
    summed = team_keys(members, keys)
    return {p: summed[members[p]] for p in keys}


def winners(state: State) -> list[int]:
    """The winning players (see the module doc); every player when all tie."""
    game = state.game
    if cooperative(game):
        return list(range(game.num_players)) if success(state) else []
    standings = state.standings()
    if kind(game) != TEAMS:
        return [p for p, key in standings if key == standings[0][1]]
    members = teams(state)
    summed = team_keys(members, dict(standings))
    best = max(summed.values())
    return [p for p in range(game.num_players) if summed[members[p]] == best]


def success(state: State) -> bool:
    """Whether a cooperative game's shared score reached the threshold."""
    return state.scores()[0] >= success_threshold(state.game)


def returns(state: State) -> list[float]:
    """What each seat gets at the end (see the module doc)."""
    game = state.game
    n = game.num_players
    if cooperative(game):
        value = state.scores()[0] / success_threshold(game)
        return [max(-1.0, min(1.0, float(value)))] * n
    if n == 1:  # one player against the rules (a dealer, a puzzle): the sign of her score
        score = state.scores()[0]
        return [float((score > 0) - (score < 0))]
    won = winners(state)
    if len(won) == n:
        return [0.0] * n
    return [1.0 if p in won else -1.0 for p in range(n)]


def bot_values(state: State, values: Sequence[float]) -> list[float]:
    """What each player wants, from per-player values (scores, or evaluations): its margin
    over the best other player; its team's margin over the best other team (``teams``); the
    shared value itself in a cooperative game (there is nobody to beat)."""
    if cooperative(state.game):
        return [float(values[0])] * len(values)
    members = teams(state) if kind(state.game) == TEAMS else list(range(len(values)))
    totals: dict[int, float] = {}
    for p, value in enumerate(values):
        totals[members[p]] = totals.get(members[p], 0.0) + value
    if len(totals) == 1:  # one team: nobody to beat
        return [totals[members[p]] for p in range(len(values))]
    return [
        totals[members[p]] - max(v for t, v in totals.items() if t != members[p]) for p in range(len(values))
    ]
