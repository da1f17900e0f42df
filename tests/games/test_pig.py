"""Pig (rulesets/pig): chance inside a rule, checked against OpenSpiel's ``pig``.

OpenSpiel's ``pig`` (2 players, 100 points, a six-sided die) rolls at explicit chance
nodes; rulekit rolls inside the ``roll`` action. Driving OpenSpiel with the faces rulekit
rolled and the same roll/hold decisions must give the same scores, the same turns and the
same end. Two differences are rules: here a turn starts with a roll (OpenSpiel also
offers ``stop`` before the first roll), and a player who could win by holding may roll on
(OpenSpiel offers only ``stop``); the decisions played here hold then.
"""

from __future__ import annotations

import random
import re
from pathlib import Path

import pytest

from rulekit.load import load_game
from rulekit.tools.bots import make_bots, play_game

RULESET_DIR = Path(__file__).resolve().parents[2] / "rulesets" / "pig"
GOAL = 100


@pytest.mark.parametrize("players", [2, 3, 6])
def test_random_games_end_with_the_first_player_to_reach_the_goal(players: int) -> None:
    game = load_game(str(RULESET_DIR), players)
    for seed in range(3):
        played = play_game(game, seed, make_bots(game, "random", seed), 5_000)
        assert played.finished
        banked = [played.state.fields[(p, "banked")] for p in range(players)]
        winners = [p for p in range(players) if banked[p] >= GOAL]
        assert played.state.winners() == winners and len(winners) == 1


@pytest.mark.parametrize("seed", range(12))
def test_the_same_rolls_and_decisions_play_as_in_openspiel(seed: int) -> None:
    from tests.ecosystem.extras import require

    pyspiel = require("pyspiel", "openspiel")
    theirs = pyspiel.load_game("pig").new_initial_state()
    ours = load_game(str(RULESET_DIR), 2).new_initial_state(seed)
    rng = random.Random(seed)
    for _ in range(2_000):
        if ours.is_terminal():
            break
        assert theirs.current_player() == ours.current_player()
        legal = sorted(a.name for a in ours.legal_actions())
        assert legal == (["hold", "roll"] if ours.fields[("turn", "rolls")] > 0 else ["roll"])
        fields = ours.fields
        can_win = fields[(ours.current_player(), "banked")] + fields[("turn", "total")] >= GOAL
        offered = sorted(theirs.action_to_string(a) for a in theirs.legal_actions())
        assert offered == (["stop"] if can_win else ["roll", "stop"])
        if can_win or ("hold" in legal and rng.random() < 0.25):
            ours.apply_action("hold")
            theirs.apply_action(theirs.string_to_action("stop"))
        else:
            ours.apply_action("roll")
            theirs.apply_action(theirs.string_to_action("roll"))
            assert theirs.is_chance_node()
            theirs.apply_action(ours.fields[("game", "last_roll")] - 1)
        scores = re.search(r"Scores: (\d+) (\d+), Turn total: (\d+)", str(theirs))
        assert scores, str(theirs)
        fields = ours.fields
        banked = [fields[(p, "banked")] for p in range(2)]
        assert [int(scores[1]), int(scores[2])] == banked
        if not ours.is_terminal():
            assert int(scores[3]) == fields[("turn", "total")]
    assert ours.is_terminal() and theirs.is_terminal()
    assert ours.returns() == theirs.returns()
