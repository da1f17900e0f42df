"""Simple seeded bots and a driver that plays a whole game with them."""

from __future__ import annotations

import random
from collections.abc import Mapping, Sequence
from pathlib import Path
from typing import Protocol

from attrs import frozen

from rulekit.engine.game import Action, Game, State
from rulekit.tools.log import GameRecorder


class Bot(Protocol):
    """Something that picks one of the legal actions of the player deciding now."""

    def choose(self, state: State) -> Action: ...


class RandomBot:
    """Picks at random among the legal actions, with its own seeded generator.

    With ``weighted`` (the default), the ruleset's ``bots.weights`` make some actions
    likelier: an action's chance is its weight (default 1) over the sum of the legal
    ones'. Without weights, or when every legal action weighs 0, the choice is uniform.
    """

    def __init__(self, seed: int = 0, *, weighted: bool = True) -> None:
        self._rng = random.Random(seed)
        self._weighted = weighted

    def choose(self, state: State) -> Action:
        legal = state.legal_actions()
        if self._weighted and state.has_bot_weights():
            weights = [state.action_weight(a) for a in legal]
            if any(weights):
                return self._rng.choices(legal, weights=weights)[0]
        return self._rng.choice(legal)


class FirstLegalBot:
    """Always picks the first legal action (the engine's order is deterministic)."""

    def choose(self, state: State) -> Action:
        return state.legal_actions()[0]


BOT_KINDS = ("random", "uniform", "first")


def make_bot(kind: str, seed: int = 0) -> Bot:
    """A bot by name: ``random`` (weighted by the ruleset's ``bots.weights``),
    ``uniform`` (ignores the weights) or ``first``."""
    if kind == "random":
        return RandomBot(seed)
    if kind == "uniform":
        return RandomBot(seed, weighted=False)
    if kind == "first":
        return FirstLegalBot()
    raise ValueError(f"unknown bot kind {kind!r} (known: {', '.join(BOT_KINDS)})")


def make_bots(game: Game, kind: str, seed: int) -> list[Bot]:
    """One bot per seat; random bots get different seeds derived from the game seed."""
    return [make_bot(kind, seed * 1000 + seat) for seat in range(game.num_players)]


@frozen
class PlayedGame:
    """The result of :func:`play_game`: the final state, its log, and whether it ended."""

    state: State
    log: GameRecorder
    finished: bool


def play_game(
    game: Game,
    seed: int,
    bots: Sequence[Bot] | Mapping[int, Bot],
    max_actions: int = 10_000,
    *,
    source: str | None = None,
    log: str | Path | None = None,
) -> PlayedGame:
    """Play from a fresh state until the game ends or ``max_actions`` were taken.

    ``bots`` gives a bot per seat (index 0 is P1).  With ``log``, the log is streamed there
    action by action; the caller finishes it with ``played.log.close()``.
    """
    recorder = GameRecorder(game.new_initial_state(seed), seed, source, log_path=log)
    state = recorder.state
    taken = 0
    try:
        while not state.is_terminal() and taken < max_actions:
            bot = bots[state.current_player()]
            recorder.apply_action(bot.choose(state))
            taken += 1
    except BaseException:
        recorder.close()  # keep the actions played so far (the state is as after the last of them)
        raise
    return PlayedGame(state, recorder, state.is_terminal())
