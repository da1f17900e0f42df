"""``scoring.returns: {min, max, sum}``: a game played for chips returns the scores
themselves; its bounds are checked when loading and by ``verify``."""

from __future__ import annotations

from collections.abc import Callable
from pathlib import Path

import pytest

from rulekit.errors import RulesetError
from rulekit.load import load_game, load_program
from rulekit.tools.verify import VerifyOptions, verify

RULES = """\
ruleset: chips
players: {{min: 2, max: 2}}
state:
  game:
    pot: {{type: int, initial: 2}}
  player:
    won: {{type: int}}
actions:
  take:
    effect: me.won = {take}
    ends_turn: true
flow:
  - turn: player_at(1)
scoring: {scoring}
"""


def _rules(scoring: str, take: str = "2") -> str:
    return RULES.format(scoring=scoring, take=take)


def test_the_returns_are_the_scores_when_the_scoring_declares_returns(
    write_ruleset: Callable[..., Path],
) -> None:
    scoring = "{score: 'player.won - 1', returns: {min: -2, max: 2, sum: 0}}"
    state = load_game(str(write_ruleset(_rules(scoring))), 2).new_initial_state(0)
    state.apply_action("take")
    assert state.is_terminal()
    assert state.returns() == [1.0, -1.0]
    assert state.scores() == [1, -1]


def test_without_returns_a_winner_gets_one_whatever_her_score(write_ruleset: Callable[..., Path]) -> None:
    state = load_game(str(write_ruleset(_rules("{score: 'player.won * 5'}"))), 2).new_initial_state(0)
    state.apply_action("take")
    assert state.returns() == [1.0, -1.0]
    assert state.scores() == [10, 0]


@pytest.mark.parametrize(
    ("scoring", "message"),
    [
        ("{returns: {min: -2, max: 2}}", "scoring.returns needs a score"),
        ("{score: player.won, returns: {min: 3, max: 2}}", "min <= max, not 3 > 2"),
        ("{score: player.won, returns: {min: -1}}", "max"),
    ],
)
def test_bad_returns_are_reported_at_their_position(
    write_ruleset: Callable[..., Path], scoring: str, message: str
) -> None:
    directory = write_ruleset(_rules(scoring))
    with pytest.raises(RulesetError) as raised:
        load_program(str(directory))
    assert message in str(raised.value)
    assert "ruleset.yaml:" in str(raised.value)


def test_verify_reports_returns_outside_the_declared_bounds(
    write_ruleset: Callable[..., Path], tmp_path: Path
) -> None:
    scoring = "{score: 'player.won - 1', returns: {min: -1, max: 1, sum: 0}}"
    directory = write_ruleset(_rules(scoring, take="5"))
    # the counterexample goes to the test's directory, not to verify-out/ in the project
    result = verify(VerifyOptions(ruleset=str(directory), examples=5, max_actions=10, out=tmp_path / "ce"))
    assert not result.ok
    assert result.counterexample is not None
    assert result.counterexample.key == "engine:terminal"
    assert "P1 gets 4" in result.counterexample.message
    assert "add up to 3, not 0" in result.counterexample.message


def test_verify_passes_returns_within_the_declared_bounds(write_ruleset: Callable[..., Path]) -> None:
    scoring = "{score: 'player.won - 1', returns: {min: -1, max: 1, sum: 0}}"
    result = verify(
        VerifyOptions(ruleset=str(write_ruleset(_rules(scoring))), examples=5, max_actions=10, out=None)
    )
    assert result.ok
