"""Every ruleset as a PettingZoo parallel environment (the ``pettingzoo`` extra).

``rulekit.pettingzoo.parallel_env("my_game")`` is a :class:`pettingzoo.ParallelEnv` for
rules with ``simultaneous`` flow steps (any ruleset works): at each ``step(actions)`` every
agent that decides now acts at once.

* At a simultaneous step, every seat still to choose with a legal action decides: their
  actions are applied together (:meth:`~rulekit.engine.game.State.apply_joint`: atomic, in
  the step's order; an illegal one raises :class:`~rulekit.errors.IllegalActionError` and
  changes nothing).  At any other decision only the deciding agent acts.  The actions of
  agents that do not decide now are ignored; their ``action_mask`` is all zeros.
* Spaces, observations (what the agent may see, never another seat's pending choice),
  rewards (``returns()`` at the end), ``max_cycles`` truncation and ``render`` are those of
  :class:`rulekit.pettingzoo.RulekitEnv`.
* Agents stay in ``agents`` until the game ends (or is truncated); then ``agents`` is empty.
"""

from __future__ import annotations

from typing import Any

import gymnasium
import numpy as np
from gymnasium.utils import seeding
from pettingzoo import ParallelEnv

from rulekit.engine.game import Game, State
from rulekit.engine.spaces import ActionSpace, ObservationEncoder
from rulekit.errors import Diagnostic, IllegalActionError
from rulekit.tools.render import render_state

RENDER_MODES = ("human", "ansi")


def agent_spaces(
    agents: list[str], observation_size: int, action_size: int
) -> tuple[dict[str, gymnasium.spaces.Space[Any]], dict[str, gymnasium.spaces.Space[Any]]]:
    """Each agent's observation space (the encoded observation and the legal-action mask) and
    action space, as the AEC and the parallel environments declare them."""

    def observation() -> gymnasium.spaces.Space[Any]:  # one per agent, each seeded on its own
        return gymnasium.spaces.Dict(
            {
                "observation": gymnasium.spaces.Box(-np.inf, np.inf, (observation_size,), np.float32),
                "action_mask": gymnasium.spaces.Box(0, 1, (action_size,), np.int8),
            }
        )

    return (
        {agent: observation() for agent in agents},
        {agent: gymnasium.spaces.Discrete(action_size) for agent in agents},
    )


class RulekitParallelEnv(ParallelEnv):
    """A rulekit game as a PettingZoo parallel environment."""

    metadata: dict[str, Any] = {"render_modes": list(RENDER_MODES), "name": "rulekit_parallel_v0"}

    def __init__(
        self,
        game: Game,
        *,
        render_mode: str | None = None,
        max_cycles: int | None = None,
        bound: int | None = None,
    ) -> None:
        if render_mode not in (None, *RENDER_MODES):
            raise ValueError(f"render_mode must be one of {RENDER_MODES}, not {render_mode!r}")
        self.game = game
        self.render_mode = render_mode
        self.max_cycles = max_cycles
        self.metadata = {**self.metadata, "name": f"rulekit_{game.name}_parallel_v0"}
        self.space = ActionSpace(game, bound)
        self.encoder = ObservationEncoder.of(game)
        self.possible_agents = [f"player_{p}" for p in range(game.num_players)]
        self.agents: list[str] = []
        self._index = {agent: p for p, agent in enumerate(self.possible_agents)}
        self.observation_spaces, self.action_spaces = agent_spaces(
            self.possible_agents, self.encoder.size, self.space.size
        )
        self.np_random, _ = seeding.np_random(None)
        #: The rulekit state of the game in progress (``None`` before ``reset``).
        self.game_state: State | None = None

    def observation_space(self, agent: str) -> gymnasium.spaces.Space[Any]:
        return self.observation_spaces[agent]

    def action_space(self, agent: str) -> gymnasium.spaces.Space[Any]:
        return self.action_spaces[agent]

    def reset(
        self, seed: int | None = None, options: dict[str, Any] | None = None
    ) -> tuple[dict[str, Any], dict[str, Any]]:
        if seed is not None:
            self.np_random, _ = seeding.np_random(seed)
        self.game_state = self.game.new_initial_state(int(self.np_random.integers(2**31)))
        self.agents = list(self.possible_agents)
        return self._observations(), {agent: {} for agent in self.agents}

    def deciding(self) -> list[int]:
        """The seats that act at the next ``step``."""
        state = self._state()
        if state.is_terminal():
            return []
        if state.is_simultaneous():
            return [s for s in state.simultaneous_seats() if state.legal_actions_of(s)]
        return [state.current_player()]

    def step(
        self, actions: dict[str, Any]
    ) -> tuple[dict[str, Any], dict[str, float], dict[str, bool], dict[str, bool], dict[str, Any]]:
        state = self._state()
        if not self.agents:
            raise IllegalActionError(Diagnostic("the game is over: call reset()"))
        joint = {}
        for seat in self.deciding():
            agent = self.possible_agents[seat]
            if actions.get(agent) is None:
                raise IllegalActionError(Diagnostic(f"{agent} must choose an action (got none)"))
            number = int(actions[agent])
            if not 0 <= number < self.space.size:
                raise IllegalActionError(Diagnostic(f"action {number} is outside 0..{self.space.size - 1}"))
            joint[seat] = self.space.decode(number)
        if state.is_simultaneous():
            state.apply_joint(joint)
        else:
            (seat,) = joint
            state.apply_action(joint[seat])
        agents = self.agents
        rewards = dict.fromkeys(agents, 0.0)
        terminations = dict.fromkeys(agents, False)
        truncations = dict.fromkeys(agents, False)
        if state.is_terminal():
            returns = state.returns()
            rewards = {agent: float(returns[self._index[agent]]) for agent in agents}
            terminations = dict.fromkeys(agents, True)
        elif self.max_cycles is not None and state.moves() >= self.max_cycles:
            truncations = dict.fromkeys(agents, True)
        observations = self._observations()
        infos: dict[str, Any] = {agent: {} for agent in agents}
        if state.is_terminal() or any(truncations.values()):
            self.agents = []
        if self.render_mode == "human":
            self.render()
        return observations, rewards, terminations, truncations, infos

    def render(self) -> str | None:
        if self.render_mode is None:
            gymnasium.logger.warn("render() was called without a render_mode (choose 'human' or 'ansi')")
            return None
        text = render_state(self._state())
        if self.render_mode == "human":
            print(text)  # noqa: T201 - the human render mode prints the terminal view
            return None
        return text

    def close(self) -> None:
        self.game_state = None

    def _state(self) -> State:
        if self.game_state is None:
            raise RuntimeError("call reset() first")
        return self.game_state

    def _observations(self) -> dict[str, dict[str, np.ndarray]]:
        state = self._state()
        deciding = set(self.deciding())
        found: dict[str, dict[str, np.ndarray]] = {}
        for agent in self.agents:
            seat = self._index[agent]
            mask = np.zeros(self.space.size, np.int8)
            if seat in deciding:
                mask[[self.space.encode(a) for a in state.legal_actions_of(seat)]] = 1
            found[agent] = {
                "observation": np.asarray(self.encoder.encode(state, seat), np.float32),
                "action_mask": mask,
            }
        return found
