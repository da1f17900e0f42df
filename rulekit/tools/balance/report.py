"""The ``rulekit balance`` report: Markdown, and PNG plots when matplotlib is installed."""

from __future__ import annotations

import math
import os
import tempfile
from collections.abc import Sequence
from pathlib import Path
from typing import Any

from rulekit.tools.balance.compare import Balance
from rulekit.tools.bots import describe_bots


def render_markdown(result: Balance, plots: Sequence[str] = ()) -> str:
    """The report as Markdown."""
    n = result.players
    data = result.to_json()
    lines = [
        f"# Balance: {result.b.describe()} against {result.a.describe()}",
        "",
        f"* A: {result.a.describe()} (fingerprint {result.fingerprints[0]})",
        f"* B: {result.b.describe()} (fingerprint {result.fingerprints[1]})",
        f"* {n} players, {describe_bots(result.bots, n)}; the same seeds and bots on both sides "
        f"({result.games} games each, seeds {data['seeds'][0]}-{data['seeds'][1]})"
        if result.games
        else "* no games",
        f"* {result.stopped} (sequential test: {result.planned_looks} planned looks of {result.batch} games, "
        f"critical |z| {result.critical():.2f}, margin {100 * result.margin:.0f} points)",
        "",
        "## Win rate per seat",
        "",
        "95% Wilson intervals; a win shared by k players counts 1/k each.",
        "",
        "| seat | A | B |",
        "|---|---|---|",
    ]
    a, b = data["a"], data["b"]
    for s in range(n):
        lines.append(f"| P{s + 1} | {_rate(a, s)} | {_rate(b, s)} |")
    lines += [
        "",
        "## Scores, margins and length",
        "",
        "| | A mean (min-max) | B mean (min-max) |",
        "|---|---|---|",
    ]
    for s in range(n):
        lines.append(f"| P{s + 1} score | {_spread(a['scores'][s])} | {_spread(b['scores'][s])} |")
    lines.append(f"| winning margin | {_spread(a['margins'])} | {_spread(b['margins'])} |")
    lines.append(f"| game length (actions) | {_spread(a['lengths'])} | {_spread(b['lengths'])} |")
    lines.append(f"| finished / played | {a['finished']} / {a['games']} | {b['finished']} / {b['games']} |")
    differences = result.differences()
    lines += [
        "",
        "## Paired differences (B - A, per seed)",
        "",
        "Mean of the per-seed differences [95% interval]. `*`: the interval excludes 0; "
        "`**`: still significant after the Holm-Bonferroni correction over all rows.",
        "",
        "| | A | B | B - A [95%] | p | |",
        "|---|---|---|---|---|---|",
    ]
    for d in differences:
        mark = "**" if d.holm else "*" if d.significant else ""
        lines.append(
            f"| {d.name} | {d.mean_a:.3f} | {d.mean_b:.3f} | {d.diff:+.3f} [{d.low:+.3f}, {d.high:+.3f}] | "
            f"{_p(d.p)} | {mark} |"
        )
    significant = [d.name for d in differences if d.holm]
    lines += ["", "## Verdict", ""]
    if significant:
        lines.append("Significant after correction: " + ", ".join(significant) + ".")
    else:
        lines.append("No difference is significant after correction.")
    if plots:
        lines += ["", "## Plots", ""] + [f"![{Path(p).stem}]({Path(p).name})" for p in plots]
    return "\n".join(lines) + "\n"


def write_plots(result: Balance, directory: Path) -> list[str]:
    """Win rate per seat, score and length distributions as PNG files (needs matplotlib)."""
    import matplotlib

    matplotlib.use("Agg")
    import matplotlib.pyplot as plt

    data = result.to_json()
    n = result.players
    written = []

    fig, ax = plt.subplots(figsize=(6, 3.5))
    width = 0.38
    for offset, key, label in ((-width / 2, "a", "A (base)"), (width / 2, "b", "B (variant)")):
        rates = [r or 0.0 for r in data[key]["win_rate"]]
        lows = [rate - iv[0] for rate, iv in zip(rates, data[key]["win_rate_95"], strict=True)]
        highs = [iv[1] - rate for rate, iv in zip(rates, data[key]["win_rate_95"], strict=True)]
        ax.bar([s + offset for s in range(n)], rates, width, yerr=[lows, highs], capsize=3, label=label)
    ax.set_xticks(range(n), [f"P{s + 1}" for s in range(n)])
    ax.set_ylabel("win rate (95% Wilson)")
    ax.legend()
    written.append(_save(fig, directory / "win_rate.png"))

    fig, axes = plt.subplots(1, n, figsize=(3 * n, 3), sharey=True, squeeze=False)
    for s in range(n):
        axis = axes[0][s]
        axis.boxplot([data["a"]["scores"][s], data["b"]["scores"][s]])
        axis.set_xticks([1, 2], ["A", "B"])
        axis.set_title(f"P{s + 1} score")
    written.append(_save(fig, directory / "scores.png"))

    fig, ax = plt.subplots(figsize=(6, 3.5))
    ax.hist([data["a"]["lengths"], data["b"]["lengths"]], bins=20, label=["A (base)", "B (variant)"])
    ax.set_xlabel("game length (actions)")
    ax.set_ylabel("games")
    ax.legend()
    written.append(_save(fig, directory / "length.png"))
    plt.close("all")
    return written


def _save(fig: Any, path: Path) -> str:
    fig.tight_layout()
    with tempfile.NamedTemporaryFile(dir=path.parent, suffix=".png", delete=False) as tmp:
        fig.savefig(tmp, format="png", dpi=90)
    os.replace(tmp.name, path)
    return str(path)


def _rate(side: dict[str, Any], seat: int) -> str:
    rate = side["win_rate"][seat]
    if rate is None:
        return "n/a"
    low, high = side["win_rate_95"][seat]
    return f"{100 * rate:.1f}% [{100 * low:.1f}, {100 * high:.1f}]"


def _spread(values: Sequence[float]) -> str:
    if not values:
        return "n/a"
    return f"{math.fsum(values) / len(values):.2f} ({min(values):g}-{max(values):g})"


def _p(p: float) -> str:
    return "<0.001" if p < 0.001 else f"{p:.3f}"
