"""Scenario format 2: checkpoints, events, set-up hooks, start, end of game, invariants, paths."""

from __future__ import annotations

from collections.abc import Callable
from pathlib import Path

import pytest

from rulekit.cli import main
from rulekit.tools.scenario import run_scenario

DECK = """\
ruleset: deck
title: Deck
players: {min: 2, max: 2}
money: coins
constants:
  CARDS: [1, 2, 3, 4]
state:
  game:
    round: int
    deck: {type: "list[int]", initial: CARDS}
    drawn: "list[int]"
    owners: {type: any}
  player:
    coins: {type: int, initial: 3}
events:
  bonus: {amount: int}
triggers:
  pay_bonus:
    after: bonus
    effect: |
      for p in players:
          transfer(amount, bank, p)
invariants:
  cards_kept:
    holds: len(game.deck) + len(game.drawn) == len(CARDS)
    message: a card vanished or appeared
    cite: "§1"
actions:
  draw:
    effect: |
      game.drawn = append(game.drawn, first(game.deck))
      game.deck = drop(game.deck, 1)
    ends_turn: true
  pick:
    params:
      n: between(1, 2)
    cite: "§2"
    ends_turn: true
setup: shuffle(game.deck)
flow:
  - repeat:
      times: 2
      counter: round
      steps:
        - turn: player_at(1)
        - turn: player_at(2)
scoring:
  score: player.coins
"""


@pytest.fixture
def deck(write_ruleset: Callable[..., Path]) -> Path:
    return write_ruleset(DECK, name="deck")


def _run(directory: Path, text: str, name: str = "s") -> list[str]:
    folder = directory / "scenarios"
    folder.mkdir(exist_ok=True)
    path = folder / f"{name}.yaml"
    path.write_text(text, encoding="utf-8")
    return run_scenario(path).failures


def test_a_checkpoint_is_checked_after_its_action_and_a_failing_one_stops_the_scenario(deck: Path) -> None:
    failures = _run(
        deck,
        """\
scenario: checkpoints
actions:
  - action: draw
    expect: [len(game.drawn) == 1]
  - action: draw
    expect: [len(game.drawn) == 1]
  - draw
expect: [len(game.drawn) == 3]
""",
    )
    assert len(failures) == 1
    assert "s.yaml:6:14: error: expectation failed: len(game.drawn) == 1" in failures[0]
    assert "len(game.drawn) = 2" in failures[0]


def test_an_event_between_actions_runs_its_triggers(deck: Path) -> None:
    failures = _run(
        deck,
        """\
scenario: a bonus
actions:
  - draw
  - event: bonus(amount=2)
    expect: ["all(p.coins == 5 for p in players)"]
  - effect: game.owners = [me]
    expect: [{expr: game.owners, equals: [P2]}]
""",
    )
    assert failures == []


def test_before_setup_and_keep_order_fix_the_deck_the_setup_would_shuffle(deck: Path) -> None:
    text = """\
scenario: a stacked deck
keep_order: {keep}
before_setup:
  game.deck: [4, 3, 2, 1]
actions: [draw]
expect: ["game.drawn == [4]"]
"""
    assert _run(deck, text.replace("{keep}", "true")) == []
    assert _run(deck, text.replace("{keep}", "false"))  # seed 0 shuffles it


def test_start_moves_the_flow_counter_and_hands_the_first_turn_to_a_seat(deck: Path) -> None:
    failures = _run(
        deck,
        """\
scenario: last round, second seat
start: {round: 2, player: P2}
actions:
  - action: draw
    by: P2
  - action: draw
    by: P2          # the flow's next turn is player_at(2)'s: the rules go on as written
  - action: draw
    reject: the game is over
expect_terminal: true
""",
    )
    assert failures == []
    failures = _run(
        deck,
        """\
scenario: last round
start: {round: 2}
actions: [draw, draw]
expect_terminal: true
expect_winners: [P1, P2]
expect_standings: [P1, P2]
expect_scores: {P1: 3, P2: 3}
""",
    )
    assert failures == []


def test_start_names_a_counter_that_is_not_running(deck: Path) -> None:
    failures = _run(deck, "scenario: x\nstart: {phase: 2}\n")
    assert "s.yaml:2:9: error: start.phase: no running repeat of the flow counts 'phase'" in failures[0]
    assert "running counters: round" in failures[0]


def test_the_end_of_the_game_is_asserted_directly(deck: Path) -> None:
    failures = _run(
        deck,
        """\
scenario: not over yet
actions: [draw]
expect_terminal: true
expect_winners: [P1]
""",
    )
    assert "expected the game to be over, but it goes on (P2 decides)" in failures[0]
    assert "expect_winners: the game is not over" in failures[1]


def test_players_inside_untyped_setup_values_are_players(deck: Path) -> None:
    failures = _run(
        deck,
        """\
scenario: typed values
setup:
  game.owners: {a: [P1, P2], b: 'P3', c: none}
expect:
  - {expr: game.owners, equals: {a: [P1, P2], b: 'P3', c: none}}
  - game.owners["a"] == [player_at(1), player_at(2)]
  - game.owners["b"] == "P3"
""",
    )
    assert failures == []


def test_invariants_are_checked_after_the_set_up_and_may_be_skipped(deck: Path) -> None:
    bad = "scenario: five cards\nformat: 2\nsetup:\n  game.deck: [1, 2, 3, 4, 4]\n"
    failures = _run(deck, bad)
    assert "s.yaml:3:1: error: invariant 'cards_kept' fails after the set-up: a card vanished" in failures[0]
    assert _run(deck, bad + "skip_invariants: [cards_kept]\n") == []
    assert _run(deck, bad + "check_invariants: false\n") == []
    failures = _run(deck, bad + "skip_invariants: [cards_kep]\n")
    assert "no invariant 'cards_kep'" in failures[0] and "did you mean 'cards_kept'" in failures[0]


def test_invariants_are_checked_after_every_step(deck: Path) -> None:
    failures = _run(
        deck,
        """\
scenario: a card vanishes
format: 2
actions:
  - draw
  - effect: game.drawn = []
  - draw
""",
    )
    assert "s.yaml:5:13: error: invariant 'cards_kept' fails after game.drawn = []" in failures[0]


def test_variant_paths_are_relative_to_the_scenario_file(
    deck: Path, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    (deck / "scenarios").mkdir()
    (deck / "scenarios" / "rich.yaml").write_text(
        "variant: rich\nruleset: deck\nset:\n  state.player.coins.initial: 9\n", encoding="utf-8"
    )
    monkeypatch.chdir(tmp_path)
    assert _run(deck, "scenario: rich\nvariants: [rich.yaml]\nexpect: [player_at(1).coins == 9]\n") == []
    failures = _run(deck, "scenario: poor\nvariants: [poor.yaml]\n")
    assert "s.yaml:2:12: error: no variant file 'poor.yaml'" in failures[0]
    assert "relative to the scenario file" in failures[0]


def test_a_rejection_outside_the_domain_names_the_rule(deck: Path) -> None:
    failures = _run(
        deck,
        """\
scenario: domain
actions:
  - action: pick(7)
    reject: "pick's 'n' is one of between(1, 2) [§2]"
""",
    )
    assert failures == []


def test_scenario_command_adds_modules_with_with(
    write_ruleset: Callable[..., Path], capsys: pytest.CaptureFixture[str]
) -> None:
    directory = write_ruleset(
        DECK,
        modules={"gift": "module: gift\nconstants:\n  GIFT: 1\n"},
        name="deck2",
    )
    (directory / "scenarios").mkdir()
    scenario = directory / "scenarios" / "gift.yaml"
    scenario.write_text("scenario: gift\nexpect: [GIFT == 1]\n", encoding="utf-8")
    assert main(["scenario", str(directory / "scenarios"), "--with", "gift"]) == 0
    assert main(["scenario", str(directory / "scenarios")]) == 1
    assert "unknown name 'GIFT'" in capsys.readouterr().out


def test_a_failed_expectation_does_not_repeat_literal_lists(deck: Path) -> None:
    failures = _run(deck, 'scenario: x\nexpect: ["game.drawn == [1, 2]"]\n')
    assert "game.drawn = []" in failures[0] and "[1, 2] = [1, 2]" not in failures[0]


def test_start_player_turns_a_round_of_the_players_to_begin_with_her(
    write_ruleset: Callable[..., Path],
) -> None:
    directory = write_ruleset(
        """\
ruleset: ring
title: Ring
players: {min: 3, max: 3}
state:
  game:
    active: player
    order: "list[player]"
actions:
  go:
    effect: game.order = append(game.order, me)
    ends_turn: true
flow:
  - for_each: {in: players, as: active, steps: [{turn: game.active}]}
""",
        name="ring",
    )
    failures = _run(
        directory,
        """\
scenario: P2 starts the round
players: 3
start: {player: P2}
actions: [go, go, go]
expect_terminal: true
expect: [{expr: game.order, equals: [P2, P3, P1]}]
""",
    )
    assert failures == []


def test_el_capitans_base_examples_hold_with_every_expansion_tile(capsys: pytest.CaptureFixture[str]) -> None:
    """The use --with is for: the base game's scenario folder run against a module set.  A base
    scenario's set-up shows only what its example needs (skip_invariants names the base
    invariants it leaves), so the modules' invariants must not fail on it either."""
    folder = Path(__file__).resolve().parents[2] / "rulesets" / "el_capitan" / "scenarios"
    base = sorted(str(p) for p in folder.glob("*.yaml"))
    assert len(base) > 50
    status = main(["scenario", *base, "--with", "lisboa,porto,islas_canarias"])
    out = capsys.readouterr().out
    assert status == 0, "\n".join(line for line in out.splitlines() if not line.startswith("PASS"))
    assert f"{len(base)} passed, 0 failed" in out
