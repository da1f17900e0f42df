"""Source spans, diagnostics and the user-facing error hierarchy.

Every problem a user can cause (a bad rules file, an illegal action, a broken
scenario) is a :class:`RulekitError` carrying one or more :class:`Diagnostic`
objects.  Anything else that escapes rulekit is a bug in rulekit.
"""

from __future__ import annotations

import difflib
from collections.abc import Iterable, Sequence
from pathlib import Path

from attrs import field, frozen


@frozen
class Span:
    """A region of a source file; lines and columns start at 1."""

    file: str
    line: int
    column: int
    end_line: int = 0
    end_column: int = 0

    def __str__(self) -> str:
        return f"{self.file}:{self.line}:{self.column}"


@frozen
class Diagnostic:
    """One problem, where it is, what was expected and what to do about it."""

    message: str
    span: Span | None = None
    expected: tuple[str, ...] = ()
    hint: str | None = None
    severity: str = "error"

    def render(self, sources: SourceCache | None = None) -> str:
        """Render as ``file:line:col: error: message`` plus the line and a caret."""
        cache = sources or _DEFAULT_SOURCES
        head = f"{self.severity}: {self.message}"
        if self.span is None:
            lines = [head]
        else:
            lines = [f"{self.span}: {head}"]
            text = cache.line(self.span.file, self.span.line)
            if text is not None:
                gutter = f"{self.span.line:>5} | "
                lines.append(gutter + text)
                width = 1
                if self.span.end_line == self.span.line and self.span.end_column > self.span.column:
                    width = self.span.end_column - self.span.column
                pad = " " * (len(gutter) - 2) + "| "
                lines.append(pad + " " * (self.span.column - 1) + "^" * width)
        if self.expected:
            shown = ", ".join(self.expected[:12])
            more = "" if len(self.expected) <= 12 else f", ... ({len(self.expected)} in all)"
            lines.append(f"  expected one of: {shown}{more}")
        if self.hint:
            lines.append(f"  hint: {self.hint}")
        return "\n".join(lines)


class SourceCache:
    """Source texts by file name, so that diagnostics can quote their line."""

    def __init__(self) -> None:
        self._texts: dict[str, list[str]] = {}

    def add(self, name: str, text: str) -> None:
        self._texts[name] = _split_lines(text)

    def line(self, name: str, line: int) -> str | None:
        lines = self._texts.get(name)
        if lines is None:
            try:
                lines = _split_lines(Path(name).read_text(encoding="utf-8"))
            except (OSError, UnicodeDecodeError):
                return None
            self._texts[name] = lines
        if 1 <= line <= len(lines):
            return lines[line - 1]
        return None


def _split_lines(text: str) -> list[str]:
    # Only "\n" ends a line, as for the DSL parser (str.splitlines also splits at \f, \x1c...).
    return [line.removesuffix("\r") for line in text.split("\n")]


_DEFAULT_SOURCES = SourceCache()


def remember_source(name: str, text: str) -> None:
    """Make ``text`` quotable in diagnostics under the file name ``name``."""
    _DEFAULT_SOURCES.add(name, text)


class RulekitError(Exception):
    """A user-facing error: a bad rules file, an illegal action, a failed check."""

    def __init__(self, diagnostics: Sequence[Diagnostic] | Diagnostic | str) -> None:
        if isinstance(diagnostics, str):
            diagnostics = [Diagnostic(diagnostics)]
        elif isinstance(diagnostics, Diagnostic):
            diagnostics = [diagnostics]
        self.diagnostics: tuple[Diagnostic, ...] = tuple(diagnostics)
        # Rendered now: the quoted source lines are those of the text that was parsed.
        self._rendered = self.render()
        super().__init__(self._rendered)

    def render(self) -> str:
        parts = [d.render() for d in self.diagnostics]
        errors = sum(1 for d in self.diagnostics if d.severity == "error")
        if errors > 1:
            parts.append(f"{errors} errors")
        return "\n".join(parts)

    def __str__(self) -> str:
        return self._rendered


class DslSyntaxError(RulekitError):
    """Raised when a DSL snippet does not parse."""


class RulesetError(RulekitError):
    """Raised when rules files are malformed: YAML, structure, names, types, modules."""


class IllegalActionError(RulekitError):
    """Raised when an action is not legal in the current state; the state is unchanged."""


class RuleEvaluationError(RulekitError):
    """Raised when a rule fails while it runs (e.g. an explicit ``fail``)."""


class ReplayError(RulekitError):
    """Raised when a game log cannot be replayed (e.g. the rules changed)."""


class UsageError(RulekitError):
    """Raised for a bad command-line request that argparse could not catch."""


@frozen
class DiagnosticBag:
    """Collects diagnostics so that every problem is reported, not only the first."""

    items: list[Diagnostic] = field(factory=list)

    def error(
        self,
        message: str,
        span: Span | None,
        *,
        hint: str | None = None,
        expected: Iterable[str] = (),
    ) -> None:
        self.items.append(Diagnostic(message, span, tuple(expected), hint))

    def extend(self, diagnostics: Iterable[Diagnostic]) -> None:
        self.items.extend(diagnostics)

    def raise_if_any(self, kind: type[RulekitError] = RulesetError) -> None:
        if self.items:
            ordered = sorted(
                self.items,
                key=lambda d: (d.span.file, d.span.line, d.span.column) if d.span else ("", 0, 0),
            )
            raise kind(ordered)


def printable(text: str) -> str:
    """``text`` safe for a terminal: control characters other than line ends (escape codes a
    hostile log or rules file could carry) are shown as ``\\x1b``-style escapes."""
    return "".join(c if c.isprintable() or c == "\n" else repr(c)[1:-1] for c in text)


def did_you_mean(name: str, candidates: Iterable[str]) -> str | None:
    """A hint naming the closest candidates to a misspelled ``name``."""
    close = difflib.get_close_matches(name, list(candidates), n=3, cutoff=0.6)
    if not close:
        return None
    return "did you mean " + " or ".join(f"'{c}'" for c in close) + "?"
