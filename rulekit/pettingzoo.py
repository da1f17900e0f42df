"""Every ruleset as a PettingZoo AEC environment (the ``pettingzoo`` extra).

``rulekit.pettingzoo.env("my_game", players=3)`` is a turn-based
:class:`pettingzoo.AECEnv` with agents ``player_0..player_{n-1}`` (P1 is ``player_0``):

* action space ``Discrete(n)`` over the stable integers of
  :class:`~rulekit.engine.spaces.ActionSpace` (the same for every agent);
* observation ``{"observation": float32 vector, "action_mask": int8 vector}``: the
  :class:`~rulekit.engine.spaces.ObservationEncoder` vector of what the agent may see,
  and the agent's legal actions (all zeros for an agent that does not decide now);
* rewards only at the end, from the engine's ``returns()`` (+1 winners, -1 the others,
  0 for all on a full tie; the scores when the scoring declares ``returns``);
  ``terminations`` when the game ends; ``truncations`` after ``max_cycles`` moves (in
  all, counting every agent's), if given;
* ``reset(seed=...)`` seeds the game's RNG: the same seed gives the same game;
* ``env.unwrapped.game_state`` is the rulekit :class:`~rulekit.engine.game.State`;
* ``render()`` is the terminal view (``rulekit play``'s), as a spectator sees it:
  printed with ``render_mode="human"``, returned with ``"ansi"``.

An illegal action raises :class:`~rulekit.errors.IllegalActionError` naming the rule
that forbids it (the state is unchanged).  At a ``simultaneous`` flow step the seats
choose one after the other here, none seeing the others' pending choices; the parallel
form, where they act at once, is :func:`parallel_env`
(:mod:`rulekit.pettingzoo_parallel`).
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

import gymnasium
import numpy as np
from gymnasium.utils import seeding
from pettingzoo import AECEnv
from pettingzoo.utils import wrappers

from rulekit.engine.game import Action, Game, State
from rulekit.engine.spaces import ActionSpace, ObservationEncoder
from rulekit.errors import Diagnostic, IllegalActionError
from rulekit.load import load_game, load_program
from rulekit.pettingzoo_parallel import agent_spaces
from rulekit.rules.parameters import settings
from rulekit.tools.render import render_state

RENDER_MODES = ("human", "ansi")


def env(
    ruleset: str,
    players: int | None = None,
    modules: Sequence[str] = (),
    variants: Sequence[str] = (),
    **kwargs: Any,
) -> AECEnv:
    """The environment of ``ruleset``, with PettingZoo's order-enforcing wrapper.

    Keyword arguments go to :class:`RulekitEnv` (``render_mode``, ``max_cycles``, ``bound``);
    any other sets one of the ruleset's parameters (``env("hex", ROWS=5)``, checked like
    ``--param``).
    """
    return wrappers.OrderEnforcingWrapper(raw_env(ruleset, players, modules, variants, **kwargs))


def parallel_env(
    ruleset: str,
    players: int | None = None,
    modules: Sequence[str] = (),
    variants: Sequence[str] = (),
    **kwargs: Any,
) -> Any:
    """The parallel environment of ``ruleset`` (:mod:`rulekit.pettingzoo_parallel`): every
    seat of a ``simultaneous`` step acts in the same ``step``.  Keyword arguments as :func:`env`."""
    from rulekit.pettingzoo_parallel import RulekitParallelEnv

    if players is None:
        players = load_program(ruleset, modules, variants).rules.min_players
    return RulekitParallelEnv(load_game(ruleset, players, modules, variants), **kwargs)


def raw_env(
    ruleset: str,
    players: int | None = None,
    modules: Sequence[str] = (),
    variants: Sequence[str] = (),
    **kwargs: Any,
) -> RulekitEnv:
    """The environment without wrappers (keyword arguments as :func:`env`'s)."""
    chosen = {k: v for k, v in kwargs.items() if k not in _ENV_OPTIONS}
    variants = (*variants, *settings(chosen))
    if players is None:
        players = load_program(ruleset, modules, variants).rules.min_players
    options = {k: v for k, v in kwargs.items() if k in _ENV_OPTIONS}
    return RulekitEnv(load_game(ruleset, players, modules, variants), **options)


#: The keyword arguments of :class:`RulekitEnv` (the others are the ruleset's parameters).
_ENV_OPTIONS = frozenset({"render_mode", "max_cycles", "bound"})


class RulekitEnv(AECEnv):
    """A rulekit game as a PettingZoo AEC environment."""

    metadata: dict[str, Any] = {
        "render_modes": list(RENDER_MODES),
        "name": "rulekit_v0",
        "is_parallelizable": False,
    }

    def __init__(
        self,
        game: Game,
        *,
        render_mode: str | None = None,
        max_cycles: int | None = None,
        bound: int | None = None,
    ) -> None:
        super().__init__()
        if render_mode not in (None, *RENDER_MODES):
            raise ValueError(f"render_mode must be one of {RENDER_MODES}, not {render_mode!r}")
        self.game = game
        self.render_mode = render_mode
        self.max_cycles = max_cycles
        self.metadata = {**self.metadata, "name": f"rulekit_{game.name}_v0"}
        self.space = ActionSpace(game, bound)
        self.encoder = ObservationEncoder.of(game)
        self.possible_agents = [f"player_{p}" for p in range(game.num_players)]
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

    # ------------------------------------------------------------------ AEC API
    def reset(self, seed: int | None = None, options: dict[str, Any] | None = None) -> None:
        if seed is not None:
            self.np_random, _ = seeding.np_random(seed)
        self.game_state = self.game.new_initial_state(int(self.np_random.integers(2**31)))
        self.agents = list(self.possible_agents)
        self.rewards = dict.fromkeys(self.agents, 0.0)
        self._cumulative_rewards = dict.fromkeys(self.agents, 0.0)
        self.terminations = dict.fromkeys(self.agents, False)
        self.truncations = dict.fromkeys(self.agents, False)
        self.infos: dict[str, dict[str, Any]] = {agent: {} for agent in self.agents}
        self._select()

    def observe(self, agent: str) -> dict[str, np.ndarray]:
        state = self._state()
        player = self._index[agent]
        mask = np.zeros(self.space.size, np.int8)
        if not state.is_terminal() and state.current_player() == player and not self.truncations[agent]:
            mask[self.space.legal_ids(state)] = 1
        return {
            "observation": np.asarray(self.encoder.encode(state, player), np.float32),
            "action_mask": mask,
        }

    def step(self, action: int | None) -> None:
        agent = self.agent_selection
        if self.terminations[agent] or self.truncations[agent]:
            self._was_dead_step(action)
            return
        state = self._state()
        if action is None:
            raise IllegalActionError(Diagnostic(f"{agent} must choose an action (got None)"))
        number = int(action)
        if not 0 <= number < self.space.size:
            raise IllegalActionError(Diagnostic(f"action {number} is outside 0..{self.space.size - 1}"))
        chosen: Action = self.space.decode(number)
        state.apply_action(chosen)
        self._cumulative_rewards[agent] = 0.0
        self.rewards = dict.fromkeys(self.agents, 0.0)
        if state.is_terminal():
            returns = state.returns()
            for name in self.agents:
                self.rewards[name] = float(returns[self._index[name]])
                self.terminations[name] = True
        elif self.max_cycles is not None and state.moves() >= self.max_cycles:
            self.truncations = dict.fromkeys(self.agents, True)
        self._select()
        self._accumulate_rewards()
        if self.render_mode == "human":
            self.render()

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

    # ------------------------------------------------------------------ helpers
    def _state(self) -> State:
        if self.game_state is None:
            raise RuntimeError("call reset() first")
        return self.game_state

    def _select(self) -> None:
        state = self._state()
        if state.is_terminal() or any(self.truncations.values()):
            # Everybody is done: they take their final (None) steps in seat order.
            self.agent_selection = next(
                (a for a in self.possible_agents if a in self.agents), self.possible_agents[0]
            )
        else:
            self.agent_selection = self.possible_agents[state.current_player()]
