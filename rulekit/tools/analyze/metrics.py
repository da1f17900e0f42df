"""Game metrics over played games (definitions and sources: docs/balance.md, "Game metrics").

Each function takes plain data (lengths, legal-action counts, score trajectories), so each is
tested on hand-made games whose answer is known.  A *trajectory* is the list of score vectors
of one game, one before each decision and one at the end.
"""

from __future__ import annotations

import math
from collections.abc import Sequence
from statistics import median

from rulekit.tools.simulate.intervals import wilson_interval

#: Game phases the branching factor is reported by (tenths of a game).
PHASES = 10


def distribution(values: Sequence[float], bins: int = 10) -> dict[str, object]:
    """Mean, median, quartiles (the median of each half, Tukey's hinges), min, max and a
    histogram of ``bins`` equal-width bins over [min, max] (None figures when empty)."""
    if not values:
        return {
            "n": 0,
            "mean": None,
            "median": None,
            "q1": None,
            "q3": None,
            "min": None,
            "max": None,
            "histogram": [],
        }
    ordered = sorted(values)
    n = len(ordered)
    lower, upper = ordered[: n // 2], ordered[(n + 1) // 2 :]
    return {
        "n": n,
        "mean": math.fsum(ordered) / n,
        "median": median(ordered),
        "q1": median(lower) if lower else ordered[0],
        "q3": median(upper) if upper else ordered[0],
        "min": ordered[0],
        "max": ordered[-1],
        "histogram": histogram(ordered, bins),
    }


def histogram(values: Sequence[float], bins: int) -> list[dict[str, float]]:
    """Equal-width bins over [min, max], the last one closed: ``{low, high, count}`` each."""
    if not values:
        return []
    low, high = min(values), max(values)
    if low == high:
        return [{"low": low, "high": high, "count": len(values)}]
    width = (high - low) / bins
    counts = [0] * bins
    for value in values:
        counts[min(bins - 1, int((value - low) / width))] += 1
    return [{"low": low + i * width, "high": low + (i + 1) * width, "count": c} for i, c in enumerate(counts)]


def phase_of(index: int, count: int, phases: int = PHASES) -> int:
    """The phase of point ``index`` of ``count``: by its middle, ``floor(phases · (index + ½) / count)``
    (so the phases of a short game are spread evenly, the last point in the last phase)."""
    return (2 * phases * index + phases) // (2 * count)


def branching(games: Sequence[Sequence[int]], phases: int = PHASES) -> dict[str, object]:
    """Legal actions per decision: the mean over every decision of every game, the share of
    forced decisions (one legal action), and the mean in each phase (decision *i* of a game
    of *n* decisions is in phase :func:`phase_of`); None where there is no decision."""
    decisions = [n for game in games for n in game]
    sums, counts = [0] * phases, [0] * phases
    for game in games:
        for index, n in enumerate(game):
            phase = phase_of(index, len(game), phases)
            sums[phase] += n
            counts[phase] += 1
    return {
        "decisions": len(decisions),
        "mean": math.fsum(decisions) / len(decisions) if decisions else None,
        "max": max(decisions) if decisions else None,
        "forced_share": sum(1 for n in decisions if n == 1) / len(decisions) if decisions else None,
        "by_phase": [s / c if c else None for s, c in zip(sums, counts, strict=True)],
    }


#: A game's scores at each point; None where the score could not be computed.
Trajectory = Sequence[Sequence[int] | None]


def leaders(trajectory: Trajectory) -> list[int | None]:
    """The leader at each point: the seat with the strictly highest score, None on a tie (or
    where there is no score)."""
    found: list[int | None] = []
    for scores in trajectory:
        if not scores:
            found.append(None)
            continue
        best = max(scores)
        top = [s for s, v in enumerate(scores) if v == best]
        found.append(top[0] if len(top) == 1 else None)
    return found


def lead_changes(trajectory: Trajectory) -> int:
    """How often the leader changes: a point whose leader is another seat than the last point
    that had a leader (ties in between neither end nor start a lead)."""
    changes = 0
    last: int | None = None
    for leader in leaders(trajectory):
        if leader is None:
            continue
        if last is not None and leader != last:
            changes += 1
        last = leader
    return changes


def decisive_point(trajectory: Trajectory, winner: int) -> float | None:
    """From what share of the game the winner leads for good: the first point from which
    ``winner`` is the sole leader at every point to the end, as a fraction of the points
    (0: led from the start; near 1: decided at the end); None when the winner does not
    hold the sole lead at the end (a tie on score broken by a tie-break)."""
    marks = leaders(trajectory)
    if not marks or marks[-1] != winner:
        return None
    first = len(marks) - 1
    while first > 0 and marks[first - 1] == winner:
        first -= 1
    return first / (len(marks) - 1) if len(marks) > 1 else 0.0


def out_of_race(trajectory: Trajectory, winners: Sequence[int], players: int) -> list[float]:
    """For each seat that did not win, the share of the game it spent out of the race: the
    points after the last one at which it led or shared the lead, over all points (a seat that
    never led is out from the start: 1.0).  Winners are left out."""
    shares = []
    points = len(trajectory)
    if points == 0:
        return []
    for seat in range(players):
        if seat in winners:
            continue
        last = -1
        for index, scores in enumerate(trajectory):
            if scores and scores[seat] == max(scores):
                last = index
        shares.append((points - 1 - last) / points)
    return shares


def seat_advantage(wins: Sequence[float], games: int) -> list[dict[str, object]]:
    """Each seat's win rate with its 95% Wilson interval (wins shared by k count 1/k each)."""
    result = []
    for seat, won in enumerate(wins):
        interval = wilson_interval(won, games) if games else None
        result.append(
            {
                "seat": f"P{seat + 1}",
                "wins": won,
                "win_rate": won / games if games else None,
                "win_rate_95": None if interval is None else [interval[0], interval[1]],
            }
        )
    return result


def mean(values: Sequence[float]) -> float | None:
    return math.fsum(values) / len(values) if values else None
