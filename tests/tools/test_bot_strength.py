"""The bots play well: one MCTS or heuristic bot against random bots wins far more than its share.

With four players a bot as good as its opponents wins a quarter of the games; these runs
are small (a 2-core CI machine plays them in a few minutes), so the thresholds sit well
below the rates measured on 50 games (docs/bots.md) and well above a quarter.
"""

from __future__ import annotations

import pytest

from rulekit.tools.runner import GameRecord, GameTask, run_tasks

ALL_TILES = ("islas_canarias", "lisboa", "porto")
MCTS = "mcts:iterations=50:cutoff=4"


def _first_seat_wins(ruleset: str, modules: tuple[str, ...], bots: str, games: int) -> float:
    tasks = [GameTask(ruleset, modules, (), 4, seed, bots, 10_000) for seed in range(games)]
    records: list[GameRecord] = list(run_tasks(tasks, workers=2))
    assert all(r.finished for r in records)
    return sum(1 / len(r.winners) for r in records if 0 in r.winners) / games


@pytest.mark.slow
@pytest.mark.parametrize(("ruleset", "modules"), [("el_capitan", ALL_TILES), ("el_caballero", ())])
def test_one_mcts_bot_beats_three_random_bots(ruleset: str, modules: tuple[str, ...]) -> None:
    assert _first_seat_wins(ruleset, modules, f"{MCTS},random,random,random", 6) >= 4 / 6


@pytest.mark.slow
@pytest.mark.parametrize(
    ("ruleset", "modules", "games"), [("el_capitan", ALL_TILES, 20), ("el_caballero", (), 4)]
)
def test_one_heuristic_bot_beats_three_random_bots(
    ruleset: str, modules: tuple[str, ...], games: int
) -> None:
    assert _first_seat_wins(ruleset, modules, "heuristic,random,random,random", games) >= 0.4
