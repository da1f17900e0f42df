"""The statistics of ``rulekit balance``: paired differences over the same seeds, the
Holm-Bonferroni correction, and the per-game figures they are computed from."""

from __future__ import annotations

import math
from collections.abc import Sequence
from statistics import NormalDist
from typing import Any

from attrs import define

from rulekit.tools.runner import GameRecord
from rulekit.tools.simulate.intervals import Z95

#: The standard normal distribution (p-values, critical values).
NORMAL = NormalDist()


@define
class Paired:
    """The mean of per-seed differences B - A with its 95% interval and p-value."""

    name: str
    mean_a: float
    mean_b: float
    diff: float
    low: float
    high: float
    p: float
    n: int
    holm: bool = False

    @property
    def significant(self) -> bool:
        return self.low > 0 or self.high < 0

    def to_json(self) -> dict[str, Any]:
        return {
            "name": self.name,
            "a": self.mean_a,
            "b": self.mean_b,
            "difference": self.diff,
            "difference_95": [self.low, self.high],
            "p": self.p,
            "n": self.n,
            "significant": self.significant,
            "significant_holm": self.holm,
        }


def paired(name: str, a: Sequence[float], b: Sequence[float], z: float = Z95) -> Paired:
    """The paired difference of two equally long series (the same seeds on both sides).

    ``d_i = b_i - a_i``; mean ± z·sd/√n, two-sided p-value from the normal distribution.
    With no spread (all differences equal) the interval is the point and p is 1 when
    the difference is 0, else 0.
    """
    n = len(a)
    if n != len(b) or n == 0:
        raise ValueError("paired series must be equally long and not empty")
    diffs = [y - x for x, y in zip(a, b, strict=True)]
    mean = math.fsum(diffs) / n
    sd = math.sqrt(math.fsum((d - mean) ** 2 for d in diffs) / (n - 1)) if n > 1 else 0.0
    se = sd / math.sqrt(n)
    if se == 0:
        p = 1.0 if mean == 0 else 0.0
        low = high = mean
    else:
        p = 2 * (1 - NORMAL.cdf(abs(mean) / se))
        low, high = mean - z * se, mean + z * se
    return Paired(name, math.fsum(a) / n, math.fsum(b) / n, mean, low, high, p, n)


def holm(tests: Sequence[Paired], alpha: float = 0.05) -> None:
    """Mark the tests that stay significant under the Holm-Bonferroni correction."""
    order = sorted(range(len(tests)), key=lambda i: tests[i].p)
    m = len(tests)
    for rank, index in enumerate(order):
        if tests[index].p > alpha / (m - rank):
            break
        tests[index].holm = True


def win_shares(record: GameRecord, players: int) -> list[float]:
    """Each seat's share of the win of one game (1/k each for k tied winners; 0 when cut off)."""
    if not record.finished or not record.winners:
        return [0.0] * players
    return [1 / len(record.winners) if s in record.winners else 0.0 for s in range(players)]


def margin(record: GameRecord) -> float:
    """The winning margin: the best score minus the second best (0 for one player)."""
    ordered = sorted(record.scores, reverse=True)
    return float(ordered[0] - ordered[1]) if len(ordered) > 1 else 0.0
