"""``rulekit simulate``'s figures for a cooperative game (``scoring.outcome: cooperative``).

Every seat shares one score and one result, so per-seat win rates (all equal, or "33.3%"
for three seats sharing each success) and a balance between seats say nothing.  The
figures are instead the success rate (a shared score at least the ruleset's threshold) with
its Wilson interval, the shared score's mean with its interval, and its distribution.
"""

from __future__ import annotations

from collections import Counter
from collections.abc import Sequence
from typing import TYPE_CHECKING, Any

from rulekit.tools.simulate.intervals import intervals_overlap, mean_interval, mean_or_none, wilson_interval

if TYPE_CHECKING:
    from rulekit.tools.simulate.play import Simulation


def shared_scores(sim: Simulation) -> list[int]:
    """The shared score of each finished game."""
    return list(sim.scores[0]) if sim.scores else []


def success_rate(sim: Simulation) -> tuple[float, tuple[float, float]] | None:
    """The share of finished games that were a success, with its 95% Wilson interval."""
    if sim.finished == 0:
        return None
    return sim.successes / sim.finished, wilson_interval(sim.successes, sim.finished)


def score_interval(sim: Simulation) -> tuple[float, float, float] | None:
    """The mean shared score with its 95% interval (None when no game finished)."""
    scores = shared_scores(sim)
    return mean_interval(scores) if scores else None


def distribution(sim: Simulation) -> dict[int, int]:
    """How many finished games ended with each shared score, lowest first."""
    return dict(sorted(Counter(shared_scores(sim)).items()))


def shared_json(sim: Simulation) -> dict[str, Any]:
    rate = success_rate(sim)
    interval = score_interval(sim)
    return {
        "ruleset": sim.config.ruleset,
        "modules": sim.config.modules,
        "variants": sim.config.variants,
        "fingerprint": sim.fingerprint,
        "outcome": "cooperative",
        "success_threshold": sim.success,
        "games": sim.games,
        "finished": sim.finished,
        "cut_off": sim.cut_off,
        "successes": sim.successes,
        "success_rate": None if rate is None else rate[0],
        "success_rate_95": None if rate is None else list(rate[1]),
        "mean_shared_score": None if interval is None else interval[0],
        "mean_shared_score_95": None if interval is None else list(interval[1:]),
        "shared_score_distribution": {str(k): v for k, v in distribution(sim).items()},
        "length": {
            "mean": mean_or_none(sim.lengths),
            "min": min(sim.lengths, default=None),
            "max": max(sim.lengths, default=None),
        },
        "timing": {"seconds": sim.seconds, "games_per_second": sim.games_per_second, "resumed": sim.resumed},
    }


def shared_difference(a: Simulation, b: Simulation) -> dict[str, Any]:
    """B - A: success rate and mean shared score, flagged where the 95% intervals are apart."""
    ra, rb = success_rate(a), success_rate(b)
    sa, sb = score_interval(a), score_interval(b)
    return {
        "success_rate": None if ra is None or rb is None else rb[0] - ra[0],
        "success_rate_significant": ra is not None and rb is not None and not intervals_overlap(ra[1], rb[1]),
        "mean_shared_score": None if sa is None or sb is None else sb[0] - sa[0],
        "mean_shared_score_significant": sa is not None
        and sb is not None
        and not intervals_overlap(sa[1:], sb[1:]),
    }


def shared_rows(sims: Sequence[Simulation], labels: Sequence[str], fixed: Any, signed: Any) -> list[str]:
    """The cooperative part of the text report: success rate, shared score, distribution."""
    threshold = sims[0].success
    head = ["", *labels] + (["B - A"] if len(sims) == 2 else [])
    rate_row = ["success rate"]
    score_row = ["mean shared score"]
    for sim in sims:
        rate = success_rate(sim)
        rate_row.append(
            "n/a"
            if rate is None
            else f"{fixed(100 * rate[0], 1)}% [{fixed(100 * rate[1][0], 1)}, {fixed(100 * rate[1][1], 1)}]"
        )
        interval = score_interval(sim)
        score_row.append(
            "n/a"
            if interval is None
            else f"{fixed(interval[0], 2)} [{fixed(interval[1], 2)}, {fixed(interval[2], 2)}]"
        )
    if len(sims) == 2:
        diff = shared_difference(sims[0], sims[1])
        rate_row.append(
            signed(diff["success_rate"], 100, 1, " pts") + (" *" if diff["success_rate_significant"] else "")
        )
        score_row.append(
            signed(diff["mean_shared_score"], 1, 2, "")
            + (" *" if diff["mean_shared_score_significant"] else "")
        )
    rows = [head, rate_row, score_row] if len(sims) > 1 else [rate_row, score_row]
    lines = [
        f"cooperative: one shared score for all seats; a success is a score of {threshold} or more",
        "success rate, % of finished games [95% Wilson interval]; mean shared score [95% interval]",
    ]
    lines += _table(rows)
    for label, sim in zip(labels, sims, strict=True):
        counts = distribution(sim)
        name = f" ({label})" if label else ""
        text = ", ".join(f"{score}: {count}" for score, count in counts.items()) or "no finished game"
        lines.append(f"shared score distribution{name}, score: games: {text}")
    return lines


def _table(rows: list[list[str]]) -> list[str]:
    widths = [max(len(row[i]) for row in rows) for i in range(len(rows[0]))]
    return ["  ".join(cell.ljust(w) for cell, w in zip(row, widths, strict=True)).rstrip() for row in rows]
