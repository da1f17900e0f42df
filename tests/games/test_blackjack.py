"""Blackjack (rulesets/blackjack) is OpenSpiel's ``blackjack``, state for state.

Both games are played in lockstep through OpenSpiel's API (rulekit's through its adapter,
with ``explicit_setup=True`` so that each card of the deal is a chance node, as in
OpenSpiel): at every state the player to move, the terminal flag, the chance outcomes (the
cards left, each equally likely) with their probabilities, the legal actions and at the end
the returns must agree, and two histories share rulekit's information state at a decision
node exactly when they share OpenSpiel's. The action mapping: ``hit`` is
OpenSpiel's ``Hit``, ``stand`` its ``Stand``, a card dealt ``pick = 'D7'`` its ``D7`` (the
card ids are OpenSpiel's card strings).
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

BLACKJACK = Path(__file__).resolve().parents[2] / "rulesets" / "blackjack"
CARD = re.compile(r"pick = '([CDHS][A2-9TJQK])'")


def _theirs_text(state: Any, ours_text: str) -> str:
    return {"hit": "Hit", "stand": "Stand"}[ours_text]


def _theirs_chance(ours_text: str) -> str:
    found = CARD.fullmatch(ours_text)
    assert found, ours_text
    return found[1]


def _games() -> tuple[Any, Any]:
    return rk.register("blackjack", explicit_setup=True), pyspiel.load_game("blackjack")


def _lockstep(seed: int, information: SameInformation | None = None) -> int:
    ours, theirs = _games()
    return lockstep_chance(ours, theirs, seed, _theirs_text, _theirs_chance, information)


@pytest.mark.parametrize("seed", range(50))
def test_a_random_game_matches_openspiel(seed: int) -> None:
    assert _lockstep(seed) >= 6  # four cards dealt, a decision, the end


def test_histories_share_an_information_state_exactly_when_openspiel_says_so() -> None:
    """At decision nodes: the player's cards and the dealer's face-up card, in the order dealt."""
    information = SameInformation()
    for seed in range(200):
        _lockstep(seed, information)
    assert information.classes > 200


def test_the_deal_is_four_chance_nodes_over_the_cards_left() -> None:
    ours, theirs = _games()
    a, b = ours.new_initial_state(), theirs.new_initial_state()
    for left in (52, 51, 50, 49):
        assert a.is_chance_node() and b.is_chance_node()
        assert len(a.chance_outcomes()) == len(b.chance_outcomes()) == left
        assert [p for _, p in a.chance_outcomes()] == pytest.approx([1 / left] * left)
        a.apply_action(0)  # the first card left: CA, then C2, C3, C4
        b.apply_action(b.legal_actions()[0])
    assert a.current_player() == b.current_player() == 0
    engine = a.engine_state
    assert (engine.value("game", "hand"), engine.value("game", "hole")) == (("CA", "C2"), ("C3",))


@pytest.mark.parametrize(
    ("deal", "moves", "returns"),
    [
        (["SK", "H9", "D7", "CT"], ["Stand"], [1.0]),  # 19 against 17: the dealer stands
        (["SK", "H7", "D7", "CT"], ["Stand"], [0.0]),  # 17 against 17: a push
        (["SK", "H6", "D7", "CT"], ["Hit", "S9"], [-1.0]),  # 16 + 9: a bust
        (["SK", "H6", "D6", "CT", "Stand", "S9"], [], [1.0]),  # the dealer draws on 16 and busts
        (["SA", "H7", "DA", "C6"], ["Stand"], [1.0]),  # soft 18 against a soft 17, which stands
        (["SA", "HA", "D9", "CT"], ["Hit", "S9", "Stand"], [1.0]),  # A A 9: 21 (one ace at 11) against 19
    ],
    ids=["win", "push", "bust", "dealer-bust", "soft-hands", "two-aces"],
)
def test_hands_from_the_rules_end_as_in_openspiel(
    deal: list[str], moves: list[str], returns: list[float]
) -> None:
    ours, theirs = _games()
    a, b = ours.new_initial_state(), theirs.new_initial_state()
    for text in deal + moves:
        if b.is_chance_node():
            mine = {_theirs_chance(a.action_to_string(x)): x for x, _ in a.chance_outcomes()}
        else:
            mine = {_theirs_text(a, a.action_to_string(x)): x for x in a.legal_actions()}
        offered = {b.action_to_string(x): x for x in b.legal_actions()}
        a.apply_action(mine[text])
        b.apply_action(offered[text])
    assert a.is_terminal() and b.is_terminal()
    assert a.returns() == b.returns() == returns


@pytest.mark.slow
def test_a_thousand_random_games_match_openspiel() -> None:
    assert sum(_lockstep(seed) for seed in range(100, 1100)) > 6_000


def test_openspiel_random_sim_test_passes() -> None:
    pyspiel.random_sim_test(rk.register("blackjack"), num_sims=3, serialize=True, verbose=False)
    pyspiel.random_sim_test(
        rk.register("blackjack", explicit_setup=True), num_sims=3, serialize=True, verbose=False
    )


def test_pettingzoo_api_and_seed_tests_pass() -> None:
    require("pettingzoo", "pettingzoo")
    from pettingzoo.test import api_test, seed_test

    from rulekit import pettingzoo

    with warnings.catch_warnings():
        # api_test warns that dict observations are unusual.
        warnings.simplefilter("ignore", UserWarning)
        api_test(pettingzoo.env(str(BLACKJACK), players=1), num_cycles=60)
    seed_test(lambda render_mode=None: pettingzoo.env(str(BLACKJACK), players=1), num_cycles=8)


def test_verify_finds_no_failure() -> None:
    result = verify(VerifyOptions(str(BLACKJACK), examples=50, out=None))
    assert result.ok, result.counterexample
    assert result.stats.invariant_checks > 0


@pytest.mark.parametrize("scenario", sorted(find_scenarios([BLACKJACK / "scenarios"])), ids=lambda p: p.stem)
def test_the_scenarios_pass(scenario: Path) -> None:
    report = run_scenario(scenario)
    assert report.passed, report
