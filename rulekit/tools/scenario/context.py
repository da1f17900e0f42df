"""What every part of a scenario run shares: the file's data, the loaded game, the result so far."""

from __future__ import annotations

from pathlib import Path
from typing import TYPE_CHECKING, Any

from attrs import define, field

from rulekit.compiler.program import CompiledInvariant, Program
from rulekit.engine.game import Game
from rulekit.errors import Diagnostic, DiagnosticBag, RulekitError, RulesetError, Span
from rulekit.rules.yaml_source import LocDict, span_of

if TYPE_CHECKING:
    from rulekit.tools.verify.coverage import Coverage


class ScenarioFailure(Exception):
    """A scenario step went wrong; the message is ready to print."""


class InvariantFailure(ScenarioFailure):
    """An invariant the scenario checks does not hold; ``name`` names it."""

    def __init__(self, message: str, name: str) -> None:
        super().__init__(message)
        self.name = name


class Stopped(Exception):
    """A checkpoint failed (its failures are recorded); the scenario stops there."""


@define
class ScenarioResult:
    """What running one scenario file gave."""

    path: str
    name: str
    failures: list[str] = field(factory=list)
    #: The invariant whose failure stopped the scenario (else None).
    invariant: str | None = None

    @property
    def passed(self) -> bool:
        return not self.failures


@define
class ScenarioFile:
    """A scenario file being run: its located data and the problems found in it so far."""

    path: Path
    data: LocDict
    result: ScenarioResult
    bag: DiagnosticBag = field(factory=DiagnosticBag)
    #: The scenario format the file is written in (its ``format:``, default 1).
    format: int = 1
    #: The ruleset of a file that names none outside any ruleset's directory (``--ruleset``).
    ruleset: str | None = None
    #: ``--coverage``: the collector the run reports what it exercises to (None: no coverage).
    collector: Any = None

    def span(self, value: Any, key: str | None = None) -> Span:
        """Where ``value`` was written (else the top-level ``key``, else the file's start)."""
        span = span_of(value)
        if span is None and key is not None:
            span = self.data.key_spans.get(key)
        return span or Span(str(self.path), 1, 1)

    def flag(self, key: str, default: bool = False) -> bool:
        """A top-level true/false key."""
        value = self.data.get(key, default)
        if not isinstance(value, bool):
            raise RulesetError(Diagnostic(f"{key} is true or false", self.span(value, key)))
        return value


@define(kw_only=True)
class ScenarioRun(ScenarioFile):
    """A scenario file with its ruleset loaded: the program, the game and the invariants checked."""

    program: Program
    game: Game
    invariants: list[CompiledInvariant] = field(factory=list)
    #: The verify checker of ``expect_properties`` (None: no property is checked).
    properties: Any = None
    #: ``--coverage``: the instrumented program's coverage (None: no coverage).
    coverage: Coverage | None = None


def as_list(value: Any) -> list[Any]:
    """A YAML value that may be one item or a list of them, as a list."""
    if value is None:
        return []
    if isinstance(value, list):
        return list(value)
    return [value]


def messages(error: RulekitError) -> str:
    """An error's messages (with hints) on one line."""
    parts = []
    for d in error.diagnostics:
        parts.append(d.message + (f" ({d.hint})" if d.hint else ""))
    return "; ".join(parts)


def locations(error: RulekitError) -> str:
    """Where the rules behind an error were written, one ``(rule at ...)`` line each."""
    spans = [str(d.span) for d in error.diagnostics if d.span is not None]
    return "".join(f"\n  (rule at {s})" for s in spans)


def error_text(error: BaseException) -> str:
    """The message of any exception a rule or expression raised."""
    if isinstance(error, RulekitError):
        return messages(error)
    message = getattr(error, "message", None)
    return str(message) if message else f"{type(error).__name__}: {error}"
