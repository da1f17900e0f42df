"""Which scores a seat may know during play, from what the scoring formulas read
(:func:`rulekit.engine.information.score_reach` and :func:`known_scores`)."""

from __future__ import annotations

from collections.abc import Callable
from pathlib import Path

import pytest

from rulekit.engine.information import known_scores, score_reach
from rulekit.load import load_game

RULES = """\
ruleset: scored
players: {{min: 2, max: 2}}
state:
  game:
    pot: {{type: int, initial: 3, visibility: hidden}}
    round: {{type: int, initial: 1}}
  player:
    secret: {{type: int, initial: 7, visibility: owner}}
    shown: {{type: int, initial: 5}}
functions:
  own_secret:
    params: {{p: player}}
    body: p.secret
  first_secret:
    body: first(q.secret for q in players)
actions:
  go:
    effect: game.round += 1
    ends_turn: true
flow:
  - repeat:
      times: 2
      steps:
        - turn: player_at(1)
scoring: {scoring}
"""

CASES = [
    ("{score: player.shown + game.round}", "public", [6, 6]),
    ("{score: player.secret}", "own", None),
    ("{score: own_secret(player)}", "own", None),
    ("{score: 'own_secret(q) where q = player'}", "own", None),
    ("{score: player.shown, tiebreak: [player.secret]}", "own", None),
    ("{score: first_secret()}", "none", None),
    ("{score: '[q.secret for q in players][0]'}", "none", None),
    ("{score: 'sum(p.secret for p in players if p == player)'}", "none", None),  # coarse: a loop variable
    ("{score: 'sum(s for q in players where s = q.secret)'}", "none", None),  # a comprehension's where
    ("{score: 'sum(s for q in [player] where r = q where s = r.shown)'}", "public", [5, 5]),
    ("{score: game.pot}", "none", None),
    ("{score: game.pot, public: true}", "public", [3, 3]),
]


@pytest.mark.parametrize(("scoring", "reach", "shown"), CASES)
def test_a_score_is_shown_during_play_only_where_its_formulas_read_what_the_seat_sees(
    write_ruleset: Callable[..., Path], scoring: str, reach: str, shown: list[int] | None
) -> None:
    game = load_game(str(write_ruleset(RULES.format(scoring=scoring))), 2)
    state = game.new_initial_state(0)
    assert score_reach(game) == reach
    scores = state.scores()
    if reach == "public":
        assert known_scores(state, 0) == known_scores(state, None) == scores == shown
    elif reach == "own":
        assert known_scores(state, 0) == [scores[0], None]
        assert known_scores(state, 1) == [None, scores[1]]
        assert known_scores(state, None) == [None, None]
    else:
        assert known_scores(state, 0) == known_scores(state, 1) == [None, None]


def test_every_score_is_known_once_the_game_is_over(write_ruleset: Callable[..., Path]) -> None:
    game = load_game(str(write_ruleset(RULES.format(scoring="{score: game.pot}"))), 2)
    state = game.new_initial_state(0)
    while not state.is_terminal():
        state.apply_action(state.legal_actions()[0])
    assert known_scores(state, 0) == known_scores(state, None) == state.scores() == [3, 3]
