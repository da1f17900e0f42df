"""Helpers over state values for the checks: snapshots, perturbed hidden values, values outside
a domain."""

from __future__ import annotations

from typing import Any

from rulekit.compiler.program import Program

#: The owner of the engine's own fields (flow frames and the like).
ENGINE_OWNER = "_"


def outside(used: Any, like: Any = None, program: Program | None = None) -> Any:
    """A value not in ``used``, of the same kind as ``like`` when possible."""
    if isinstance(like, str) and program is not None:
        for ids in program.collections.values():
            if like in ids:
                for ident in ids:
                    if ident not in used:
                        return ident
    if isinstance(like, int) and not isinstance(like, bool):
        candidate = max((u for u in used if isinstance(u, int)), default=0) + 1000
        return candidate
    return "__not_a_value__"


def snapshot(fields: dict[Any, Any], *, deep: bool = True) -> dict[Any, Any]:
    """A copy of the field dict that later changes of the original cannot reach.

    Values are immutable except maps (dicts), which rules must never change in
    place; with ``deep`` they are copied so that such a change shows up as a
    difference.
    """
    copy = dict(fields)
    if deep:
        for key, value in copy.items():
            if type(value) is dict:
                copy[key] = _deep(value)
    return copy


def _deep(value: Any) -> Any:
    if isinstance(value, dict):
        return {k: _deep(v) for k, v in value.items()}
    if isinstance(value, list):
        return [_deep(v) for v in value]
    return value


def plain_value(value: Any) -> bool:
    if value is None or isinstance(value, bool | int | str):
        return True
    if isinstance(value, tuple):
        return all(plain_value(v) for v in value)
    if isinstance(value, dict):
        return all(plain_value(k) for k in value) and all(plain_value(v) for v in value.values())
    return False


def perturb(value: Any) -> Any:
    """The same hidden value in another order (or, for a scalar, another value)."""
    if isinstance(value, tuple):
        if len(value) > 1:
            changed = tuple(reversed(value))
            if changed == value:
                changed = (*value[1:], value[0])
            return changed
        return value
    if isinstance(value, dict):
        if len(value) > 1:
            return dict(reversed(list(value.items())))
        return value
    if isinstance(value, bool):
        return not value
    if isinstance(value, int):
        return value + 1
    if isinstance(value, str):
        return value + "_"
    return value
