"""Running the triggers of an action: the engine's direct path for ``before``/``after``
triggers of actions (events emitted by effects go through ``Runtime.emit``).

A trigger that listens to an action takes the action's parameters, in their order, after
``(F, R, me)`` (and ``**_``): the engine calls its condition and effect with the action's
arguments as they are, without building a keyword dict per action. Everything else is as
:meth:`rulekit.runtime.context.Runtime.emit` does it: nesting depth, the coverage hook, the
trigger's span on a failure without one.
"""

from __future__ import annotations

from typing import Any

from rulekit.runtime.context import MAX_TRIGGER_DEPTH, Runtime, Trigger
from rulekit.runtime.errors import RuleFailure


def fire(
    F: dict[Any, Any], R: Runtime, me: int, triggers: tuple[Trigger, ...], args: tuple[Any, ...]
) -> None:
    """Run ``triggers`` (those of one action and timing) for the action's ``args``."""
    if R.depth >= MAX_TRIGGER_DEPTH:  # as in emit (an action is applied at depth 0)
        raise RuleFailure(f"triggers nested more than {MAX_TRIGGER_DEPTH} deep")
    R.depth += 1
    try:
        for trigger in triggers:
            condition = trigger.condition
            if condition is not None and not condition(F, R, me, *args):
                continue
            if R.fired is not None:
                R.fired(f"trigger:{trigger.name}")
            try:
                trigger.effect(F, R, me, *args)
            except RuleFailure as failure:
                if failure.span is None:
                    failure.span = trigger.span
                raise
    finally:
        R.depth -= 1
