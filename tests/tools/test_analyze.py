"""``rulekit analyze``: each game metric on hand-made games whose answer is known, the traces the
runner records, the command's report (JSON, Markdown, HTML, plots) on small rulesets and on every
shipped one, the same metrics in ``balance``, traces in a results database, and the HTML report in
a real browser."""

from __future__ import annotations

import json
import math
import os
import sqlite3
import stat
from pathlib import Path
from typing import Any

import pytest

from rulekit.cli import main
from rulekit.errors import Diagnostic, RuleEvaluationError
from rulekit.load import load_program
from rulekit.tools.analyze import metrics
from rulekit.tools.runner import GameTask, play_task
from rulekit.tools.trace import GameTrace, scores_or_none
from tests.ecosystem.extras import require
from tests.rulesets import shipped_rulesets
from tests.view.conftest import browser  # noqa: F401  (the fixture of the browser check)

# ---------------------------------------------------------------- the metrics, by hand


def test_the_length_distribution_has_quartiles_and_a_histogram() -> None:
    found = metrics.distribution([5, 1, 4, 2, 3], bins=2)
    assert (found["mean"], found["median"], found["min"], found["max"]) == (3, 3, 1, 5)
    assert (found["q1"], found["q3"]) == (1.5, 4.5)  # medians of [1, 2] and [4, 5]
    assert [b["count"] for b in found["histogram"]] == [2, 3]  # [1, 3) and [3, 5]


def test_an_empty_distribution_has_no_figures() -> None:
    assert metrics.distribution([])["mean"] is None and metrics.distribution([])["histogram"] == []


def test_branching_is_the_mean_over_decisions_and_by_phase() -> None:
    found = metrics.branching([[3, 1], [2, 2, 2, 2]], phases=2)
    assert found["mean"] == 2 and found["decisions"] == 6 and found["max"] == 3
    assert found["forced_share"] == pytest.approx(1 / 6)
    # game 1: 3 in the first half, 1 in the second; game 2: 2, 2 | 2, 2
    assert found["by_phase"] == pytest.approx([7 / 3, 5 / 3])


def test_the_leader_is_the_sole_highest_score() -> None:
    assert metrics.leaders([[0, 0], [1, 0], [1, 1], [1, 2]]) == [None, 0, None, 1]


def test_lead_changes_count_new_leaders_and_not_ties() -> None:
    trajectory = [[0, 0], [1, 0], [1, 1], [1, 2], [3, 2], [3, 3], [4, 3]]
    assert metrics.lead_changes(trajectory) == 2  # P1 -> P2 -> P1; the ties change nothing
    assert metrics.lead_changes([[0, 0], [1, 0], [1, 1], [2, 1]]) == 0


def test_the_decisive_point_is_where_the_winner_leads_for_good() -> None:
    trajectory = [[0, 0], [1, 0], [0, 1], [2, 1], [3, 1]]
    assert metrics.decisive_point(trajectory, 0) == 0.75  # leads from point 3 of 0-4
    assert metrics.decisive_point([[1, 0], [2, 0]], 0) == 0.0
    assert metrics.decisive_point([[0, 0], [0, 0], [1, 0]], 0) == 1.0  # only at the end
    assert metrics.decisive_point([[1, 0], [1, 1]], 0) is None  # tied at the end


def test_a_loser_is_out_of_the_race_after_its_last_share_of_the_lead() -> None:
    assert metrics.out_of_race([[0, 0], [1, 0], [2, 0], [3, 0]], [0], 2) == [0.75]
    assert metrics.out_of_race([[1, 0], [2, 0]], [0], 2) == [1.0]  # never led
    assert metrics.out_of_race([[0, 0], [1, 1], [2, 1]], [0], 2) == [1 / 3]
    assert metrics.out_of_race([[0, 0, 0], [2, 1, 0]], [0], 3) == [0.5, 0.5]


def test_points_without_a_score_have_no_leader() -> None:
    trajectory = [None, [1, 0], None, [0, 1], [2, 1]]
    assert metrics.leaders(trajectory) == [None, 0, None, 1, 0]
    assert metrics.lead_changes(trajectory) == 2
    assert metrics.decisive_point(trajectory, 0) == 1.0
    assert metrics.out_of_race([None, [0, 0], None, [1, 0]], [0], 2) == [0.5]


def test_seat_advantage_has_the_wilson_interval() -> None:
    found = metrics.seat_advantage([3, 1], 4)
    z, p, n = 1.96, 0.75, 4
    centre = (p + z * z / (2 * n)) / (1 + z * z / n)
    half = z * math.sqrt(p * (1 - p) / n + z * z / (4 * n * n)) / (1 + z * z / n)
    assert found[0]["win_rate"] == 0.75 and found[1]["win_rate"] == 0.25
    assert found[0]["win_rate_95"] == pytest.approx([centre - half, centre + half], abs=1e-6)


def test_the_phase_of_a_point_spreads_short_games_evenly() -> None:
    assert [metrics.phase_of(i, 5) for i in range(5)] == [1, 3, 5, 7, 9]
    assert [metrics.phase_of(i, 20) for i in range(20)] == [i // 2 for i in range(20)]


# ---------------------------------------------------------------- traces


def _task(ruleset: str, seed: int, *, trace: bool, players: int = 2, bots: str = "random") -> GameTask:
    return GameTask(ruleset, (), (), players, seed, bots, 10_000, trace=trace)


def test_tracing_leaves_the_game_as_it_was_played() -> None:
    for seed in range(3):
        plain, traced = play_task(_task("pig", seed, trace=False)), play_task(_task("pig", seed, trace=True))
        assert plain.trace is None and traced.trace is not None
        assert (plain.scores, plain.winners, plain.length, plain.fired) == (
            traced.scores,
            traced.winners,
            traced.length,
            traced.fired,
        )


def test_a_trace_holds_each_decision_and_the_scores_before_it() -> None:
    record = play_task(_task("tic_tac_toe", 5, trace=True))
    trace = record.trace
    assert trace is not None and len(trace.legal) == record.length == len(trace.scores) - 1
    assert trace.legal[:3] == (9, 8, 7)  # one square fewer each move
    assert trace.deciders[:4] == (0, 1, 0, 1)
    assert trace.scores[-1] == record.scores


def test_a_score_the_rules_cannot_compute_mid_game_is_traced_as_none() -> None:
    class Failing:
        def scores(self) -> list[int]:
            raise RuleEvaluationError(Diagnostic("a score meant for the end"))

    assert scores_or_none(Failing()) is None  # type: ignore[arg-type]
    data = {"deciders": [0], "legal": [2], "scores": [None, [1, 0]]}
    assert GameTrace.from_json(data, 2, 1).scores == (None, (1, 0))


def test_a_trace_read_back_is_checked_against_its_game() -> None:
    good = {"deciders": [0, 1], "legal": [2, 1], "scores": [[0, 0], [0, 0], [1, 0]]}
    assert GameTrace.from_json(good, 2, 2).legal == (2, 1)
    for bad, players, length in [
        (good, 2, 3),
        (good, 1, 2),
        ({**good, "legal": [2, 0]}, 2, 2),
        ({**good, "scores": [[0, 0], [0, 0], [1.5, 0]]}, 2, 2),
        ({**good, "extra": 1}, 2, 2),
        ([], 2, 2),
    ]:
        with pytest.raises(ValueError):
            GameTrace.from_json(bad, players, length)


# ---------------------------------------------------------------- the command


def _analyze(tmp_path: Path, capsys: pytest.CaptureFixture[str], *argv: str) -> dict[str, Any]:
    out = tmp_path / "report"
    assert main(["analyze", *argv, "--workers", "1", "--json", "--out", str(out)]) == 0
    data = json.loads(capsys.readouterr().out)
    assert json.loads((out / "report.json").read_text()) == data
    return data


@pytest.mark.parametrize("ruleset", ["tic_tac_toe", "pig", "nim"])
def test_analyze_reports_every_metric(
    ruleset: str, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    data = _analyze(tmp_path, capsys, ruleset, "--games", "4", "--seed", "3")
    found = data["metrics"]
    assert data["seeds"] == [3, 6] and found["games"] == 4
    assert set(found) >= {
        "length",
        "branching",
        "lead_changes",
        "decisiveness",
        "out_of_race",
        "seats",
        "first_player",
        "draws",
        "fired",
        "never_fired",
    }
    assert found["length"]["n"] == found["finished"]
    assert found["branching"]["decisions"] > 0
    assert len(found["branching"]["by_phase"]) == metrics.PHASES
    assert len(found["seats"]) == found["players"]
    rules = {f["rule"] for f in found["fired"]}
    assert any(r.startswith("action:") for r in rules)
    for name in ("report.md", "report.html"):
        assert (tmp_path / "report" / name).read_text().startswith(("# Analysis", "<!DOCTYPE html>"))


def test_tic_tac_toe_branching_falls_by_one_a_move(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    found = _analyze(tmp_path, capsys, "tic_tac_toe", "--games", "3")["metrics"]
    assert found["branching"]["max"] == 9 and found["branching"]["by_phase"][0] == 9


def test_rules_that_never_fired_are_listed(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    # the first legal action of pig is always a roll: nobody ever holds, no game ends
    data = _analyze(tmp_path, capsys, "pig", "--games", "2", "--bots", "first", "--max-actions", "60")
    found = data["metrics"]
    assert "action:hold" in found["never_fired"] and "action:roll" not in found["never_fired"]
    assert found["cut_off"] == 2 and found["finished"] == 0
    hold = next(f for f in found["fired"] if f["rule"] == "action:hold")
    assert hold == {"rule": "action:hold", "games": 0, "total": 0, "per_game": 0.0}
    assert "Never fired: action:hold" in (tmp_path / "report" / "report.md").read_text()


def test_the_figures_do_not_depend_on_the_workers(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    one = _analyze(tmp_path / "1", capsys, "pig", "--games", "4")
    out = tmp_path / "2"
    assert main(["analyze", "pig", "--games", "4", "--workers", "2", "--json", "--out", str(out)]) == 0
    assert json.loads(capsys.readouterr().out) == one


def test_report_files_have_the_mode_of_any_file_written(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    require("matplotlib", "plots")
    old = os.umask(0o022)
    try:
        _analyze(tmp_path, capsys, "pig", "--games", "2")
    finally:
        os.umask(old)
    files = sorted((tmp_path / "report").iterdir())
    assert {f.name for f in files} >= {"report.md", "report.html", "report.json", "branching.png"}
    assert all(stat.S_IMODE(f.stat().st_mode) == 0o644 for f in files)


def test_the_html_report_escapes_what_it_quotes(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    hostile = tmp_path / "<img src=x onerror=alert(1)>"
    hostile.mkdir()
    source = Path(__file__).resolve().parents[2] / "rulesets" / "pig" / "ruleset.yaml"
    (hostile / "ruleset.yaml").write_text(source.read_text())
    (hostile / "properties.yaml").write_text((source.parent / "properties.yaml").read_text())
    _analyze(tmp_path, capsys, str(hostile), "--games", "1")
    page = (tmp_path / "report" / "report.html").read_text()
    assert "&lt;img src=x onerror=alert(1)&gt;" in page and "<img src=x" not in page
    assert "<script" not in page and "default-src &#39;none&#39;" in page


@pytest.mark.parametrize(
    "argv", [["--games", "0"], ["--workers", "0"], ["--max-actions", "0"], ["--bots", "nope"]]
)
def test_analyze_usage_errors(argv: list[str], capsys: pytest.CaptureFixture[str]) -> None:
    assert main(["analyze", "pig", *argv]) == 2
    assert "error" in capsys.readouterr().err


def test_analyze_names_a_report_directory_it_cannot_make(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    blocker = tmp_path / "file"
    blocker.write_text("")
    assert main(["analyze", "pig", "--games", "1", "--out", str(blocker / "report")]) == 1
    assert str(blocker) in capsys.readouterr().err


@pytest.mark.parametrize("ruleset", [p.name for p in shipped_rulesets()])
def test_analyze_runs_on_every_shipped_ruleset(
    ruleset: str, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    found = _analyze(tmp_path, capsys, ruleset, "--games", "2", "--max-actions", "3000")["metrics"]
    assert found["games"] == 2 and found["branching"]["decisions"] > 0
    # every decision applied one action
    assert (
        sum(f["total"] for f in found["fired"] if f["rule"].startswith("action:"))
        == found["branching"]["decisions"]
    )
    assert len(found["score_by_phase"]) == load_program(ruleset).rules.min_players == found["players"]


# ---------------------------------------------------------------- balance


def test_balance_reports_the_metrics_of_both_sides(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    out = tmp_path / "report"
    argv = [
        "balance",
        "pig",
        "--variant",
        _some_variant("pig"),
        "--games",
        "6",
        "--batch",
        "6",
        "--workers",
        "1",
    ]
    assert main([*argv, "--strength-games", "0", "--out", str(out), "--json"]) == 0
    data = json.loads(capsys.readouterr().out)
    a, b = data["game_metrics"]["a"], data["game_metrics"]["b"]
    assert a["games"] == b["games"] == data["games"]
    assert a["length"]["mean"] == pytest.approx(sum(data["a"]["lengths"]) / len(data["a"]["lengths"]))
    text = (out / "report.md").read_text()
    assert "## Game metrics, side by side" in text and "| | A (base) | B (variant) |" in text.replace(
        "|  |", "| |"
    )


def _some_variant(ruleset: str) -> str:
    variants = sorted(
        (Path(__file__).resolve().parents[2] / "rulesets" / ruleset / "variants").glob("*.yaml")
    )
    return variants[0].stem


def test_traces_in_a_results_database_are_read_back_and_checked(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    db = tmp_path / "r.db"
    variant = _some_variant("pig")
    argv = ["balance", "pig", "--variant", variant, "--games", "4", "--batch", "4", "--workers", "1"]
    argv += ["--strength-games", "0", "--db", str(db), "--json"]
    assert main([*argv, "--out", str(tmp_path / "a")]) == 0
    first = json.loads(capsys.readouterr().out)["game_metrics"]
    with sqlite3.connect(db) as connection:
        assert connection.execute("SELECT count(*) FROM traces").fetchone()[0] == 8
    assert main([*argv, "--resume", "--out", str(tmp_path / "b")]) == 0
    assert json.loads(capsys.readouterr().out)["game_metrics"] == first
    with sqlite3.connect(db) as connection:
        connection.execute("UPDATE traces SET trace = '{\"deciders\": [0]}' WHERE seed = 2")
    assert main([*argv, "--resume", "--out", str(tmp_path / "c")]) == 1
    err = capsys.readouterr().err
    assert "table traces, game of seed 2, column trace" in err and str(db) in err


# ---------------------------------------------------------------- the HTML report in a browser


def test_the_html_report_shows_its_plots_in_a_browser(
    browser: Any,  # noqa: F811
    tmp_path: Path,
    capsys: pytest.CaptureFixture[str],
) -> None:
    require("matplotlib", "plots")
    _analyze(tmp_path, capsys, "pig", "--games", "3")
    browser.get((tmp_path / "report" / "report.html").as_uri())
    sizes = browser.execute_script(
        "return Array.from(document.images).map(i => [i.alt, i.complete, i.naturalWidth, i.naturalHeight])"
    )
    assert [s[0] for s in sizes] == ["length_histogram", "branching", "scores"]
    assert all(complete and width > 0 and height > 0 for _, complete, width, height in sizes)
    assert browser.title.startswith("Analysis: pig")
