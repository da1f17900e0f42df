"""Exceptions raised while compiled rules run (turned into user errors by the engine)."""

from __future__ import annotations

from rulekit.errors import Span


class RuleFailure(Exception):
    """A rule cannot be carried out: an explicit ``fail``, an unaffordable transfer, ...

    ``span`` points at the rule that failed when it is known.
    """

    def __init__(self, message: str, span: Span | None = None) -> None:
        super().__init__(message)
        self.message = message
        self.span = span


class StepBudgetExceeded(RuleFailure):
    """A rule evaluation used up its step budget (a loop too long, or endless)."""
