"""The statistics of ``rulekit simulate`` and ``rulekit balance``: confidence intervals for a
win rate and a mean, and whether two of them are apart."""

from __future__ import annotations

import math
from collections.abc import Sequence

#: The normal quantile for a two-sided 95% interval, as the report states it (1.96).
Z95 = 1.96


def wilson_interval(successes: float, trials: int, z: float = Z95) -> tuple[float, float]:
    """The Wilson score interval for a proportion: ``successes`` out of ``trials``.

    With ``p = successes / trials`` and ``n = trials``::

        centre = (p + z²/2n) / (1 + z²/n)
        half   = z · sqrt(p(1 - p)/n + z²/4n²) / (1 + z²/n)

    Unlike the normal approximation p ± z·sqrt(p(1 - p)/n) it stays inside [0, 1] and does
    not collapse to a point at 0 or n successes, so it behaves with few games and with
    lopsided rates.  ``successes`` may be fractional (a shared win counts 1/k); ``z`` = 1.96
    gives a 95% interval.  With no trials nothing is known: (0, 1).

    >>> [round(x, 4) for x in wilson_interval(81, 263)]
    [0.2553, 0.3662]
    """
    if trials < 0 or not 0 <= successes <= trials:
        raise ValueError(f"need 0 <= successes <= trials, got {successes} of {trials}")
    if trials == 0:
        return 0.0, 1.0
    n = trials
    p = successes / n
    z2 = z * z
    denominator = 1 + z2 / n
    centre = (p + z2 / (2 * n)) / denominator
    half = z * math.sqrt(max(0.0, p * (1 - p) / n + z2 / (4 * n * n))) / denominator
    return max(0.0, centre - half), min(1.0, centre + half)


def mean_interval(values: Sequence[float], z: float = Z95) -> tuple[float, float, float]:
    """The mean of ``values`` and its interval by the normal approximation: (mean, low, high).

    ``low, high = mean ∓ z · sd / √n`` with the sample standard deviation (n - 1 in the
    denominator); ``z`` = 1.96 gives a 95% interval.  The approximation is fair for a few
    dozen values or more.  One value says nothing about the spread: its interval is
    (-inf, inf).

    Raises:
        ValueError: ``values`` is empty.
    """
    n = len(values)
    if n == 0:
        raise ValueError("the mean of no values")
    mean = math.fsum(values) / n
    if n == 1:
        return mean, -math.inf, math.inf
    variance = math.fsum((v - mean) ** 2 for v in values) / (n - 1)
    half = z * math.sqrt(variance) / math.sqrt(n)
    return mean, mean - half, mean + half


def intervals_overlap(a: tuple[float, float], b: tuple[float, float]) -> bool:
    """Whether two closed intervals (low, high) share a point.

    Two 95% intervals that do not overlap mean a significant difference; the converse does
    not hold (overlapping intervals can still hide a real difference), so this is a
    conservative test.
    """
    return a[0] <= b[1] and b[0] <= a[1]


def mean_or_none(values: Sequence[float]) -> float | None:
    """The mean of ``values``; None for none."""
    return math.fsum(values) / len(values) if values else None
