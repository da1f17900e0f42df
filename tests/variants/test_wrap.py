"""Variants and modules wrap a function and call ``original(...)`` instead of copying it."""

from __future__ import annotations

from collections.abc import Callable
from pathlib import Path

import pytest

from rulekit.errors import RulesetError
from rulekit.load import load_game

BASE = """
ruleset: payday_game
title: Payday
players: {min: 2, max: 2}
state:
  game:
    phase: {type: int, initial: 1}
  player:
    money: {type: int}
functions:
  payday_amount:
    doc: What a player earns at a payday.
    params: {p: player}
    body: 10 + seat(p)
actions:
  payday:
    doc: Everybody is paid; the phase advances.
    effect: |
      for p in players:
          p.money += payday_amount(p)
      game.phase += 1
flow:
  - repeat:
      until: game.phase > 3
      steps:
        - turn: {player: player_at(1)}
"""


def _documented_example() -> str:
    text = (Path(__file__).resolve().parents[2] / "docs" / "authoring.md").read_text(encoding="utf-8")
    return text.split("<!-- example: wrap -->\n```yaml\n", 1)[1].split("```", 1)[0]


HALF_AGAIN = "\n" + _documented_example()


def _money_after_three_paydays(directory: Path, variants: list[Path], modules: tuple[str, ...] = ()) -> int:
    state = load_game(str(directory), 2, modules, [str(v) for v in variants]).new_initial_state(0)
    for _ in range(3):
        state.apply_action("payday")
    return int(state.value(0, "money"))


def test_a_variant_wraps_a_function_and_calls_the_original(
    write_ruleset: Callable[..., Path], write_variant: Callable[[str, str], Path]
) -> None:
    directory = write_ruleset(BASE)
    assert _money_after_three_paydays(directory, []) == 33
    assert _money_after_three_paydays(directory, [write_variant(HALF_AGAIN, "half_again")]) == 11 + 11 + 16


def test_a_wrapped_wrapper_calls_the_one_before_it(
    write_ruleset: Callable[..., Path], write_variant: Callable[[str, str], Path]
) -> None:
    directory = write_ruleset(BASE)
    plus_one = HALF_AGAIN.replace("half_again", "plus_one").replace(
        '"original(p) * 3 // 2 if game.phase == 3 else original(p)"', "original(p) + 1"
    )
    variants = [write_variant(HALF_AGAIN, "half_again"), write_variant(plus_one, "plus_one")]
    assert _money_after_three_paydays(directory, variants) == 12 + 12 + 17


def test_a_module_override_wraps_too(write_ruleset: Callable[..., Path]) -> None:
    module = "module: bonus\noverride:\n  functions:\n    payday_amount:\n      params: {p: player}\n"
    module += "      body: original(p) + 5\n"
    directory = write_ruleset(BASE, {"bonus": module})
    assert _money_after_three_paydays(directory, [], ("bonus",)) == 3 * 16


def test_calling_the_original_wrongly_is_an_error_at_the_wrapper(
    write_ruleset: Callable[..., Path], write_variant: Callable[[str, str], Path]
) -> None:
    directory = write_ruleset(BASE)
    bad = HALF_AGAIN.replace("original(p) * 3", "original(p, p) * 3")
    with pytest.raises(RulesetError, match=r"half_again.yaml:8:\d+: error: .*payday_amount__original"):
        load_game(str(directory), 2, (), [str(write_variant(bad, "half_again"))])


TRIGGERED = """
ruleset: payday_trigger
title: Payday trigger
players: {min: 2, max: 2}
state:
  game:
    phase: {type: int, initial: 1}
  player:
    money: {type: int}
events:
  payday: {}
actions:
  work:
    doc: A payday; the phase advances.
    effect: |
      emit payday()
      game.phase += 1
triggers:
  pay:
    doc: Everybody earns 10.
    after: payday
    effect: |
      for p in players:
          p.money += 10
flow:
  - repeat:
      until: game.phase > 3
      steps:
        - turn: {player: player_at(1)}
"""

PAY_TWICE = """
variant: twice_in_phase_3
ruleset: payday_trigger
replace:
  triggers:
    pay:
      after: payday
      effect: |
        original()
        if game.phase == 3:
            original()
"""


def test_a_variant_wraps_a_trigger_effect_and_runs_the_original(
    write_ruleset: Callable[..., Path], write_variant: Callable[[str, str], Path]
) -> None:
    directory = write_ruleset(TRIGGERED)
    twice = write_variant(PAY_TWICE, "twice")
    state = load_game(str(directory), 2, (), [str(twice)]).new_initial_state(0)
    for _ in range(3):
        state.apply_action("work")
    assert state.value(0, "money") == 40


def test_a_wrapped_trigger_wrapped_again_runs_both(
    write_ruleset: Callable[..., Path], write_variant: Callable[[str, str], Path]
) -> None:
    directory = write_ruleset(TRIGGERED)
    bonus = PAY_TWICE.replace("twice_in_phase_3", "bonus").replace(
        "original()\n        if game.phase == 3:\n            original()", "original()\n        me.money += 1"
    )
    variants = [str(write_variant(PAY_TWICE, "twice")), str(write_variant(bonus, "bonus"))]
    state = load_game(str(directory), 2, (), variants).new_initial_state(0)
    for _ in range(3):
        state.apply_action("work")
    assert state.value(0, "money") == 43 and state.value(1, "money") == 40


SCORED = (
    BASE.replace("ruleset: payday_game", "ruleset: scored_game").replace(
        "    money: {type: int}", '    money: {type: int}\n    bonus: {type: int, initial: "5 * seat(me)"}'
    )
    + """
scoring:
  score: player.money
  tiebreak: ["0 - seat(player)"]
"""
)

SCORE_PLUS_PHASE = """
variant: phase_bonus
ruleset: scored_game
replace:
  scoring:
    score: "original() + 100 * seat(player)"
"""


def _documented_scoring_example() -> str:
    text = (Path(__file__).resolve().parents[2] / "docs" / "authoring.md").read_text(encoding="utf-8")
    return text.split("<!-- example: wrap-scoring -->\n```yaml\n", 1)[1].split("```", 1)[0]


def _standings(
    directory: Path, variants: list[str], modules: tuple[str, ...] = ()
) -> list[tuple[int, tuple[int, ...]]]:
    state = load_game(str(directory), 2, modules, variants).new_initial_state(0)
    for _ in range(3):
        state.apply_action("payday")
    return state.standings()


def test_a_variant_wraps_the_score_and_keeps_the_tiebreaks(
    write_ruleset: Callable[..., Path], write_variant: Callable[[str, str], Path]
) -> None:
    """original() in a replaced score is the old score for the same player; the tie-breaks the
    wrapper does not give stay the replaced scoring's."""
    directory = write_ruleset(SCORED)
    assert _standings(directory, []) == [(1, (36, -2)), (0, (33, -1))]
    variant = str(write_variant(SCORE_PLUS_PHASE, "phase_bonus"))
    assert _standings(directory, [variant]) == [(1, (236, -2)), (0, (133, -1))]


def test_the_documented_scoring_wrapper_adds_to_the_replaced_score(
    write_ruleset: Callable[..., Path], write_variant: Callable[[str, str], Path]
) -> None:
    directory = write_ruleset(SCORED)
    variant = str(write_variant(_documented_scoring_example(), "bonus_counts"))
    assert _standings(directory, [variant]) == [(1, (36 + 10, -2)), (0, (33 + 5, -1))]


def test_a_wrapped_score_wrapped_again_calls_the_one_before_it(
    write_ruleset: Callable[..., Path], write_variant: Callable[[str, str], Path]
) -> None:
    directory = write_ruleset(SCORED)
    doubled = SCORE_PLUS_PHASE.replace("phase_bonus", "doubled").replace(
        '"original() + 100 * seat(player)"', '"2 * original()"'
    )
    variants = [str(write_variant(SCORE_PLUS_PHASE, "phase_bonus")), str(write_variant(doubled, "doubled"))]
    assert _standings(directory, variants) == [(1, (472, -2)), (0, (266, -1))]


def test_a_module_override_wraps_the_score_and_may_replace_the_tiebreaks(
    write_ruleset: Callable[..., Path],
) -> None:
    module = 'module: seat_one_first\noverride:\n  scoring:\n    score: "original() - original()"\n'
    module += '    tiebreak: ["seat(player)"]\n'
    directory = write_ruleset(SCORED, {"seat_one_first": module})
    assert _standings(directory, [], ("seat_one_first",)) == [(1, (0, 2)), (0, (0, 1))]


def test_original_in_a_score_that_wraps_nothing_is_an_error(write_ruleset: Callable[..., Path]) -> None:
    directory = write_ruleset(SCORED.replace("score: player.money", 'score: "original() + 1"'))
    with pytest.raises(RulesetError, match=r"unknown function 'original'"):
        load_game(str(directory), 2)
