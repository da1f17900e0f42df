"""The component-relabelling check (``engine:component-symmetry``,
``rulekit/tools/verify/components.py``): components of equal data that no rule tells apart,
relabelled in a state and an action, relabel the outcome."""

from __future__ import annotations

from collections.abc import Callable
from pathlib import Path

import pytest

from rulekit.engine.game import Action, Game
from rulekit.load import load_program
from rulekit.tools.verify import VerifyOptions, format_counterexample, verify
from rulekit.tools.verify.components import ComponentRelabeller, Group, symmetric_groups

# Players take cards from a shuffled deck and play them for their value. Two gold cards and
# three silver ones, each declared as copies of one entry.
COINS = """
ruleset: coins
players: {min: 2, max: 2}
components:
  card:
    attributes: {value: int}
    items:
      - {id: "gold_{copy_number}", value: 2, copies: 2}
      - {id: "silver_{copy_number}", value: 1, copies: 3}
state:
  game:
    current: {type: player, initial: "player_at(1)"}
    deck: {type: "list[card]", initial: cards}
    last: {type: "card?"}
    moves: {type: int}
  player:
    hand: {type: "list[card]"}
    played: {type: "list[card]"}
    points: {type: int}
  card:
    plays: {type: int, doc: how many times the card was played}
setup: |
  shuffle(game.deck)
actions:
  take:
    require:
      - {if: "len(game.deck) > 0", else: the deck is empty}
    effect: |
      draw(game.deck, me.hand, 1)
      game.moves += 1
    ends_turn: true
  play:
    params: {c: me.hand}
    effect: |
      move(c, me.hand, me.played)
      me.points += c.value
      game.last = c
      c.plays += 1
      game.moves += 1
    ends_turn: true
  wait:
    effect: game.moves += 1
    ends_turn: true
flow:
  - repeat:
      until: game.moves >= 10
      steps:
        - turn: game.current
        - do: game.current = next_player(game.current)
scoring:
  score: player.points
"""
#: An author's edit: one of the two gold cards (copies of one entry) pays a point more.
GOLD_2_BONUS = COINS.replace(
    "      me.points += c.value\n", "      me.points += c.value + (1 if c == cards.gold_2 else 0)\n"
)
#: The same cards declared one by one (equal data, but not copies of one entry).
ONE_BY_ONE = COINS.replace(
    '      - {id: "gold_{copy_number}", value: 2, copies: 2}\n',
    "      - {id: gold_1, value: 2}\n      - {id: gold_2, value: 2}\n",
)


def _groups(write_ruleset: Callable[..., Path], text: str) -> dict[str, Group]:
    analysis = symmetric_groups(load_program(str(write_ruleset(text))))
    return {group.ids[0]: group for group in analysis.groups}


def test_copies_of_equal_data_are_interchangeable(write_ruleset: Callable[..., Path]) -> None:
    groups = _groups(write_ruleset, COINS)
    assert groups["gold_1"] == Group("card", ("gold_1", "gold_2"), copies=True)
    assert groups["silver_1"].ids == ("silver_1", "silver_2", "silver_3")


def test_an_item_declared_alone_and_named_by_a_rule_is_left_out(write_ruleset: Callable[..., Path]) -> None:
    text = ONE_BY_ONE.replace(
        "      me.points += c.value\n", "      me.points += c.value + (1 if c == cards.gold_2 else 0)\n"
    )
    analysis = symmetric_groups(load_program(str(write_ruleset(text))))
    assert [g.ids for g in analysis.groups] == [("silver_1", "silver_2", "silver_3")]
    assert "card: the rules name gold_2" in analysis.left_out


def test_an_item_a_constant_names_is_left_out_of_its_group(write_ruleset: Callable[..., Path]) -> None:
    text = COINS.replace(
        "state:\n", 'constants:\n  LUCKY: {type: "list[card]", value: [silver_3]}\nstate:\n', 1
    )
    groups = _groups(write_ruleset, text)
    assert groups["silver_1"].ids == ("silver_1", "silver_2")


@pytest.mark.parametrize(
    ("edit", "why"),
    [
        ("game.last = first(cards)", "its collection cards is read in order"),
        ("game.last = first(sort(me.played))", "sort() orders values that may be components"),
        ("game.last = min(x for x in me.played)", "min() may order components"),
        ("game.last = c if len(c.id) > 5 else none", "id is read as text"),
    ],
)
def test_rules_that_may_order_the_components_leave_them_out(
    write_ruleset: Callable[..., Path], edit: str, why: str
) -> None:
    analysis = symmetric_groups(load_program(str(write_ruleset(COINS.replace("game.last = c", edit)))))
    assert analysis.groups == ()
    assert analysis.candidates == 2
    assert any(why in reason for reason in analysis.left_out), analysis.left_out


def test_counting_over_the_collection_keeps_the_groups(write_ruleset: Callable[..., Path]) -> None:
    text = COINS.replace(
        "score: player.points", "score: player.points + count(c for c in cards if c == none)"
    )
    assert len(_groups(write_ruleset, text)) == 2


def test_the_relabeller_shifts_a_group_in_fields_and_actions(write_ruleset: Callable[..., Path]) -> None:
    program = load_program(str(write_ruleset(COINS)))
    state = Game(program, 2).new_initial_state(3)
    relabeller = ComponentRelabeller(
        program, Group("card", ("silver_1", "silver_2", "silver_3"), copies=True)
    )
    fields = dict(state.fields)
    fields[("game", "deck")] = ("silver_1", "gold_1", "silver_3")
    fields[("game", "last")] = "silver_2"
    fields[("silver_1", "plays")] = 4
    relabelled = relabeller.state(fields)
    assert relabelled is not None
    assert relabelled[("game", "deck")] == ("silver_2", "gold_1", "silver_1")
    assert relabelled[("game", "last")] == "silver_3"
    assert relabelled[("silver_2", "plays")] == 4 and relabelled[("gold_1", "plays")] == 0
    assert relabeller.action(Action("play", ("silver_3",))) == Action("play", ("silver_1",))
    fields[("_", "flow")] = (*fields[("_", "flow")], (0, "silver_1"))  # an id where no type says
    assert relabeller.state(fields) is None


def test_rules_that_treat_copies_alike_pass_the_check(write_ruleset: Callable[..., Path]) -> None:
    result = verify(VerifyOptions(str(write_ruleset(COINS)), examples=40, out=None))
    assert result.ok, format_counterexample(result.counterexample)  # type: ignore[arg-type]
    assert result.stats.counts.get("component_symmetry", 0) > 0


def test_a_rule_paying_more_for_one_copy_is_found(write_ruleset: Callable[..., Path], tmp_path: Path) -> None:
    result = verify(VerifyOptions(str(write_ruleset(GOLD_2_BONUS)), examples=40, out=tmp_path))
    example = result.counterexample
    assert example is not None and example.key == "engine:component-symmetry", example
    assert len(example.actions) <= 4
    assert "gold_1, gold_2" in example.message and "gold_1 as gold_2" in example.message
    assert "points" in example.message


def test_the_verdict_says_which_groups_were_checked_and_when_none_exist(
    write_ruleset: Callable[..., Path], tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    from rulekit.cli import main

    assert main(["verify", str(write_ruleset(COINS)), "--examples", "10", "--out", str(tmp_path / "a")]) == 0
    out = capsys.readouterr().out
    assert "component symmetry: 2 group(s) of interchangeable components (card gold_1, gold_2" in out
    alone = COINS.replace("copies: 2}", "copies: 1}").replace("copies: 3}", "copies: 1}")
    assert main(["verify", str(write_ruleset(alone)), "--examples", "5", "--out", str(tmp_path / "b")]) == 0
    out = capsys.readouterr().out
    assert "component symmetry not checked: no two components of a kind have equal data" in out


def test_the_shipped_groups() -> None:
    royal = symmetric_groups(load_program("royal_letter")).groups
    assert [g.ids[0] for g in royal] == ["guard_1", "priest_1", "baron_1", "handmaid_1", "prince_1"]
    assert all(g.copies for g in royal)
    assert symmetric_groups(load_program("pig")).candidates == 0
