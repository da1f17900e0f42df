"""Once-per-X actions and consumed items, as the rules declare them (``derived.py`` collects these).

* **a flag** (``derived:once:ACTION``): an action that requires a flag unset (``not turn.built``,
  ``not me.used_power``) and whose effect sets it (``turn.built = true``, unconditionally) is
  usable once until something resets the flag: the turn's end for a ``turn`` field, the flow
  (a ``do`` or ``on_start``) for another. While the same turn goes on, the flag is still set
  after the action: a trigger or an effect that resets it in the same step (so the action can be
  taken again at once) breaks it.
* **a consumed item** (``derived:consumed:ACTION``): an action whose parameter is taken from a
  zone (``card: me.hand``, a list field the rules ``move``/``draw``) and whose effect moves that
  item out of it (``move(card, me.hand, game.discard)``, ``me.hand = without(me.hand, card)``,
  unconditionally) uses it up: after the action the item is no longer there. Not derived for a
  zone a trigger, procedure or flow step writes (it may get the item back in the same step,
  legitimately: a discard pile shuffled into the deck and drawn again).

What a flag is reset by (turn, round, game) is not checked here: a flag the rules reset in the
wrong place is a declaration of its own.
"""

from __future__ import annotations

from collections.abc import Iterator
from typing import Any

import attrs

from rulekit.compiler.program import Program
from rulekit.dsl import ast
from rulekit.dsl.parser import parse_expression
from rulekit.dsl.printer import print_expr
from rulekit.rules import model as m
from rulekit.rules.model import PropertyDecl
from rulekit.tools.verify.rule_walk import ZONE_EFFECTS, blocks, fields_named, statements, written

#: The blocks that may run in the same step as an action, after its effect.
_SAME_STEP = {"trigger", "procedure", "flow"}
_FLOW = ("_", "flow")
_ASKS = ("_", "asks")
_DECISION = ("_", "decision")


@attrs.frozen
class ActionProperty:
    """A property of one action's steps (as its ``ensures``), and when it applies."""

    action: str
    decl: PropertyDecl
    same_turn_only: bool = False


def once_per_x(program: Program) -> Iterator[ActionProperty]:
    """The once-per-X and consumed-item properties of the rules (see the module's doc)."""
    rules = program.rules
    zones = _zones(rules)
    for name, action in rules.actions.items():
        if action.effect is None:
            continue
        top = action.effect.statements
        yield from _flags(name, action, top)
        yield from _consumed(rules, name, action, top, zones)


def same_turn(before: dict[Any, Any], after: dict[Any, Any]) -> bool:
    """The same decision of the same turn before and after (the turn has not ended)."""
    return (
        not before.get(_ASKS)
        and not after.get(_ASKS)
        and before.get(_DECISION) is not None
        and before.get(_DECISION) == after.get(_DECISION)
        and before.get(_FLOW) == after.get(_FLOW)
    )


def _flags(name: str, action: m.ActionDecl, top: tuple[ast.Stmt, ...]) -> Iterator[ActionProperty]:
    set_true = {
        print_expr(s.target): s
        for s in top
        if isinstance(s, ast.Assign)
        and s.op == "="
        and isinstance(s.value, ast.Literal)
        and s.value.value is True
    }
    for requirement in action.requires:
        flag = _negated(requirement.condition)
        if flag is None or print_expr(flag) not in set_true:
            continue
        text = print_expr(flag)
        if text.startswith("turn.") and action.ends_turn:
            continue  # the turn ends with the action: its flags are reset at once
        yield ActionProperty(
            name,
            PropertyDecl(
                f"derived:once:{name}",
                parse_expression(f"after({text})"),
                f"'{name}' requires '{text}' unset and sets it: usable once while it stays set, "
                f"so it is still set after the action while the turn goes on",
                requirement.cite,
                set_true[text].span,
            ),
            same_turn_only=True,
        )


def _negated(condition: ast.Expr) -> ast.Attribute | None:
    """``F`` of ``not F`` or ``F == false`` (``F`` an attribute chain), else ``None``."""
    if (
        isinstance(condition, ast.Unary)
        and condition.op == "not"
        and isinstance(condition.operand, ast.Attribute)
    ):
        return condition.operand
    if (
        isinstance(condition, ast.Binary)
        and condition.op == "=="
        and isinstance(condition.left, ast.Attribute)
        and isinstance(condition.right, ast.Literal)
        and condition.right.value is False
    ):
        return condition.left
    return None


def _zones(rules: m.RulesModel) -> set[tuple[str, str]]:
    found: set[tuple[str, str]] = set()
    for _, block in blocks(rules):
        for s in statements(block):
            if isinstance(s, ast.CallStatement) and s.call.function in ZONE_EFFECTS:
                for i in ZONE_EFFECTS[s.call.function]:
                    if i < len(s.call.args):
                        found |= fields_named(rules, s.call.args[i])
    return found


def _consumed(
    rules: m.RulesModel,
    name: str,
    action: m.ActionDecl,
    top: tuple[ast.Stmt, ...],
    zones: set[tuple[str, str]],
) -> Iterator[ActionProperty]:
    # a zone a trigger, procedure or flow step fills may get the item back in the same step
    # (the discard pile shuffled into the deck, a card drawn again): used up means nothing there
    refilled = set(written(rules, _SAME_STEP))
    for param in action.params:
        domain = param.domain
        named = fields_named(rules, domain)
        if not (isinstance(domain, ast.Attribute) and named & zones) or named & refilled:
            continue
        if not isinstance(domain.subject, ast.Name) or domain.subject.id not in ("me", "game"):
            continue  # a zone named through another parameter may change owner with the effect
        place = print_expr(domain)
        if not any(_removes(s, param.name, place) for s in top):
            continue
        yield ActionProperty(
            name,
            PropertyDecl(
                f"derived:consumed:{name}",
                parse_expression(f"not ({param.name} in after({place}))"),
                f"'{name}' takes '{param.name}' from {place} and its effect moves it out: "
                f"it is used up, no longer in {place} after the action",
                action.cite,
                param.span,
            ),
        )


def _removes(statement: ast.Stmt, param: str, place: str) -> bool:
    """``move(param, place, ...)`` or ``place = without(place, param)``."""
    if isinstance(statement, ast.CallStatement) and statement.call.function == "move":
        args = statement.call.args
        return (
            len(args) == 3
            and isinstance(args[0], ast.Name)
            and args[0].id == param
            and print_expr(args[1]) == place
        )
    if isinstance(statement, ast.Assign) and statement.op == "=" and print_expr(statement.target) == place:
        value = statement.value
        return (
            isinstance(value, ast.Call)
            and value.function == "without"
            and len(value.args) == 2
            and print_expr(value.args[0]) == place
            and print_expr(value.args[1]) == param
        )
    return False
