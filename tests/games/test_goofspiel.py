"""Goofspiel (rulesets/goofspiel) is OpenSpiel's ``goofspiel``, state for state.

Both games are played in lockstep through OpenSpiel's API (rulekit's through its adapter):
at every state the kind of node (chance, simultaneous, terminal), each player's legal actions
at a simultaneous node (rulekit's ``bid(k)`` is OpenSpiel's ``[P{p}]Bid: k``, action k - 1 in
both), the chance outcomes with their probabilities (rulekit's ``pick = k`` is OpenSpiel's
``Deal k``), both hands and the points, the terminal flag and at the end the returns must
agree (the board at the simultaneous and terminal nodes: at a chance node rulekit's bids are
still waiting for the deal they resolve with). OpenSpiel's parameters: its defaults
(``points_order=random``, ``returns_type=win_loss``, ``imp_info=false``), ``num_cards`` as the
ruleset's ``CARDS``. The one node only rulekit has is
the adapter's first chance node, which draws the engine's seed: the setup turns up the first
point card from it, so OpenSpiel's first deal is made to agree (it must be among OpenSpiel's
outcomes, each of probability 1/num_cards, as rulekit's ``pick`` of the first card is).
"""

from __future__ import annotations

import random
import re
from pathlib import Path
from typing import Any

import pytest

from tests.ecosystem.extras import require

pyspiel = require("pyspiel", "openspiel")

from rulekit import openspiel as rk  # noqa: E402
from rulekit.engine.chance import chance_step  # noqa: E402
from rulekit.load import load_game  # noqa: E402
from rulekit.tools.scenario import find_scenarios, run_scenario  # noqa: E402

GOOFSPIEL = Path(__file__).resolve().parents[2] / "rulesets" / "goofspiel"
SIMULTANEOUS = int(pyspiel.PlayerId.SIMULTANEOUS)


def _bids(state: Any, player: int) -> dict[int, int]:
    """A player's legal bids at a simultaneous node: the card's value -> the action."""
    found = {}
    for action in state.legal_actions(player):
        text = state.action_to_string(player, action)
        match = re.fullmatch(r"bid\((\d+)\)", text) or re.fullmatch(rf"\[P{player}\]Bid: (\d+)", text)
        assert match, text
        found[int(match[1])] = action
    return found


def _deals(state: Any) -> dict[int, tuple[int, float]]:
    """The chance outcomes: the point card's value -> (the action, its probability)."""
    found = {}
    for action, probability in state.chance_outcomes():
        text = state.action_to_string(pyspiel.PlayerId.CHANCE, action)
        match = re.fullmatch(r"pick = (\d+)", text) or re.fullmatch(r"Deal (\d+)", text)
        assert match, text
        found[int(match[1])] = (action, probability)
    return found


def _same_board(a: Any, b: Any) -> None:
    """Both hands and the points, as OpenSpiel's ``ToString`` shows them."""
    engine = a.engine_state
    lines = [f"P{p} hand: " + "".join(f"{c} " for c in sorted(engine.value(p, "hand"))) for p in range(2)]
    theirs = str(b).splitlines()
    assert theirs[:2] == lines, (str(b), lines)
    assert theirs[-1] == "Points: " + "".join(f"{engine.value(p, 'points')} " for p in range(2))


def _lockstep(ours: Any, theirs: Any, seed: int) -> int:
    """Play one random game in both; return how many states were compared."""
    rng = random.Random(seed)
    a, b = ours.new_initial_state(), theirs.new_initial_state()
    assert a.is_chance_node()  # the adapter's seed: the setup turns up the first point card
    a.apply_action(rng.randrange(len(a.chance_outcomes())))
    first = a.engine_state.value("game", "prize")
    deals = _deals(b)
    assert set(deals) == set(range(1, len(a.engine_state.value(0, "hand")) + 1))
    assert all(p == pytest.approx(1 / len(deals)) for _, p in deals.values())
    b.apply_action(deals[first][0])
    compared = 0
    while True:
        compared += 1
        assert a.is_terminal() == b.is_terminal(), (seed, compared, str(b))
        if b.is_terminal():
            _same_board(a, b)
            assert a.returns() == b.returns(), (seed, str(b))
            return compared
        assert a.current_player() == b.current_player(), (seed, compared, str(b))
        if b.is_chance_node():
            mine, offered = _deals(a), _deals(b)
            assert set(mine) == set(offered), (seed, compared)
            for card, (_, probability) in offered.items():
                assert mine[card][1] == pytest.approx(probability, abs=1e-12)
            card = rng.choice(sorted(offered))
            a.apply_action(mine[card][0])
            b.apply_action(offered[card][0])
            continue
        assert b.current_player() == SIMULTANEOUS
        _same_board(a, b)
        joint_a, joint_b = [], []
        for player in range(2):
            mine, offered = _bids(a, player), _bids(b, player)
            assert mine == offered, (seed, compared, player)  # the same cards, the same actions
            card = rng.choice(sorted(offered))
            joint_a.append(mine[card])
            joint_b.append(offered[card])
        a.apply_actions(joint_a)
        b.apply_actions(joint_b)


def _theirs(cards: int) -> Any:
    return pyspiel.load_game(
        "goofspiel",
        {"num_cards": cards, "points_order": "random", "returns_type": "win_loss", "imp_info": False},
    )


_REGISTERED: dict[int, Any] = {}


@pytest.fixture(scope="module")
def sized(tmp_path_factory: pytest.TempPathFactory) -> Any:
    """rulekit's goofspiel with ``cards`` cards (its parameter CARDS), registered once."""

    def register(cards: int) -> Any:
        if cards not in _REGISTERED:
            if cards == 13:
                _REGISTERED[cards] = rk.register("goofspiel")
            else:
                _REGISTERED[cards] = rk.register("goofspiel", params={"CARDS": cards})
        return _REGISTERED[cards]

    return register


def test_the_adapter_declares_simultaneous_dynamics_as_openspiel_does() -> None:
    ours, theirs = rk.register("goofspiel"), _theirs(13)
    assert ours.get_type().dynamics == theirs.get_type().dynamics == pyspiel.GameType.Dynamics.SIMULTANEOUS
    assert ours.num_distinct_actions() == theirs.num_distinct_actions() == 13


@pytest.mark.parametrize("seed", range(50))
def test_a_random_game_matches_openspiel_goofspiel(sized: Any, seed: int) -> None:
    cards = (13, 4, 5, 6)[seed % 4]
    assert _lockstep(sized(cards), _theirs(cards), seed) >= 2 * (cards - 2) + 1


@pytest.mark.slow
def test_a_thousand_random_games_match_openspiel_goofspiel(sized: Any) -> None:
    compared = sum(_lockstep(sized(13), _theirs(13), seed) for seed in range(1000, 2000))
    compared += sum(_lockstep(sized(4), _theirs(4), seed) for seed in range(2000, 2500))
    assert compared > 20_000


def test_openspiel_random_sim_test_passes_through_the_adapter() -> None:
    pyspiel.random_sim_test(rk.register("goofspiel"), num_sims=3, serialize=True, verbose=False)


def test_the_first_point_card_is_a_uniform_chance_step_of_the_setup() -> None:
    """The card the adapter's seed turns up is drawn by a ``pick`` among all the cards."""
    game = load_game("goofspiel", 2)
    seen = {game.new_initial_state(seed).value("game", "prize") for seed in range(200)}
    assert seen == set(range(1, 14))


def test_each_later_point_card_is_a_chance_step_among_those_left() -> None:
    game = load_game("goofspiel", 2)
    state = game.new_initial_state(3)
    state.apply_action("bid(1)")
    step = chance_step(state, state.legal_actions()[0])
    assert step is not None
    assert sorted(step.outcomes) == sorted(state.value("game", "prizes"))
    assert len(step.outcomes) == 12


@pytest.mark.parametrize("scenario", sorted(find_scenarios([GOOFSPIEL / "scenarios"])), ids=lambda p: p.stem)
def test_the_scenarios_pass(scenario: Path) -> None:
    report = run_scenario(scenario)
    assert report.passed, report


def test_pettingzoo_parallel_api_and_seed_tests_pass_on_the_parallel_env() -> None:
    require("pettingzoo", "pettingzoo")
    from pettingzoo.test import parallel_api_test, parallel_seed_test

    from rulekit import pettingzoo as pz

    parallel_api_test(pz.parallel_env("goofspiel"), num_cycles=1000)
    parallel_seed_test(lambda: pz.parallel_env("goofspiel"))


def test_the_parallel_env_applies_both_bids_in_one_step() -> None:
    require("pettingzoo", "pettingzoo")
    from rulekit import pettingzoo as pz

    env = pz.parallel_env("goofspiel")
    observations, _ = env.reset(seed=3)
    assert all(observations[a]["action_mask"].sum() == 13 for a in env.agents)
    env.step({"player_0": 12, "player_1": 0})  # bids 13 and 1
    state = env.game_state
    assert (state.value(0, "bid"), state.value(1, "bid")) == (13, 1)
    assert state.value(0, "points") == state.value("game", "turned")[0]


def test_a_pending_bid_is_not_in_the_other_seats_observation() -> None:
    """Through the AEC environment the seats bid one after the other: what P2 observes before
    bidding is the same whatever P1 bid, and so are its view and legal actions."""
    require("pettingzoo", "pettingzoo")
    from rulekit import pettingzoo as pz

    seen = []
    for bid in (0, 6, 12):
        env = pz.env("goofspiel")
        env.reset(seed=5)
        env.step(bid)
        assert env.agent_selection == "player_1"
        observation = env.observe("player_1")
        state = env.unwrapped.game_state
        seen.append(
            (
                observation["observation"].tobytes(),
                observation["action_mask"].tobytes(),
                repr(state.view(1)),
                str(state.legal_actions_of(1)),
            )
        )
    assert seen[0] == seen[1] == seen[2]
    assert state.view(0) != state.view(1)  # P1 sees its own pending bid
