"""rulekit balance reports that cannot mislead: what the variant changes, how often the changed
rules fired, no verdict where they did not, the bots' strength, the plots' file mode."""

from __future__ import annotations

import json
import os
import shutil
import stat
from pathlib import Path
from typing import Any

import pytest

from rulekit.cli import main
from rulekit.tools.balance import Balance
from rulekit.tools.runner import GameRecord
from rulekit.tools.simulate import Config
from tests.ecosystem.extras import require

ROOT = Path(__file__).resolve().parents[2]

#: A rule Pig can never reach: no die shows more than SIDES.
JACKPOT = """triggers:
  jackpot:
    doc: A face above the die's sides pays ten more (it never happens).
    after: rolled
    when: face > SIDES
    effect: turn.total += 10
"""


@pytest.fixture
def unreachable(tmp_path: Path) -> tuple[Path, Path]:
    """A copy of Pig (to 30 points) with a rule it never reaches, and a variant changing that rule."""
    ruleset = tmp_path / "pig"
    shutil.copytree(ROOT / "rulesets" / "pig", ruleset)
    main_file = ruleset / "ruleset.yaml"
    text = main_file.read_text()
    assert "GOAL: 100" in text
    # a shorter race keeps the games fast
    main_file.write_text(text.replace("triggers:\n", JACKPOT, 1).replace("GOAL: 100", "GOAL: 30", 1))
    (ruleset / "modules").mkdir()
    (ruleset / "modules" / "loaded_die.yaml").write_text(
        "module: loaded_die\ntitle: A die whose six is a jackpot\n"
        "override:\n  triggers:\n"
        "    jackpot: {after: rolled, when: face == SIDES, effect: turn.total += 10}\n"
    )
    variant = tmp_path / "big_jackpot.yaml"
    variant.write_text(
        "variant: big_jackpot\ntitle: A bigger jackpot\nruleset: pig\n"
        "set:\n  triggers.jackpot.effect: turn.total += 50\n"
    )
    return ruleset, variant


def _balance(tmp_path: Path, *argv: str) -> tuple[str, dict[str, Any], Path]:
    out = tmp_path / "report"
    assert main(["balance", *argv, "--workers", "1", "--out", str(out)]) == 0
    return (out / "report.md").read_text(), json.loads((out / "report.json").read_text()), out


def test_a_variant_whose_rule_never_fires_gets_no_verdict_that_names_the_rule(
    tmp_path: Path, unreachable: tuple[Path, Path]
) -> None:
    ruleset, variant = unreachable
    text, data, _ = _balance(
        tmp_path, str(ruleset), "--variant", str(variant), "--games", "20", "--batch", "10"
    )
    assert "trigger jackpot changed" in text  # what the variant changes, in rule terms
    assert "| trigger jackpot | changed | 0 of 20 (0.00) | 0 of 20 (0.00) |" in text
    verdict = text.split("## Verdict")[1]
    assert "**No verdict.**" in verdict and "never fired, on either side: trigger jackpot" in verdict
    assert "No difference is significant" not in verdict
    assert "both sides played the same 20 games" in verdict
    assert "--bots heuristic" in verdict  # a suggestion of bots that might reach it
    assert "`--with loaded_die` (names jackpot)" in verdict  # and of the module that does
    assert data["verdict"] == {"given": False, "differing_games": 0, "not_reached": ["trigger jackpot"]}
    # identical games would have stopped the sequential test at the first look
    assert data["games"] == 20 and data["stopped"] == "all planned games played"
    assert [look["reached"] for look in data["sequential"]["looks"]] == [False, False]


def test_a_variant_whose_rule_fires_gets_its_fire_counts_on_both_sides(tmp_path: Path) -> None:
    text, data, _ = _balance(tmp_path, "tic_tac_toe", "--variant", "misere", "--games", "40", "--batch", "20")
    fired = {f["rule"]: f for f in data["reach"]["fired"]}
    three = fired["trigger:three_in_a_row"]
    assert three["direct"] and three["games_a"] > 10 and three["games_b"] > 10
    row = next(d for d in data["differences"] if d["name"] == "fired trigger:three_in_a_row")
    assert three["total_a"] == pytest.approx(row["a"] * data["games"])
    assert three["total_b"] == pytest.approx(row["b"] * data["games"])
    games = data["games"]
    assert (
        f"| trigger three_in_a_row | changed | {three['games_a']} of {games} "
        f"({three['total_a'] / games:.2f}) | {three['games_b']} of {games} ({three['total_b'] / games:.2f}) |"
    ) in text
    assert data["verdict"]["given"] and "**No verdict.**" not in text
    assert data["reach"]["differing_games"] >= 10
    # the invariants misère rewrites do not change play, and the report says so
    assert "no effect on play): invariant winner_has_a_line, invariant line_owner_is_winner" in text


def test_all_random_seats_are_warned_about(tmp_path: Path) -> None:
    text, data, _ = _balance(tmp_path, "tic_tac_toe", "--variant", "misere", "--games", "20", "--batch", "20")
    assert "**Warning: every seat is a random bot.**" in text
    assert data["strength"] == []


def test_the_bots_strength_is_measured_against_random_bots(
    tmp_path: Path, unreachable: tuple[Path, Path]
) -> None:
    ruleset, variant = unreachable
    argv = [str(ruleset), "--variant", str(variant), "--games", "4", "--batch", "4", "--bots", "heuristic"]
    text, data, _ = _balance(tmp_path, *argv, "--strength-games", "6")
    assert "Warning: every seat is a random bot" not in text
    (entry,) = data["strength"]
    assert entry["bot"] == "heuristic" and entry["seats"] == ["P1", "P2"] and entry["games"] == 6
    assert entry["chance"] == 0.5 and 0 <= entry["win_rate"] <= 1
    assert entry["how"].startswith("measured: 6 games of the base side")
    assert "## The bots' strength" in text and "| heuristic | P1, P2 |" in text
    # other bots are suggested when these never reach the rule
    assert "`--bots random`" in text.split("## Verdict")[1]


def test_the_bots_strength_is_taken_from_the_run_when_random_bots_play_too(
    tmp_path: Path, unreachable: tuple[Path, Path]
) -> None:
    ruleset, variant = unreachable
    argv = [str(ruleset), "--variant", str(variant), "--games", "6", "--batch", "6"]
    _, data, _ = _balance(tmp_path, *argv, "--bots", "heuristic,random")
    (entry,) = data["strength"]
    assert entry["seats"] == ["P1"] and entry["games"] == 6
    assert entry["win_rate"] == pytest.approx(data["a"]["win_rate"][0])
    assert entry["how"].startswith("from the run")


def test_the_plots_have_the_mode_of_the_report(tmp_path: Path) -> None:
    require("matplotlib", "plots")
    old = os.umask(0o022)
    try:
        _, _, out = _balance(tmp_path, "tic_tac_toe", "--variant", "misere", "--games", "10", "--batch", "10")
    finally:
        os.umask(old)
    report_mode = stat.S_IMODE((out / "report.md").stat().st_mode)
    assert report_mode == 0o644
    for name in ("win_rate.png", "scores.png", "length.png"):
        assert stat.S_IMODE((out / name).stat().st_mode) == report_mode, name


def test_changed_data_is_watched_through_the_rules_that_read_it() -> None:
    from rulekit.tools.balance.changes import variant_changes

    changes = variant_changes(Config("tic_tac_toe"), Config("tic_tac_toe", variants=["no_diagonals"]), 2)
    assert [c.name for c in changes.changes] == ["LINES"]
    watched = {w.key: w for w in changes.watched}
    assert "trigger:three_in_a_row" in watched and not watched["trigger:three_in_a_row"].direct
    assert watched["trigger:three_in_a_row"].because == ["constant LINES"]


def _record(seed: int, winner: int, length: int = 9, fired: dict[str, int] | None = None) -> GameRecord:
    scores = (1, 0) if winner == 0 else (0, 1)
    return GameRecord(
        seed, ("random", "random"), "f", (), (), True, scores, (winner,), length, fired or {}, 0.0
    )


def test_the_sequential_test_does_not_stop_before_the_changed_rule_fired() -> None:
    from rulekit.tools.balance.changes import variant_changes

    changes = variant_changes(Config("tic_tac_toe"), Config("tic_tac_toe", variants=["misere"]), 2)
    result = Balance(
        Config("g"),
        Config("g", variants=["v"]),
        ("a", "b"),
        2,
        "random",
        400,
        50,
        0.05,
        0.05,
        changes=changes,
    )
    result.games_a = [_record(s, 0) for s in range(50)]
    result.games_b = [_record(s, 1) for s in range(50)]  # every game changed, but the trigger never fired
    assert not result.look()
    assert result.unreached()[0][0].key == "trigger:three_in_a_row"
    fired = {"trigger:three_in_a_row": 1}
    result.games_a = [_record(s, 0, fired=fired) for s in range(50)]
    result.games_b = [_record(s, 1, fired=fired) for s in range(50)]
    assert result.look()  # now it fired in every game: the clear change stops the run


def test_the_win_rate_plot_takes_a_seat_that_won_every_game(tmp_path: Path) -> None:
    require("matplotlib", "plots")
    from rulekit.tools.balance import write_plots

    result = Balance(Config("g"), Config("g", variants=["v"]), ("a", "b"), 2, "random", 6, 6, 0.05, 0.05)
    result.games_a = [_record(s, 0) for s in range(6)]  # Wilson's upper bound is 0.9999999999999999
    result.games_b = [_record(s, 1, length=8) for s in range(6)]
    assert [Path(p).name for p in write_plots(result, tmp_path)] == [
        "win_rate.png",
        "scores.png",
        "length.png",
    ]


def test_fire_counts_are_the_same_from_worker_processes_and_read_back_from_the_results_database(
    tmp_path: Path,
) -> None:
    argv = ["balance", "tic_tac_toe", "--variant", "misere", "--games", "12", "--batch", "12"]
    runs = []
    for extra in (
        ["--workers", "1"],
        ["--workers", "2", "--db", str(tmp_path / "r.db")],
        ["--workers", "2", "--db", str(tmp_path / "r.db"), "--resume"],
    ):
        out = tmp_path / f"report{len(runs)}"
        assert main([*argv, *extra, "--out", str(out)]) == 0
        runs.append(json.loads((out / "report.json").read_text())["reach"])
    assert runs[0]["fired"][0]["total_a"] > 0
    assert runs[0] == runs[1] == runs[2]
