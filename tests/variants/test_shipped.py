"""Every shipped variant checks, plays in every allowed combination, passes its scenario (and the
scenario fails without the variant, so it proves the variant's effect), and shows up in ``rulekit diff``."""

from __future__ import annotations

from pathlib import Path

import pytest
import yaml

from rulekit.engine.game import Game
from rulekit.load import load_program
from rulekit.tools.combinations import ComboResult, _random_game, check_all_combinations
from rulekit.tools.diff import Side, diff_sides
from rulekit.tools.scenario import run_scenario

ROOT = Path(__file__).resolve().parents[2]
VARIANTS = sorted(ROOT.glob("rulesets/*/variants/*.yaml"))
GAME_VARIANTS = [p for p in VARIANTS if p.parts[-3] != "tic_tac_toe"]


def _ids(path: Path) -> str:
    return f"{path.parts[-3]}/{path.stem}"


def _data(path: Path) -> dict[str, object]:
    data = yaml.safe_load(path.read_text(encoding="utf-8"))
    assert isinstance(data, dict)
    return data


def test_at_least_six_real_house_rules_are_shipped() -> None:
    assert len(GAME_VARIANTS) >= 6
    games = {p.parts[-3] for p in GAME_VARIANTS}
    assert {"el_capitan", "el_caballero"} <= games


@pytest.mark.parametrize("path", VARIANTS, ids=_ids)
def test_shipped_variant_is_described_and_checks(path: Path) -> None:
    data = _data(path)
    assert data["variant"] == path.stem
    assert data["ruleset"] == path.parts[-3]
    assert len(str(data.get("title", ""))) > 5
    assert len(str(data.get("description", "")).split()) >= 25, "one paragraph, please"
    program = load_program(path.parts[-3], list(data.get("requires") or ()), [str(path)])  # type: ignore[call-overload]
    assert program.rules.variants[0][0].endswith(f"variants/{path.name}")


@pytest.mark.parametrize("path", VARIANTS, ids=_ids)
def test_shipped_variant_scenario_proves_its_effect(path: Path, tmp_path: Path) -> None:
    scenario = path.parent / "scenarios" / path.name
    assert scenario.is_file(), f"add a scenario for {path.stem} in {scenario}"
    result = run_scenario(scenario)
    assert result.passed, "\n".join(result.failures)
    data = _data(scenario)
    assert data["variants"] == [path.stem]
    del data["variants"]
    data["ruleset"] = path.parts[-3]
    without = tmp_path / "without.yaml"
    without.write_text(yaml.safe_dump(data, allow_unicode=True), encoding="utf-8")
    assert not run_scenario(without).passed, "the scenario also passes without the variant"


@pytest.mark.parametrize("path", VARIANTS, ids=_ids)
def test_diff_shows_each_shipped_variant(path: Path) -> None:
    modules = [str(m) for m in _data(path).get("requires") or ()]  # type: ignore[attr-defined]
    game = path.parts[-3]
    result = diff_sides(Side(game, modules), Side(game, modules, [str(path)]))
    assert result.changes
    assert all(str(path.name) in (c.new_at or "") for c in result.changes if c.kind != "removed")


@pytest.mark.parametrize("path", VARIANTS, ids=_ids)
def test_shipped_variant_plays_a_short_game_for_each_player_count(path: Path) -> None:
    data = _data(path)
    modules = tuple(str(m) for m in data.get("requires") or ())  # type: ignore[attr-defined]
    program = load_program(path.parts[-3], modules, [str(path)])
    for players in range(program.rules.min_players, program.rules.max_players + 1):
        result = ComboResult(modules, players)
        _random_game(Game(program, players), 1, 60, result)
        assert result.ok, "\n".join(result.problems)
        assert result.actions > 0


@pytest.mark.slow
@pytest.mark.parametrize("path", VARIANTS, ids=_ids)
def test_shipped_variant_plays_in_every_allowed_combination(path: Path) -> None:
    results = check_all_combinations(path.parts[-3], [str(path)], max_actions=60)
    assert results
    assert all(r.ok for r in results), "\n".join(p for r in results for p in r.problems)


@pytest.mark.parametrize("path", VARIANTS, ids=_ids)
def test_authoring_guide_lists_each_shipped_variant(path: Path) -> None:
    guide = (ROOT / "docs" / "authoring.md").read_text(encoding="utf-8")
    assert f"| {path.parts[-3]} | `{path.stem}` |" in guide
