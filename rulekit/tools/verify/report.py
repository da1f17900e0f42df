"""What verify prints: the counterexample and a progress line."""

from __future__ import annotations

import sys
import time
from typing import TextIO

from rulekit.tools.verify.counterexample import Counterexample
from rulekit.tools.verify.explain import unparse
from rulekit.tools.verify.failures import (
    ENGINE_PROPERTIES,
)
from rulekit.tools.verify.options import Stats, VerifyOptions


def format_counterexample(example: Counterexample) -> str:
    """The report printed for a violation."""
    lines = []
    if example.key.startswith("invariant:"):
        lines.append(f"invariant '{example.name}' violated")
        where = f"{example.span}: " if example.span else ""
        cite = (
            f" [{example.invariant.decl.cite}]" if example.invariant and example.invariant.decl.cite else ""
        )
        lines.append(f"  {where}{example.message}{cite}")
        if example.invariant is not None:
            lines.append(f"  holds: {unparse(example.invariant.decl.condition)}")
    elif example.key.startswith("property:"):
        lines.append(f"property '{example.name}' violated")
        where = f"{example.span}: " if example.span else ""
        lines.append(f"  {where}{example.message}")
        if example.condition:
            lines.append(f"  holds: {example.condition}")
    elif example.key.startswith("visibility:"):
        lines.append(f"visibility '{example.name}' violated")
        where = f"{example.span}: " if example.span else ""
        lines.append(f"  {where}{example.message}")
    else:
        lines.append(f"engine property violated: {ENGINE_PROPERTIES.get(example.name, example.name)}")
        lines.append(f"  {example.message}")
    if example.details:
        lines.append("  values:")
        lines.extend(f"    {d}" for d in example.details)
    lines.append(
        f"  after {len(example.actions)} action(s) ({example.players} players, seed {example.seed}):"
    )
    if not example.actions:
        lines.append("    (right after setup)")
    for i, (player, text) in enumerate(example.actions, start=1):
        lines.append(f"    {i:>3}. P{player + 1} {text}")
    if example.shrink_note:
        lines.append(f"  shrinking: {example.shrink_note}")
    for path in example.files:
        kind = "log" if path.suffix == ".jsonl" else "scenario"
        lines.append(f"  {kind}: {path}")
    return "\n".join(lines)


class Progress:
    """Progress on stderr: on a terminal one line rewritten in place a few times a second;
    otherwise (a log file, a pipe) a plain line every ``EVERY_LINE`` seconds."""

    EVERY_TTY = 0.25
    EVERY_LINE = 10.0

    def __init__(self, options: VerifyOptions, stats: Stats, stream: TextIO | None = None) -> None:
        self.options = options
        self.stats = stats
        self.stream = stream if stream is not None else sys.stderr
        self.tty = self.stream.isatty()
        self.every = self.EVERY_TTY if self.tty else self.EVERY_LINE
        self.last = time.perf_counter()
        self.shown = False

    def __call__(self) -> None:
        now = time.perf_counter()
        if now - self.last < self.every:
            return
        self.last = now
        stats = self.stats
        text = (
            f"verify {self.options.ruleset}: {stats.games} games, {stats.actions} actions, "
            f"{stats.invariant_checks} invariant checks, {now - stats.started:.0f}s"
        )
        self.stream.write(f"\r{text} " if self.tty else text + "\n")
        self.stream.flush()
        self.shown = True

    def done(self) -> None:
        if self.shown and self.tty:
            self.stream.write("\r" + " " * 100 + "\r")
            self.stream.flush()


def no_progress() -> None:
    return None
