"""A field's ``sample:`` condition: what a resample of unseen places must keep, read only from
what the seat may see."""

from __future__ import annotations

import random
from pathlib import Path

import yaml

from rulekit.engine.information import determinize
from rulekit.load import load_game

PEEK = Path(__file__).resolve().parents[1] / "data" / "peek"


def _peek_with(tmp_path: Path, condition: str) -> Path:
    text = (
        (PEEK / "ruleset.yaml").read_text(encoding="utf-8").replace("ruleset: peek", "ruleset: peek_sample")
    )
    old = (
        '    hand: {type: "list[card]", visibility: others, '
        'doc: "held the wrong way round: the others see it"}'
    )
    assert old in text
    new = f'    hand: {{type: "list[card]", visibility: others, sample: "{condition}"}}'
    (tmp_path / "ruleset.yaml").write_text(text.replace(old, new), encoding="utf-8")
    return tmp_path


def _own_hands(ruleset: Path, samples: int = 40) -> tuple[tuple[str, ...], list[tuple[str, ...]]]:
    game = load_game(str(ruleset), 2)
    state = game.new_initial_state(3)
    drawn = [determinize(state, 0, random.Random(n)).value(0, "hand") for n in range(samples)]
    return state.value(0, "hand"), drawn


def test_every_resampled_position_meets_its_sample_condition(tmp_path: Path) -> None:
    _, drawn = _own_hands(_peek_with(tmp_path, "index != 0 or item.value >= 5"))
    values = _card_values()
    assert all(values[hand[0]] >= 5 for hand in drawn)
    assert len({hand[0] for hand in drawn}) > 1  # still a draw among the cards that fit


def test_a_sample_condition_cannot_read_the_cards_it_constrains(tmp_path: Path) -> None:
    """``item == owner.hand[index]`` would deal the real hand back: the condition is evaluated on
    what the seat sees (its own others-visible hand masked), so no deal meets it and the plain
    deal is kept: the samples are not the truth."""
    real, drawn = _own_hands(_peek_with(tmp_path, "item == owner.hand[index]"))
    assert sum(hand == real for hand in drawn) <= 2


def _card_values() -> dict[str, int]:
    rules = yaml.safe_load((PEEK / "ruleset.yaml").read_text(encoding="utf-8"))
    return {item["id"]: item["value"] for item in rules["components"]["card"]["items"]}
