"""A variant's ``adjust:`` sets whole numbers relative to their old value, with located errors."""

from __future__ import annotations

from collections.abc import Callable
from pathlib import Path

import pytest

from rulekit.errors import RulesetError
from rulekit.load import load_program

ROOT = Path(__file__).resolve().parents[2]


def _documented_example() -> str:
    text = (ROOT / "docs" / "authoring.md").read_text(encoding="utf-8")
    return text.split("<!-- example: adjust -->\n```yaml\n", 1)[1].split("```", 1)[0]


def _constants(variant: Path) -> dict[str, object]:
    constants = load_program("el_capitan", (), [str(variant)], players=3).rules.constants
    return {name: constant.value for name, constant in constants.items()}


def test_the_documented_adjustment_sets_values_relative_to_the_old(
    write_variant: Callable[[str, str], Path],
) -> None:
    constants = _constants(write_variant(_documented_example(), "richer_and_longer"))
    assert constants["START_MONEY"] == 30 and constants["BONUS_CITIES"] == 10


def test_an_adjustment_follows_the_base_value(write_variant: Callable[[str, str], Path]) -> None:
    text = (
        "variant: v\nruleset: el_capitan\nset: {constants.START_MONEY: 50}\n"
        'adjust: {constants.START_MONEY: "old // 2 - 1"}\n'
    )
    assert _constants(write_variant(text, "v"))["START_MONEY"] == 24


@pytest.mark.parametrize(
    ("value", "message"),
    [
        (
            '"old + bonus"',
            r"v.yaml:3:\d+: error: constants.START_MONEY: 'bonus' is unknown here: an adjustment reads "
            "only 'old'",
        ),
        ('"old // 0"', r"v.yaml:3:\d+: error: constants.START_MONEY: division by zero"),
        ("5", r"v.yaml:3:\d+: error: constants.START_MONEY: write the new value as an expression of old"),
        ('"old +"', r"v.yaml:3:\d+: error"),
    ],
)
def test_a_bad_adjustment_is_an_error_at_the_variant_s_line(
    write_variant: Callable[[str, str], Path], value: str, message: str
) -> None:
    text = f"variant: v\nruleset: el_capitan\nadjust: {{constants.START_MONEY: {value}}}\n"
    with pytest.raises(RulesetError, match=message):
        _constants(write_variant(text, "v"))


def test_adjusting_something_that_is_not_a_number_is_refused(
    write_variant: Callable[[str, str], Path],
) -> None:
    text = 'variant: v\nruleset: el_capitan\nadjust: {constants.LOAN_AMOUNTS: "old + 1"}\n'
    with pytest.raises(RulesetError, match=r"adjust changes whole numbers.*\n(.*\n)*.*hint: use 'set:'"):
        _constants(write_variant(text, "v"))


def test_adjusting_a_missing_path_names_the_nearest(write_variant: Callable[[str, str], Path]) -> None:
    text = 'variant: v\nruleset: el_capitan\nadjust: {constants.START_MONEYS: "old + 1"}\n'
    with pytest.raises(RulesetError, match=r"there is no 'START_MONEYS'(.*\n)*.*START_MONEY"):
        _constants(write_variant(text, "v"))
