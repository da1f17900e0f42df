"""``rulekit scenario --coverage``: the rules and outcomes no scenario exercised."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from rulekit.cli import main

RACE = """\
ruleset: race
title: Race
players: {min: 2, max: 2}
state:
  player:
    points: int
    bonus: int
actions:
  step:
    cite: "§1"
    effect: me.points += 1
    ends_turn: true
  jump:
    cite: "§2"
    require:
      - if: me.points < 4
        else: too far ahead to jump
        cite: "§2.1"
    effect: me.points += 2
    ends_turn: true
flow:
  - repeat:
      times: 2
      steps:
        - turn: player_at(1)
        - turn: player_at(2)
scoring:
  score: "player.points if player.points < 5 else 5"
  tiebreak: [player.bonus]
"""

STEPS_ONLY = """\
scenario: four steps
format: 2
setup: {P1.bonus: BONUS}
actions: [step, step, step, step]
FINAL
"""

CAPPED = """\
scenario: a score is at most 5; far ahead, no jump
format: 2
setup: {P1.points: 4}
actions:
  - step
  - jump
  - action: jump
    reject: too far ahead
  - step
  - jump
expect_scores: {P1: 5, P2: 4}
"""


@pytest.fixture
def race(tmp_path: Path) -> Path:
    (tmp_path / "ruleset.yaml").write_text(RACE, encoding="utf-8")
    (tmp_path / "scenarios").mkdir()
    return tmp_path


def scenario(race: Path, name: str, text: str) -> Path:
    path = race / "scenarios" / f"{name}.yaml"
    path.write_text(text, encoding="utf-8")
    return path


def steps_only(race: Path, name: str, bonus: int, final: str) -> Path:
    return scenario(race, name, STEPS_ONLY.replace("BONUS", str(bonus)).replace("FINAL", final))


def run(capsys: pytest.CaptureFixture[str], *args: str) -> tuple[int, str]:
    code = main(["scenario", *args])
    return code, capsys.readouterr().out


def test_coverage_lists_an_action_no_scenario_played_with_its_position_and_citation(
    race: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    steps_only(race, "tie", 0, "expect_winners: [P1, P2]")
    code, out = run(capsys, str(race / "scenarios"), "--coverage")
    assert code == 0  # coverage is information, not a failure
    assert "coverage of " in out and "(1 scenario): 1/2 actions" in out
    assert f"{race / 'ruleset.yaml'}:13:3: action 'jump' [§2]" in out
    assert "requirement of 'jump': too far ahead to jump (true" in out and "[§2.1]" in out


def test_a_gap_stops_being_listed_once_a_scenario_exercises_it(
    race: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    steps_only(race, "tie", 0, "expect_winners: [P1, P2]")
    scenario(race, "capped", CAPPED)
    code, out = run(capsys, str(race / "scenarios"), "--coverage")
    assert code == 0
    assert "action 'jump'" not in out and "too far ahead" not in out
    assert "'else' value was never taken" not in out
    assert "2/2 actions" in out and "1/1 conditions were both true and false" in out


def test_outcomes_count_only_when_a_final_expectation_checks_them(
    race: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    steps_only(race, "tie", 0, "expect_terminal: true")  # the game ends, its outcome unchecked
    _, out = run(capsys, str(race / "scenarios"), "--coverage")
    assert "0/3 outcomes checked" in out
    assert "a tie for first place" in out and "a game won by one player" in out
    assert "scoring branches no final expectation checked" in out

    steps_only(race, "tie", 0, "expect_winners: [P1, P2]")
    _, out = run(capsys, str(race / "scenarios"), "--coverage")
    assert "1/3 outcomes checked" in out and "a tie for first place" not in out
    assert "tie-break 1 deciding between players equal on the score" in out

    steps_only(race, "bonus", 1, "expect_winners: [P1]")
    _, out = run(capsys, str(race / "scenarios"), "--coverage")
    assert "3/3 outcomes checked" in out and "tie-break 1" not in out


def test_coverage_json_lists_each_gap_with_file_line_column_and_citation(
    race: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    steps_only(race, "tie", 0, "expect_winners: [P1, P2]")
    target = race / "coverage.json"
    code, out = run(capsys, str(race / "scenarios"), "--coverage-json", str(target))
    assert code == 0 and "coverage of" not in out  # the JSON alone, no text report
    data = json.loads(target.read_text(encoding="utf-8"))
    [configuration] = data["configurations"]
    assert configuration["scenarios"] == 1 and configuration["modules"] == []
    jump = next(g for g in configuration["uncovered"] if g["what"] == "action 'jump'")
    assert jump == {
        "kind": "never fired",
        "what": "action 'jump'",
        "file": str(race / "ruleset.yaml"),
        "line": 13,
        "column": 3,
        "cite": "§2",
    }
    kinds = {g["kind"] for g in configuration["uncovered"]}
    assert kinds == {
        "never fired",
        "never false",
        "scoring branches no final expectation checked",
        "outcomes no final expectation checked",
    }


def test_require_coverage_fails_only_while_something_is_not_exercised(
    race: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    steps_only(race, "tie", 0, "expect_winners: [P1, P2]")
    code, out = run(capsys, str(race / "scenarios"), "--require-coverage")
    assert code == 1 and "coverage required:" in out
    steps_only(race, "bonus", 1, "expect_winners: [P1]")
    scenario(race, "capped", CAPPED)
    code, out = run(capsys, str(race / "scenarios"), "--require-coverage")
    assert code == 0, out
    assert "every action, trigger and condition was reached both ways" in out


def test_a_broken_scenario_still_fails_with_its_position_under_coverage(
    race: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    path = scenario(race, "broken", "scenario: broken\nformat: 2\nactions: [step, fly]\n")
    code, out = run(capsys, str(race / "scenarios"), "--coverage")
    assert code == 1
    assert f"{path}:3:" in out and "FAIL  broken" in out


def test_a_coverage_json_that_cannot_be_written_is_exit_1_without_a_traceback(
    race: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    steps_only(race, "tie", 0, "expect_winners: [P1, P2]")
    target = race / "missing" / "coverage.json"
    code = main(["scenario", str(race / "scenarios"), "--coverage-json", str(target)])
    captured = capsys.readouterr()
    assert code == 1 and "Traceback" not in captured.err and str(target) in captured.err
    assert not target.exists()
