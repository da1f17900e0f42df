"""Scenario files frozen from an older release run today, unchanged and through ``rulekit
upgrade`` (tests/data/old_scenarios/README.md says where they come from)."""

from __future__ import annotations

import shutil
from pathlib import Path

import pytest

from rulekit.cli import main
from rulekit.tools.scenario import run_scenario
from rulekit.tools.scenario.rewrite import insert_lines

RELEASE = Path(__file__).resolve().parent.parent / "data" / "old_scenarios" / "93b343d"
FILES = sorted(str(p.relative_to(RELEASE)) for p in RELEASE.rglob("*.yaml"))

#: Files whose old expectation no longer holds, and the failure they give (README.md says why).
KNOWN = {
    "el_capitan/scenarios/pass_is_rejected_while_she_can_sail.yaml": (
        "pass_turn was rejected, but the message does not contain 'she can still sail': "
        "pass_turn is not legal: she can still build, re-open, build a fortress, take a loan or sail"
    ),
}

#: A small sample for the fast suite, one per cause, with the failure each gives when read
#: with today's semantics (as if it said format: 2 and rules_version: 2).
SAMPLE = {
    "el_caballero/scenarios/01_setup.yaml": "expectation failed: all(p.stock == 8",  # range inclusive
    "el_caballero/scenarios/05_next_round_lowest_starts.yaml": "invariant 'area_cards_accounted' fails",
    "el_capitan/scenarios/two_player_fortress_counts_neutral_warehouses.yaml": (
        "unknown function 'neutral_colour'"
    ),
    "el_capitan/scenarios/expansions/lisboa_site_eleven_shuts_down_the_front.yaml": (
        "the value of cities.lisboa.sites must be list[{colour: colour, owner: player}], not list[player]"
    ),
    "tic_tac_toe/scenarios/win_on_a_diagonal.yaml": "invariant",
}


def _ruleset(name: str) -> str:
    return name.split("/", 1)[0]


def _check(name: str, failures: list[str]) -> None:
    if name in KNOWN:
        assert len(failures) == 1 and KNOWN[name] in failures[0], failures
    else:
        assert failures == [], failures


def _upgraded(tmp_path: Path, names: list[str]) -> Path:
    copy = tmp_path / "release"
    shutil.copytree(RELEASE, copy)
    for ruleset in sorted({_ruleset(n) for n in names}):
        paths = [str(copy / n) for n in names if _ruleset(n) == ruleset]
        assert main(["upgrade", "--ruleset", ruleset, *paths]) == 0
    return copy


def test_the_frozen_release_covers_the_three_causes() -> None:
    assert len(FILES) >= 20 and set(SAMPLE) <= set(FILES)
    assert all("\nformat:" not in (RELEASE / n).read_text(encoding="utf-8") for n in FILES)


@pytest.mark.parametrize("name", sorted(SAMPLE))
def test_a_frozen_file_fails_with_todays_semantics(name: str, tmp_path: Path) -> None:
    today = tmp_path / "today.yaml"
    text = (RELEASE / name).read_text(encoding="utf-8")
    versions = ["format: 2"] + (["rules_version: 2"] if _ruleset(name) == "el_capitan" else [])
    today.write_text(insert_lines(text, versions), encoding="utf-8")
    failures = run_scenario(today, ruleset=_ruleset(name)).failures
    assert failures and SAMPLE[name] in failures[0], failures


@pytest.mark.parametrize("name", sorted(SAMPLE))
def test_a_frozen_file_runs_unchanged(name: str) -> None:
    _check(name, run_scenario(RELEASE / name, ruleset=_ruleset(name)).failures)


def test_frozen_files_run_after_upgrade(tmp_path: Path) -> None:
    names = sorted(SAMPLE)
    copy = _upgraded(tmp_path, names)
    for name in names:
        text = (copy / name).read_text(encoding="utf-8")
        assert "\nformat: 2\n" in text
        _check(name, run_scenario(copy / name, ruleset=_ruleset(name)).failures)


@pytest.mark.slow
@pytest.mark.parametrize("name", FILES)
def test_every_frozen_file_runs_unchanged(name: str) -> None:
    _check(name, run_scenario(RELEASE / name, ruleset=_ruleset(name)).failures)


@pytest.mark.slow
def test_every_frozen_file_runs_after_upgrade(tmp_path: Path) -> None:
    copy = _upgraded(tmp_path, FILES)
    for name in FILES:
        _check(name, run_scenario(copy / name, ruleset=_ruleset(name)).failures)
