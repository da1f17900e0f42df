"""Liar's dice (rulesets/liars_dice) is OpenSpiel's ``liars_dice`` (its defaults), state for state.

Both games are played in lockstep through OpenSpiel's API (rulekit's through its adapter,
with ``explicit_setup=True`` so that each die of the setup is a chance node, as in
OpenSpiel): at every state the player to move, the terminal flag, the chance outcomes with
their probabilities, the legal actions and at the end the returns must agree, and two
histories share rulekit's information state exactly when they share OpenSpiel's. The action
mapping: ``bid(Q, F)`` is OpenSpiel's ``Q-F``, ``liar`` its ``Liar``, a die ``roll(6) = F``
its ``Roll F``.
"""

from __future__ import annotations

import re
import warnings
from pathlib import Path
from typing import Any

import pytest

from tests.ecosystem.extras import require

pyspiel = require("pyspiel", "openspiel")

from rulekit import openspiel as rk  # noqa: E402
from rulekit.tools.scenario import find_scenarios, run_scenario  # noqa: E402
from rulekit.tools.verify import VerifyOptions, verify  # noqa: E402
from tests.games.lockstep import SameInformation, lockstep_chance  # noqa: E402

LIARS_DICE = Path(__file__).resolve().parents[2] / "rulesets" / "liars_dice"
BID = re.compile(r"bid\((\d+), (\d+)\)")
ROLL = re.compile(r"roll\(6\) = (\d+)")


def _theirs_text(state: Any, ours_text: str) -> str:
    if ours_text == "liar":
        return "Liar"
    found = BID.fullmatch(ours_text)
    assert found, ours_text
    return f"{found[1]}-{found[2]}"


def _theirs_chance(ours_text: str) -> str:
    found = ROLL.fullmatch(ours_text)
    assert found, ours_text
    return f"Roll {found[1]}"


def _games() -> tuple[Any, Any]:
    return rk.register("liars_dice", explicit_setup=True), pyspiel.load_game("liars_dice")


def _lockstep(seed: int, information: SameInformation | None = None) -> int:
    ours, theirs = _games()
    return lockstep_chance(ours, theirs, seed, _theirs_text, _theirs_chance, information)


@pytest.mark.parametrize("seed", range(50))
def test_a_random_game_matches_openspiel(seed: int) -> None:
    assert _lockstep(seed) >= 4  # two rolls, a bid and a call at least


def test_histories_share_an_information_state_exactly_when_openspiel_says_so() -> None:
    information = SameInformation()
    for seed in range(300):
        _lockstep(seed, information)
    assert information.classes > 300  # own die x bid sequences: many classes, each checked both ways


def test_a_history_changed_in_the_other_players_die_keeps_the_information_state() -> None:
    """The information state is a real partition, not the history: P1 cannot tell P2's die."""
    ours, _ = _games()
    seen = set()
    for other in range(6):
        state = ours.new_initial_state()
        state.apply_action(2)  # P1 rolls a 3
        state.apply_action(other)
        state.apply_action(0)  # P1 bids 1-1
        seen.add(state.information_state_string(0))
    assert len(seen) == 1


def test_the_opening_chance_nodes_are_one_die_per_player() -> None:
    ours, theirs = _games()
    a, b = ours.new_initial_state(), theirs.new_initial_state()
    for _ in range(2):
        assert a.is_chance_node() and b.is_chance_node()
        assert [p for _, p in a.chance_outcomes()] == [p for _, p in b.chance_outcomes()]
        a.apply_action(5)
        b.apply_action(5)
    assert a.current_player() == b.current_player() == 0


@pytest.mark.slow
def test_a_thousand_random_games_match_openspiel() -> None:
    information = SameInformation()
    assert sum(_lockstep(seed, information) for seed in range(100, 1100)) > 5_000


def test_openspiel_random_sim_test_passes() -> None:
    pyspiel.random_sim_test(rk.register("liars_dice"), num_sims=2, serialize=True, verbose=False)
    pyspiel.random_sim_test(
        rk.register("liars_dice", explicit_setup=True), num_sims=2, serialize=True, verbose=False
    )


@pytest.mark.parametrize("scenario", sorted(find_scenarios([LIARS_DICE / "scenarios"])), ids=lambda p: p.stem)
def test_the_scenarios_pass(scenario: Path) -> None:
    report = run_scenario(scenario)
    assert report.passed, report


def test_pettingzoo_api_and_seed_tests_pass() -> None:
    require("pettingzoo", "pettingzoo")
    from pettingzoo.test import api_test, seed_test

    from rulekit import pettingzoo

    with warnings.catch_warnings():
        # api_test warns that dict observations and all-zero masks of waiting agents are unusual.
        warnings.simplefilter("ignore", UserWarning)
        api_test(pettingzoo.env(str(LIARS_DICE), players=2), num_cycles=60)
    seed_test(lambda render_mode=None: pettingzoo.env(str(LIARS_DICE), players=2), num_cycles=8)


def test_verify_finds_no_failure() -> None:
    result = verify(VerifyOptions(str(LIARS_DICE), examples=50, out=None))
    assert result.ok, result.counterexample
    assert result.stats.invariant_checks > 0
