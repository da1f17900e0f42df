"""Chance as data: every random draw is a chance step with known outcomes and probabilities."""

from __future__ import annotations

import json
import random
from collections.abc import Callable
from fractions import Fraction
from pathlib import Path

import pytest

from rulekit.engine.chance import apply_with_chance, chance_step, sample
from rulekit.errors import IllegalActionError, ReplayError
from rulekit.load import load_game
from rulekit.tools.log import GameRecorder, read_log, replay

DICE = """
ruleset: dice
title: Dice
players: {min: 2, max: 2}
constants:
  SUMS: [2, 3, 4, 5, 6, 7, 8, 9, 10, 11, 12]
  WAYS: [1, 2, 3, 4, 5, 6, 5, 4, 3, 2, 1]
state:
  game:
    total: {type: int}
    deck: {type: "list[int]", initial: "[1, 2, 3]"}
    rounds: {type: int}
actions:
  roll:
    doc: Roll one die.
    effect: game.total += roll(6)
  throw:
    doc: Throw two dice at once (their sum, declared with its odds).
    effect: game.total += pick(SUMS, WAYS)
  mix:
    doc: Shuffle the deck, then roll.
    effect: |
      shuffle(game.deck)
      game.total += roll(2)
  wait:
    doc: Nothing random.
    effect: game.rounds += 1
flow:
  - repeat:
      until: game.rounds >= 20
      steps:
        - turn: {player: player_at(1)}
        - do: game.rounds += 1
"""


@pytest.fixture
def dice(write_ruleset: Callable[..., Path]) -> Path:
    return write_ruleset(DICE)


def test_a_roll_is_a_chance_step_with_six_equally_likely_faces(dice: Path) -> None:
    state = load_game(str(dice), 2).new_initial_state(1)
    step = chance_step(state, "roll")
    assert step is not None
    assert step.event == "roll(6)" and step.outcomes == (1, 2, 3, 4, 5, 6)
    assert [step.probability(i) for i in range(6)] == [Fraction(1, 6)] * 6
    assert state.value("game", "total") == 0  # probing leaves the state unchanged


def test_a_declared_distribution_reports_its_exact_probabilities(dice: Path) -> None:
    state = load_game(str(dice), 2).new_initial_state(1)
    step = chance_step(state, "throw")
    assert step is not None and step.event == "pick"
    assert step.outcomes == tuple(range(2, 13))
    assert step.probability(5) == Fraction(6, 36) and sum(step.probabilities) == pytest.approx(1.0)


def test_a_shuffle_is_uniform_steps_then_the_next_draw_follows(dice: Path) -> None:
    state = load_game(str(dice), 2).new_initial_state(1)
    first = chance_step(state, "mix")
    assert first is not None and first.event == "shuffle" and len(first.outcomes) == 3
    second = chance_step(state, "mix", (0,))
    assert second is not None and second.event == "shuffle" and len(second.outcomes) == 2
    third = chance_step(state, "mix", (0, 0))
    assert third is not None and third.event == "roll(2)"
    assert chance_step(state, "mix", (0, 0, 1)) is None


def test_an_action_without_randomness_has_no_chance_step(dice: Path) -> None:
    state = load_game(str(dice), 2).new_initial_state(1)
    assert chance_step(state, "wait") is None


def test_given_outcomes_decide_the_draws(dice: Path) -> None:
    state = load_game(str(dice), 2).new_initial_state(1)
    assert apply_with_chance(state, "throw", (10,)) == (10,)
    assert state.value("game", "total") == 12
    assert apply_with_chance(state, "mix", (0, 0, 1)) == (0, 0, 1)
    assert state.value("game", "deck") == (2, 3, 1) and state.value("game", "total") == 14


def test_a_given_outcome_out_of_range_is_refused_and_the_state_is_unchanged(dice: Path) -> None:
    state = load_game(str(dice), 2).new_initial_state(1)
    before = state.state_hash()
    with pytest.raises(IllegalActionError, match=r"outcome #1 is 6, but roll\(6\) has outcomes 0 to 5"):
        apply_with_chance(state, "roll", (6,))
    assert state.state_hash() == before


def test_the_seed_still_decides_when_nobody_gives_outcomes(dice: Path) -> None:
    game = load_game(str(dice), 2)
    plain, recorded = game.new_initial_state(5), game.new_initial_state(5)
    for action in ("roll", "throw", "mix", "roll"):
        plain.apply_action(action)
        drawn = apply_with_chance(recorded, action)
        assert drawn
    assert plain.state_hash() == recorded.state_hash()


def test_replaying_the_drawn_outcomes_gives_the_identical_state(dice: Path) -> None:
    game = load_game(str(dice), 2)
    played, replayed = game.new_initial_state(9), game.new_initial_state(9)
    for action in ("mix", "throw", "roll"):
        apply_with_chance(replayed, action, apply_with_chance(played, action))
    assert played.state_hash() == replayed.state_hash()


def test_a_log_records_the_outcomes_and_replays_them(dice: Path, tmp_path: Path) -> None:
    game = load_game(str(dice), 2)
    recorder = GameRecorder(game.new_initial_state(3), 3, source=str(dice))
    recorder.apply_action("throw")
    recorder.apply_action("wait")
    path = tmp_path / "game.jsonl"
    recorder.write(path, final_hash=False)
    log = read_log(path)
    (throw, _, _), (wait, _, _) = log.actions
    assert len(log.chances[throw]) == 1 and wait not in log.chances
    # Outcomes given from outside (real dice) replay too: edit the logged outcome.
    entries = [json.loads(line) for line in path.read_text().splitlines()]
    entries[1]["chance"] = [0]  # a throw of 2
    for entry in entries[1:]:
        entry.pop("h")  # the digests were of the other throw
    path.write_text("".join(json.dumps(entry) + "\n" for entry in entries))
    assert replay(path, ruleset=str(dice)).value("game", "total") == 2


def test_a_malformed_logged_outcome_is_an_error_at_its_line(dice: Path, tmp_path: Path) -> None:
    game = load_game(str(dice), 2)
    recorder = GameRecorder(game.new_initial_state(3), 3, source=str(dice))
    recorder.apply_action("roll")
    path = tmp_path / "game.jsonl"
    recorder.write(path, final_hash=False)
    path.write_text(path.read_text().replace('"chance": [', '"chance": ["x", '))
    with pytest.raises(ReplayError, match=r'game.jsonl:2:1.*"chance" must be a list of outcome indexes'):
        read_log(path)


def test_sampling_a_step_follows_its_weights() -> None:
    from rulekit.runtime.chance import ChanceStep

    step = ChanceStep("coin", ("heads", "tails", "edge"), (3, 1, 0))
    rng = random.Random(0)
    counts = [0, 0, 0]
    for _ in range(4000):
        counts[sample(step, rng)] += 1
    assert counts[2] == 0 and 2700 < counts[0] < 3300


def test_bad_weights_are_a_rule_failure_naming_the_problem(write_ruleset: Callable[..., Path]) -> None:
    directory = write_ruleset(DICE.replace("pick(SUMS, WAYS)", "pick(SUMS, [1, 2])"))
    state = load_game(str(directory), 2).new_initial_state(1)
    with pytest.raises(IllegalActionError, match="pick: 11 outcomes but 2 weights"):
        state.apply_action("throw")


def test_a_declared_distribution_makes_the_rules_random(write_ruleset: Callable[..., Path]) -> None:
    from rulekit.engine.spaces import uses_randomness

    only_pick = (
        DICE.replace("roll(6)", "1").replace("shuffle(game.deck)", "game.rounds += 0").replace("roll(2)", "1")
    )
    program = load_game(str(write_ruleset(only_pick)), 2).program
    assert uses_randomness(program)


def _documented_example(name: str) -> str:
    text = (Path(__file__).resolve().parents[2] / "docs" / "dsl.md").read_text(encoding="utf-8")
    block = text.split(f"<!-- example: {name} -->\n```yaml\n", 1)[1]
    return block.split("```", 1)[0]


def test_the_documented_two_dice_example_reports_its_odds(write_ruleset: Callable[..., Path]) -> None:
    state = load_game(str(write_ruleset(_documented_example("chance"))), 2).new_initial_state(0)
    step = chance_step(state, "throw")
    assert step is not None and step.outcomes[5] == 7 and step.probability(5) == Fraction(1, 6)
    assert apply_with_chance(state, "throw", [5]) == (5,) and state.value("game", "total") == 7
