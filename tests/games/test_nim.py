"""Nim (rulesets/nim) is OpenSpiel's ``nim``, state for state.

Both games are played in lockstep through OpenSpiel's API (rulekit's through its adapter): at
every state the player to move, the terminal flag and the legal actions (rulekit's
``take(P, N)`` is OpenSpiel's ``pile:P, take:N;``) and at the end the returns must agree; in
misère (the default, as OpenSpiel's) and in normal play, with OpenSpiel's default piles and
with other ones.
"""

from __future__ import annotations

import re
from pathlib import Path
from typing import Any

import pytest

from tests.ecosystem.extras import require

pyspiel = require("pyspiel", "openspiel")

from rulekit import openspiel as rk  # noqa: E402
from rulekit.load import load_game  # noqa: E402
from tests.games.lockstep import lockstep  # noqa: E402

NIM = Path(__file__).resolve().parents[2] / "rulesets" / "nim"


def _theirs_text(ours_text: str) -> str:
    found = re.fullmatch(r"take\((\d+), (\d+)\)", ours_text)
    assert found, ours_text
    return f"pile:{found[1]}, take:{found[2]};"


def _lockstep(ours: Any, theirs: Any, seed: int) -> int:
    return lockstep(ours, theirs, seed, lambda a, text: _theirs_text(text))


@pytest.mark.parametrize("seed", range(50))
def test_a_random_game_matches_openspiel_nim(seed: int) -> None:
    ours, theirs = rk.register("nim"), pyspiel.load_game("nim")
    assert _lockstep(ours, theirs, seed) > 1


@pytest.mark.parametrize(("count", "misere"), [(2, False), (3, True), (1, False), (6, True)])
def test_other_pile_counts_and_normal_play_match_openspiel_nim(count: int, misere: bool) -> None:
    ours = rk.register("nim", params={"PILE_COUNT": count, "MISERE": misere})
    sizes = ";".join(str(2 * i + 1) for i in range(count))
    theirs = pyspiel.load_game("nim", {"pile_sizes": sizes, "is_misere": misere})
    for seed in range(20):
        _lockstep(ours, theirs, seed)


@pytest.mark.slow
def test_a_thousand_random_games_match_openspiel_nim() -> None:
    ours, theirs = rk.register("nim"), pyspiel.load_game("nim")
    assert sum(_lockstep(ours, theirs, seed) for seed in range(50, 1050)) > 1000


def test_the_normal_variant_lets_the_last_taker_win() -> None:
    state = load_game(str(NIM), 2, variants=["normal"]).new_initial_state(0)
    for text in ["take(1, 1)", "take(2, 3)", "take(3, 5)", "take(4, 7)"]:
        state.apply_action(text)
    assert state.is_terminal() and state.winners() == [1]
