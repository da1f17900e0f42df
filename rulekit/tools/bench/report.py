"""The figures of ``rulekit bench``: a table, JSON, and each figure against a saved baseline."""

from __future__ import annotations

import json
from collections.abc import Iterator, Sequence
from pathlib import Path
from typing import Any

from attrs import asdict

from rulekit.tools.bench.measure import Row

#: Figures of a row, in table order, with their column heading and format.
FIGURES: tuple[tuple[str, str, str], ...] = (
    ("playouts_per_s", "playouts/s", "{:,.1f}"),
    ("actions_per_s", "actions/s", "{:,.0f}"),
    ("us_per_action", "us/action", "{:,.1f}"),
    ("legal_us", "legal us", "{:,.1f}"),
    ("clone_us", "clone us", "{:,.2f}"),
    ("state_fields", "fields", "{:,.0f}"),
)
#: Figures where smaller is better (the others: larger is better).
SMALLER_IS_BETTER = frozenset({"us_per_action", "legal_us", "clone_us"})


def format_table(rows: Sequence[Row]) -> Iterator[str]:
    """The rows as an aligned text table; OpenSpiel ratios below it."""
    width = max([len("configuration"), *(len(r.key) for r in rows)])
    head = f"{'configuration':<{width}}" + "".join(f"  {title:>11}" for _, title, _ in FIGURES)
    yield head
    yield "-" * len(head)
    for row in rows:
        yield f"{row.key:<{width}}" + "".join(
            f"  {fmt.format(getattr(row, name)):>11}" for name, _, fmt in FIGURES
        )
    yield from against_openspiel(rows)
    for row in rows:
        for kind, ratio in (("Python", row.openspiel_python), ("C++", row.openspiel_cpp)):
            if ratio is not None:
                low, mid, high = ratio
                yield (
                    f"{row.key}: rulekit / OpenSpiel {kind} playouts per CPU second "
                    f"{mid:.2f}x (min {low:.2f}x, max {high:.2f}x)"
                )


def against_openspiel(rows: Sequence[Row]) -> Iterator[str]:
    """Each configuration measured against an OpenSpiel counterpart: CPU milliseconds per random
    playout of both (rounds interleaved) and how many times rulekit's time OpenSpiel's is."""
    lines = [(row.key, entry) for row in rows for entry in row.against]
    if not lines:
        return
    width = max(len("configuration"), *(len(key) for key, _ in lines))
    games = max(len("OpenSpiel game"), *(len(f"{e[1]} ({_KINDS.get(e[0], e[0])})") for _, e in lines))
    yield ""
    yield "against OpenSpiel (CPU ms per random playout; ratio rulekit / OpenSpiel, median of the rounds)"
    head = f"{'configuration':<{width}}  {'OpenSpiel game':<{games}}  {'rulekit':>9}  {'OpenSpiel':>9}  ratio"
    yield head
    yield "-" * (len(head) + 20)
    for key, (kind, game, ours, theirs, low, mid, high) in lines:
        name = f"{game} ({_KINDS.get(kind, kind)})"
        yield (
            f"{key:<{width}}  {name:<{games}}  {ours:>9.3f}  {theirs:>9.3f}  "
            f"{mid:.1f}x (min {low:.1f}x, max {high:.1f}x)"
        )


_KINDS = {"cpp": "C++", "python": "Python"}


def to_json(rows: Sequence[Row], meta: dict[str, Any]) -> dict[str, Any]:
    return {"meta": meta, "rows": [asdict(r) for r in rows]}


def compare(rows: Sequence[Row], baseline: dict[str, Any]) -> Iterator[str]:
    """Each figure against the same configuration in a saved ``--json`` file, as a factor
    (> 1 is better, whichever way the figure goes)."""
    old = {r["key"]: r for r in baseline.get("rows", [])}
    width = max([len("configuration"), *(len(r.key) for r in rows)])
    head = f"{'configuration':<{width}}" + "".join(f"  {title:>11}" for _, title, _ in FIGURES[:4])
    label = baseline.get("meta", {}).get("label", "the baseline")
    yield f"change against {label} (x > 1: better)"
    yield head
    yield "-" * len(head)
    for row in rows:
        before = old.get(row.key)
        if before is None:
            yield f"{row.key:<{width}}  (not in the baseline)"
            continue
        cells = []
        for name, _, _ in FIGURES[:4]:
            new, was = getattr(row, name), before.get(name) or 0
            if not new or not was:
                cells.append("-")
                continue
            factor = was / new if name in SMALLER_IS_BETTER else new / was
            cells.append(f"{factor:.2f}x")
        yield f"{row.key:<{width}}" + "".join(f"  {c:>11}" for c in cells)


def write_json(path: Path, data: dict[str, Any]) -> None:
    """Write atomically: a temporary file next to ``path``, then renamed over it."""
    path.parent.mkdir(parents=True, exist_ok=True)
    tmp = path.with_name(path.name + ".tmp")
    tmp.write_text(json.dumps(data, indent=2) + "\n", encoding="utf-8")
    tmp.replace(path)
