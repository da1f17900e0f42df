"""Generation (``generate: {for: ...}``) and a variant's ``adjust:`` evaluate DSL arithmetic with
one evaluator (rules/evaluate.py): the same arithmetic, the same step budget and number cap as
the compiled rules, and errors located at the expression."""

from __future__ import annotations

from collections.abc import Callable
from pathlib import Path

import pytest

from rulekit.dsl import parse_expression
from rulekit.errors import RulesetError
from rulekit.limits import LIMITS
from rulekit.load import load_program
from rulekit.rules.adjust import _scope as adjust_scope
from rulekit.rules.evaluate import Unevaluable, evaluate
from rulekit.rules.generate import _scope as generate_scope

RULES = """\
ruleset: g
players: {min: 2, max: 2}
constants:
  columns: 3
components:
  cell:
    attributes: {x: int}
    generate:
      for: {x: "LOOP"}
      id: "c{x}"
state:
  game:
    n: {type: int}
actions:
  go: {ends_turn: true}
flow:
  - turn: player_at(1)
"""
VARIANT = 'variant: v\nruleset: pig\nadjust:\n  constants.GOAL: "EXPRESSION"\n'
LONG = " + ".join(["1"] * 30)


def _problem(run: Callable[[], object]) -> str:
    with pytest.raises(RulesetError) as caught:
        run()
    return str(caught.value)


def _generate(write_ruleset: Callable[..., Path], loop: str) -> Callable[[], object]:
    return lambda: load_program(str(write_ruleset(RULES.replace("LOOP", loop))))


def _adjust(tmp_path: Path, expression: str) -> Callable[[], object]:
    path = tmp_path / "v.yaml"
    path.write_text(VARIANT.replace("EXPRESSION", expression), encoding="utf-8")
    return lambda: load_program("pig", (), [str(path)], players=2)


@pytest.mark.parametrize("text", ["7 // 2 - -3 * 4 % 5", "(1 + 2) * 3 - 10 // 4", "-(17 % 5) + 100 // 7"])
def test_generation_and_adjust_compute_the_same_arithmetic_as_python(text: str) -> None:
    expression = parse_expression(text)
    expected = eval(text)  # the DSL's whole-number operators are Python's
    assert evaluate(expression, generate_scope({})) == expected
    assert evaluate(expression, adjust_scope(0)) == expected


def test_generation_has_the_step_budget(
    write_ruleset: Callable[..., Path], monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setattr(LIMITS, "max_steps", 20)
    text = _problem(_generate(write_ruleset, f"range(0, {LONG})"))
    assert "rs/ruleset.yaml:9:" in text and "more than 20 steps (the limit max_steps)" in text


def test_adjust_has_the_step_budget(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(LIMITS, "max_steps", 20)
    text = _problem(_adjust(tmp_path, f"old + {LONG}"))
    assert f"{tmp_path / 'v.yaml'}:4:" in text and "more than 20 steps (the limit max_steps)" in text


def test_adjust_refuses_a_number_beyond_max_int_bits(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(LIMITS, "max_int_bits", 16)
    text = _problem(_adjust(tmp_path, "old * 100000"))
    assert f"{tmp_path / 'v.yaml'}:4:" in text and "larger than max_int_bits (16)" in text


def test_within_the_budget_both_evaluate(write_ruleset: Callable[..., Path], tmp_path: Path) -> None:
    cells = _generate(write_ruleset, "range(0, columns + 1)")()
    assert [item.id for item in cells.rules.kinds["cell"].items] == ["c0", "c1", "c2", "c3"]  # type: ignore[attr-defined]
    adjusted = _adjust(tmp_path, "least(old * 2, 150)")()
    assert adjusted.rules.constants["GOAL"].value == 150  # type: ignore[attr-defined]


def test_a_refused_expression_names_what_is_allowed() -> None:
    with pytest.raises(Unevaluable, match="whole-number arithmetic on old") as caught:
        evaluate(parse_expression("'text'"), adjust_scope(1))
    assert caught.value.span is not None
