"""Which actions matter to a failed check: what it reads, and which actions write that.

Shrinking a long counterexample by dropping actions stalls when the failure needs a
few actions far apart (a fortress built, and many turns later a second one in the same
city): most candidates break the game somewhere in between. A *targeted search* does
better: new short games in which the actions that write what the failing check reads
are strongly preferred. This module finds them:

* :func:`names_read` -- the field names a check's condition reads, through the rules'
  functions it calls (statically, from the AST: an over-approximation by name);
* :func:`writers` -- replaying the counterexample, the action kinds whose application
  (with the flow and triggers that follow it) changed one of those fields.
"""

from __future__ import annotations

from collections.abc import Iterable
from typing import Any

from rulekit.dsl import ast
from rulekit.rules.model import RulesModel
from rulekit.tools.verify.failures import PropertyFailure
from rulekit.tools.verify.replayer import Replayer

_ENGINE = "_"


def condition_of(rules: RulesModel, key: str) -> ast.Expr | None:
    """The condition of the check a failure ``key`` names (``invariant:NAME``,
    ``property:NAME`` or ``property:ACTION.ensures[I]``, a trigger's too); ``None`` for engine properties."""
    kind, _, name = key.partition(":")
    if kind == "invariant" and name in rules.invariants:
        return rules.invariants[name].condition
    if kind != "property":
        return None
    if ".ensures[" in name:
        action, _, index = name.partition(".ensures[")
        decl = rules.actions.get(action) or rules.triggers.get(action)
        position = int(index.rstrip("]")) - 1 if index.rstrip("]").isdigit() else -1
        if decl is None or not 0 <= position < len(decl.ensures):
            return None
        return decl.ensures[position].condition
    prop = rules.properties.get(name)
    return prop.condition if prop is not None else None


def names_read(rules: RulesModel, key: str) -> frozenset[str]:
    """The names (fields, and the names around them) the condition of ``key`` reads,
    following calls of the rules' functions; empty for an engine property."""
    condition = condition_of(rules, key)
    if condition is None:
        return frozenset()
    found: set[str] = set()
    _collect(condition, rules, set(), found)
    return frozenset(found)


def expression_reads(rules: RulesModel, expr: ast.Expr) -> frozenset[str]:
    """The names ``expr`` reads, following calls of the rules' functions."""
    found: set[str] = set()
    _collect(expr, rules, set(), found)
    return frozenset(found)


def _collect(node: Any, rules: RulesModel, seen: set[str], found: set[str]) -> None:
    if isinstance(node, tuple | list):
        for item in node:
            _collect(item, rules, seen, found)
        return
    if not hasattr(node, "__attrs_attrs__") or type(node).__module__ != ast.__name__:
        return
    if isinstance(node, ast.Attribute):
        found.add(node.name)
    elif isinstance(node, ast.Name):
        found.add(node.id)
    elif isinstance(node, ast.Call):
        function = rules.functions.get(node.function)
        if function is not None and function.name not in seen:
            seen.add(function.name)
            _collect(function.body, rules, seen, found)
    for attribute in node.__attrs_attrs__:
        _collect(getattr(node, attribute.name), rules, seen, found)


def flow_gates(rules: RulesModel) -> frozenset[str]:
    """The names the flow's own conditions read (a ``repeat``'s ``until``/``while``, an
    ``if``, a turn's ``until``): what decides when a round or phase ends, so a failure that
    needs a later phase (a payday first) gets closer as these fields change."""
    found: set[str] = set()
    stack: list[Any] = list(rules.flow)
    while stack:
        step = stack.pop()
        for name in ("until", "while_", "condition"):
            expr = getattr(step, name, None)
            if expr is not None:
                _collect(expr, rules, set(), found)
        for name in ("steps", "then", "otherwise"):
            stack.extend(getattr(step, name, ()))
    return frozenset(found)


def writers(checker: Replayer, failure: PropertyFailure, reads: Iterable[str]) -> frozenset[str]:
    """The action kinds of ``failure``'s history that changed a field named in ``reads``
    (replayed with ``checker``; the flow after an action counts as the action's)."""
    return frozenset(progress(checker, failure, reads))


def progress(checker: Replayer, failure: PropertyFailure, reads: Iterable[str]) -> dict[str, float]:
    """For each action kind of ``failure``'s history that changed a field named in ``reads``,
    how far its applications took those fields towards their values in the failing state
    (a number's distance, a list's length): positive for the kinds that lead to the failure
    (putting cards down until the stock is empty), negative for those that lead away from
    it (taking a card back), zero for a change of no measurable direction."""
    wanted = frozenset(reads)
    if not wanted:
        return {}
    steps: list[tuple[str, dict[Any, Any], dict[Any, Any]]] = []
    try:
        state = checker.start(failure.players, failure.seed)
        game = state.game
        for _, text in failure.history:
            action = game.parse_action(text)
            before = dict(state.fields)
            try:
                checker.step(state, action)
            finally:
                steps.append((action.name, before, dict(state.fields)))
    except PropertyFailure:
        pass
    except Exception:  # the history does not replay (any further): what was replayed counts
        pass
    if not steps:
        return {}
    target = steps[-1][2]
    found: dict[str, float] = {}
    for name, before, after in steps:
        for key, value in after.items():
            if key[0] == _ENGINE or key[1] not in wanted or before.get(key) == value:
                continue
            gain = found.get(name, 0.0)
            goal, old, new = measure(target.get(key)), measure(before.get(key)), measure(value)
            if goal is not None and old is not None and new is not None:
                gain += abs(old - goal) - abs(new - goal)
            found[name] = gain
    return found


def measure(value: Any) -> int | None:
    """A number to compare: an int, or the size of a list or map."""
    if isinstance(value, bool) or value is None:
        return None
    if isinstance(value, int):
        return value
    if isinstance(value, tuple | dict):
        return len(value)
    return None
