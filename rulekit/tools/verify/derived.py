"""Properties derived from what the rules already declare, checked without any ``properties:``.

A ruleset that writes no property still declares a lot: its flow says who plays when. From
it ``verify`` derives transition properties and checks them like the author's own
(``property:derived:NAME``, explained with the values compared, written into the scenario of a
counterexample):

* **turn order** (``derived:turn_order``): a ``repeat`` whose steps are a ``turn`` of the player
  a field names (``turn: {player: game.current}``) and a ``do`` that sets that field
  (``game.current = next_player(game.current)``) declares the order of turns: the next turn of
  that step goes to the player the ``do`` names, computed from the player of the turn before.
  An action that also hands the turn on (the next player plays twice, or is skipped), or a
  turn that changes the field, breaks it. The ``do``'s expression is evaluated in the state
  where the next turn begins, with the field read in the state where the turn before began.

Only what the declaration fixes is checked: a wrong ``do`` (a function that skips a player)
agrees with itself and is not found here.

The other derivations live in their own modules and are collected here: conservation over the
sources and sinks the rules name (``derived_moves.py``: money moved only by ``transfer``,
quantities moved in ``-=``/``+=`` pairs, items kept in zones) and once-per-X actions and
consumed items (``derived_once.py``, checked as the action's ``ensures``). The outcome of a
finished game recomputed from the scoring is an engine check (``derived_outcome.py``).
"""

from __future__ import annotations

from collections.abc import Callable, Iterable, Iterator
from typing import Any

import attrs

from rulekit.compiler.program import Program
from rulekit.dsl import ast
from rulekit.dsl.printer import print_expr
from rulekit.errors import RulekitError
from rulekit.rules import model as m
from rulekit.rules.model import PropertyDecl

#: The engine's fields the guards read (see rulekit/engine/flow.py).
_FLOW = ("_", "flow")
_ASKS = ("_", "asks")
_DECISION = ("_", "decision")

#: ``applies(before, after)``: whether a derived property is about this pair of states.
Applies = Callable[[dict[Any, Any], dict[Any, Any]], bool]


@attrs.frozen
class Derived:
    """A derived property and when it applies."""

    decl: PropertyDecl
    applies: Applies | None = None
    #: A property of this action's steps only (as its ``ensures``: ``me`` and its parameters bound).
    action: str | None = None


def derived_properties(program: Program) -> list[Derived]:
    """Every property the rules' declarations imply (see the module's doc)."""
    from rulekit.tools.verify.derived_moves import conservation
    from rulekit.tools.verify.derived_once import once_per_x, same_turn

    found = [
        *_safely(_turn_orders(program)),
        *_safely(Derived(decl) for decl in conservation(program)),
        *_safely(
            Derived(p.decl, same_turn if p.same_turn_only else None, p.action) for p in once_per_x(program)
        ),
    ]
    named: dict[str, int] = {}
    result = []
    for item in found:
        count = named[item.decl.name] = named.get(item.decl.name, 0) + 1
        if count > 1:
            item = attrs.evolve(item, decl=attrs.evolve(item.decl, name=f"{item.decl.name}:{count}"))
        result.append(item)
    return result


def _safely(found: Iterable[Derived]) -> list[Derived]:
    """A family of derived properties; none if one of them cannot be written as DSL text (a
    name the generated text cannot hold): what cannot be expressed is not implied."""
    try:
        return list(found)
    except RulekitError:
        return []


# ------------------------------------------------------------------ turn order


def _turn_orders(program: Program) -> Iterator[Derived]:
    nodes = {node.span: index for index, node in enumerate(program.flow) if node.kind == "turn"}
    for repeat in _repeats(program.rules.flow):
        turns = [s for s in repeat.steps if isinstance(s, m.TurnStep)]
        if len(turns) != 1 or turns[0].span not in nodes:
            continue
        turn = turns[0]
        field = turn.player
        if not _is_field(field):
            continue
        after_turn = repeat.steps[repeat.steps.index(turn) + 1 :]
        assignments = [
            s
            for step in after_turn
            if isinstance(step, m.DoStep)
            for s in step.effect.statements
            if isinstance(s, ast.Assign) and s.op == "=" and print_expr(s.target) == print_expr(field)
        ]
        if len(assignments) != 1:
            continue
        text = print_expr(field)
        expected = _substitute(assignments[0].value, text)
        condition = ast.Binary("==", ast.Call("after", (field,)), expected)
        decl = PropertyDecl(
            "derived:turn_order",
            condition,
            f"the flow hands the turn on with '{text} = {print_expr(assignments[0].value)}': "
            f"the next turn of this step goes to that player",
            None,
            turn.span,
            over="turn",
        )
        yield Derived(decl, _between_turns_of(nodes[turn.span]))


def _repeats(steps: tuple[m.FlowStep, ...]) -> Iterator[m.RepeatStep]:
    for step in steps:
        if isinstance(step, m.RepeatStep):
            yield step
            yield from _repeats(step.steps)
        elif isinstance(step, m.ForEachStep):
            yield from _repeats(step.steps)
        elif isinstance(step, m.IfStep):
            yield from _repeats(step.then)
            yield from _repeats(step.otherwise)


def _is_field(expr: ast.Expr) -> bool:
    """``game.x``, ``turn.x`` or a deeper attribute chain on a name: a place the flow can set."""
    return isinstance(expr, ast.Attribute) and isinstance(expr.subject, (ast.Name, ast.Attribute))


def _substitute(expr: Any, text: str) -> Any:
    """``expr`` with every occurrence of the field ``text`` read in the state before."""
    if isinstance(expr, (ast.Attribute, ast.Name)) and print_expr(expr) == text:
        return ast.Call("before", (expr,), span=expr.span)
    if isinstance(expr, tuple):
        return tuple(_substitute(e, text) for e in expr)
    if not (hasattr(expr, "__attrs_attrs__") and type(expr).__module__ == ast.__name__):
        return expr
    changes = {}
    for attribute in attrs.fields(type(expr)):
        value = getattr(expr, attribute.name)
        new = _substitute(value, text)
        if new is not value:
            changes[attribute.name] = new
    return attrs.evolve(expr, **changes) if changes else expr


def _between_turns_of(node: int) -> Applies:
    """Both states are decisions of a turn of flow node ``node`` (no ask pending): one turn of
    the step and the next one."""

    def in_turn(fields: dict[Any, Any]) -> bool:
        frames: tuple[tuple[Any, ...], ...] = fields.get(_FLOW) or ()
        return (
            fields.get(_DECISION) is not None
            and not fields.get(_ASKS)
            and bool(frames)
            and frames[-1][0] == node
        )

    return lambda before, after: in_turn(before) and in_turn(after)
