"""Requirement groups: written once, used by several actions, expanded into ordinary requirements."""

from __future__ import annotations

from rulekit.compiler.codegen import CodeGen, Context
from rulekit.dsl import ast, parse_expression
from rulekit.dsl import types as t
from rulekit.errors import DiagnosticBag
from rulekit.load import load_program
from rulekit.rules.groups import RequirementGroup, Use, check, expand
from rulekit.rules.model import Requirement


def _req(condition: str, message: str) -> Requirement:
    return Requirement(parse_expression(condition), message, "§1", None)


def _use(text: str) -> Use:
    call = parse_expression(text)
    assert isinstance(call, ast.Call)
    return Use(call, None)


FREE = RequirementGroup(
    "free_cell",
    (("c", "cell"),),
    (_req("c.mark == none", "the cell is taken"), _req("game.winner == none", "the game is over")),
    None,
)
TURN = RequirementGroup("my_turn", (), (_req("game.current == me", "not your turn"),), None)
BOTH = RequirementGroup("playable", (("c", "cell"),), (_use("my_turn()"), _use("free_cell(c)")), None)
GROUPS = {g.name: g for g in (FREE, TURN, BOTH)}


def test_a_use_becomes_the_groups_requirements_with_the_argument_bound() -> None:
    """Messages and citations come from the group; each condition binds the parameter first."""
    bag = DiagnosticBag()
    expanded = expand([_use("playable(cells.a1)"), _req("true", "own")], GROUPS, bag)
    assert bag.items == []
    assert [r.message for r in expanded] == ["not your turn", "the cell is taken", "the game is over", "own"]
    bound = expanded[1].condition
    assert isinstance(bound, ast.LetIn) and bound.name == "c" and bound.declared == "cell"


def test_expanded_conditions_compile_and_check_the_argument_type() -> None:
    """The argument must have the parameter's declared type."""
    rules = load_program("tic_tac_toe").rules
    bag = DiagnosticBag()
    good = expand([_use("free_cell(cells.b2)")], GROUPS, bag)
    bad = expand([_use("free_cell(3)")], GROUPS, bag)
    gen = CodeGen(rules, bag)
    _, type_ = gen.expr(good[0].condition, Context())
    assert type_ == t.BOOL and bag.items == []
    gen.expr(bad[0].condition, Context())
    assert [d.message for d in bag.items] == ["'c' must be cell, not int"]


def test_mistakes_in_a_use_are_reported() -> None:
    bag = DiagnosticBag()
    expand([_use("free_cel(cells.a1)"), _use("free_cell()")], GROUPS, bag)
    messages = [d.message for d in bag.items]
    assert messages == [
        "unknown requirement group 'free_cel'",
        "requirement group 'free_cell' takes 1 argument(s), not 0",
    ]
    assert bag.items[0].hint == "did you mean 'free_cell'?"


def test_groups_that_use_each_other_in_a_cycle_are_refused() -> None:
    a = RequirementGroup("a", (), (_use("b()"),), None)
    b = RequirementGroup("b", (), (_use("a()"),), None)
    bag = DiagnosticBag()
    check({"a": a, "b": b, **GROUPS}, bag)
    assert [d.message for d in bag.items] == ["requirement groups use each other in a cycle: a -> b -> a"]
    assert expand([_use("a()")], {"a": a, "b": b}, DiagnosticBag()) == ()
