"""The ``rulekit balance`` report: Markdown, and PNG plots when matplotlib is installed."""

from __future__ import annotations

import math
from collections.abc import Sequence
from pathlib import Path
from typing import Any

from rulekit.tools.balance.changes import VariantChanges, describe_change
from rulekit.tools.balance.compare import Balance
from rulekit.tools.balance.strength import all_random
from rulekit.tools.bots import describe_bots
from rulekit.tools.files import write_figure


def render_markdown(result: Balance, plots: Sequence[str] = (), extra: Sequence[str] = ()) -> str:
    """The report as Markdown; ``extra`` lines (the game metrics) come before the plots."""
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
    ]
    if result.games and all_random(result):
        lines += [
            "",
            "**Warning: every seat is a random bot.** Random play says little about a strategic rule: "
            "it reaches what chance reaches, and a rule that rewards a plan shows no effect between "
            "players without one. Try `--bots heuristic` or `--bots mcts:...` (docs/bots.md).",
        ]
    if result.changes is not None:
        lines += _changes_section(result.changes)
    lines += _strength_section(result)
    lines += _fired_section(result)
    a, b = data["a"], data["b"]
    if result.cooperative:
        lines += _shared_section(a, b)
    else:
        lines += _seat_section(a, b, n)
    differences = result.differences()
    lines += _paired_section(result, differences)
    lines += extra
    if plots:
        lines += ["", "## Plots", ""] + [f"![{Path(p).stem}]({Path(p).name})" for p in plots]
    return "\n".join(lines) + "\n"


def _seat_section(a: dict[str, Any], b: dict[str, Any], n: int) -> list[str]:
    lines = [
        "",
        "## Win rate per seat",
        "",
        "95% Wilson intervals; a win shared by k players counts 1/k each.",
        "",
        "| seat | A | B |",
        "|---|---|---|",
    ]
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
    return lines


def _shared_section(a: dict[str, Any], b: dict[str, Any]) -> list[str]:
    """A cooperative game's figures: one success rate and one shared score, no seat against seat."""
    return [
        "",
        "## Success rate (cooperative: one shared score for all seats)",
        "",
        "95% Wilson intervals; a success is a shared score at the ruleset's threshold or more.",
        "",
        "| | A | B |",
        "|---|---|---|",
        f"| success rate | {_share(a)} | {_share(b)} |",
        f"| shared score, mean (min-max) | {_spread(a['shared_scores'])} | {_spread(b['shared_scores'])} |",
        f"| game length (actions) | {_spread(a['lengths'])} | {_spread(b['lengths'])} |",
        f"| finished / played | {a['finished']} / {a['games']} | {b['finished']} / {b['games']} |",
    ]


def _share(side: dict[str, Any]) -> str:
    rate = side["success_rate"]
    if rate is None:
        return "n/a"
    low, high = side["success_rate_95"]
    return f"{100 * rate:.1f}% [{100 * low:.1f}, {100 * high:.1f}]"


def _paired_section(result: Balance, differences: Sequence[Any]) -> list[str]:
    lines = [
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
    lines += ["", "## Verdict", "", *_verdict(result, [d.name for d in differences if d.holm])]
    return lines


def _changes_section(changes: VariantChanges) -> list[str]:
    lines = ["", "## What the variant changes", ""]
    for info in changes.diff.variants:
        title = f"Variant {info['variant']}: {info['title']}"
        lines.append(title + (f". {info['description'].strip()}" if info.get("description") else ""))
        lines.append("")
    if not changes.changes:
        return [*lines, "Nothing: the variant leaves the composed rules as they were."]
    lines.append("From `rulekit diff` (B against A):")
    lines.append("")
    for change in changes.changes:
        lines.append(f"* {describe_change(change)}")
        if change.diff:
            text = change.diff.rstrip("\n").split("\n")
            lines += ["", "  ```diff", *(f"  {line}" for line in text), "  ```", ""]
        if change.used_by:
            verb = "was read" if change.kind == "removed" else "read"
            lines.append(f"  {verb} by: {', '.join(change.used_by)}")
    return lines


def _strength_section(result: Balance) -> list[str]:
    if not result.strength:
        return []
    lines = [
        "",
        "## The bots' strength",
        "",
        "Win rate against random bots (95% Wilson interval); random play would win the share "
        "given as chance.",
        "",
        "| bot | seats | win rate | chance | how |",
        "|---|---|---|---|---|",
    ]
    for entry in result.strength:
        rate, interval = entry["win_rate"], entry["win_rate_95"]
        shown = "n/a"
        if rate is not None:
            shown = f"{100 * rate:.1f}% [{100 * interval[0]:.1f}, {100 * interval[1]:.1f}]"
        seats = ", ".join(entry["seats"])
        chance = f"{100 * entry['chance']:.1f}%"
        lines.append(f"| {entry['bot']} | {seats} | {shown} | {chance} | {entry['how']} |")
    return lines


def _fired_section(result: Balance) -> list[str]:
    if result.changes is None:
        return []
    changes = result.changes
    lines = [
        "",
        "## How often the changed rules fired",
        "",
        f"Games in which the variant changed anything the report measures (scores, winners, length, "
        f"firing counts): **{result.differing()} of {result.games}**; a verdict needs {result.min_reached}, "
        f"and each rule the variant changes must fire in as many games.",
    ]
    if changes.watched:
        lines += [
            "",
            "| rule | why watched | A: games fired, per game | B: games fired, per game |",
            "|---|---|---|---|",
        ]
        for watched in changes.watched:
            fired = result.fired(watched.key)
            why = "changed" if watched.direct else "reads the change (" + ", ".join(watched.because) + ")"
            lines.append(
                f"| {watched.label} | {why} | {_fire(fired['games_a'], fired['total_a'], result.games)} | "
                f"{_fire(fired['games_b'], fired['total_b'], result.games)} |"
            )
        if any(not w.direct for w in changes.watched):
            lines += [
                "",
                "A rule that reads the change fires whether or not the game uses the changed value "
                "(an action reading every city's costs fires wherever one builds): its count shows the "
                "game came near the change, the games that differ show whether it mattered.",
            ]
    if changes.always:
        always = ", ".join(changes.always)
        lines += ["", f"Read in every game (setup, flow, scoring or initial values): {always}."]
    if changes.unplayed:
        unplayed = ", ".join(changes.unplayed)
        lines += ["", f"Read by no action, trigger, setup, flow or scoring (no effect on play): {unplayed}."]
    return lines


def _verdict(result: Balance, significant: list[str]) -> list[str]:
    unreached = result.unreached()
    if result.changes is not None and not result.reached():
        never = [w.label for w, games in unreached if games == 0]
        rare = [f"{w.label} (in {games} games)" for w, games in unreached if games]
        lines = ["**No verdict.** These games cannot tell whether the variant matters:"]
        if result.differing() == 0:
            lines.append(
                f"* both sides played the same {result.games} games: in every seed the scores, the "
                "winners, the length and every firing count are equal, so the variant never made a "
                "difference;"
            )
        elif result.differing() < result.min_reached:
            lines.append(
                f"* the variant made a difference in only {result.differing()} of {result.games} games "
                f"(a verdict needs {result.min_reached});"
            )
        if never:
            lines.append("* never fired, on either side: " + ", ".join(never) + ";")
        if rare:
            lines.append(f"* fired in fewer than {result.min_reached} games: " + ", ".join(rare) + ";")
        if result.differing() == 0 and not unreached and result.changes.watched:
            lines.append(
                "* the changed rules fired (see above) but never changed a game: between these bots the "
                "change makes no difference to anything measured, which says nothing about other players;"
            )
        lines += [
            "",
            'The paired differences above are reported as measured, but "not significant" here means '
            '"not reached", not "does not matter". To reach the change, try:',
            "",
            *(f"* {line}" for line in result.advice),
        ]
        return lines
    if significant:
        lines = ["Significant after correction: " + ", ".join(significant) + "."]
    else:
        lines = ["No difference is significant after correction."]
    if unreached:
        lines += [
            "",
            f"Not reached: {', '.join(f'{w.label} (fired in {g} games)' for w, g in unreached)}. "
            "The verdict is about the rest of the change and says nothing about these rules.",
        ]
    return lines


def _fire(games: int, total: int, played: int) -> str:
    per_game = total / played if played else 0.0
    return f"{games} of {played} ({per_game:.2f})"


def write_plots(result: Balance, directory: Path) -> list[str]:
    """Win rate per seat, score and length distributions as PNG files (needs matplotlib)."""
    import matplotlib

    matplotlib.use("Agg")
    import matplotlib.pyplot as plt

    data = result.to_json()
    n = result.players
    written = []
    if result.cooperative:
        return _shared_plots(plt, data, directory)

    fig, ax = plt.subplots(figsize=(6, 3.5))
    width = 0.38
    for offset, key, label in ((-width / 2, "a", "A (base)"), (width / 2, "b", "B (variant)")):
        rates = [r or 0.0 for r in data[key]["win_rate"]]
        # max(0, ...): at a rate of 0 or 1 the Wilson bound may differ from it by a rounding error
        lows = [max(0.0, rate - iv[0]) for rate, iv in zip(rates, data[key]["win_rate_95"], strict=True)]
        highs = [max(0.0, iv[1] - rate) for rate, iv in zip(rates, data[key]["win_rate_95"], strict=True)]
        ax.bar([s + offset for s in range(n)], rates, width, yerr=[lows, highs], capsize=3, label=label)
    ax.set_xticks(range(n), [f"P{s + 1}" for s in range(n)])
    ax.set_ylabel("win rate (95% Wilson)")
    ax.legend()
    written.append(str(write_figure(fig, directory / "win_rate.png")))

    fig, axes = plt.subplots(1, n, figsize=(3 * n, 3), sharey=True, squeeze=False)
    for s in range(n):
        axis = axes[0][s]
        axis.boxplot([data["a"]["scores"][s], data["b"]["scores"][s]])
        axis.set_xticks([1, 2], ["A", "B"])
        axis.set_title(f"P{s + 1} score")
    written.append(str(write_figure(fig, directory / "scores.png")))

    fig, ax = plt.subplots(figsize=(6, 3.5))
    ax.hist([data["a"]["lengths"], data["b"]["lengths"]], bins=20, label=["A (base)", "B (variant)"])
    ax.set_xlabel("game length (actions)")
    ax.set_ylabel("games")
    ax.legend()
    written.append(str(write_figure(fig, directory / "length.png")))
    plt.close("all")
    return written


def _shared_plots(plt: Any, data: dict[str, Any], directory: Path) -> list[str]:
    """A cooperative game's plots: the success rate of each side, the shared score distributions."""
    fig, ax = plt.subplots(figsize=(4, 3.5))
    rates = [data[k]["success_rate"] or 0.0 for k in ("a", "b")]
    lows = [max(0.0, r - data[k]["success_rate_95"][0]) for r, k in zip(rates, "ab", strict=True)]
    highs = [max(0.0, data[k]["success_rate_95"][1] - r) for r, k in zip(rates, "ab", strict=True)]
    ax.bar([0, 1], rates, 0.6, yerr=[lows, highs], capsize=3)
    ax.set_xticks([0, 1], ["A (base)", "B (variant)"])
    ax.set_ylabel("success rate (95% Wilson)")
    written = [str(write_figure(fig, directory / "success_rate.png"))]
    fig, ax = plt.subplots(figsize=(6, 3.5))
    ax.hist(
        [data["a"]["shared_scores"], data["b"]["shared_scores"]], bins=20, label=["A (base)", "B (variant)"]
    )
    ax.set_xlabel("shared score")
    ax.set_ylabel("games")
    ax.legend()
    written.append(str(write_figure(fig, directory / "shared_score.png")))
    plt.close("all")
    return written


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
