"""Rulesets as PettingZoo AEC environments, checked by PettingZoo's own tests."""

from __future__ import annotations

import warnings
from typing import Any

import pytest

from tests.ecosystem.extras import require

pettingzoo = require("pettingzoo", "pettingzoo")
np = require("numpy", "pettingzoo")

from pettingzoo.test import api_test, render_test, seed_test  # noqa: E402

from rulekit import pettingzoo as rkz  # noqa: E402
from rulekit.errors import IllegalActionError  # noqa: E402
from rulekit.load import load_program  # noqa: E402
from rulekit.tools.render import render_state  # noqa: E402

ALL_TILES = ["porto", "lisboa", "islas_canarias"]
ENVS = [("tic_tac_toe", 2, []), ("el_capitan", 3, ALL_TILES), ("el_caballero", 3, [])]
IDS = ["tic_tac_toe", "el_capitan", "el_caballero"]


def _play_masked(env: Any, seed: int, steps: int = 10**6) -> dict[str, float]:
    """A random policy over the action mask (to the end, or ``steps`` steps); the rewards received."""
    env.reset(seed=seed)
    rng = np.random.default_rng(seed)
    totals = dict.fromkeys(env.possible_agents, 0.0)
    for agent in env.agent_iter(steps):
        observation, reward, termination, truncation, _ = env.last()
        totals[agent] += reward
        if termination or truncation:
            action = None
        else:
            action = int(rng.choice(np.flatnonzero(observation["action_mask"])))
        env.step(action)
    return totals


@pytest.mark.parametrize(("ruleset", "players", "modules"), ENVS, ids=IDS)
def test_pettingzoo_api_test_passes(ruleset: str, players: int, modules: list[str]) -> None:
    """PettingZoo's api_test passes."""
    with warnings.catch_warnings():
        # api_test warns that dict observations and all-zero masks of waiting agents are unusual.
        warnings.simplefilter("ignore", UserWarning)
        api_test(rkz.env(ruleset, players=players, modules=modules), num_cycles=40)


@pytest.mark.parametrize(("ruleset", "players", "modules"), ENVS, ids=IDS)
def test_pettingzoo_seed_test_passes(ruleset: str, players: int, modules: list[str]) -> None:
    """PettingZoo's seed_test passes: seeded environments agree step by step."""

    def make(render_mode: str | None = None) -> Any:
        return rkz.env(ruleset, players=players, modules=modules, render_mode=render_mode)

    seed_test(make, num_cycles=8)


@pytest.mark.slow
@pytest.mark.parametrize(
    ("ruleset", "players", "modules"),
    [("el_capitan", n, ALL_TILES) for n in (2, 4, 5)] + [("el_caballero", n, []) for n in (2, 4)],
    ids=str,
)
def test_pettingzoo_api_test_passes_over_whole_games(ruleset: str, players: int, modules: list[str]) -> None:
    """PettingZoo's api_test passes over whole games at every player count."""
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", UserWarning)
        api_test(rkz.env(ruleset, players=players, modules=modules), num_cycles=1000)


def test_spaces_are_per_agent_and_the_mask_marks_the_legal_moves() -> None:
    """Each agent has its spaces; the mover's mask is its legal moves, a waiting agent's is empty."""
    env = rkz.env("el_capitan", players=3)
    env.reset(seed=4)
    agent = env.agent_selection
    mask = env.observe(agent)["action_mask"]
    state = env.unwrapped.game_state
    assert mask.shape == env.action_space(agent).shape or mask.shape == (env.action_space(agent).n,)
    assert sorted(np.flatnonzero(mask).tolist()) == env.unwrapped.space.legal_ids(state)
    waiting = next(a for a in env.possible_agents if a != agent)
    assert not env.observe(waiting)["action_mask"].any()
    assert env.observation_space(agent).contains(env.observe(agent))
    assert env.observation_space(agent) is not env.observation_space(waiting)


@pytest.mark.parametrize(("ruleset", "players", "modules"), ENVS, ids=IDS)
def test_rewards_at_the_end_are_the_engine_returns(ruleset: str, players: int, modules: list[str]) -> None:
    """A masked random policy plays to the end; the rewards are the engine's returns."""
    env = rkz.env(ruleset, players=players, modules=modules)
    totals = _play_masked(env, seed=7)
    returns = env.unwrapped.game_state.returns()
    assert env.unwrapped.game_state.is_terminal()
    assert [totals[a] for a in env.possible_agents] == returns


def test_max_cycles_truncates_every_agent() -> None:
    """After max_cycles moves every agent is truncated and the iteration ends."""
    env = rkz.env("el_caballero", players=2, max_cycles=4)
    env.reset(seed=0)
    steps = 0
    for agent in env.agent_iter():
        _, _, termination, truncation, _ = env.last()
        if truncation:
            env.step(None)
            continue
        assert not termination
        env.step(int(np.flatnonzero(env.observe(agent)["action_mask"])[0]))
        steps += 1
    assert steps == 4
    assert env.unwrapped.game_state.moves() == 4
    assert env.agents == []


def test_render_is_the_terminal_view() -> None:
    """render() in ansi mode is the terminal view of the state."""
    env = rkz.env("tic_tac_toe", render_mode="ansi")
    env.reset(seed=0)
    env.step(4)
    assert env.render() == render_state(env.unwrapped.game_state)
    assert "X" in env.render()


def test_human_render_prints(capsys: pytest.CaptureFixture[str]) -> None:
    """render_mode='human' prints the terminal view."""
    env = rkz.env("tic_tac_toe", render_mode="human")
    env.reset(seed=0)
    env.render()
    assert "Tic-tac-toe" in capsys.readouterr().out


def test_an_illegal_action_is_refused_and_changes_nothing() -> None:
    """Stepping with an illegal action raises IllegalActionError and leaves the state as it was."""
    env = rkz.env("tic_tac_toe")
    env.reset(seed=0)
    env.step(0)
    before = env.unwrapped.game_state.state_hash()
    with pytest.raises(IllegalActionError, match="not legal"):
        env.step(0)
    assert env.unwrapped.game_state.state_hash() == before


def test_the_same_seed_gives_the_same_game() -> None:
    """The same reset seed gives the same game; another seed another one."""

    env = rkz.env("el_capitan", players=2)

    def final(seed: int) -> tuple[int, str]:
        _play_masked(env, seed, steps=60)
        return env.unwrapped.game_state.moves(), env.unwrapped.game_state.state_hash()

    assert final(11) == final(11)
    assert final(11) != final(12)


@pytest.mark.parametrize(("ruleset", "players", "modules"), ENVS, ids=IDS)
def test_pettingzoo_render_test_passes(
    ruleset: str, players: int, modules: list[str], capsys: pytest.CaptureFixture[str]
) -> None:
    """PettingZoo's render_test passes for both render modes; human mode prints the view."""

    def make(render_mode: str | None = None) -> Any:
        return rkz.env(ruleset, players=players, modules=modules, render_mode=render_mode)

    render_test(make)
    assert load_program(ruleset, modules).rules.title in capsys.readouterr().out
