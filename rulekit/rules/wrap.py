"""Wrapping instead of copying: a replaced function may call ``original(...)``.

When a module's ``override:`` or a variant's ``replace:`` gives a function a new body that
calls ``original(...)``, the definition it replaces is kept under the name
``NAME__original`` (``NAME__original_2`` ... when it is wrapped again) and the new entry
records it under ``wraps``; the loader then makes each ``original(...)`` of the body a
call of that function.  So "payday pays half as much again in phase 3" is one line about
the change, not a copy of the old formula::

    replace:
      functions:
        payday_amount:
          params: {p: player}
          body: "original(p) * 3 // 2 if game.phase == 3 else original(p)"

The wrapper must take the parameters it passes on; the checker types ``original(...)``
like any call, so a wrong argument is an error at the wrapper's line.

A trigger works the same way with the statement ``original()`` in its new effect: the
replaced trigger's effect runs there (the new entry keeps it under ``original``, a list
that grows when a wrapper is wrapped again)::

    override:
      triggers:
        payday:
          after: end_of_round
          effect: |
            original()
            if game.phase == 3:
                original()

The scoring works the same way with ``original()`` in its new ``score``: it stands for the
replaced score (kept under the scoring's ``original`` key), evaluated for the same ``player``;
a wrapping scoring keeps the replaced ``tiebreak`` and ``end_when`` unless it gives its own::

    replace:
      scoring:
        score: "original() + player.bonus"
"""

from __future__ import annotations

import re
from collections.abc import Sequence
from typing import Any

import attrs

from rulekit.dsl import ast
from rulekit.rules.yaml_source import LocDict, LocList, span_of

_CALLS_ORIGINAL = re.compile(r"\boriginal\s*\(")


def wrap_original(section: LocDict, name: str, entry: Any) -> Any:
    """``entry`` to stand for function ``name``; when it calls original(...), keep the old one."""
    body = entry.get("body") if isinstance(entry, LocDict) else entry
    if not isinstance(body, str) or not _CALLS_ORIGINAL.search(body) or name not in section:
        return entry
    hidden, n = f"{name}__original", 1
    while hidden in section:
        n += 1
        hidden = f"{name}__original_{n}"
    section[hidden] = section[name]
    section.key_spans[hidden] = section.key_spans.get(name)  # type: ignore[assignment]
    wrapper = LocDict(entry) if isinstance(entry, LocDict) else LocDict({"body": entry})
    wrapper.span = span_of(entry) or section.span
    wrapper.key_spans = dict(getattr(entry, "key_spans", {}) or {"body": span_of(entry)})
    wrapper["wraps"] = hidden
    return wrapper


def wrap_trigger(section: LocDict, name: str, entry: Any) -> Any:
    """``entry`` to stand for trigger ``name``; when its effect runs original(), keep the old effect."""
    effect = entry.get("effect") if isinstance(entry, LocDict) else None
    old = section.get(name)
    if not isinstance(effect, str) or not _CALLS_ORIGINAL.search(effect) or not isinstance(old, LocDict):
        return entry
    wrapper = LocDict(entry)
    wrapper.span = span_of(entry) or section.span
    wrapper.key_spans = dict(entry.key_spans)
    originals = LocList([old.get("effect"), *(old.get("original") or ())])
    originals.span = span_of(old) or wrapper.span
    wrapper["original"] = originals
    return wrapper


def wrap_scoring(old: Any, new: Any) -> Any:
    """``new`` to stand for the scoring ``old``; when its score calls original(), keep the old
    score (and the tie-breaks, end condition and outcome the new scoring does not give)."""
    score = new.get("score") if isinstance(new, LocDict) else None
    if not isinstance(score, str) or not _CALLS_ORIGINAL.search(score):
        return new
    if not isinstance(old, LocDict) or old.get("score") is None:
        return new  # nothing to call: the checker reports original() as unknown
    wrapper = LocDict(new)
    wrapper.span = span_of(new) or old.span
    wrapper.key_spans = dict(new.key_spans)
    for key in ("tiebreak", "end_when", "outcome", "success", "team"):
        if key not in wrapper and key in old:
            wrapper[key] = old[key]
            wrapper.key_spans[key] = old.key_spans.get(key)  # type: ignore[assignment]
    originals = LocList([old.get("score"), *(old.get("original") or ())])
    originals.span = span_of(old) or wrapper.span
    wrapper["original"] = originals
    return wrapper


def score_original(score: ast.Expr | None, originals: Sequence[ast.Expr]) -> ast.Expr | None:
    """``score`` with each ``original()`` replaced by the first of ``originals`` (itself with its
    ``original()`` replaced by the next one, and so on)."""
    if score is None or not originals:
        return score
    inner = score_original(originals[0], originals[1:])
    result: ast.Expr = _substitute(score, inner)
    return result


def _substitute(node: Any, inner: Any) -> Any:
    if isinstance(node, tuple):
        return tuple(_substitute(item, inner) for item in node)
    if isinstance(node, ast.Call) and node.function == "original" and not node.args and not node.keywords:
        return inner
    if not attrs.has(type(node)) or type(node).__module__ != ast.__name__:
        return node
    changes = {}
    for field in attrs.fields(type(node)):
        value = getattr(node, field.name)
        new = _substitute(value, inner)
        if new is not value:
            changes[field.name] = new
    return attrs.evolve(node, **changes) if changes else node


def run_original(effect: ast.Block, originals: Sequence[ast.Block]) -> ast.Block:
    """``effect`` with each ``original()`` statement replaced by the first of ``originals``
    (itself with its ``original()`` replaced by the next one, and so on)."""
    if not originals:
        return effect
    inner = run_original(originals[0], originals[1:])
    return ast.Block(_splice(effect.statements, inner.statements), span=effect.span)


def _splice(statements: Any, inner: tuple[Any, ...]) -> Any:
    if isinstance(statements, tuple):
        result: list[Any] = []
        for item in statements:
            if (
                isinstance(item, ast.CallStatement)
                and item.call.function == "original"
                and not item.call.args
                and not item.call.keywords
            ):
                result.extend(inner)
            else:
                result.append(_splice(item, inner))
        return tuple(result)
    if not attrs.has(type(statements)) or type(statements).__module__ != ast.__name__:
        return statements
    changes = {}
    for field in attrs.fields(type(statements)):
        value = getattr(statements, field.name)
        new = _splice(value, inner)
        if new is not value:
            changes[field.name] = new
    return attrs.evolve(statements, **changes) if changes else statements


def call_original(body: ast.Expr, wrapped: str | None) -> ast.Expr:
    """``body`` with every call of ``original`` made a call of ``wrapped`` (None: unchanged)."""
    if wrapped is None:
        return body
    result: ast.Expr = _replace(body, wrapped)
    return result


def _replace(node: Any, wrapped: str) -> Any:
    if isinstance(node, tuple):
        return tuple(_replace(item, wrapped) for item in node)
    if not attrs.has(type(node)):
        return node
    changes = {}
    for field in attrs.fields(type(node)):
        value = getattr(node, field.name)
        new = _replace(value, wrapped)
        if new is not value:
            changes[field.name] = new
    if isinstance(node, ast.Call) and node.function == "original":
        changes["function"] = wrapped
    return attrs.evolve(node, **changes) if changes else node
