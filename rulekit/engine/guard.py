"""One translation of whatever a running rule raises into a user error that names the rule.

Compiled rules may raise :class:`RuleFailure` (an explicit ``fail``, an unaffordable
payment), :class:`StepBudgetExceeded`, or any Python exception a mistake in the rules
causes (a bad index, a division by zero, a name the rules never set, running out of
memory or stack).  The engine restores the state it had before and reports one
:class:`RuleEvaluationError` located at the failing rule.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

from rulekit.errors import Diagnostic, RuleEvaluationError, RulekitError, Span
from rulekit.runtime.errors import RuleFailure

if TYPE_CHECKING:
    from rulekit.compiler.program import Program


def rule_error(program: Program, error: Exception, doing: str, span: Span | None) -> RulekitError:
    """The user error for ``error`` raised while ``doing`` (e.g. "computing the scores"),
    located at the failing rule or else at ``span``."""
    if isinstance(error, RulekitError):
        return error
    where = getattr(error, "span", None) if isinstance(error, RuleFailure) else None
    where = where or program.rule_span(error) or span
    if isinstance(error, RuleFailure):
        return RuleEvaluationError(Diagnostic(f"{doing} failed: {error.message}", where))
    message = str(error) if not isinstance(error, RecursionError | MemoryError) else "the rules went too deep"
    return RuleEvaluationError(
        Diagnostic(
            f"{doing} failed: {type(error).__name__}: {message}",
            where,
            hint="this is a mistake in the rules (e.g. a missing value, a bad index or a division by zero)",
        )
    )
