"""Kuhn poker (rulesets/kuhn_poker) is OpenSpiel's ``kuhn_poker``, state for state.

Both games are played in lockstep through OpenSpiel's API (rulekit's through its adapter, with
``explicit_setup`` so that the deal is two chance nodes, as OpenSpiel's): at every state the
player to move, the terminal flag, the legal actions (rulekit's ``pass``/``bet`` are OpenSpiel's
``Pass``/``Bet``), the chance outcomes with their probabilities (rulekit's ``pick = 'J'``,
``'Q'``, ``'K'`` are OpenSpiel's cards 0, 1, 2) and at the end the returns (chips) must agree;
and two histories share rulekit's information state exactly when they share OpenSpiel's. The
game tree is small: it is also walked whole. OpenSpiel's CFR, run through the adapter, finds
the game's value, and the exploitability of one tabular policy is the same in both games.
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
from open_spiel.python.algorithms import cfr, expected_game_score, exploitability  # noqa: E402

from rulekit import openspiel as rk  # noqa: E402
from rulekit.tools.scenario import find_scenarios, run_scenario  # noqa: E402
from rulekit.tools.verify import VerifyOptions, format_counterexample, verify  # noqa: E402
from tests.games.lockstep import InfoSets, lockstep, lockstep_tree  # noqa: E402

KUHN = Path(__file__).resolve().parents[2] / "rulesets" / "kuhn_poker"
CARDS = {"J": 0, "Q": 1, "K": 2}
DEALT = re.compile(r"pick = '(\w+)'")


def _theirs_text(ours_text: str) -> str:
    return {"pass": "Pass", "bet": "Bet"}[ours_text]


def _outcome(state: Any, action: int) -> int:
    found = DEALT.fullmatch(state.action_to_string(action))
    assert found, state.action_to_string(action)
    return CARDS[found[1]]


@pytest.fixture(scope="module")
def games() -> tuple[Any, Any]:
    return rk.register("kuhn_poker", explicit_setup=True), pyspiel.load_game("kuhn_poker")


def _random_games(games: tuple[Any, Any], seeds: range) -> tuple[int, InfoSets]:
    infosets = InfoSets()
    compared = sum(
        lockstep(*games, seed, lambda a, text: _theirs_text(text), outcome=_outcome, infosets=infosets)
        for seed in seeds
    )
    return compared, infosets


def test_fifty_random_games_match_openspiel_and_its_information_states(games: tuple[Any, Any]) -> None:
    compared, infosets = _random_games(games, range(50))
    assert compared > 50 * 4
    assert infosets.assert_same_partition() > 10


@pytest.mark.slow
def test_a_thousand_random_games_match_openspiel_and_its_information_states(games: tuple[Any, Any]) -> None:
    compared, infosets = _random_games(games, range(50, 1050))
    assert compared > 1000 * 4
    # Each player's information state at every decision: her card x 4 betting sequences.
    assert infosets.assert_same_partition() == 2 * 12


def test_the_whole_game_tree_matches_openspiel(games: tuple[Any, Any]) -> None:
    infosets = InfoSets()
    compared = lockstep_tree(*games, lambda a, text: _theirs_text(text), outcome=_outcome, infosets=infosets)
    # 1 + 3 + 6 chance nodes and deals, then 6 deals x 9 betting states (5 of them ends).
    assert compared == 1 + 3 + 6 * 9
    assert infosets.assert_same_partition() == 2 * 12


def _by_info_state(ours: Any, theirs: Any, solved: Any) -> Any:
    """The tabular policy ``solved`` (of ``theirs``) as a tabular policy of ``ours``: each of
    ours' information states gets the probabilities of OpenSpiel's state with the same history."""
    mapped = os_policy.TabularPolicy(ours)
    stack = [(ours.new_initial_state(), theirs.new_initial_state())]
    while stack:
        a, b = stack.pop()
        if a.is_terminal():
            continue
        if a.is_chance_node():
            for (x, _), (y, _) in zip(a.chance_outcomes(), b.chance_outcomes(), strict=True):
                assert _outcome(a, x) == y
                stack.append((a.child(x), b.child(y)))
            continue
        probabilities = solved.action_probabilities(b)
        texts = {b.action_to_string(y): y for y in b.legal_actions()}
        row = mapped.policy_for_key(a.information_state_string())
        for x in a.legal_actions():
            y = texts[_theirs_text(a.action_to_string(x))]
            row[x] = probabilities[y]
            stack.append((a.child(x), b.child(y)))
    return mapped


def _cfr(game: Any, iterations: int, solver: Any = cfr.CFRSolver) -> Any:
    running = solver(game)
    for _ in range(iterations):
        running.evaluate_and_update_policy()
    return running.average_policy()


def _value_and_exploitability(game: Any, policy: Any) -> tuple[float, float, float]:
    value = expected_game_score.policy_value(game.new_initial_state(), [policy] * 2)
    return value[0], value[1], exploitability.exploitability(game, policy)


def test_cfr_plus_through_the_adapter_finds_the_game_value(games: tuple[Any, Any]) -> None:
    """Kuhn poker's value for the first player is -1/18 (Kuhn 1950)."""
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", DeprecationWarning)
        first, second, exploitable = _value_and_exploitability(
            games[0], _cfr(games[0], 40, cfr.CFRPlusSolver)
        )
    assert abs(first - (-1 / 18)) < 1e-3
    assert abs(first + second) < 1e-12
    assert exploitable < 0.01


@pytest.mark.slow
def test_cfr_through_the_adapter_finds_the_game_value(games: tuple[Any, Any]) -> None:
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", DeprecationWarning)
        first, second, exploitable = _value_and_exploitability(games[0], _cfr(games[0], 300))
    assert abs(first - (-1 / 18)) < 1e-3
    assert abs(first + second) < 1e-12
    assert exploitable < 0.01


@pytest.mark.parametrize("iterations", [1, 20])
def test_a_policy_is_as_exploitable_in_both_games(games: tuple[Any, Any], iterations: int) -> None:
    ours, theirs = games
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", DeprecationWarning)
        solved = _cfr(theirs, iterations)
        mapped = _by_info_state(ours, theirs, solved)
        theirs_value = exploitability.exploitability(theirs, solved)
        ours_value = exploitability.exploitability(ours, mapped)
    assert theirs_value > 0.001  # not yet the equilibrium: the comparison means something
    assert abs(ours_value - theirs_value) < 1e-9


def test_openspiel_random_sim_test_passes(games: tuple[Any, Any]) -> None:
    pyspiel.random_sim_test(games[0], num_sims=20, serialize=True, verbose=False)


@pytest.mark.parametrize("scenario", sorted(find_scenarios([KUHN / "scenarios"])), ids=lambda p: p.stem)
def test_the_scenarios_pass(scenario: Path) -> None:
    report = run_scenario(scenario)
    assert report.passed, report


def test_verify_finds_no_failure() -> None:
    result = verify(VerifyOptions(ruleset="kuhn_poker", examples=60, max_actions=50))
    assert result.ok, format_counterexample(result.counterexample)  # type: ignore[arg-type]
    assert result.stats.games >= 60
