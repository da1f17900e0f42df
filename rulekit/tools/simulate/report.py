"""The ``rulekit simulate`` report: text with one column per configuration (and B - A), or JSON."""

from __future__ import annotations

import math
from collections.abc import Callable, Sequence
from typing import Any

from rulekit.tools.bots import describe_bots
from rulekit.tools.options import ruleset_label
from rulekit.tools.simulate.intervals import mean_or_none
from rulekit.tools.simulate.play import SeatResult, Simulation, differences
from rulekit.tools.simulate.shared import shared_difference, shared_rows

SHARED_NOTE = "a win shared by k players tied for first counts 1/k for each"
SIGNIFICANT_NOTE = (
    "* the two 95% intervals do not overlap: a significant difference. A conservative test:\n"
    "  overlapping intervals can still hide a real difference, so no * does not mean no difference"
)


def render(sims: Sequence[Simulation]) -> str:
    """The report as text: one column per configuration, and B - A when there are two."""
    first = sims[0]
    labels = ["A", "B"][: len(sims)] if len(sims) > 1 else [""]
    seeds = first.seeds
    played = (
        f"1 game per configuration (seed {seeds.start})"
        if len(seeds) == 1
        else f"{len(seeds)} games per configuration (seeds {seeds.start}-{seeds.stop - 1})"
    )
    bots = describe_bots(first.bot, first.players)
    lines = [
        f"{ruleset_label(first.config.ruleset)}: {first.players} players, {played}, {bots}, "
        f"at most {first.max_actions} actions a game",
    ]
    if len(sims) > 1:
        for label, sim in zip(labels, sims, strict=True):
            lines.append(f"  {label}: {sim.config.describe()}  (fingerprint {sim.fingerprint})")
    else:
        lines.append(f"  {first.config.describe()}  (fingerprint {first.fingerprint})")
    if all(sim.cooperative for sim in sims):
        lines += ["", *shared_rows(sims, labels, _fixed, _signed)]
        rows = [["", *labels]] if len(sims) > 1 else []
        rows.append(["games finished / cut off"] + [f"{s.finished} / {s.cut_off}" for s in sims])
        rows.append(["length in actions: mean (min-max)"] + [_length_cell(s.lengths) for s in sims])
        lines += ["", *_table(rows)]
        if len(sims) == 2:
            lines += ["", SIGNIFICANT_NOTE]
        lines += ["", _timing(sims, labels)]
        return "\n".join(lines)
    diffs = differences(sims[0], sims[1]) if len(sims) == 2 else None
    seats = [sim.seat_results() for sim in sims]
    head = [[""] + labels + (["B - A"] if diffs is not None else [])] if len(sims) > 1 else []

    def seat_rows(cell: Callable[[Any], str], difference: Callable[[Any], str]) -> list[list[str]]:
        rows = list(head)
        for seat in range(first.players):
            row = [f"P{seat + 1}"] + [cell(results[seat]) for results in seats]
            if diffs is not None:
                row.append(difference(diffs[seat]))
            rows.append(row)
        return rows

    lines += ["", f"win rate, % of finished games [95% Wilson interval]; {SHARED_NOTE}"]
    lines += _table(
        seat_rows(
            _rate_cell,
            lambda d: _signed(d.win_rate, 100, 1, " pts") + (" *" if d.win_rate_significant else ""),
        )
    )
    rows = seat_rows(
        _score_cell, lambda d: _signed(d.mean_score, 1, 2, "") + (" *" if d.mean_score_significant else "")
    )
    lines += ["", "mean score of finished games [95% interval: mean ± 1.96·sd/√n]"]
    lines += _table(rows)

    rows = [["", *labels]] if len(sims) > 1 else []
    rows.append(["games finished / cut off"] + [f"{s.finished} / {s.cut_off}" for s in sims])
    rows.append(["length in actions: mean (min-max)"] + [_length_cell(s.lengths) for s in sims])
    rows.append(["mean winning score"] + [_fixed(mean_or_none(s.winning_scores), 2) for s in sims])
    rows.append(["tie for first (a draw counts)"] + [_share_cell(s.shared_first, s.finished) for s in sims])
    rows.append(["balance (1 - largest win-rate gap)"] + [_balance_cell(s) for s in sims])
    lines.append("")
    lines += _table(rows)
    if diffs is not None:
        lines += ["", SIGNIFICANT_NOTE]
    lines += ["", _timing(sims, labels)]
    return "\n".join(lines)


def to_json(sims: Sequence[Simulation]) -> dict[str, Any]:
    """The report as JSON-compatible data (non-finite numbers become null)."""
    first = sims[0]
    data: dict[str, Any] = {
        "players": first.players,
        "games": len(first.seeds),
        "seeds": [first.seeds.start, first.seeds.stop - 1],
        "bot": first.bot,
        "max_actions": first.max_actions,
        "shared_wins": SHARED_NOTE,
        "configurations": [sim.to_json() for sim in sims],
    }
    if all(sim.cooperative for sim in sims):
        del data["shared_wins"]
        data["outcome"] = "cooperative"
        if len(sims) == 2:
            data["differences"] = shared_difference(sims[0], sims[1])
            data["significance"] = "the two 95% intervals do not overlap (a conservative test)"
        return finite_json(data)
    if len(sims) == 2:
        data["differences"] = [d.to_json() for d in differences(sims[0], sims[1])]
        data["significance"] = "the two 95% intervals do not overlap (a conservative test)"
    return finite_json(data)


def finite_json(value: Any) -> Any:
    """``value`` with every non-finite float (an undefined statistic) as None, for JSON output."""
    if isinstance(value, float) and not math.isfinite(value):
        return None
    if isinstance(value, dict):
        return {k: finite_json(v) for k, v in value.items()}
    if isinstance(value, list | tuple):
        return [finite_json(v) for v in value]
    return value


def _fixed(value: float | None, digits: int) -> str:
    if value is None:
        return "n/a"
    if not math.isfinite(value):
        return "-inf" if value < 0 else "inf"
    text = f"{value:.{digits}f}"
    return "0." + "0" * digits if text.strip("-0.") == "" else text  # no "-0.00"


def _signed(value: float | None, scale: float, digits: int, unit: str) -> str:
    if value is None:
        return "n/a"
    text = _fixed(value * scale, digits)
    return (text if text.startswith("-") else "+" + text) + unit


def _rate_cell(r: SeatResult) -> str:
    if r.win_rate is None or r.win_interval is None:
        return "n/a"
    low, high = r.win_interval
    return f"{_fixed(100 * r.win_rate, 1)}% [{_fixed(100 * low, 1)}, {_fixed(100 * high, 1)}]"


def _score_cell(r: SeatResult) -> str:
    if r.mean_score is None or r.score_interval is None:
        return "n/a"
    low, high = r.score_interval
    return f"{_fixed(r.mean_score, 2)} [{_fixed(low, 2)}, {_fixed(high, 2)}]"


def _length_cell(lengths: Sequence[int]) -> str:
    mean = mean_or_none(lengths)
    return "n/a" if mean is None else f"{mean:.1f} ({min(lengths)}-{max(lengths)})"


def _share_cell(count: int, total: int) -> str:
    return "n/a" if total == 0 else f"{_fixed(100 * count / total, 1)}% ({count})"


def _balance_cell(sim: Simulation) -> str:
    balance = sim.balance()
    if balance is None:
        return "n/a"
    value, best, worst = balance
    return f"{value:.3f} (gap {_fixed(100 * (1 - value), 1)} pts: P{best + 1} over P{worst + 1})"


def _timing(sims: Sequence[Simulation], labels: Sequence[str]) -> str:
    parts = []
    for label, sim in zip(labels, sims, strict=True):
        name = f"{label}: " if label else ""
        stored = f", {sim.resumed} read back from --db" if sim.resumed else ""
        parts.append(f"{name}{rate(sim.games_per_second)} games/s ({sim.seconds:.2f}s{stored})")
    return "speed: " + ", ".join(parts)


def rate(per_second: float) -> str:
    """A speed readable at any scale: ``5,217.0``, ``3.5``, ``0.019`` (never a bare 0.0 for
    games that take minutes each)."""
    if per_second >= 1 or per_second == 0:
        return f"{per_second:,.1f}"
    return f"{per_second:.2g}"


def _table(rows: list[list[str]]) -> list[str]:
    widths = [max(len(row[i]) for row in rows) for i in range(len(rows[0]))]
    return ["  ".join(cell.ljust(w) for cell, w in zip(row, widths, strict=True)).rstrip() for row in rows]
