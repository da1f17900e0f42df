"""Uniformly random playouts per CPU second, on a rulekit game or an OpenSpiel one, and
finding a ruleset's OpenSpiel counterpart (``openspiel.json``)."""

from __future__ import annotations

import json
import random
import time
from collections.abc import Callable, Sequence
from pathlib import Path
from typing import Any

from attrs import frozen

from rulekit.engine.game import Game


@frozen
class BenchResult:
    """Playouts and actions done in ``seconds`` of CPU time."""

    playouts: int
    actions: int
    seconds: float

    @property
    def playouts_per_second(self) -> float:
        return self.playouts / self.seconds if self.seconds else 0.0


def bench_rulekit(game: Game, seconds: float, seed: int = 0, max_actions: int = 100_000) -> BenchResult:
    """Uniformly random playouts from fresh states (seeds seed, seed+1, ...) for ``seconds``."""
    return random_playouts(lambda n: game.new_initial_state(seed + n), seconds, seed, max_actions)


def random_playouts(
    new_state: Callable[[int], Any],
    seconds: float,
    seed: int,
    max_actions: int | None = None,
) -> BenchResult:
    """Play uniformly random games from ``new_state(playout number)`` for ``seconds`` of CPU
    time (at least one game).

    Works on anything with OpenSpiel's state API (``is_terminal``, ``legal_actions``,
    ``apply_action``); a game is cut off after ``max_actions`` when that is given.
    """
    rng = random.Random(seed)
    clock = time.process_time
    wall = time.perf_counter
    playouts = actions = 0
    start = clock()
    deadline = start + seconds
    now = start
    # Reading the CPU clock is a system call (several microseconds on some machines, as much
    # as a tic-tac-toe action): read it only every few milliseconds of wall-clock time.
    check_at = wall()
    while True:
        state = new_state(playouts)
        taken = 0
        while not state.is_terminal() and (max_actions is None or taken < max_actions):
            state.apply_action(rng.choice(state.legal_actions()))
            taken += 1
        actions += taken
        playouts += 1
        if wall() >= check_at:
            now = clock()
            if now >= deadline:
                break
            check_at = wall() + min(0.005, deadline - now)
    return BenchResult(playouts, actions, now - start)


def bench_openspiel(game: Any, seconds: float, seed: int = 0) -> BenchResult:
    """The same random playout loop on an OpenSpiel game."""
    return random_playouts(lambda _: game.new_initial_state(), seconds, seed)


def openspiel_installed() -> bool:
    import importlib.util

    return importlib.util.find_spec("pyspiel") is not None


def load_openspiel(name: str, params: dict[str, Any] | None = None) -> Any | None:
    """An OpenSpiel game by name and parameters (its Python games registered), or None when
    OpenSpiel is not installed or has no such game."""
    import importlib

    try:
        importlib.import_module("open_spiel.python.games")  # registers OpenSpiel's Python games
        pyspiel = importlib.import_module("pyspiel")
    except ImportError:
        return None
    try:
        return pyspiel.load_game(name, params) if params else pyspiel.load_game(name)
    except Exception:  # pyspiel raises its own error type for unknown names
        return None


@frozen
class Counterpart:
    """A ruleset's OpenSpiel counterpart, as its ``openspiel.json`` names it: the OpenSpiel
    games (``python``, ``cpp``) with their parameters, and the rulekit configuration that
    plays the same game (its player count, variants and parameters)."""

    games: dict[str, str]
    params: dict[str, Any]
    players: int | None
    variants: tuple[str, ...]
    conformance: str

    def matches(self, players: int, modules: Sequence[str], variants: Sequence[str], low: int) -> bool:
        """Whether a rulekit configuration is the game compared (``low``: the fewest players)."""
        wanted = self.players if self.players is not None else low
        return players == wanted and not modules and tuple(variants) == self.variants


def openspiel_counterpart(ruleset_dir: Path) -> Counterpart | None:
    """The counterpart named in ``openspiel.json`` of a ruleset directory, or None::

        {"cpp": "pig", "params": {"winscore": 100}, "players": 2, "variants": ["openspiel"],
         "conformance": "tests/games/test_pig_openspiel.py"}

    ``params`` are OpenSpiel's game parameters; ``players`` (default: the fewest) and
    ``variants`` (variant names or ``param:NAME=VALUE`` settings) choose the rulekit game.
    """
    path = ruleset_dir / "openspiel.json"
    try:
        data = json.loads(path.read_text(encoding="utf-8"))
    except (OSError, ValueError):
        return None
    if not isinstance(data, dict):
        return None
    games = {k: str(v) for k, v in data.items() if k in ("python", "cpp")}
    if not games:
        return None
    params, players = data.get("params"), data.get("players")
    variants = data.get("variants")
    return Counterpart(
        games,
        dict(params) if isinstance(params, dict) else {},
        players if isinstance(players, int) and not isinstance(players, bool) else None,
        tuple(str(v) for v in variants) if isinstance(variants, list) else (),
        str(data.get("conformance") or ""),
    )


def openspiel_counterparts(ruleset_dir: Path) -> dict[str, str]:
    """The OpenSpiel games named in ``openspiel.json`` of a ruleset directory (``python``, ``cpp``)."""
    found = openspiel_counterpart(ruleset_dir)
    return dict(found.games) if found is not None else {}


def openspiel_note(ruleset_dirs: Sequence[Path]) -> str | None:
    """A line to print when a ruleset has an OpenSpiel counterpart but OpenSpiel is missing."""
    if any(openspiel_counterparts(d) for d in ruleset_dirs) and not openspiel_installed():
        return "OpenSpiel is not installed (pip install 'rulekit[openspiel]'): no OpenSpiel ratios"
    return None
