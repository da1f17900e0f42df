"""Card sets with counts: ``copies: N`` on a listed item or on ``generate:`` makes N distinct
items with derivable ids (``red_3_a``, ``red_3_b`` ...), kept apart by determinization; every
mistake is one located error."""

from __future__ import annotations

import random
import re
from collections.abc import Callable
from pathlib import Path

import pytest

from rulekit.engine.information import determinize
from rulekit.errors import RulesetError
from rulekit.limits import LIMITS
from rulekit.load import load_game, load_program
from rulekit.rules.generate import copy_letter

DOC = Path(__file__).resolve().parents[2] / "docs" / "rules-format.md"

RULES = """\
ruleset: g
players: {min: 2, max: 2}
components:
  card:
    attributes: {colour: str, number: int}
COMPONENTS
state:
  game:
    deck: {type: "list[card]", initial: cards, visibility: hidden}
  player:
    hand: {type: "list[card]", visibility: owner}
setup: |
  shuffle(game.deck)
  for p in players:
      draw(game.deck, p.hand, 2)
actions:
  go: {ends_turn: true}
flow:
  - turn: player_at(1)
"""

Load = Callable[[str], dict[str, dict[str, object]]]


@pytest.fixture
def rules_file(write_ruleset: Callable[..., Path]) -> Callable[[str], Path]:
    return lambda components: write_ruleset(RULES.replace("COMPONENTS\n", components))


@pytest.fixture
def load(rules_file: Callable[[str], Path]) -> Load:
    """Load RULES with COMPONENTS replaced; the cards as {id: attributes}."""

    def run(components: str) -> dict[str, dict[str, object]]:
        program = load_program(str(rules_file(components)))
        return {item.id: dict(item.values) for item in program.rules.kinds["card"].items}

    return run


def _error(load: Load, components: str) -> str:
    with pytest.raises(RulesetError) as caught:
        load(components)
    return str(caught.value)


def test_a_listed_item_with_copies_is_that_many_items_lettered_in_a_row(load: Load) -> None:
    cards = load(
        "    items:\n      - {id: joker, colour: none, number: 0, copies: 3}\n"
        "      - {id: ace, colour: red, number: 1}\n"
    )
    assert list(cards) == ["joker_a", "joker_b", "joker_c", "ace"]
    assert cards["joker_b"] == {"colour": "none", "number": 0}


def test_a_listed_item_names_its_copy_by_number_or_letter(load: Load) -> None:
    cards = load(
        '    items:\n      - {id: "guard_{copy_number}", colour: red, number: 1, copies: 2}\n'
        '      - {id: "x{copy}y", colour: red, number: 2, copies: 2}\n'
    )
    assert list(cards) == ["guard_1", "guard_2", "xay", "xby"]


def test_three_of_each_colour_and_number_is_a_generator_with_copies(load: Load) -> None:
    cards = load(
        "    generate:\n"
        "      for: {colour: \"['red', 'blue']\", number: \"range(1, 3)\"}\n"
        '      id: "{colour}_{number}"\n'
        "      copies: 3\n"
    )
    assert list(cards)[:4] == ["red_1_a", "red_1_b", "red_1_c", "red_2_a"]
    assert len(cards) == 12
    assert cards["blue_2_c"] == {"colour": "blue", "number": 2}


def test_one_copy_keeps_the_id_as_written(load: Load) -> None:
    assert list(load("    items:\n      - {id: ace, colour: red, number: 1, copies: 1}\n")) == ["ace"]


def test_copy_letters_go_on_after_z_as_spreadsheet_columns() -> None:
    assert [copy_letter(i) for i in (0, 1, 25, 26, 27, 51, 52, 701, 702)] == [
        "a",
        "b",
        "z",
        "aa",
        "ab",
        "az",
        "ba",
        "zz",
        "aaa",
    ]


def test_determinization_keeps_each_copy_s_identity(rules_file: Callable[[str], Path]) -> None:
    """A redealt state holds the same multiset of distinct ids: no copy lost or doubled."""
    game = load_game(str(rules_file("    items:\n      - {id: j, colour: red, number: 0, copies: 8}\n")), 2)
    state = game.new_initial_state(seed=4)
    everything = sorted([*state.value("game", "deck"), *state.value(0, "hand"), *state.value(1, "hand")])
    for seed in range(20):
        sample = determinize(state, 0, random.Random(seed))
        assert sample.value(0, "hand") == state.value(0, "hand")
        redealt = sorted([*sample.value("game", "deck"), *sample.value(0, "hand"), *sample.value(1, "hand")])
        assert redealt == everything == [f"j_{c}" for c in "abcdefgh"]


@pytest.mark.parametrize(
    ("components", "message"),
    [
        (
            "    items:\n      - {id: j, colour: red, number: 0, copies: 0}\n",
            r"ruleset.yaml:7:41: .*copies must be a whole number of at least 1, not 0",
        ),
        (
            "    items:\n      - {id: j, colour: red, number: 0, copies: two}\n",
            r"ruleset.yaml:7:41: .*copies must be a whole number of at least 1, not 'two'",
        ),
        (
            '    items:\n      - {id: "j{colour}", colour: red, number: 0, copies: 2}\n',
            r"ruleset.yaml:7:10: .*items: the id names '\{colour\}'; an item's id can fill in only",
        ),
        (
            "    items:\n      - {id: j, colour: red, number: 0, copies: 2}\n"
            "      - {id: j_b, colour: red, number: 0}\n",
            r"ruleset.yaml:8:10: .*duplicate component id 'j_b'",
        ),
        (
            "    generate:\n"
            '      for: {colour: "[\'r\']", number: "[1]"}\n'
            '      id: "{colour}{number}"\n'
            "      copies: 0\n",
            r"ruleset.yaml:9:7: .*generate.copies must be a whole number of at least 1",
        ),
        (
            "    generate:\n"
            '      for: {colour: "[\'r\']", number: "[1, 2]"}\n'
            '      id: "{colour}{copy}"\n'
            "      copies: 2\n",
            r"generate.id makes 'ra' twice",
        ),
    ],
    ids=["zero", "not-a-number", "other-template-field", "copy-clashes", "generator-zero", "generator-clash"],
)
def test_a_wrong_copies_is_one_located_error(load: Load, components: str, message: str) -> None:
    error = _error(load, components)
    assert re.search(message, error), error
    assert error.count("error:") == 1, error


def test_copies_beyond_the_limit_are_an_error_before_any_is_made(load: Load) -> None:
    LIMITS.max_generated_items = 10
    try:
        error = _error(load, "    items:\n      - {id: j, colour: red, number: 0, copies: 1000000000}\n")
        assert "more than max_generated_items (10)" in error, error
        error = _error(
            load,
            "    generate:\n"
            "      for: {colour: \"['r', 'b']\", number: \"[1, 2]\"}\n"
            '      id: "{colour}{number}"\n'
            "      copies: 3\n",
        )
        assert "would make 12 items, more than max_generated_items (10)" in error, error
    finally:
        LIMITS.reset()


def test_the_documented_deck_loads(write_ruleset: Callable[..., Path]) -> None:
    section = DOC.read_text(encoding="utf-8").split("### Card sets with counts", 1)[1]
    example = re.search(r"```yaml\n(.*?)```", section, re.S)
    assert example is not None
    text = "ruleset: d\nplayers: {min: 2}\n" + example.group(1) + "actions:\n  go: {ends_turn: true}\n"
    text += "flow:\n  - turn: player_at(1)\n"
    items = [item.id for item in load_program(str(write_ruleset(text))).rules.kinds["card"].items]
    assert items[:6] == ["joker_a", "joker_b", "red_1_a", "red_1_b", "red_1_c", "red_2_a"]
    assert len(items) == 32 and items[-1] == "blue_5_c"


def test_a_variant_changes_an_entry_with_copies_by_its_id_as_written(tmp_path: Path) -> None:
    variant = tmp_path / "one_guard_fewer.yaml"
    variant.write_text(
        "variant: one_guard_fewer\nruleset: royal_letter\nset:\n"
        "  components.card.guard_{copy_number}.copies: 4\n"
        "  components.card.guard_{copy_number}.value: 2\n",
        encoding="utf-8",
    )
    items = load_program("royal_letter", variants=[str(variant)]).rules.kinds["card"].items
    guards = [(item.id, item.values["value"]) for item in items if item.id.startswith("guard")]
    assert guards == [("guard_1", 2), ("guard_2", 2), ("guard_3", 2), ("guard_4", 2)]
    assert len(items) == 13
