"""rulekit balance: paired statistics, the sequential test, the report files."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from rulekit.cli import main
from rulekit.tools.balance import Balance, holm, paired
from rulekit.tools.runner import GameRecord
from rulekit.tools.simulate import Config
from tests.ecosystem.extras import require


def test_a_paired_difference_is_the_mean_of_the_per_seed_differences() -> None:
    d = paired("x", [1, 2, 3, 4], [2, 4, 3, 7])
    assert d.diff == pytest.approx(1.5)
    # differences 1, 2, 0, 3: sd = 1.29099, se = 0.645497
    assert d.low == pytest.approx(1.5 - 1.96 * 0.645497, abs=1e-5)
    assert d.p == pytest.approx(0.020137, abs=1e-5)
    assert d.significant


def test_no_spread_means_a_point_interval() -> None:
    same = paired("x", [1, 1, 1], [1, 1, 1])
    assert (same.low, same.high, same.p, same.significant) == (0, 0, 1.0, False)


def test_holm_keeps_only_what_survives_the_correction() -> None:
    tests = [paired(str(i), [0.0] * 4, [0.0] * 4) for i in range(3)]
    for test, p in zip(tests, [0.01, 0.02, 0.04], strict=True):
        test.p = p
    holm(tests, 0.05)
    # 0.01 <= 0.05/3, 0.02 <= 0.05/2, 0.04 <= 0.05/1: all three
    assert [t.holm for t in tests] == [True, True, True]
    tests[0].p = 0.02
    for t in tests:
        t.holm = False
    holm(tests, 0.05)
    assert [t.holm for t in tests] == [False, False, False]  # 0.02 > 0.05/3 stops it at once


def _record(seed: int, winner: int) -> GameRecord:
    scores = (1, 0) if winner == 0 else (0, 1)
    return GameRecord(seed, ("random", "random"), "f", (), (), True, scores, (winner,), 9, {}, 0.0)


def _balance(planned: int = 400) -> Balance:
    return Balance(Config("g"), Config("g", variants=["v"]), ("a", "b"), 2, "random", planned, 50, 0.05, 0.05)


def test_the_sequential_test_stops_when_a_seat_clearly_changes() -> None:
    result = _balance()
    result.games_a = [_record(s, 0) for s in range(50)]
    result.games_b = [_record(s, 1) for s in range(50)]  # P1 won every game, now P2 does
    assert result.look()
    assert "stopped early after 50 games: a seat's win rate changed" in result.stopped


def test_the_sequential_test_stops_when_no_seat_can_change_much() -> None:
    result = _balance()
    result.games_a = [_record(s, s % 2) for s in range(50)]
    # the same winners, other games (identical games would mean the variant was never reached)
    result.games_b = [
        GameRecord(s, r.seats, "f", (), (), True, r.scores, r.winners, 10, {}, 0.0)
        for s, r in enumerate(result.games_a)
    ]
    assert result.look()
    assert "no seat's win rate changes by 5 points or more" in result.stopped


def test_the_sequential_test_plays_on_while_no_game_changed() -> None:
    result = _balance()
    result.games_a = [_record(s, s % 2) for s in range(50)]
    result.games_b = list(result.games_a)
    assert not result.look()
    assert result.looks[-1]["differing_games"] == 0 and not result.looks[-1]["reached"]


def test_the_sequential_test_plays_on_while_unsure() -> None:
    result = _balance()
    result.games_a = [_record(s, s % 2) for s in range(50)]
    result.games_b = [_record(s, (s // 2) % 2) for s in range(50)]
    assert not result.look()


def test_the_critical_value_grows_with_the_planned_looks() -> None:
    assert _balance(50).critical() == pytest.approx(2.2414, abs=1e-4)  # 1 look, 2 seats
    assert _balance(400).critical() > _balance(100).critical()


def test_balance_finds_that_misere_swaps_the_seats_and_writes_the_report(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    require("matplotlib", "plots")
    out = tmp_path / "report"
    argv = [
        "balance",
        "tic_tac_toe",
        "--variant",
        "misere",
        "--games",
        "200",
        "--batch",
        "100",
        "--workers",
        "1",
    ]
    assert main([*argv, "--out", str(out)]) == 0
    text = capsys.readouterr().out
    assert "| P1 win share |" in text and "Significant after correction: P1 win share" in text
    data = json.loads((out / "report.json").read_text())
    first = next(d for d in data["differences"] if d["name"] == "P1 win share")
    assert first["difference"] < -0.1 and first["significant_holm"]
    length = next(d for d in data["differences"] if d["name"] == "game length")
    assert not length["significant"]  # misère changes who wins, not how long games are
    assert (out / "report.md").read_text() == text.split("report written to")[0]
    for name in ("win_rate.png", "scores.png", "length.png"):
        assert (out / name).read_bytes()[:4] == b"\x89PNG"


@pytest.mark.parametrize(
    ("extra", "message"),
    [
        ([], "balance needs --variant"),
        (["--variant", "misere", "--games", "1"], "at least 2"),
        (["--variant", "misere", "--resume"], "--resume needs --db"),
        (["--variant", "misere", "--bots", "heuristic"], "needs the ruleset's bots.evaluate"),
    ],
)
def test_balance_usage_errors(extra: list[str], message: str, capsys: pytest.CaptureFixture[str]) -> None:
    assert main(["balance", "tic_tac_toe", *extra]) == 2
    assert message in capsys.readouterr().err
