"""The game metrics of a set of traced games (:func:`analyze`), as JSON-ready data."""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

from rulekit.engine.game import Game
from rulekit.tools.analyze import metrics
from rulekit.tools.runner import GameRecord
from rulekit.tools.simulate.report import finite_json

#: A losing seat counts as out of the race in a game when it is so for at least this share of it.
OUT_OF_RACE_SHARE = 0.5


def rule_keys(game: Game) -> list[str]:
    """Every action and trigger of the composed rules, as the runtime's ``fired`` hook names them."""
    program = game.program
    keys = [f"action:{name}" for name in program.actions]
    keys += [f"trigger:{t.decl.name}" for t in program.triggers]
    return sorted(set(keys))


def analyze(records: Sequence[GameRecord], game: Game) -> dict[str, Any]:
    """The metrics of docs/balance.md over ``records`` (traced games of ``game``, any order).

    Outcome metrics (seats, draws, decisiveness, out of the race) use the finished games;
    branching and firing counts use every game played.
    """
    players = game.num_players
    finished = [r for r in records if r.finished]
    traced = [r for r in records if r.trace is not None]
    traced_finished = [r for r in finished if r.trace is not None]

    wins = [0.0] * players
    for record in finished:
        for seat in record.winners:
            wins[seat] += 1 / len(record.winners)
    draws = sum(1 for r in finished if players > 1 and len(r.winners) == players)
    shared = sum(1 for r in finished if 1 < len(r.winners) < players)

    changes = [metrics.lead_changes(r.trace.scores) for r in traced_finished if r.trace]
    per_decision = [c / r.length for c, r in zip(changes, traced_finished, strict=True) if r.length]
    points: list[float] = []
    undecided = 0
    out_shares: list[float] = []
    out_games = 0
    for record in traced_finished:
        assert record.trace is not None
        scores = record.trace.scores
        if len(record.winners) == 1:
            point = metrics.decisive_point(scores, record.winners[0])
            if point is None:
                undecided += 1
            else:
                points.append(point)
        shares = metrics.out_of_race(scores, record.winners, players)
        out_shares += shares
        out_games += any(share >= OUT_OF_RACE_SHARE for share in shares)

    fired = []
    for key in sorted(set(rule_keys(game)) | {k for r in records for k in r.fired}):
        counts = [r.fired.get(key, 0) for r in records]
        fired.append(
            {
                "rule": key,
                "games": sum(1 for c in counts if c),
                "total": sum(counts),
                "per_game": sum(counts) / len(records) if records else None,
            }
        )
    phase_scores = _phase_scores([r.trace.scores for r in traced if r.trace], players)
    return finite_json(
        {
            "players": players,
            "games": len(records),
            "finished": len(finished),
            "cut_off": len(records) - len(finished),
            "length": metrics.distribution([r.length for r in finished]),
            "branching": metrics.branching([r.trace.legal for r in traced if r.trace and r.trace.legal]),
            "lead_changes": {
                "games": len(changes),
                "mean": metrics.mean(changes),
                "per_decision": metrics.mean(per_decision),
                "games_with_change": sum(1 for c in changes if c),
                "distribution": metrics.distribution(changes),
            },
            "decisiveness": {
                "games": len(points),
                "mean": metrics.mean(points),
                "median": metrics.distribution(points)["median"],
                "not_sole_leader_at_end": undecided,
                "shared_wins": sum(1 for r in traced_finished if len(r.winners) > 1),
            },
            "out_of_race": {
                "threshold": OUT_OF_RACE_SHARE,
                "losing_seats": len(out_shares),
                "mean_share": metrics.mean(out_shares),
                "games_with_seat_out": out_games,
                "games_with_seat_out_share": out_games / len(traced_finished) if traced_finished else None,
            },
            "seats": metrics.seat_advantage(wins, len(finished)),
            "first_player": {
                **metrics.seat_advantage(wins, len(finished))[0],
                "chance": 1 / players,
            },
            "draws": {
                "games": draws,
                "share": draws / len(finished) if finished else None,
                "shared_first": shared,
            },
            "fired": fired,
            "never_fired": [f["rule"] for f in fired if f["games"] == 0],
            "score_by_phase": phase_scores,
        }
    )


def _phase_scores(trajectories: Sequence[metrics.Trajectory], players: int) -> list[list[float | None]]:
    """Each seat's mean score in each tenth of the game (points of every trajectory that have one)."""
    sums = [[0.0] * metrics.PHASES for _ in range(players)]
    counts = [0] * metrics.PHASES
    for trajectory in trajectories:
        for index, scores in enumerate(trajectory):
            if scores is None:
                continue
            phase = metrics.phase_of(index, len(trajectory))
            counts[phase] += 1
            for seat in range(players):
                sums[seat][phase] += scores[seat]
    return [[s / c if c else None for s, c in zip(row, counts, strict=True)] for row in sums]
