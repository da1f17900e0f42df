"""Benchmark: random playouts per second, and OpenSpiel's Python tic-tac-toe for comparison."""

from __future__ import annotations

import random
import time
from collections.abc import Callable, Iterator
from typing import Any

from attrs import frozen

from rulekit.engine.game import Game

OPENSPIEL_GAME = "python_tic_tac_toe"


@frozen
class BenchResult:
    """Playouts and actions done in ``seconds`` of wall-clock time."""

    playouts: int
    actions: int
    seconds: float

    @property
    def playouts_per_second(self) -> float:
        return self.playouts / self.seconds if self.seconds else 0.0

    @property
    def actions_per_second(self) -> float:
        return self.actions / self.seconds if self.seconds else 0.0


def bench_rulekit(game: Game, seconds: float, seed: int = 0, max_actions: int = 100_000) -> BenchResult:
    """Uniformly random playouts from fresh states (seeds seed, seed+1, ...) for ``seconds``."""
    return _random_playouts(lambda n: game.new_initial_state(seed + n), seconds, seed, max_actions)


def _random_playouts(
    new_state: Callable[[int], Any], seconds: float, seed: int, max_actions: int | None = None
) -> BenchResult:
    """Play uniformly random games from ``new_state(playout number)`` for ``seconds`` (at least one).

    Works on anything with OpenSpiel's state API (``is_terminal``, ``legal_actions``,
    ``apply_action``); a game is cut off after ``max_actions`` when that is given.
    """
    rng = random.Random(seed)
    playouts = actions = 0
    start = time.perf_counter()
    deadline = start + seconds
    now = start
    while now < deadline or playouts == 0:
        state = new_state(playouts)
        taken = 0
        while not state.is_terminal() and (max_actions is None or taken < max_actions):
            state.apply_action(rng.choice(state.legal_actions()))
            taken += 1
        actions += taken
        playouts += 1
        now = time.perf_counter()
    return BenchResult(playouts, actions, now - start)


def load_openspiel() -> Any | None:
    """OpenSpiel's pure-Python tic-tac-toe, or None when OpenSpiel is not installed."""
    try:
        import open_spiel.python.games  # noqa: F401 - registers the Python games
        import pyspiel
    except ImportError:
        return None
    return pyspiel.load_game(OPENSPIEL_GAME)


def bench_openspiel(game: Any, seconds: float, seed: int = 0) -> BenchResult:
    """The same random playout loop on an OpenSpiel game."""
    return _random_playouts(lambda _: game.new_initial_state(), seconds, seed)


def run(game: Game, seconds: float, seed: int = 0) -> Iterator[str]:
    """Run the benchmark and yield the report lines (printed by the CLI)."""
    program = game.program
    yield (
        f"rulekit {program.name} (fingerprint {program.fingerprint}), {game.num_players} players, "
        f"random playouts for {seconds:g}s"
    )
    ours = bench_rulekit(game, seconds, seed)
    yield (
        f"  rulekit:   {ours.playouts_per_second:10,.0f} playouts/s"
        f"  {ours.actions_per_second:12,.0f} actions/s"
        f"  ({ours.playouts} playouts, {ours.actions} actions in {ours.seconds:.2f}s)"
    )
    spiel = load_openspiel()
    if spiel is None:
        yield "  OpenSpiel: not installed (pip install open_spiel) - no comparison"
        return
    theirs = bench_openspiel(spiel, seconds, seed)
    yield (
        f"  OpenSpiel: {theirs.playouts_per_second:10,.0f} playouts/s"
        f"  {theirs.actions_per_second:12,.0f} actions/s"
        f"  ({OPENSPIEL_GAME}, {theirs.playouts} playouts in {theirs.seconds:.2f}s)"
    )
    if theirs.playouts_per_second:
        ratio = ours.playouts_per_second / theirs.playouts_per_second
        yield f"  ratio rulekit/OpenSpiel playouts per second: {ratio:.2f}x"
