"""The benchmark's playout loop, on rulekit games and on anything with OpenSpiel's state API."""

from __future__ import annotations

import json
import os
from pathlib import Path

import pytest

from rulekit.cli import main
from rulekit.load import load_game
from rulekit.rules.compose import find_ruleset
from rulekit.tools.bench import (
    Case,
    Row,
    all_cases,
    bench_openspiel,
    bench_rulekit,
    compare,
    measure,
    measure_game,
    openspiel_counterparts,
    openspiel_installed,
    run_cases,
    to_json,
)


class _CountdownState:
    """A stand-in for an OpenSpiel state: three actions, then the game is over."""

    def __init__(self) -> None:
        self.left = 3

    def is_terminal(self) -> bool:
        return self.left == 0

    def legal_actions(self) -> list[int]:
        return [0, 1]

    def apply_action(self, action: int) -> None:
        self.left -= 1


class _CountdownGame:
    def new_initial_state(self) -> _CountdownState:
        return _CountdownState()


def test_the_openspiel_loop_plays_whole_games_and_counts_their_actions() -> None:
    """With no time left, one whole game is still played and all its actions counted."""
    result = bench_openspiel(_CountdownGame(), seconds=0.0)
    assert result.playouts == 1
    assert result.actions == 3


def test_a_rulekit_playout_is_cut_off_after_max_actions() -> None:
    """max_actions bounds a playout of a rulekit game."""
    result = bench_rulekit(load_game("tic_tac_toe", 2), seconds=0.0, max_actions=2)
    assert (result.playouts, result.actions) == (1, 2)


def _row(key: str, playouts_per_s: float, us_per_action: float) -> Row:
    return Row(
        key=key,
        ruleset=key,
        players=2,
        modules=(),
        playouts=10,
        actions=100,
        seconds=1.0,
        playouts_per_s=playouts_per_s,
        actions_per_s=100.0,
        us_per_action=us_per_action,
        legal_us=0.0,
        clone_us=1.0,
        state_fields=3,
    )


def test_compare_gives_each_figure_as_a_factor_where_more_is_better() -> None:
    """Twice the playouts and half the time per action both show as 2.00x; missing rows are named."""
    baseline = to_json([_row("a 2p", 10.0, 40.0)], {"label": "before"})
    lines = list(compare([_row("a 2p", 20.0, 20.0), _row("b 2p", 1.0, 1.0)], baseline))
    assert lines[0] == "change against before (x > 1: better)"
    a_line = next(line for line in lines if line.startswith("a 2p"))
    assert a_line.split()[2:5] == ["2.00x", "1.00x", "2.00x"]
    assert any(line.startswith("b 2p") and "not in the baseline" in line for line in lines)


def test_all_cases_cover_every_player_count_and_all_modules_together() -> None:
    """--all: each ruleset at each allowed player count, one with modules also with all of them."""
    cases = all_cases()
    keys = {c.key for c in cases}
    assert {"tic_tac_toe 2p", "el_capitan 2p", "el_capitan 5p", "el_caballero 4p"} <= keys
    assert "tic_tac_toe 3p" not in keys
    with_modules = [c for c in cases if c.ruleset == "el_capitan" and c.modules]
    assert sorted(with_modules[0].modules) == ["islas_canarias", "lisboa", "porto"]
    assert {c.players for c in with_modules} <= {2, 3, 4, 5}


def test_only_a_ruleset_that_names_an_openspiel_game_gets_a_counterpart() -> None:
    """openspiel.json names the counterparts; a ruleset without one has none (and prints no ratio)."""
    assert openspiel_counterparts(find_ruleset("tic_tac_toe")) == {
        "python": "python_tic_tac_toe",
        "cpp": "tic_tac_toe",
    }
    assert openspiel_counterparts(find_ruleset("el_capitan")) == {}


def test_measure_reports_per_action_figures_and_no_ratio_without_a_counterpart() -> None:
    """A measured row has positive per-action, listing and clone figures and no OpenSpiel ratio."""
    game = load_game("tic_tac_toe", 2)
    row = measure(game, Case("tic_tac_toe", 2), seconds=0.05, rounds=2)
    assert row.playouts >= 2
    assert row.us_per_action > 0 and row.legal_us > 0 and row.clone_us > 0
    assert row.state_fields > 0
    assert row.openspiel_python is None and row.openspiel_cpp is None


def test_bench_json_is_written_and_read_back_by_compare(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    """--json writes the rows; --compare reads such a file and prints the change of each figure."""
    out = tmp_path / "figures.json"
    assert main(["bench", "tic_tac_toe", "--seconds", "0.05", "--rounds", "1", "--json", str(out)]) == 0
    data = json.loads(out.read_text())
    assert [r["key"] for r in data["rows"]] == ["tic_tac_toe 2p"]
    assert main(["bench", "tic_tac_toe", "--seconds", "0.05", "--rounds", "1", "--compare", str(out)]) == 0
    assert "change against" in capsys.readouterr().out


def test_bench_needs_a_ruleset_or_all_but_not_both(capsys: pytest.CaptureFixture[str]) -> None:
    """Neither or both of RULESET and --all is a usage error (exit 2)."""
    assert main(["bench"]) == 2
    assert main(["bench", "tic_tac_toe", "--all"]) == 2
    assert "RULESET or --all" in capsys.readouterr().err


@pytest.mark.skipif(
    not openspiel_installed() and not os.environ.get("CI"),
    reason="open_spiel is not installed (pip install 'rulekit[openspiel]')",
)
def test_tic_tac_toe_is_measured_against_both_openspiel_games_in_alternating_rounds() -> None:
    """With OpenSpiel installed, tic-tac-toe gets Python and C++ ratios as (min, median, max)."""
    row = measure_game(load_game("tic_tac_toe", 2), find_ruleset("tic_tac_toe"), seconds=0.1, rounds=5)
    assert row.openspiel_python is not None and row.openspiel_cpp is not None
    low, mid, high = row.openspiel_python
    assert 0 < low <= mid <= high


def test_workers_measure_the_same_configurations_in_the_same_order() -> None:
    """--workers N measures every case in a worker process: the rows name the same cases, in
    the same order, each with its playouts and the number of workers that shared the machine."""
    cases = [Case("tic_tac_toe", 2), Case("tic_tac_toe", 2)]
    alone = run_cases(cases, seconds=0.05, seed=0, rounds=1)
    shared = run_cases(cases, seconds=0.05, seed=0, rounds=1, workers=2)
    assert [r.key for r in shared] == [r.key for r in alone]
    assert all(r.playouts >= 1 and r.workers == 2 for r in shared)


def test_bench_measures_on_all_cores_by_default() -> None:
    import os

    from rulekit.cli import build_parser

    args = build_parser(plugins=False)[0].parse_args(["bench", "--all"])
    assert args.workers == (os.cpu_count() or 1)


def test_a_row_counts_the_processes_that_measured_at_once_not_the_workers_asked_for() -> None:
    cases = [Case("tic_tac_toe", 2), Case("tic_tac_toe", 2)]
    rows = run_cases(cases, seconds=0.05, seed=0, rounds=1, workers=8)
    assert [r.workers for r in rows] == [2, 2]
