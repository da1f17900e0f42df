"""Invariant text for reports and scenarios: ``unparse`` gives DSL that parses back to the same tree."""

from __future__ import annotations

from collections.abc import Iterator

import pytest

from rulekit.dsl import ast, parse_expression
from rulekit.errors import RulekitError
from rulekit.load import load_program
from rulekit.tools.verify import unparse

EXAMPLES = [
    "a - (b - c)",
    "(a - b) - c",
    "-(a + b) * c",
    "a * -3",
    "not (a and b) or c",
    "(a if b else c) if d else e",
    "a if b else (c if d else e)",
    "(x where x = 1) + 2",
    "x + y where x = 1 where y = 2",
    "count(c for c in cells if c.mark == player_at(1)) - 1 in [0, 1]",
    "all((len(s) == 0 or last(s) == 3) where s = f(c) for c in cities)",
    "[p for p in players for q in players if p != q by -p.money]",
    "(1,)",
    "(-1).x",
    'put(m, "k\\"ey", none)',
    "f(a, key=b)[0].field",
    "rank(p for p in players by (p.money, 0 - p.debt))",
]


@pytest.mark.parametrize("text", EXAMPLES)
def test_unparse_round_trips(text: str) -> None:
    tree = parse_expression(text)
    assert parse_expression(unparse(tree)) == tree


def _expressions(ruleset: str) -> Iterator[ast.Expr]:
    rules = load_program(ruleset).rules
    for invariant in rules.invariants.values():
        yield invariant.condition
    for function in rules.functions.values():
        yield function.body
    for action in rules.actions.values():
        for param in action.params:
            yield param.domain
        for requirement in action.requires:
            yield requirement.condition
    for trigger in rules.triggers.values():
        if trigger.condition is not None:
            yield trigger.condition


@pytest.mark.parametrize("ruleset", ["tic_tac_toe", "el_capitan", "el_caballero"])
def test_unparse_round_trips_every_expression_of_a_ruleset(ruleset: str) -> None:
    try:
        expressions = list(_expressions(ruleset))
    except RulekitError as error:
        pytest.skip(f"{ruleset} does not load: {error.diagnostics[0].message}")
    assert expressions
    for tree in expressions:
        assert parse_expression(unparse(tree)) == tree, unparse(tree)


def test_explain_condition_says_why_any_condition_is_false() -> None:
    from rulekit.dsl import types as t
    from rulekit.dsl.parser import parse_expression
    from rulekit.engine.game import Game
    from rulekit.load import load_program
    from rulekit.tools.verify.explain import explain_condition

    program = load_program("tic_tac_toe")
    state = Game(program, 2).new_initial_state(1)
    lines = explain_condition(
        program, parse_expression("count(c for c in cells if c.mark != none) >= n"), state, [("n", t.INT, 3)]
    )
    assert lines == [
        "count(c for c in cells if c.mark != none) >= n is false: 0 >= 3 [n = 3]",
        "  count(c for c in cells if c.mark != none) = 0",
        "  n = 3",
    ]
    broken = explain_condition(program, parse_expression("[1, 2][n] == 1"), state, [("n", t.INT, 5)])
    assert broken[-1].endswith("IndexError: list index out of range") or "cannot be evaluated" in broken[-1]
