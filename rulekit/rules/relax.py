"""Relaxed invariants: a module weakens a base invariant without copying it.

A base invariant states what holds in the base game; a module that changes the game may
add alternatives under the invariant's ``relax`` key (through ``extend:``, so the module
names the invariant it touches, the patch engine checks the name, and every alternative
must say ``because``)::

    extend:
      invariants:
        warehouses_accounted:
          relax:
            - or: "all(... counted with the ones removed ... for p in players)"
              because: a warehouse shut down in the harbour leaves the game

The invariant then holds when its own condition or one of the alternatives does: a
relaxation can only accept more states, never fewer, and the base never needs to know the
module.  A module that wants a different invariant altogether says so with ``override:``
or ``remove:``; adding one under an existing name is an error.
"""

from __future__ import annotations

from collections.abc import Sequence

from rulekit.dsl import ast
from rulekit.rules.structure import Node


def relaxed(condition: ast.Expr, message: str, relaxations: Sequence[Node]) -> tuple[ast.Expr, str]:
    """The condition ``condition or alt1 or alt2 ...`` and the message naming each reason."""
    reasons = []
    for node in relaxations:
        alternative = node.values.get("or")
        because = node.values.get("because")
        if alternative is None or because is None:
            continue  # reported by the structure pass
        condition = ast.Binary("or", condition, alternative, span=alternative.span)
        reasons.append(str(because))
    if reasons:
        message = f"{message.rstrip()} (relaxed: {'; '.join(reasons)})"
    return condition, message
