"""The rules' effect blocks and what their statements write, read from the syntax trees.

The derived properties (``derived.py``, ``derived_moves.py``, ``derived_once.py``) learn from
the rules where things move; this module walks every effect block of a ruleset (actions,
triggers, procedures, the flow's ``do``/``on_start``/``on_end``, the setup) and names the
fields a statement writes. A field is named by its scope and name (``("player", "hand")``); an
attribute whose subject is not ``game`` or ``turn`` may be any scope with a field of that name
(a player's, a component's), so every such scope is named: the reading errs towards writing
more, which makes a derivation that needs "nothing else writes this" only rarer.
"""

from __future__ import annotations

from collections.abc import Iterator

import attrs

from rulekit.dsl import ast
from rulekit.rules import model as m

#: ``(scope, name)``: ``("game", "deck")``, ``("player", "hand")``, ``("city", "ships")``.
Field = tuple[str, str]

#: The effects that move list elements and the positions of their list arguments.
ZONE_EFFECTS = {"draw": (0, 1), "move": (1, 2), "shuffle": (0,)}


@attrs.frozen
class Origin:
    """Where an effect block is: ``kind`` is ``action``, ``trigger``, ``procedure``, ``flow``
    or ``setup``; ``name`` the action's, trigger's or procedure's name."""

    kind: str
    name: str = ""


def blocks(rules: m.RulesModel) -> Iterator[tuple[Origin, ast.Block]]:
    """Every effect block of the rules, with where it is."""
    if rules.setup is not None:
        yield Origin("setup"), rules.setup
    for name, action in rules.actions.items():
        if action.effect is not None:
            yield Origin("action", name), action.effect
    for name, trigger in rules.triggers.items():
        yield Origin("trigger", name), trigger.effect
    for name, procedure in rules.procedures.items():
        yield Origin("procedure", name), procedure.body
    yield from ((Origin("flow"), block) for block in _flow_blocks(rules.flow))


def _flow_blocks(steps: tuple[m.FlowStep, ...]) -> Iterator[ast.Block]:
    for step in steps:
        if isinstance(step, m.DoStep):
            yield step.effect
        elif isinstance(step, m.TurnStep):
            yield from (b for b in (step.on_start, step.on_end) if b is not None)
        elif isinstance(step, (m.RepeatStep, m.ForEachStep)):
            yield from _flow_blocks(step.steps)
        elif isinstance(step, m.IfStep):
            yield from _flow_blocks(step.then)
            yield from _flow_blocks(step.otherwise)


def statements(block: ast.Block | tuple[ast.Stmt, ...]) -> Iterator[ast.Stmt]:
    """Every statement of a block, nested ones (in ``if`` and ``for``) included."""
    for statement in block.statements if isinstance(block, ast.Block) else block:
        yield statement
        if isinstance(statement, ast.If):
            for _, body in statement.branches:
                yield from statements(body)
            yield from statements(statement.otherwise)
        elif isinstance(statement, ast.For):
            yield from statements(statement.body)


def fields_named(rules: m.RulesModel, expr: ast.Expr) -> set[Field]:
    """The fields an attribute expression may be (see the module's doc); none for another one."""
    if not isinstance(expr, ast.Attribute):
        return set()
    subject = expr.subject
    if isinstance(subject, ast.Name) and subject.id in ("game", "turn"):
        return {(subject.id, expr.name)} if expr.name in rules.fields.get(subject.id, {}) else set()
    return {
        (scope, expr.name)
        for scope, found in rules.fields.items()
        if scope not in ("game", "turn") and expr.name in found
    }


def writes(rules: m.RulesModel, statement: ast.Stmt) -> set[Field]:
    """The fields one statement (not its nested ones) writes: an assignment's target, the list
    arguments of ``draw``, ``move`` and ``shuffle``, and with ``transfer`` the money field."""
    if isinstance(statement, ast.Assign):
        return fields_named(rules, statement.target)
    if isinstance(statement, ast.CallStatement):
        call = statement.call
        if call.function in ZONE_EFFECTS:
            return {
                f
                for i in ZONE_EFFECTS[call.function]
                if i < len(call.args)
                for f in fields_named(rules, call.args[i])
            }
        if call.function in ("transfer", "transfer_up_to") and rules.money:
            return {("player", rules.money)}
    return set()


def written(
    rules: m.RulesModel, origins: set[str] | None = None
) -> dict[Field, list[tuple[Origin, ast.Stmt]]]:
    """Every field some statement writes, with the statements (of blocks of ``origins``' kinds;
    all without)."""
    found: dict[Field, list[tuple[Origin, ast.Stmt]]] = {}
    for origin, block in blocks(rules):
        if origins is not None and origin.kind not in origins:
            continue
        for statement in statements(block):
            for field in writes(rules, statement):
                found.setdefault(field, []).append((origin, statement))
    return found
