"""scoring.outcome: cooperative games (one shared score, a success threshold) and teams.

Played on ``tests/data/together``: each player adds 1 or 2 to her pile, three rounds; the
shared score is the sum of the piles, a success at 12 or more.  The competitive and teams
outcomes are the same game with its scoring replaced.
"""

from __future__ import annotations

from collections.abc import Callable
from pathlib import Path

import pytest

from rulekit.cli import main
from rulekit.engine.game import Game, State
from rulekit.load import load_game
from rulekit.tools.bots import HeuristicBot
from rulekit.tools.evaluation import outcome_value
from rulekit.tools.mcts import MctsBot, state_values
from rulekit.tools.render import render_standings

TOGETHER = Path(__file__).resolve().parents[1] / "data" / "together"
RULES = (TOGETHER / "ruleset.yaml").read_text(encoding="utf-8")

COOPERATIVE = """scoring:
  outcome: cooperative
  score: sum(p.pile for p in players)
  success: 12
"""
TEAMS = """scoring:
  outcome: teams
  team: seat(player) % 2
  score: player.pile
"""
COMPETITIVE = """scoring:
  score: player.pile
"""


def _with_scoring(write_ruleset: Callable[..., Path], scoring: str, name: str = "rs") -> str:
    return str(write_ruleset(RULES.replace(COOPERATIVE, scoring), name=name))


def _finished(game: Game, adds: list[int]) -> State:
    """A game played to its end, player after player adding ``adds`` in turn (cycled)."""
    state = game.new_initial_state(0)
    n = 0
    while not state.is_terminal():
        state.apply_action(game.parse_action(f"add({adds[n % len(adds)]})"))
        n += 1
    return state


def test_the_test_rules_are_cooperative_as_written() -> None:
    assert COOPERATIVE in RULES  # the replacements below act on this text


# ------------------------------------------------------------------ cooperative


def test_a_cooperative_game_gives_every_seat_the_shared_score_and_return() -> None:
    game = load_game(str(TOGETHER), 3)
    state = _finished(game, [2, 1, 1])  # 3 rounds of 2 + 1 + 1 = 12: a success
    assert state.scores() == [12, 12, 12]
    assert state.returns() == [1.0, 1.0, 1.0]
    assert state.winners() == [0, 1, 2]


def test_a_cooperative_game_below_its_threshold_is_lost_by_all_with_partial_credit() -> None:
    game = load_game(str(TOGETHER), 3)
    state = _finished(game, [1])  # 9 of 12
    assert state.scores() == [9, 9, 9]
    assert state.returns() == [0.75, 0.75, 0.75]
    assert state.winners() == []


def test_without_a_success_key_a_cooperative_score_of_one_is_a_success(
    write_ruleset: Callable[..., Path],
) -> None:
    rules = _with_scoring(write_ruleset, COOPERATIVE.replace("  success: 12\n", ""))
    state = _finished(load_game(rules, 2), [1])
    assert state.returns() == [1.0, 1.0]  # 6 >= 1, clamped to 1


def test_mcts_values_a_cooperative_state_by_the_shared_score_not_by_margins() -> None:
    state = _finished(load_game(str(TOGETHER), 2), [2])
    assert state_values(state) == [12.0, 12.0]  # margins of equal scores would be all 0


def test_the_heuristic_bot_ranks_a_cooperative_success_above_a_failure() -> None:
    game = load_game(str(TOGETHER), 2)
    won, lost = _finished(game, [2]), _finished(game, [1])
    assert outcome_value(won, 0) > outcome_value(lost, 0)
    assert outcome_value(won, 0)[0] == 2  # a success is every seat's own win, not a shared tie


def test_cooperative_bots_raise_the_shared_score_over_random_play() -> None:
    game = load_game(str(TOGETHER), 2)
    for bot in (MctsBot(1, iterations=30), HeuristicBot(1)):
        state = game.new_initial_state(0)
        while not state.is_terminal():
            state.apply_action(bot.choose(state))
        assert state.scores()[0] == 12, type(bot).__name__  # every add is 2: the best there is


# ------------------------------------------------------------------ teams


def test_teams_share_the_result_of_their_summed_scores(write_ruleset: Callable[..., Path]) -> None:
    game = load_game(_with_scoring(write_ruleset, TEAMS), 4)
    # P1 and P3 (team 1) add 2, P2 and P4 (team 0) add 1
    state = _finished(game, [2, 1])
    assert state.scores() == [6, 3, 6, 3]
    assert state.winners() == [0, 2]
    assert state.returns() == [1.0, -1.0, 1.0, -1.0]


def test_teams_that_tie_all_get_zero(write_ruleset: Callable[..., Path]) -> None:
    game = load_game(_with_scoring(write_ruleset, TEAMS), 4)
    state = _finished(game, [2, 2, 1, 1])  # team 1: P1 6 + P3 3; team 0: P2 6 + P4 3
    assert state.returns() == [0.0] * 4


def test_a_team_member_behind_her_partner_still_wins(write_ruleset: Callable[..., Path]) -> None:
    """Competitive scoring would make the lower partner lose; with teams she shares the win."""
    adds = [2, 1, 1, 1]  # P1 6, P2 3, P3 3, P4 3: team 1 (P1, P3) 9 against 6
    teams = _finished(load_game(_with_scoring(write_ruleset, TEAMS, "t"), 4), adds)
    alone = _finished(load_game(_with_scoring(write_ruleset, COMPETITIVE, "c"), 4), adds)
    assert teams.returns()[2] == 1.0
    assert alone.returns()[2] == -1.0


def test_mcts_values_a_team_by_its_margin_over_the_other_team(write_ruleset: Callable[..., Path]) -> None:
    state = _finished(load_game(_with_scoring(write_ruleset, TEAMS), 4), [2, 1])
    assert state_values(state) == [6.0, -6.0, 6.0, -6.0]


# ------------------------------------------------------------------ the checker


@pytest.mark.parametrize(
    ("scoring", "message"),
    [
        (COMPETITIVE + "  success: 3\n", "scoring.success is for outcome: cooperative only"),
        (COMPETITIVE + "  team: seat(player)\n", "scoring.team is for outcome: teams only"),
        ("scoring:\n  outcome: teams\n  score: player.pile\n", "outcome: teams needs scoring.team"),
        (COOPERATIVE + "  tiebreak: [1]\n", "a cooperative game has one shared score: no tiebreak"),
        (COOPERATIVE.replace("cooperative", "solitaire"), "outcome"),
        (COOPERATIVE.replace("success: 12", "success: 0"), "success"),
    ],
)
def test_a_misdeclared_outcome_is_refused_at_its_position(
    write_ruleset: Callable[..., Path], capsys: pytest.CaptureFixture[str], scoring: str, message: str
) -> None:
    rules = _with_scoring(write_ruleset, scoring)
    assert main(["check", rules]) == 1
    err = capsys.readouterr().err
    assert message in err and "ruleset.yaml:" in err and "Traceback" not in err


# ------------------------------------------------------------------ tools that read the outcome


def test_verify_compares_team_members_by_their_team(
    write_ruleset: Callable[..., Path], capsys: pytest.CaptureFixture[str], tmp_path: Path
) -> None:
    """A partner with fewer points who wins with her team is not an inverted return."""
    rules = _with_scoring(write_ruleset, TEAMS)
    out = tmp_path / "out"
    assert main(["verify", rules, "--players", "4", "--examples", "20", "--out", str(out)]) == 0
    assert "seat-blind" not in capsys.readouterr().out


def test_the_final_standings_say_whether_a_cooperative_game_succeeded() -> None:
    game = load_game(str(TOGETHER), 2)
    assert "result: a success (shared score 12; a success at 12 or more)" in render_standings(
        _finished(game, [2])
    )
    assert "result: not a success (shared score 6;" in render_standings(_finished(game, [1]))
