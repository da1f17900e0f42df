"""Invariants of the shipped rulesets fail on states that break the rule they state.

A scenario's set-up can build any state; the scenario runner checks the invariants after
it, so an invariant that would never fail shows up here as a missing failure."""

from __future__ import annotations

from pathlib import Path

from rulekit.tools.scenario import run_scenario

ROOT = Path(__file__).resolve().parents[2]


def _failures(tmp_path: Path, text: str) -> list[str]:
    path = tmp_path / "s.yaml"
    path.write_text(text, encoding="utf-8")
    return run_scenario(path).failures


def test_lisboa_picture_with_a_third_warehouse_breaks_its_two_shut_down_spaces(tmp_path: Path) -> None:
    scenario = f"""\
scenario: three warehouses on Lisboa's picture
ruleset: {ROOT / "rulesets" / "el_capitan"}
modules: [lisboa]
players: 3
skip_invariants: [warehouses_accounted]
setup_effect: |
  cities.lisboa.closed = [main_warehouse(player_at(1)), main_warehouse(player_at(2)){{}}]
"""
    two = _failures(tmp_path, scenario.format(""))
    assert two == []
    three = _failures(tmp_path, scenario.format(", main_warehouse(player_at(3))"))
    assert len(three) == 1
    assert "invariant 'lisboa_two_shut_down_spaces' fails after the set-up" in three[0]
    assert "Lisboa has only two shut-down spaces" in three[0]


def test_the_shipped_scenario_catches_the_planted_pass_under_the_pirate() -> None:
    """The corpus bug verify finds only rarely (issue #19 reverted) is caught by its scenario."""
    scenarios = ROOT / "rulesets" / "el_capitan" / "scenarios" / "expansions"
    scenario = scenarios / "islas_pass_does_not_return_under_the_pirate.yaml"
    planted = ROOT / "tests/verify/corpus/el_capitan/pass_returns_under_the_pirate.yaml"
    assert run_scenario(scenario).failures == []
    failures = run_scenario(scenario, variants=[str(planted)]).failures
    assert failures and "pirate_space_closed" in failures[0]
