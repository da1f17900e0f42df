"""Actions offered only if nothing else is possible (Ludii's ``priority``).

An action with ``only_if_nothing_else`` (a "pass" that the rules allow only when a
player can do nothing else) is legal when its own requirements hold *and* no other
action of the decision is legal.  Its rejection names the message the rules give
and a few of the actions still possible.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from typing import Any


def keep(found: list[Any], names: Sequence[str], actions: Mapping[str, Any]) -> list[Any]:
    """``found`` without its fallback actions when some other action is legal (order kept)."""
    if not any(actions[name].fallback is not None for name in names):
        return found
    others = [a for a in found if actions[a.name].fallback is None]
    return others if others else found


def refusal(compiled: Any, others: Sequence[str]) -> str:
    """Why a fallback action is not legal: its message, and some of what is possible instead."""
    shown = ", ".join(others[:4]) + (", ..." if len(others) > 4 else "")
    return f"{compiled.fallback} (possible: {shown})"
