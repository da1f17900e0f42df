"""Leduc poker (rulesets/leduc_poker) is OpenSpiel's ``leduc_poker``, state for state.

Both games are played in lockstep through OpenSpiel's API (rulekit's through its adapter, with
``explicit_setup`` so that the private deals are chance nodes, as OpenSpiel's): at every state
the player to move, the terminal flag, the legal actions (rulekit's ``fold``/``call``/``raise``
are OpenSpiel's ``Fold``/``Call``/``Raise``), the chance outcomes with their probabilities
(rulekit's ``pick = 'J1'`` ... ``'K2'`` are OpenSpiel's cards 0 ... 5: J1 J2 Q1 Q2 K1 K2) and
at the end the returns (chips) must agree; and two histories share rulekit's information state
exactly when they share OpenSpiel's. OpenSpiel's options ``action_mapping`` and
``suit_isomorphism`` (off by default) are not in the ruleset.
"""

from __future__ import annotations

import re
import warnings
from pathlib import Path
from typing import Any

import pytest

from tests.ecosystem.extras import require

pyspiel = require("pyspiel", "openspiel")

from open_spiel.python import policy as os_policy  # noqa: E402
from open_spiel.python.algorithms import exploitability  # noqa: E402

from rulekit import openspiel as rk  # noqa: E402
from rulekit.tools.scenario import find_scenarios, run_scenario  # noqa: E402
from rulekit.tools.verify import VerifyOptions, format_counterexample, verify  # noqa: E402
from tests.games.lockstep import InfoSets, lockstep  # noqa: E402

LEDUC = Path(__file__).resolve().parents[2] / "rulesets" / "leduc_poker"
CARDS = {"J1": 0, "J2": 1, "Q1": 2, "Q2": 3, "K1": 4, "K2": 5}
DEALT = re.compile(r"pick = '(\w+)'")


def _theirs_text(ours_text: str) -> str:
    return {"fold": "Fold", "call": "Call", "raise": "Raise"}[ours_text]


def _outcome(state: Any, action: int) -> int:
    found = DEALT.fullmatch(state.action_to_string(action))
    assert found, state.action_to_string(action)
    return CARDS[found[1]]


@pytest.fixture(scope="module")
def games() -> tuple[Any, Any]:
    return rk.register("leduc_poker", explicit_setup=True), pyspiel.load_game("leduc_poker")


def _random_games(games: tuple[Any, Any], seeds: range) -> tuple[int, InfoSets]:
    infosets = InfoSets()
    compared = sum(
        lockstep(*games, seed, lambda a, text: _theirs_text(text), outcome=_outcome, infosets=infosets)
        for seed in seeds
    )
    return compared, infosets


def test_fifty_random_games_match_openspiel_and_its_information_states(games: tuple[Any, Any]) -> None:
    compared, infosets = _random_games(games, range(50))
    assert compared > 50 * 5
    assert infosets.assert_same_partition() > 100


@pytest.mark.slow
def test_a_thousand_random_games_match_openspiel_and_its_information_states(games: tuple[Any, Any]) -> None:
    compared, infosets = _random_games(games, range(50, 1050))
    assert compared > 1000 * 5
    assert infosets.assert_same_partition() > 1000


def test_openspiel_random_sim_test_passes(games: tuple[Any, Any]) -> None:
    pyspiel.random_sim_test(games[0], num_sims=10, serialize=True, verbose=False)


@pytest.mark.slow
def test_the_uniform_policy_is_as_exploitable_in_both_games(games: tuple[Any, Any]) -> None:
    """The uniform random policy (the same in both: every legal action alike) has the same
    exploitability in both games: their trees, chance and information states agree."""
    ours, theirs = games
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", DeprecationWarning)
        theirs_value = exploitability.exploitability(theirs, os_policy.UniformRandomPolicy(theirs))
        ours_value = exploitability.exploitability(ours, os_policy.UniformRandomPolicy(ours))
    assert theirs_value > 1.0
    assert abs(ours_value - theirs_value) < 1e-9


@pytest.mark.parametrize("scenario", sorted(find_scenarios([LEDUC / "scenarios"])), ids=lambda p: p.stem)
def test_the_scenarios_pass(scenario: Path) -> None:
    report = run_scenario(scenario)
    assert report.passed, report


def test_verify_finds_no_failure() -> None:
    result = verify(VerifyOptions(ruleset="leduc_poker", examples=60, max_actions=50))
    assert result.ok, format_counterexample(result.counterexample)  # type: ignore[arg-type]
    assert result.stats.games >= 60
