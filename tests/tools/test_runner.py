"""Playing many games: workers and Ray give the same results, the SQLite file, --resume after a kill."""

from __future__ import annotations

import json
import sqlite3
import subprocess
import sys
import time
from pathlib import Path

import pytest

from rulekit.cli import main
from rulekit.errors import RulekitError
from rulekit.tools.runner import (
    MAX_BATCH,
    GameRecord,
    GameTask,
    ResultsDB,
    batches,
    game_for,
    play_all,
    run_tasks,
)
from tests.ecosystem.extras import require


def _tasks(ruleset: str, players: int, seeds: range, bots: str) -> list[GameTask]:
    return [GameTask(ruleset, (), (), players, s, bots, 10_000) for s in seeds]


def _outcome(record: GameRecord) -> tuple[object, ...]:
    """Everything but the duration."""
    return (
        record.seed,
        record.seats,
        record.fingerprint,
        record.scores,
        record.winners,
        record.length,
        record.fired,
    )


def test_records_say_who_played_what_happened_and_what_fired() -> None:
    (record,) = run_tasks(_tasks("tic_tac_toe", 2, range(3, 4), "mcts:iterations=20,random"))
    assert record.seats == ("mcts:iterations=20", "random")
    assert record.finished and record.winners
    # only the game's own actions count, not the many a searching bot tries
    assert record.fired["action:place"] == record.length


def test_two_workers_give_the_results_of_one() -> None:
    tasks = _tasks("tic_tac_toe", 2, range(20), "mcts:iterations=5,random")
    one = sorted(map(_outcome, run_tasks(tasks, workers=1)))
    two = sorted(map(_outcome, run_tasks(tasks, workers=2)))
    assert one == two


def test_three_workers_give_the_results_of_one_over_many_batches() -> None:
    tasks = _tasks("tic_tac_toe", 2, range(150), "random")
    assert len(batches(tasks, 3)) < len(tasks)
    one = sorted(map(_outcome, run_tasks(tasks, workers=1)))
    three = sorted(map(_outcome, run_tasks(tasks, workers=3)))
    assert one == three


@pytest.mark.parametrize(("count", "workers"), [(1, 2), (7, 2), (400, 2), (1000, 8), (33, 5)])
def test_batches_give_every_task_once_in_order_large_first_and_single_at_the_end(
    count: int, workers: int
) -> None:
    tasks = _tasks("tic_tac_toe", 2, range(count), "random")
    cut = batches(tasks, workers)
    assert [t for batch in cut for t in batch] == tasks
    sizes = [len(batch) for batch in cut]
    assert all(1 <= size <= MAX_BATCH for size in sizes)
    assert sizes == sorted(sizes, reverse=True)
    assert sizes[-workers:] == [1] * min(workers, len(sizes))


def test_a_run_stored_in_the_database_is_read_back_not_played_again(tmp_path: Path) -> None:
    tasks = _tasks("tic_tac_toe", 2, range(6), "random")
    fingerprint = game_for(tasks[0]).program.fingerprint  # the key the records are stored under
    with ResultsDB(tmp_path / "r.sqlite") as db:
        first = play_all(tasks[:4], fingerprint, db=db)
        heard: list[tuple[int, bool]] = []
        both = play_all(
            tasks, fingerprint, db=db, resume=True, progress=lambda r, stored: heard.append((r.seed, stored))
        )
    assert [r.seed for r in both] == list(range(6))
    # the progress hears of the stored games too, first, and knows they were read back
    assert heard[:4] == [(seed, True) for seed in range(4)]
    assert sorted(heard[4:]) == [(4, False), (5, False)]
    assert [_outcome(r) for r in both[:4]] == [_outcome(r) for r in first]


def test_games_played_with_other_rules_than_the_run_started_with_are_refused(tmp_path: Path) -> None:
    # what a worker reports when the rule files were edited after the run compiled them
    tasks = _tasks("tic_tac_toe", 2, range(2), "random")
    with ResultsDB(tmp_path / "r.sqlite") as db, pytest.raises(RulekitError, match="the rules changed"):
        play_all(tasks, "0123456789abcdef", db=db)


def test_a_stored_run_is_not_overwritten_without_resume(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    db = str(tmp_path / "r.sqlite")
    argv = ["simulate", "tic_tac_toe", "--games", "3", "--workers", "1", "--db", db]
    assert main(argv) == 0
    capsys.readouterr()
    assert main(argv) == 2
    assert "already holds 3 of these games" in capsys.readouterr().err
    assert main([*argv, "--games", "5", "--resume"]) == 0
    # the speed is that of the 2 games played now, not of the 3 read back
    assert ", 3 read back from --db)" in capsys.readouterr().out.splitlines()[-1]


def test_a_file_that_is_not_a_database_is_a_clear_error(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    bad = tmp_path / "notes.sqlite"
    bad.write_text("not a database, just notes\n" * 100)
    assert main(["simulate", "tic_tac_toe", "--games", "2", "--db", str(bad)]) == 1
    assert "not a rulekit results database" in capsys.readouterr().err
    nowhere = str(tmp_path / "no such directory" / "r.sqlite")
    assert main(["simulate", "tic_tac_toe", "--games", "2", "--db", nowhere]) == 1
    assert "cannot open it as a results database (unable to open database file)" in capsys.readouterr().err


def _rows(path: Path) -> list[tuple[object, ...]]:
    with sqlite3.connect(path) as connection:
        return connection.execute(
            "SELECT seed, seats, fingerprint, modules, variants, finished, scores, winner, length, fired"
            " FROM games ORDER BY seed"
        ).fetchall()


def _stored(path: Path) -> int:
    """How many games a running simulation has stored so far (0 before it made its table)."""
    try:
        return len(_rows(path)) if path.exists() else 0
    except sqlite3.OperationalError:  # the file exists, its table not yet
        return 0


@pytest.mark.slow
def test_a_killed_run_resumes_without_losing_or_repeating_a_game(tmp_path: Path) -> None:
    games = 16
    # A searching bot makes each game take ~0.4 s, so the kill lands mid-way however fast
    # random playouts become (with random bots the 16 games once ended before the first poll).
    argv = [
        sys.executable, "-m", "rulekit", "simulate", "el_caballero", "--players", "2",
        "--games", str(games), "--workers", "1", "--bots", "mcts:iterations=5,random", "--json",
    ]  # fmt: skip
    killed = tmp_path / "killed.sqlite"
    process = subprocess.Popen(
        [*argv, "--db", str(killed)], stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL
    )
    deadline = time.monotonic() + 300
    try:
        while time.monotonic() < deadline and process.poll() is None:
            if _stored(killed) >= 3:
                break
            time.sleep(0.2)
    finally:
        process.kill()
        process.wait()
    stored = len(_rows(killed))
    assert 3 <= stored < games, "the run was not killed mid-way"
    resumed = subprocess.run(
        [*argv, "--db", str(killed), "--resume"], capture_output=True, text=True, check=True
    )
    whole = tmp_path / "whole.sqlite"
    uninterrupted = subprocess.run([*argv, "--db", str(whole)], capture_output=True, text=True, check=True)
    assert _rows(killed) == _rows(whole)
    assert len(_rows(whole)) == games
    report = json.loads(resumed.stdout)["configurations"][0]
    del report["timing"]
    expected = json.loads(uninterrupted.stdout)["configurations"][0]
    del expected["timing"]
    assert report == expected


@pytest.mark.slow  # a local Ray takes half a minute to start on a small machine
def test_ray_gives_the_results_of_a_local_run() -> None:
    require("ray", "ray")
    tasks = _tasks("tic_tac_toe", 2, range(6), "mcts:iterations=5,random")
    local = sorted(map(_outcome, run_tasks(tasks)))
    on_ray = sorted(map(_outcome, run_tasks(tasks, executor="ray")))
    assert on_ray == local
