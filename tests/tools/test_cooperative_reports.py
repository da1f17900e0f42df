"""simulate, balance and the OpenSpiel game type of a cooperative game (tests/data/together).

One shared score: the reports give the success rate and the shared score, not per-seat win
rates ("33.3%" each) nor a balance between seats ("gap 0.0 pts: P1 over P1").
"""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from rulekit.cli import main
from rulekit.load import load_game
from rulekit.tools.balance import render_markdown, run_balance
from rulekit.tools.simulate import Config, simulate
from tests.ecosystem.extras import require

TOGETHER = str(Path(__file__).resolve().parents[1] / "data" / "together")
EASY = """variant: easy
ruleset: together
title: Easy
replace:
  scoring:
    outcome: cooperative
    score: sum(p.pile for p in players)
    success: 10
"""


def test_simulate_reports_the_success_rate_and_the_shared_score(capsys: pytest.CaptureFixture[str]) -> None:
    assert main(["simulate", TOGETHER, "--players", "3", "--games", "40"]) == 0
    out = capsys.readouterr().out
    assert "success rate " in out and "mean shared score" in out and "shared score distribution" in out
    assert "win rate" not in out and "P1 over" not in out and "33.3%" not in out


def test_simulate_counts_successes_by_the_threshold() -> None:
    game = load_game(TOGETHER, 2)
    sim = simulate(game, Config(TOGETHER), 30, seed=0)
    shared = sim.scores[0]
    assert sim.cooperative and sim.finished == 30
    assert sim.successes == sum(score >= 12 for score in shared) > 0  # 6 adds of 1 or 2: 6..12
    assert sim.successes < 30


def test_simulate_json_gives_the_shared_figures(capsys: pytest.CaptureFixture[str]) -> None:
    assert main(["simulate", TOGETHER, "--games", "20", "--json"]) == 0
    data = json.loads(capsys.readouterr().out)
    config = data["configurations"][0]
    assert data["outcome"] == "cooperative" and config["success_threshold"] == 12
    assert sum(config["shared_score_distribution"].values()) == config["finished"] == 20
    assert config["success_rate"] == config["successes"] / 20
    assert "seats" not in config and "shared_wins" not in data


def test_balance_compares_the_success_rate_not_seat_against_seat(tmp_path: Path) -> None:
    variant = tmp_path / "easy.yaml"
    variant.write_text(EASY, encoding="utf-8")
    games = (load_game(TOGETHER, 2), load_game(TOGETHER, 2, variants=[str(variant)]))
    configs = (Config(TOGETHER), Config(TOGETHER, variants=[str(variant)]))
    result = run_balance(games, configs, 60, batch=60, min_reached=1)
    assert result.cooperative
    assert [test.name for test in result.seat_wins()] == ["success"]
    success = result.seat_wins()[0]
    assert success.diff > 0  # success at 10 instead of 12: more games succeed
    names = [d.name for d in result.differences()]
    assert "shared score" in names and "P1 score" not in names and "winning margin" not in names
    report = render_markdown(result)
    assert "## Success rate" in report and "Win rate per seat" not in report
    assert result.to_json()["a"]["success_rate"] is not None


def test_openspiel_declares_a_cooperative_game_identical_and_others_as_before() -> None:
    pyspiel = require("pyspiel", "openspiel")
    from rulekit import openspiel as rk

    utility = pyspiel.GameType.Utility
    assert rk.register(TOGETHER, players=3).get_type().utility == utility.IDENTICAL
    assert rk.register("nim", players=2).get_type().utility == utility.ZERO_SUM
    game = rk.register(TOGETHER, players=2)
    pyspiel.random_sim_test(game, num_sims=3, serialize=True, verbose=False)
    state = game.new_initial_state()
    while not state.is_terminal():
        state.apply_action(state.legal_actions()[-1])  # add 2 every time: 12, a success
    assert state.returns() == [1.0, 1.0]
