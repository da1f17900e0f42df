"""The compiler's public API for the extra snippets tools compile against a ruleset."""

from __future__ import annotations

from typing import Any

import pytest

from rulekit.compiler.codegen import CodeGen, Context
from rulekit.dsl import ast, parse_expression
from rulekit.dsl import types as t
from rulekit.dsl.types import Type
from rulekit.errors import RulesetError
from rulekit.load import load_game


@pytest.fixture(scope="module")
def game() -> Any:
    return load_game("tic_tac_toe", 2)


def test_compile_function_binds_params_by_position_and_returns_the_type(game: Any) -> None:
    """``fn(F, R, me, *params)``: a parameter is a DSL name of its declared type."""
    fn, type_ = game.program.compile_function(
        parse_expression("c.column + n"), params=[("c", t.parse_type("cell", {"cell"})), ("n", t.INT)]
    )
    state = game.new_initial_state(0)
    assert type_ == t.INT
    assert fn(state.fields, game.runtime, 0, "c3", 10) == 12


def test_compile_function_without_me_refuses_me_at_its_position(game: Any) -> None:
    """An expression compiled for no player cannot use ``me``; the error is located."""
    expr = parse_expression("me == game.current")
    game.program.compile_function(expr)
    with pytest.raises(RulesetError, match=r":1:1: .*'me' means the acting player and is not defined here"):
        game.program.compile_function(expr, me=False)


def test_compile_predicate_requires_a_bool_and_names_what_it_is(game: Any) -> None:
    """A condition that is not a bool is refused with the caller's word for it."""
    fn = game.program.compile_predicate(parse_expression("game.winner == none"), "a goal")
    state = game.new_initial_state(0)
    assert fn(state.fields, game.runtime, -1) is True
    with pytest.raises(RulesetError, match="a goal must be bool, not int"):
        game.program.compile_predicate(parse_expression("num_players"), "a goal")


class _Doubling(CodeGen):
    """A tool's language extension: ``twice(x)`` reads the extra argument ``FACTOR``."""

    def _expr_Call(self, node: ast.Call, ctx: Context) -> tuple[str, Type]:
        if node.function != "twice":
            return super()._expr_Call(node, ctx)
        code, _ = self.expr(node.args[0], ctx)
        return f"({code}) * FACTOR", t.INT


def test_a_generator_subclass_reads_extra_args_passed_before_the_params(game: Any) -> None:
    """``generator`` and ``extra_args`` let a tool extend the language without private members."""
    fn, type_ = game.program.compile_function(
        parse_expression("twice(n) + 1"), params=[("n", t.INT)], generator=_Doubling, extra_args=["FACTOR"]
    )
    state = game.new_initial_state(0)
    assert type_ == t.INT
    assert fn(state.fields, game.runtime, -1, 3, 5) == 16
