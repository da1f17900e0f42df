"""The ``rulekit analyze`` report: one structure of sections and tables rendered as Markdown
and as HTML (an autoescaping Jinja2 template), with PNG plots when matplotlib is installed.

The same tables serve ``rulekit balance``: each is built for one or more columns (one per
configuration), so the base and the variant stand side by side.
"""

from __future__ import annotations

import base64
import hashlib
from collections.abc import Sequence
from pathlib import Path
from typing import Any

from attrs import define, field
from markupsafe import Markup

from rulekit.tools.files import write_figure
from rulekit.tools.html import render


@define
class Section:
    """A heading, paragraphs (plain text) and tables (a header row and rows of cells)."""

    title: str
    paragraphs: list[str] = field(factory=list)
    tables: list[tuple[list[str], list[list[str]]]] = field(factory=list)


def _num(value: Any, digits: int = 2) -> str:
    if value is None:
        return "n/a"
    if isinstance(value, int):
        return str(value)
    return f"{value:.{digits}f}"


def _pct(value: Any) -> str:
    return "n/a" if value is None else f"{100 * value:.1f}%"


def _rate(entry: dict[str, Any]) -> str:
    if entry["win_rate"] is None:
        return "n/a"
    low, high = entry["win_rate_95"]
    return f"{100 * entry['win_rate']:.1f}% [{100 * low:.1f}, {100 * high:.1f}]"


def sections(columns: Sequence[tuple[str, dict[str, Any]]]) -> list[Section]:
    """The metrics of one or more analyses (``(label, analyze() data)``), a column each."""
    labels = [label for label, _ in columns]
    data = [d for _, d in columns]

    def row(name: str, cells: Sequence[str]) -> list[str]:
        return [name, *cells]

    header = ["", *labels]
    length = [d["length"] for d in data]
    summary = Section(
        "Game length and outcome",
        ["Length in actions over the finished games; quartiles are Tukey's hinges."],
        [
            (
                header,
                [
                    row("games played / finished", [f"{d['games']} / {d['finished']}" for d in data]),
                    row("length mean", [_num(x["mean"], 1) for x in length]),
                    row(
                        "length median [q1, q3]",
                        [f"{_num(x['median'], 1)} [{_num(x['q1'], 1)}, {_num(x['q3'], 1)}]" for x in length],
                    ),
                    row("length min-max", [f"{_num(x['min'])}-{_num(x['max'])}" for x in length]),
                    row(
                        "draws (all seats tie)",
                        [f"{d['draws']['games']} ({_pct(d['draws']['share'])})" for d in data],
                    ),
                    row("first place shared by some", [str(d["draws"]["shared_first"]) for d in data]),
                    row(
                        "first-player advantage: P1 win rate [95% Wilson]",
                        [
                            f"{_rate(d['first_player'])} (chance {_pct(d['first_player']['chance'])})"
                            for d in data
                        ],
                    ),
                    *[
                        row(f"{seat} win rate", [_rate(d["seats"][i]) for d in data])
                        for i, seat in enumerate(s["seat"] for s in data[0]["seats"])
                    ],
                ],
            )
        ],
    )
    branch = [d["branching"] for d in data]
    branching = Section(
        "Branching factor",
        ["Legal actions per decision: over all decisions, and by tenth of the game."],
        [
            (
                header,
                [
                    row("decisions", [str(b["decisions"]) for b in branch]),
                    row("mean legal actions", [_num(b["mean"]) for b in branch]),
                    row("most legal actions", [_num(b["max"]) for b in branch]),
                    row("forced decisions (one legal action)", [_pct(b["forced_share"]) for b in branch]),
                    *[
                        row(
                            f"tenth {p + 1}",
                            [_num(b["by_phase"][p]) if b["by_phase"] else "n/a" for b in branch],
                        )
                        for p in range(len(branch[0]["by_phase"]))
                    ],
                ],
            )
        ],
    )
    race = Section(
        "Lead, decisiveness, out of the race",
        [
            "The leader is the seat with the strictly highest score; a lead change is a new leader. "
            "Decisive point: the share of the game after which the winner leads to the end. "
            "Out of the race: a losing seat from the last point at which it led or shared the lead.",
        ],
        [
            (
                header,
                [
                    row("lead changes per game (mean)", [_num(d["lead_changes"]["mean"]) for d in data]),
                    row(
                        "lead changes per action", [_num(d["lead_changes"]["per_decision"], 4) for d in data]
                    ),
                    row(
                        "games with a lead change",
                        [str(d["lead_changes"]["games_with_change"]) for d in data],
                    ),
                    row(
                        "decisive point (mean share of the game)",
                        [_num(d["decisiveness"]["mean"]) for d in data],
                    ),
                    row("decisive point (median)", [_num(d["decisiveness"]["median"]) for d in data]),
                    row(
                        "sole winner not sole score leader at the end",
                        [str(d["decisiveness"]["not_sole_leader_at_end"]) for d in data],
                    ),
                    row(
                        "losing seats: mean share of the game out of the race",
                        [_pct(d["out_of_race"]["mean_share"]) for d in data],
                    ),
                    row(
                        "games with a seat out of the race for half the game or more",
                        [
                            f"{d['out_of_race']['games_with_seat_out']} "
                            f"({_pct(d['out_of_race']['games_with_seat_out_share'])})"
                            for d in data
                        ],
                    ),
                ],
            )
        ],
    )
    keys = sorted({f["rule"] for d in data for f in d["fired"]})
    by_key = [{f["rule"]: f for f in d["fired"]} for d in data]
    rows = []
    for key in keys:
        rows.append(row(key, [_fire(fired.get(key)) for fired in by_key]))
    never = Section(
        "Rules that fired",
        [
            "Never fired: " + (", ".join(d["never_fired"]) if d["never_fired"] else "none") + f" ({label})."
            for label, d in columns
        ]
        + ["Per rule: games in which it fired, and times per game."],
        [(["rule", *labels], rows)],
    )
    return [summary, branching, race, never]


def _fire(entry: dict[str, Any] | None) -> str:
    if entry is None:
        return "not in these rules"
    per_game = entry["per_game"]
    return f"{entry['games']} games, {_num(per_game)} per game"


def to_markdown(parts: Sequence[Section], level: int = 2) -> list[str]:
    """The sections as Markdown lines (headings at ``level``)."""
    lines: list[str] = []
    for part in parts:
        lines += ["", "#" * level + " " + part.title, ""]
        for paragraph in part.paragraphs:
            lines += [paragraph, ""]
        for head, rows in part.tables:
            lines.append("| " + " | ".join(_cell(h) for h in head) + " |")
            lines.append("|" + "---|" * len(head))
            lines += ["| " + " | ".join(_cell(c) for c in r) + " |" for r in rows]
            lines.append("")
    return lines


def _cell(text: str) -> str:
    return text.replace("|", "\\|").replace("\n", " ")


# ------------------------------------------------------------------------ HTML

STYLE = (
    "body{font-family:sans-serif;max-width:60em;margin:1em auto;padding:0 1em}"
    "table{border-collapse:collapse;margin:.5em 0}td,th{border:1px solid #ccc;padding:.2em .5em;"
    "text-align:left}img{max-width:100%;display:block;margin:.5em 0}"
)


def render_html(title: str, intro: Sequence[str], parts: Sequence[Section], plots: Sequence[Path]) -> str:
    """The report as one self-contained HTML page (plots inlined as data: URLs); every text is
    escaped by the template, and the page's policy allows no script."""
    images = [
        {"name": plot.stem, "src": "data:image/png;base64," + base64.b64encode(plot.read_bytes()).decode()}
        for plot in plots
    ]
    digest = base64.b64encode(hashlib.sha256(STYLE.encode()).digest()).decode()
    return render(
        "analyze.html",
        title=title,
        intro=list(intro),
        sections=list(parts),
        images=images,
        style=Markup(STYLE),
        policy=f"default-src 'none'; img-src data:; style-src 'sha256-{digest}'; base-uri 'none'; "
        "form-action 'none'",
    )


# ------------------------------------------------------------------------ plots


def write_plots(
    columns: Sequence[tuple[str, dict[str, Any]]],
    lengths: Sequence[Sequence[int]],
    directory: Path,
    prefix: str = "",
) -> list[Path]:
    """Length histogram, branching over the game and mean scores over the game, one line or
    bar set per column, as PNG files in ``directory`` (needs matplotlib)."""
    import matplotlib

    matplotlib.use("Agg")
    import matplotlib.pyplot as plt

    written = []
    fig, ax = plt.subplots(figsize=(6, 3.5))
    ax.hist([list(x) for x in lengths], bins=20, label=[label for label, _ in columns])
    ax.set_xlabel("game length (actions)")
    ax.set_ylabel("games")
    if len(columns) > 1:
        ax.legend()
    written.append(write_figure(fig, directory / f"{prefix}length_histogram.png"))

    fig, ax = plt.subplots(figsize=(6, 3.5))
    for label, data in columns:
        phases = data["branching"]["by_phase"]
        ax.plot(
            [p + 1 for p in range(len(phases))],
            [v if v is not None else float("nan") for v in phases],
            marker="o",
            label=label,
        )
    ax.set_xlabel("tenth of the game")
    ax.set_ylabel("legal actions per decision (mean)")
    ax.legend()
    written.append(write_figure(fig, directory / f"{prefix}branching.png"))

    fig, axes = plt.subplots(1, len(columns), figsize=(5 * len(columns), 3.5), squeeze=False, sharey=True)
    for axis, (label, data) in zip(axes[0], columns, strict=True):
        for seat, row in enumerate(data["score_by_phase"]):
            axis.plot(
                [p + 1 for p in range(len(row))],
                [v if v is not None else float("nan") for v in row],
                marker=".",
                label=f"P{seat + 1}",
            )
        axis.set_title(label)
        axis.set_xlabel("tenth of the game")
    axes[0][0].set_ylabel("mean score")
    axes[0][0].legend()
    written.append(write_figure(fig, directory / f"{prefix}scores.png"))
    plt.close("all")
    return written
