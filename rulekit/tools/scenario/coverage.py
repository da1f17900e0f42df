"""``rulekit scenario --coverage``: the rules no scenario exercises, per ruleset configuration.

The scenarios run on instrumented copies of their programs (verify's
:class:`rulekit.tools.verify.coverage.Coverage`), one per program; the coverages of the
programs of one configuration -- the same ruleset, modules and variants, whatever the player
count -- are added up for the report. Invariant checks do not count (they are not the rules'
play); the branches only the score and tie-breaks reach count only while a final expectation
(``expect_winners``, ``expect_standings``, ``expect_scores``) computes them on a finished game,
which also records the outcome's shape (one winner, a tie for first, a tie-break deciding).
"""

from __future__ import annotations

import json
import os
from collections.abc import Sequence
from pathlib import Path
from typing import Any

from attrs import define, field

from rulekit.compiler.program import Program
from rulekit.engine.game import Game
from rulekit.rules.compose import is_file
from rulekit.tools.verify.coverage import Condition, Coverage, Gap


@define
class Configuration:
    """One ruleset configuration the scenarios ran: its coverages (one per program) and count."""

    ruleset: str
    modules: tuple[str, ...]
    variants: tuple[str, ...]
    coverages: list[Coverage] = field(factory=list)
    scenarios: int = 0

    @property
    def label(self) -> str:
        label = Path(self.ruleset).name
        if self.modules:
            label += f" with {', '.join(self.modules)}"
        if self.variants:
            label += f" + variant {', '.join(_variant_name(v) for v in self.variants)}"
        return label

    def merged(self) -> Coverage:
        """The coverages of its programs added up (onto a fresh one of the first program)."""
        first = self.coverages[0]
        total = Coverage(first.program)
        total.outcomes = {}
        for coverage in self.coverages:
            for key, count in coverage.fired.items():
                total.fired[key] = total.fired.get(key, 0) + count
            for key, condition in coverage.conditions.items():
                into = total.conditions.setdefault(
                    key, Condition(condition.what, condition.span, expr=condition.expr)
                )
                into.true += condition.true
                into.false += condition.false
            for span, counts in coverage.branches.items():
                mine = total.branches.get(span)
                if mine is not None and len(mine) == len(counts):
                    for index, count in enumerate(counts):
                        mine[index] += count
            for key, count in (coverage.outcomes or {}).items():
                total.outcomes[key] = total.outcomes.get(key, 0) + count
        return total


@define
class Collector:
    """The configurations the scenarios of one ``rulekit scenario --coverage`` run ran."""

    configurations: dict[tuple[str, tuple[str, ...], tuple[str, ...]], Configuration] = field(factory=dict)
    _by_program: dict[int, tuple[Coverage, Program]] = field(factory=dict)

    def instrument(
        self, ruleset: str, modules: Sequence[str], variants: Sequence[str], program: Program
    ) -> tuple[Program, Coverage]:
        """The instrumented copy of ``program`` a scenario of this configuration runs, and the
        coverage it reports to (set on the game with :func:`attach`)."""
        key = (_directory(ruleset), tuple(sorted(modules)), tuple(_variant_key(v) for v in variants))
        configuration = self.configurations.get(key)
        if configuration is None:
            configuration = self.configurations[key] = Configuration(*key)
        configuration.scenarios += 1
        known = self._by_program.get(id(program))
        if known is None or known[0].program is not program:
            coverage = Coverage(program, outcomes={}, scoring=False)
            known = self._by_program[id(program)] = (coverage, coverage.instrument())
            configuration.coverages.append(coverage)
        return known[1], known[0]

    def reports(self) -> list[tuple[Configuration, Coverage]]:
        return [(c, c.merged()) for c in self.configurations.values() if c.coverages]

    def uncovered(self) -> int:
        """How many gaps all configurations have together."""
        return sum(len(coverage.gaps()) for _, coverage in self.reports())

    def text(self) -> str:
        """The report: per configuration a title, the summary and the gaps with positions and citations."""
        parts = []
        for configuration, coverage in self.reports():
            shown = coverage.report(cited=True).replace("coverage: ", "", 1)
            parts.append(f"coverage of {configuration.label} ({_count(configuration.scenarios)}): {shown}")
        return "\n".join(parts)

    def json(self) -> str:
        """The report for tools (docs/cli.md, ``--coverage-json``)."""
        result: list[dict[str, Any]] = []
        for configuration, coverage in self.reports():
            result.append(
                {
                    "ruleset": configuration.ruleset,
                    "modules": list(configuration.modules),
                    "variants": list(configuration.variants),
                    "scenarios": configuration.scenarios,
                    "summary": coverage.summary(),
                    "uncovered": [_gap(g) for g in coverage.gaps(cited=True)],
                }
            )
        return json.dumps({"configurations": result}, indent=2) + "\n"


def attach(game: Game, coverage: Coverage) -> None:
    """Report the game's actions, triggers and branches to ``coverage``."""
    game.runtime.fired = coverage.fire
    game.runtime.branch = coverage.branch


def _gap(gap: Gap) -> dict[str, Any]:
    span = gap.span
    return {
        "kind": gap.section,
        "what": gap.what,
        "file": span.file if span else None,
        "line": span.line if span else None,
        "column": span.column if span else None,
        "cite": gap.cite,
    }


def _count(n: int) -> str:
    return f"{n} scenario" + ("" if n == 1 else "s")


def _directory(ruleset: str) -> str:
    from rulekit.load import find_ruleset

    return _shown(Path(find_ruleset(ruleset)))


def _variant_key(variant: str) -> str:
    return _shown(Path(variant)) if is_file(Path(variant)) else variant


def _shown(path: Path) -> str:
    """A path relative to the working directory if it is below it, else absolute (normalised)."""
    path = Path(os.path.normpath(path.absolute()))
    try:
        return str(path.relative_to(Path.cwd()))
    except ValueError:
        return str(path)


def _variant_name(variant: str) -> str:
    return Path(variant).stem if variant.endswith((".yaml", ".yml")) else variant
