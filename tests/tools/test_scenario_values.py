"""Scenario values are typed: ``setup:`` values are converted to and checked against the declared
field type (players, component ids, nested and untyped containers); an ill-typed value is an
error at its line and column in the scenario file."""

from __future__ import annotations

from collections.abc import Callable
from pathlib import Path

import pytest

from rulekit.tools.scenario import run_scenario

RULES = """\
ruleset: typed
players: {min: 2, max: 3}
enums:
  shade: [main, neutral]
records:
  piece: {owner: player, shade: shade}
components:
  card:
    attributes: {rank: int}
    items:
      - {id: c1, rank: 1}
      - {id: c2, rank: 2}
state:
  game:
    anything: {type: any}
    table: {type: map}
    pair: {type: tuple}
    loose: {type: list}
    seats: {type: "list[player]"}
    rows: {type: "list[list[player]]"}
    hand: {type: "list[card]"}
    count: {type: int}
    maybe: {type: "int?"}
    leader: {type: player}
    tone: {type: shade}
    track: {type: "list[piece]"}
flow:
  - turn: player_at(1)
actions:
  wait:
    effect: game.count += 1
"""


@pytest.fixture
def ruleset(write_ruleset: Callable[..., Path]) -> Path:
    return write_ruleset(RULES, name="typed")


def _failures(directory: Path, text: str) -> list[str]:
    path = directory / "s.yaml"
    path.write_text(text, encoding="utf-8")
    return run_scenario(path).failures


def test_players_in_untyped_containers_are_players_so_me_is_found_in_them(ruleset: Path) -> None:
    """P1 inside any, map, tuple and list values is the player P1 at every depth, not the text "P1"."""
    failures = _failures(
        ruleset,
        """\
scenario: players everywhere
setup:
  game.anything: [[P1], {x: P2}]
  game.table: {P1: [P2, P1], other: none}
  game.pair: [P1, c1]
  game.loose: [P1]
  game.rows: [[P1, P2], [P2]]
expect:
  - me in game.anything[0]
  - me in game.loose
  - me in game.pair
  - me in game.table[me]
  - me in game.rows[0]
  - game.table["other"] == none
""",
    )
    assert failures == []


def test_quoted_player_names_stay_text(ruleset: Path) -> None:
    """'P1' in quotes inside an untyped value is the text, as quoting means in YAML."""
    failures = _failures(
        ruleset,
        "scenario: text\nsetup:\n  game.anything: ['P1', \"none\"]\nexpect:\n"
        '  - game.anything == ["P1", "none"]\n  - not (me in game.anything)\n',
    )
    assert failures == []


@pytest.mark.parametrize(
    ("line", "message"),
    [
        ("game.seats: [P1, P4]", "3:20: error: expected a player P1..P2, not 'P4'"),
        ("game.rows: [[P1], [c1]]", "3:22: error: expected a player P1..P2, not 'c1'"),
        ("game.hand: [c1, c3]", "3:19: error: 'c3' is not a card"),
        ("game.count: three", "3:15: error: expected a whole number, not 'three'"),
        ("game.count: true", "3:3: error: expected a whole number, not true"),
        ("game.count: none", "3:15: error: none is not a int"),
        ("game.table: [1, 2]", "3:15: error: expected a mapping for map, not [1, 2]"),
        ("game.anything: {x: [P1, P7]}", "3:27: error: there is no player P7 in a 2-player game"),
        ("game.table: {P9: 1}", "3:16: error: there is no player P9 in a 2-player game"),
        ("game.pair: P1", "3:14: error: expected a list for tuple, not 'P1'"),
        ("game.leader: P3", "3:16: error: expected a player P1..P2, not 'P3'"),
        ("game.tone: neutrl", "3:14: error: 'neutrl' is not a shade"),
        ("game.track: [P1]", "3:16: error: expected a record {owner: player, shade: shade}, not 'P1'"),
        (
            "game.track: [{owner: P1, shade: main, size: 2}]",
            "3:41: error: the record {owner: player, shade: shade} has no field 'size'",
        ),
        ("game.track: [{owner: P1}]", "3:16: error: the record {owner: player, shade: shade} needs a value"),
        ("game.track: [{owner: P3, shade: main}]", "3:24: error: expected a player P1..P2, not 'P3'"),
    ],
)
def test_an_ill_typed_setup_value_is_an_error_at_its_position(ruleset: Path, line: str, message: str) -> None:
    """The value is checked against the field's declared type and reported where it was written
    (a number or true/false, which YAML does not locate, at its key)."""
    [failure] = _failures(ruleset, f"scenario: wrong\nsetup:\n  {line}\n")
    assert f"s.yaml:{message}" in failure


def test_records_and_enumeration_values_are_written_by_field_and_by_name(ruleset: Path) -> None:
    """A record is a mapping of its fields (players P1.., enumeration values by name), equal to the
    same record built by the rules; none is an empty element of a list of records."""
    failures = _failures(
        ruleset,
        "scenario: records\nsetup:\n  game.tone: neutral\n"
        "  game.track: [{owner: P2, shade: neutral}, none]\n"
        "expect:\n  - game.tone == shade.neutral\n"
        "  - 'game.track[0] == {owner: player_at(2), shade: shade.neutral}'\n"
        "  - game.track[0].owner == player_at(2) and game.track[1] == none\n",
    )
    assert failures == []


def test_none_is_accepted_where_the_type_is_optional_or_has_no_value_of_its_own(ruleset: Path) -> None:
    """int? and player fields may be set to none; the game starts with none in a player field too."""
    failures = _failures(
        ruleset,
        "scenario: empty\nsetup:\n  game.maybe: none\n  game.leader: none\n"
        "expect:\n  - game.maybe == none\n  - game.leader == none\n",
    )
    assert failures == []


def test_every_ill_typed_value_is_reported_not_only_the_first(ruleset: Path) -> None:
    """All problems of a set-up come together, in file order."""
    [failure] = _failures(ruleset, "scenario: wrong\nsetup:\n  game.count: x\n  game.seats: [P5]\n")
    assert "s.yaml:3:15:" in failure and "s.yaml:4:16:" in failure and failure.endswith("2 errors")


def test_a_false_expectation_is_explained_like_a_failed_invariant(ruleset: Path) -> None:
    """The parts of a false condition are shown with their values (verify's explanation), seen by me."""
    [failure] = _failures(
        ruleset,
        "scenario: explained\nsetup:\n  game.count: 2\n  game.seats: [P2]\n"
        "expect:\n  - game.count == 3 and me in game.seats\n",
    )
    assert "error: expectation failed: game.count == 3 and me in game.seats" in failure
    assert "game.count == 3 is false" in failure
    assert "game.count = 2" in failure
