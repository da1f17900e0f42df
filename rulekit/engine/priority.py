"""Actions offered only if nothing else is possible (Ludii's ``priority``).

An action with ``only_if_nothing_else`` (a "pass" that the rules allow only when a
player can do nothing else) is legal when its own requirements hold *and* no other
action of the decision is legal, except the ones it names as ``ignoring`` (actions
that do not count as doing something, e.g. buying a card).  Its rejection names the
message the rules give and a few of the actions still possible.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from typing import Any


def keep(found: list[Any], names: Sequence[str], actions: Mapping[str, Any]) -> list[Any]:
    """``found`` without the fallback actions that something else legal rules out (order kept)."""
    fallbacks = [actions[name] for name in names if actions[name].fallback is not None]
    if not fallbacks:
        return found
    present = {a.name for a in found}
    ruled_out = {
        f.name
        for f in fallbacks
        if any(
            name != f.name and actions[name].fallback is None and name not in f.fallback_ignoring
            for name in present
        )
    }
    return [a for a in found if a.name not in ruled_out] if ruled_out else found


def blocking(compiled: Any, legal: Sequence[Any], actions: Mapping[str, Any]) -> list[Any]:
    """The legal actions that keep a fallback action from being offered."""
    return [
        a
        for a in legal
        if a.name != compiled.name
        and actions[a.name].fallback is None
        and a.name not in compiled.fallback_ignoring
    ]


def refusal(compiled: Any, others: Sequence[str]) -> str:
    """Why a fallback action is not legal: its message, and some of what is possible instead."""
    shown = ", ".join(others[:4]) + (", ..." if len(others) > 4 else "")
    return f"{compiled.fallback} (possible: {shown})"
