"""One evaluator of DSL arithmetic (rulekit/rules/evaluate.py): what the compiler folds when
it writes ``between``/``range`` of constant numbers as their tuple, what the rules compute when
they load (``generate: for:``) and what the generated code computes when it runs agree on
every whole-number expression over literals and constants."""

from __future__ import annotations

from pathlib import Path

import pytest
from hypothesis import given
from hypothesis import strategies as st

from rulekit.compiler.codegen import CodeGen, Context
from rulekit.compiler.program import Program
from rulekit.dsl import parse_expression
from rulekit.engine.game import Game
from rulekit.errors import DiagnosticBag
from rulekit.load import load_game
from rulekit.rules.evaluate import Unevaluable, evaluate
from rulekit.rules.generate import _scope as generate_scope

CONSTANTS = {"ONE": 1, "SEVEN": 7, "MINUS": -4, "ZERO": 0, "FLAG": True}
RULES = """\
ruleset: folding
players: {min: 2, max: 2}
constants: {ONE: 1, SEVEN: 7, MINUS: -4, ZERO: 0, FLAG: true}
state:
  game:
    n: {type: int, initial: "0"}
actions:
  go: {ends_turn: true}
flow:
  - turn: player_at(1)
"""

_leaves = st.one_of(
    st.integers(-30, 30).map(lambda n: str(n) if n >= 0 else f"({n})"),
    st.sampled_from(["ONE", "SEVEN", "MINUS", "ZERO"]),
)
expressions = st.recursive(
    _leaves,
    lambda inner: st.one_of(
        st.tuples(inner, st.sampled_from(["+", "-", "*", "//", "%"]), inner).map(
            lambda t: f"({t[0]} {t[1]} {t[2]})"
        ),
        inner.map(lambda e: f"-{e}"),
    ),
    max_leaves=8,
)


@pytest.fixture(scope="module")
def game(tmp_path_factory: pytest.TempPathFactory) -> Game:
    directory: Path = tmp_path_factory.mktemp("folding")
    (directory / "ruleset.yaml").write_text(RULES, encoding="utf-8")
    return load_game(str(directory), 2)


def _folded(program: Program, text: str) -> int | None:
    gen = CodeGen(program.rules, DiagnosticBag())
    return gen.int_value(parse_expression(text), Context())


def _loaded(text: str) -> int | None:
    try:
        value = evaluate(parse_expression(text), generate_scope(CONSTANTS))
    except Unevaluable:
        return None
    assert type(value) is int
    return value


def _run(game: Game, text: str) -> int | None:
    program = game.program
    fn, _ = program.compile_expression(text)
    state = game.new_initial_state(0)
    try:
        value = fn(state.fields, game.runtime, -1)
    except ZeroDivisionError:
        return None
    assert type(value) is int
    return value


@given(expressions)
def test_compile_time_folding_load_time_evaluation_and_the_generated_code_agree(
    game: Game, text: str
) -> None:
    program = game.program
    folded = _folded(program, text)
    assert folded == _loaded(text) == _run(game, text), text


@given(expressions, expressions)
def test_a_range_of_constant_arithmetic_is_the_same_written_out_or_called(
    game: Game, low: str, high: str
) -> None:
    text = f"between({low}, {high})"
    program = game.program
    fn, _ = program.compile_expression(text)
    state = game.new_initial_state(0)
    try:
        value = tuple(fn(state.fields, game.runtime, -1))
    except ZeroDivisionError:
        assert None in (_loaded(low), _loaded(high))
        return
    bounds = (_loaded(low), _loaded(high))
    assert None not in bounds
    start, end = bounds
    assert start is not None and end is not None
    assert value == tuple(range(start, end + 1))


def test_what_the_compiler_cannot_fold_it_leaves_to_the_generated_code(game: Game) -> None:
    program = game.program
    assert _folded(program, "SEVEN // ZERO") is None  # (the code raises when it runs)
    assert _folded(program, "FLAG + 1") is None  # a flag is no number
    assert _folded(program, "game.n + 1") is None  # the state is not known when compiling
    assert _folded(program, "SEVEN * (ONE + 2) - MINUS % 3") == 7 * 3 - (-4 % 3)
    gen = CodeGen(program.rules, DiagnosticBag())
    assert gen.expr(parse_expression("between(SEVEN - 4, SEVEN)"), Context())[0] == "(3, 4, 5, 6, 7, )"
    assert gen.expr(parse_expression("between(1, SEVEN // ZERO)"), Context())[0].startswith("B_between(")
