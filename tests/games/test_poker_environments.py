"""Kuhn and Leduc poker as PettingZoo environments: PettingZoo's own ``api_test`` and
``seed_test`` pass, and the rewards at the end are the chips won or lost."""

from __future__ import annotations

import warnings
from typing import Any

import pytest

from tests.ecosystem.extras import require

pettingzoo = require("pettingzoo", "pettingzoo")
np = require("numpy", "pettingzoo")

from pettingzoo.test import api_test, seed_test  # noqa: E402

from rulekit import pettingzoo as rkz  # noqa: E402

POKER = ["kuhn_poker", "leduc_poker"]
#: The most a player can win or lose in a hand.
LIMIT = {"kuhn_poker": 2, "leduc_poker": 13}


@pytest.mark.parametrize("ruleset", POKER)
def test_pettingzoo_api_test_passes(ruleset: str) -> None:
    with warnings.catch_warnings():
        # api_test warns that dict observations and all-zero masks of waiting agents are unusual.
        warnings.simplefilter("ignore", UserWarning)
        api_test(rkz.env(ruleset, players=2), num_cycles=100)


@pytest.mark.parametrize("ruleset", POKER)
def test_pettingzoo_seed_test_passes(ruleset: str) -> None:
    def make(render_mode: str | None = None) -> Any:
        return rkz.env(ruleset, players=2, render_mode=render_mode)

    seed_test(make, num_cycles=20)


@pytest.mark.parametrize("ruleset", POKER)
def test_the_rewards_are_the_chips_won_and_lost(ruleset: str) -> None:
    env = rkz.env(ruleset, players=2)
    seen: set[float] = set()
    for seed in range(30):
        env.reset(seed=seed)
        rng = np.random.default_rng(seed)
        totals = dict.fromkeys(env.possible_agents, 0.0)
        for agent in env.agent_iter():
            observation, reward, termination, truncation, _ = env.last()
            totals[agent] += reward
            done = termination or truncation
            env.step(None if done else int(rng.choice(np.flatnonzero(observation["action_mask"]))))
        assert sum(totals.values()) == 0
        assert all(-LIMIT[ruleset] <= total <= LIMIT[ruleset] for total in totals.values())
        seen |= set(totals.values())
    assert any(abs(total) > 1 for total in seen)  # chips, not +1/-1
