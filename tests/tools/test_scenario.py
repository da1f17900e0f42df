"""The scenario runner: set-up by path, actions, expected rejections, expectations with values."""

from __future__ import annotations

from collections.abc import Callable
from pathlib import Path

from rulekit.tools.scenario import find_scenarios, run_paths, run_scenario

ROOT = Path(__file__).resolve().parents[2]


def _scenario(directory: Path, name: str, text: str) -> Path:
    folder = directory / "scenarios"
    folder.mkdir(exist_ok=True)
    path = folder / f"{name}.yaml"
    path.write_text(text, encoding="utf-8")
    return path


def test_the_tic_tac_toe_scenarios_pass() -> None:
    lines: list[str] = []
    status = run_paths([ROOT / "rulesets" / "tic_tac_toe"], lines.append)
    assert status == 0, "\n".join(lines)
    assert len(find_scenarios([ROOT / "rulesets" / "tic_tac_toe"])) >= 5
    assert lines[-1].endswith("0 failed")


def test_a_passing_scenario_with_setup_rejection_and_expectations(tiny: Path) -> None:
    path = _scenario(
        tiny,
        "broke",
        """\
scenario: a player without coins cannot pay
setup:
  P1.coins: 1
  game.order: [P2, P1]
  game.spots: {a: 1}
actions:
  - action: pay(2)
    reject: not enough coins
  - pay(1)
  - by: P2
    action: wait
expect:
  - player_at(1).coins == 0
  - {expr: game.order, equals: [P2, P1]}
  - {expr: game.round, equals: 2}
expect_legal: [wait]
expect_not_legal: [pay(1)]
""",
    )
    assert run_scenario(path).failures == []


def test_setup_converts_values_by_field_type(tiny: Path) -> None:
    path = _scenario(
        tiny,
        "types",
        """\
scenario: values by type
setup:
  P2.coins: 7
  game.order: [P2, P1]
  game.spots: {a: [1, 2], b: none}
expect:
  - player_at(2).coins == 7
  - game.order == [player_at(2), player_at(1)]
  - get(game.spots, "a") == [1, 2]
  - get(game.spots, "b") == none
""",
    )
    assert run_scenario(path).failures == []


def test_a_failing_expectation_reports_its_line_and_the_actual_values(tiny: Path) -> None:
    path = _scenario(
        tiny,
        "wrong",
        """\
scenario: a wrong expectation
actions:
  - pay(2)
expect:
  - player_at(1).coins == 3
  - {expr: player_at(1).coins, equals: 5}
""",
    )
    result = run_scenario(path)
    assert not result.passed
    first, second = result.failures
    assert f"{path}:5:5: error: expectation failed: player_at(1).coins == 3" in first
    assert "player_at(1).coins = 1" in first
    assert f"{path}:6:12:" in second
    assert "actual:   1" in second and "expected: 5" in second


def test_an_expected_rejection_that_does_not_happen_fails(tiny: Path) -> None:
    path = _scenario(
        tiny,
        "accepted",
        """\
scenario: paying is refused (it is not)
actions:
  - action: pay(1)
    reject: not enough coins
""",
    )
    [failure] = run_scenario(path).failures
    assert f"{path}:3:13:" in failure
    assert "expected pay(1) to be rejected ('not enough coins'), but P1 could play it" in failure


def test_a_rejection_with_another_message_fails(tiny: Path) -> None:
    path = _scenario(
        tiny,
        "other",
        """\
scenario: wrong reason
setup:
  P1.coins: 0
actions:
  - action: pay(1)
    reject: the bank is closed
""",
    )
    [failure] = run_scenario(path).failures
    assert "does not contain 'the bank is closed'" in failure
    assert "not enough coins" in failure


def test_an_unexpectedly_illegal_action_fails_with_the_reason(tiny: Path) -> None:
    path = _scenario(
        tiny,
        "illegal",
        """\
scenario: an illegal action
setup:
  P1.coins: 0
actions:
  - pay(1)
""",
    )
    [failure] = run_scenario(path).failures
    assert f"{path}:5:5:" in failure
    assert "P1 cannot play pay(1)" in failure and "not enough coins [§1]" in failure


def test_an_unknown_setup_path_is_located_with_a_hint(tiny: Path) -> None:
    path = _scenario(
        tiny,
        "typo",
        """\
scenario: typos
setup:
  P1.coin: 1
  P9.coins: 1
  game.round: many
""",
    )
    [failure] = run_scenario(path).failures
    assert f"{path}:3:3: error: player has no field 'coin'" in failure
    assert "did you mean 'coins'?" in failure
    assert f"{path}:4:3: error: unknown owner 'P9'" in failure
    assert f"{path}:5:15: error: expected a whole number, not 'many'" in failure


def test_a_player_count_the_rules_do_not_allow_is_located_at_the_players_key(tiny: Path) -> None:
    """A scenario's players outside the ruleset's range points at its own players: line."""
    path = _scenario(tiny, "crowded", "scenario: too many\nplayers: 5\n")
    [failure] = run_scenario(path).failures
    assert f"{path}:2:1: error: " in failure
    assert "is for 2-2 players, not 5" in failure


def test_expect_legal_failure_lists_the_legal_actions(tiny: Path) -> None:
    path = _scenario(
        tiny,
        "legal",
        """\
scenario: legal actions
setup:
  P1.coins: 1
expect_legal: [pay(2)]
""",
    )
    [failure] = run_scenario(path).failures
    assert "expected pay(2) to be legal now" in failure
    assert "legal now: pay(1), wait" in failure


def test_the_runner_prints_pass_and_fail_lines_and_returns_1_on_failure(tiny: Path) -> None:
    _scenario(tiny, "good", "scenario: fine\nexpect: [game.round == 1]\n")
    _scenario(tiny, "bad", "scenario: not fine\nexpect: [game.round == 2]\n")
    lines: list[str] = []
    assert run_paths([tiny], lines.append) == 1
    assert lines[0].startswith("FAIL  not fine")
    assert any(line.startswith("PASS  fine") for line in lines)
    assert lines[-1] == "1 passed, 1 failed"


GATE = """\
ruleset: gate
players: {min: 2, max: 2}
state:
  game:
    open: {type: bool, initial: "true"}
actions:
  go:
    require: [{if: game.open, else: the gate is closed}]
    ends_turn: true
  go_too:
    ends_turn: true
flow:
  - turn: {player: player_at(1), actions: [go]}
  - turn: {player: player_at(2), actions: [go_too]}
"""


def test_after_setup_a_player_left_without_legal_actions_is_skipped(
    write_ruleset: Callable[..., Path],
) -> None:
    directory = write_ruleset(GATE, name="gate")
    path = _scenario(
        directory,
        "closed",
        "scenario: closed gate\nsetup:\n  game.open: false\nactions:\n  - by: P2\n    action: go_too\n",
    )
    assert run_scenario(path).failures == []


def test_a_scenario_file_is_checked_against_its_declared_format_in_one_report(tiny: Path) -> None:
    """Every unknown key and wrongly shaped value is reported at its line, all before anything runs."""
    path = _scenario(
        tiny,
        "shapes",
        """\
scenario: several mistakes
players: two
keep_order: "false"
actions:
  - {action: pay(1), expct: true}
  - {}
expect_scores: {P1: x}
""",
    )
    result = run_scenario(path)
    assert not result.passed
    report = "\n".join(result.failures)
    assert ":2:10: error: players must be a whole number" in report
    assert ":3:13: error: keep_order must be true or false" in report
    assert "write false without quotes" in report
    assert ":5:22: error: unknown step key 'expct'" in report and "did you mean 'expect'?" in report
    assert ":6:5: error: a step is one of action:, event: or effect:" in report
    assert ":7:21: error: expect_scores.P1 must be a whole number" in report
    assert "5 errors" in report


def test_the_scenario_keys_the_runner_reads_are_the_declared_ones() -> None:
    from rulekit.rules.schema_scenario import SCENARIO
    from rulekit.tools.scenario.files import SCENARIO_KEYS
    from rulekit.tools.schema import build_schemas

    assert SCENARIO.names == SCENARIO_KEYS
    assert set(build_schemas()["scenario"]["properties"]) == set(SCENARIO.names)
