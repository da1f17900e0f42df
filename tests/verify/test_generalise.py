"""Scenarios run from explored states (``engine:scenarios-generalised``,
rulekit/tools/verify/generalise.py and examples.py): a rulebook example checked where play
leads, with its relative expectations as changes and the seats rotated in symmetric rules."""

from __future__ import annotations

from collections.abc import Callable
from pathlib import Path

import pytest

from rulekit.engine.game import Action, Game
from rulekit.load import load_program
from rulekit.tools.scenario import run_scenario
from rulekit.tools.verify import VerifyOptions, verify
from rulekit.tools.verify.checker import Checker
from rulekit.tools.verify.examples import load_examples
from rulekit.tools.verify.failures import PropertyFailure
from rulekit.tools.verify.generalise import KEY, check_scenarios
from rulekit.tools.verify.options import Stats
from rulekit.tools.verify.rotated import KEY as ROTATED
from rulekit.tools.verify.rotated import check_rotated, replay
from rulekit.tools.verify.shrink import play_sequence

# Players take coins in turn; the richest wins. Nothing singles out a seat.
COINS = """
ruleset: coins
players: {min: 2, max: 3}
state:
  game:
    current: {type: player, initial: "player_at(1)"}
    moves: {type: int}
  player:
    coins: {type: int}
actions:
  take:
    params: {n: "[1, 2]"}
    effect: |
      me.coins += n
      game.moves += 1
    ends_turn: true
flow:
  - repeat:
      until: game.moves >= 8
      steps:
        - turn: game.current
        - do: game.current = next_player(game.current)
scoring:
  score: player.coins
"""
#: The rulebook's example: taking 2 coins adds 2 to the taker's, and the next seat decides.
TAKING = """
scenario: taking two coins adds two
format: 2
players: 2
actions:
  - action: take(2)
    by: P1
expect:
  - player_at(1).coins == 2
  - player_at(2).coins == 0
  - {expr: game.current, equals: P2}
"""
#: Planted: a take pays double (the scenario from its own set-up fails; verify missed it).
DOUBLE = COINS.replace("me.coins += n\n", "me.coins += 2 * n\n")
#: Planted: the first seat gets a coin more (seat-blind in form: ``first(players)``).
FIRST_SEAT = COINS.replace("me.coins += n\n", "me.coins += n + (1 if me == first(players) else 0)\n")
#: Planted: a take pays double once the taker has 3 coins (the scenario from its own set-up
#: passes: only a state reached in play shows it).
RICH_DOUBLE = COINS.replace("me.coins += n\n", "me.coins += n if me.coins < 3 else 2 * n\n")


def _ruleset(write_ruleset: Callable[..., Path], text: str) -> Path:
    directory = write_ruleset(text)
    (directory / "scenarios").mkdir(exist_ok=True)
    (directory / "scenarios" / "taking.yaml").write_text(TAKING, encoding="utf-8")
    return directory


def _verify(directory: Path, tmp_path: Path, **options: object) -> object:
    return verify(
        VerifyOptions(str(directory), examples=30, out=tmp_path / "out", shrink_seconds=5, **options)  # type: ignore[arg-type]
    )


def test_the_example_is_made_of_a_given_and_relative_and_absolute_expectations(
    write_ruleset: Callable[..., Path],
) -> None:
    book = load_examples(load_program(str(_ruleset(write_ruleset, COINS))))
    (example,) = book.examples
    relative = [e.text for s in example.steps if s.checks for e in s.checks.expectations if e.relative]
    assert relative == ["player_at(1).coins == 2", "player_at(2).coins == 0"]
    assert example.absolute == 1  # who decides next
    given = dict(example.given)
    assert (0, "coins") not in given  # measured: a reached state may differ there
    assert given[("game", "current")] == 0  # the seat whose turn it is
    assert ("game", "moves") not in given  # read by the flow's end, but no check depends on it


def test_verify_finds_a_payout_only_the_scenario_caught(
    write_ruleset: Callable[..., Path], tmp_path: Path
) -> None:
    directory = _ruleset(write_ruleset, DOUBLE)
    assert run_scenario(directory / "scenarios" / "taking.yaml").failures  # the scenario catches it
    result = _verify(directory, tmp_path)
    assert result.counterexample is not None  # type: ignore[attr-defined]
    assert result.counterexample.key == KEY  # type: ignore[attr-defined]
    assert "changes by +4" in result.counterexample.message  # type: ignore[attr-defined]


def test_verify_finds_a_payout_wrong_only_where_play_leads(
    write_ruleset: Callable[..., Path], tmp_path: Path
) -> None:
    directory = _ruleset(write_ruleset, RICH_DOUBLE)
    assert not run_scenario(directory / "scenarios" / "taking.yaml").failures  # the scenario misses it
    result = _verify(directory, tmp_path)
    example = result.counterexample  # type: ignore[attr-defined]
    assert example is not None and example.key == KEY
    assert "the example says +2" in example.message
    # the counterexample replays: the same failure after the same actions
    checker = Checker(load_program(str(directory)), Stats(), full=True, focus=KEY)
    with pytest.raises(PropertyFailure) as raised:
        play_sequence(checker, example.players, example.seed, [text for _, text in example.actions])
    assert raised.value.key == KEY and len(raised.value.history) == len(example.actions)


def test_the_shipped_rules_pass(write_ruleset: Callable[..., Path], tmp_path: Path) -> None:
    result = _verify(_ruleset(write_ruleset, COINS), tmp_path)
    assert result.counterexample is None  # type: ignore[attr-defined]
    assert result.stats.counts["scenario_given"] > 0  # type: ignore[attr-defined]


def test_a_state_where_another_seat_decides_is_rotated(write_ruleset: Callable[..., Path]) -> None:
    program = load_program(str(_ruleset(write_ruleset, RICH_DOUBLE)))
    state = Game(program, 2).new_initial_state(0)
    for n in (1, 2, 2):  # P1 1, P2 2, P1 3: P2 decides with 2 coins
        state.apply_action(Action("take", (n,)))
    assert check_scenarios(program, Stats(), {}, state) is None  # P2 is not rich yet
    state.apply_action(Action("take", (1,)))  # P2 has 3; P1 decides with 3
    state.apply_action(Action("take", (1,)))  # P1 has 4; P2 decides with 3
    found = check_scenarios(program, Stats(), {}, state)
    assert found is not None
    assert "with the seats rotated (P1 as P2, P2 as P1)" in found[0]
    assert "changes by +4 (3 to 7)" in found[0]


def test_an_absolute_expectation_is_checked_only_where_what_it_reads_is_unchanged(
    write_ruleset: Callable[..., Path],
) -> None:
    # game.current is who decides next: the same after take(2) from any state of the given
    text = TAKING.replace("  - {expr: game.current, equals: P2}\n", "  - player_at(1).coins > 1\n")
    directory = write_ruleset(COINS)
    (directory / "scenarios").mkdir()
    (directory / "scenarios" / "taking.yaml").write_text(text, encoding="utf-8")
    program = load_program(str(directory))
    state = Game(program, 2).new_initial_state(0)
    state.apply_action(Action("take", (2,)))
    state.apply_action(Action("take", (2,)))  # P1 decides with 2 coins: reads differ, not checked
    stats = Stats()
    assert check_scenarios(program, stats, {}, state) is None
    assert stats.counts["scenario_given"] == 1


def test_a_scenario_for_other_modules_is_not_generalised(write_ruleset: Callable[..., Path]) -> None:
    directory = write_ruleset(COINS, modules={"extra": "module: extra\n"})
    (directory / "scenarios").mkdir()
    (directory / "scenarios" / "taking.yaml").write_text(TAKING + "modules: [extra]\n", encoding="utf-8")
    book = load_examples(load_program(str(directory)))
    assert not book.examples
    assert book.skipped[0][1] == "written for modules extra"


def test_a_scenario_replayed_with_the_seats_rotated_finds_a_seat_singled_out(
    write_ruleset: Callable[..., Path], tmp_path: Path
) -> None:
    result = _verify(_ruleset(write_ruleset, FIRST_SEAT), tmp_path)
    example = result.counterexample  # type: ignore[attr-defined]
    assert example is not None and example.key == ROTATED
    assert "(P1 as P2, P2 as P1): after take(2), P2.coins is 2 but the real game's, rotated, is 3" in (
        example.message
    )


def test_the_scenarios_rotate_in_the_symmetric_shipped_rules(write_ruleset: Callable[..., Path]) -> None:
    program = load_program(str(_ruleset(write_ruleset, COINS)))
    examples = load_examples(program).examples
    assert check_rotated(program, examples, 2, set()) is None
    assert replay(program, examples[0], 1) is None


@pytest.mark.slow
@pytest.mark.parametrize("ruleset", ["pig", "tic_tac_toe", "connect_four"])
def test_shipped_scenarios_generalise_without_a_false_alarm(ruleset: str, tmp_path: Path) -> None:
    result = verify(VerifyOptions(ruleset, examples=40, out=tmp_path / "out", coverage=False))
    assert result.counterexample is None
    assert result.stats.counts["scenario_states"] > 0


def test_a_malformed_scenario_is_not_an_example_and_stops_nothing(write_ruleset: Callable[..., Path]) -> None:
    directory = _ruleset(write_ruleset, COINS)
    (directory / "scenarios" / "bad.yaml").write_text("scenario: bad\nactions: 5\nexpect: [[1]]\n")
    (directory / "scenarios" / "worse.yaml").write_text(
        "scenario: worse\nactions: [take(9)]\nexpect: [game.moves == 1]\n"
    )
    book = load_examples(load_program(str(directory)))
    assert [e.path.name for e in book.examples] == ["taking.yaml"]
    reasons = {path.name: why for path, why in book.skipped}
    assert reasons["bad.yaml"].startswith("cannot be set up with these rules")
    assert (
        reasons["worse.yaml"]
        == "its step take(9) cannot be played as written with these rules (rulekit test)"
    )
