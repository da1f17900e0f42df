"""Built-ins the code generator writes out instead of calling: ``len`` as Python's ``len``,
``between``/``range`` of numbers known when compiling as their tuple (within a small size)."""

from __future__ import annotations

from collections.abc import Callable
from pathlib import Path

import pytest

from rulekit.compiler.codegen import CodeGen, Context
from rulekit.dsl import parse_expression
from rulekit.errors import DiagnosticBag, RuleEvaluationError
from rulekit.load import load_game, load_program


def _code(text: str) -> str:
    gen = CodeGen(load_program("tic_tac_toe").rules, DiagnosticBag())
    code, _ = gen.expr(parse_expression(text), Context())
    assert not gen.bag.items
    return code


def test_len_is_pythons_len_and_a_range_of_literals_is_its_tuple() -> None:
    assert _code("len(LINES)") == "len(K_LINES)"
    assert _code("between(1, 4)") == "(1, 2, 3, 4, )"
    assert _code("range(2, 4)") == "(2, 3, )"
    assert _code("range(4, 4)") == "()"


def test_a_range_known_only_when_running_or_too_long_stays_a_call() -> None:
    assert _code("between(1, len(LINES))").startswith("B_between(")
    assert _code("between(1, 1000)").startswith("B_between(")
    assert _code("let n = 4 in between(1, n)").count("B_between(") == 1


RANGES = """\
ruleset: ranges
players: {min: 2, max: 2}
constants:
  TOP: 3
state:
  game: {total: {type: int}}
actions:
  add:
    params: {n: "between(1, TOP)"}
    effect: game.total += n + len(range(0, n))
flow:
  - turn: player_at(1)
"""


def test_written_out_ranges_list_the_same_actions_and_the_limit_still_fails(
    write_ruleset: Callable[..., Path],
) -> None:
    game = load_game(str(write_ruleset(RANGES)), 2)
    assert "B_between" not in game.program.source
    state = game.new_initial_state(0)
    assert state.legal_action_strings() == ["add(1)", "add(2)", "add(3)"]
    state.apply_action(state.legal_actions()[2])
    assert state.fields[("game", "total")] == 6
    huge = RANGES.replace('"between(1, TOP)"', '"range(0, 200000)"')
    with pytest.raises(RuleEvaluationError, match="range"):
        load_game(str(write_ruleset(huge, name="huge")), 2).new_initial_state(0).legal_actions()
