"""``rulekit bench`` against OpenSpiel: every ``openspiel.json`` names games OpenSpiel loads and a
rulekit configuration that plays the same game; ``bench --all`` measures that configuration
against them (CPU time per random playout, interleaved rounds, the ratio)."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from rulekit.cli import main
from rulekit.load import load_game
from rulekit.tools.bench import Case, Row, all_cases, openspiel_counterpart, run_case
from rulekit.tools.bench.report import against_openspiel
from tests.ecosystem.extras import require

ROOT = Path(__file__).resolve().parents[2]
MAPPED = sorted(p.parent.name for p in (ROOT / "rulesets").glob("*/openspiel.json"))


def test_the_games_with_an_openspiel_counterpart_are_mapped() -> None:
    assert {"hex", "nim", "breakthrough", "checkers", "connect_four", "othello", "oware", "pig"} <= set(
        MAPPED
    )
    assert "el_capitan" not in MAPPED


@pytest.mark.parametrize("ruleset", MAPPED)
def test_each_mapping_names_games_openspiel_loads_and_a_rulekit_game_that_loads(ruleset: str) -> None:
    pyspiel = require("pyspiel", "openspiel")
    counterpart = openspiel_counterpart(ROOT / "rulesets" / ruleset)
    assert counterpart is not None and counterpart.games
    for name in counterpart.games.values():
        if name.startswith("python_"):
            __import__("open_spiel.python.games")
        game = pyspiel.load_game(name, counterpart.params) if counterpart.params else pyspiel.load_game(name)
        assert game.num_players() == (counterpart.players or 2)
    ours = load_game(ruleset, counterpart.players or 2, (), counterpart.variants)
    assert ours.num_players == (counterpart.players or 2)
    if ruleset != "tic_tac_toe":
        assert (ROOT / counterpart.conformance).is_file(), counterpart.conformance


def test_all_cases_include_the_configuration_a_counterpart_plays() -> None:
    keys = {case.key for case in all_cases()}
    assert {"pig 2p ~openspiel", "hex 2p", "nim 2p"} <= keys


def test_a_counterpart_is_measured_only_against_the_configuration_it_plays() -> None:
    require("pyspiel", "openspiel")
    assert run_case(Case("pig", 3), seconds=0.02, seed=0, rounds=1).against == ()
    (entry,) = run_case(Case("pig", 2, (), ("openspiel",)), seconds=0.05, seed=0, rounds=2).against
    kind, game, ours, theirs, low, mid, high = entry
    assert kind == "cpp" and game.startswith("pig(")
    assert ours > 0 and theirs > 0
    assert 0 < low <= mid <= high


def test_bench_prints_the_time_per_playout_of_both_and_their_ratio(
    capsys: pytest.CaptureFixture[str],
) -> None:
    require("pyspiel", "openspiel")
    assert main(["bench", "nim", "--seconds", "0.1", "--rounds", "2"]) == 0
    out = capsys.readouterr().out.splitlines()
    head = out.index(
        "against OpenSpiel (CPU ms per random playout; ratio rulekit / OpenSpiel, median of the rounds)"
    )
    assert out[head + 1].split() == ["configuration", "OpenSpiel", "game", "rulekit", "OpenSpiel", "ratio"]
    row = out[head + 3].split()
    assert row[:3] == ["nim", "2p", "nim()"]
    assert float(row[4]) > 0 and float(row[5]) > 0 and row[6].endswith("x")


def test_the_against_table_lists_each_counterpart_of_each_row() -> None:
    base = {
        "ruleset": "g",
        "players": 2,
        "modules": (),
        "playouts": 1,
        "actions": 1,
        "seconds": 1.0,
        "playouts_per_s": 1.0,
        "actions_per_s": 1.0,
        "us_per_action": 1.0,
        "legal_us": 1.0,
        "clone_us": 1.0,
        "state_fields": 1,
    }
    rows = [
        Row(key="g 2p", **base, against=(("cpp", "g()", 2.0, 0.5, 3.0, 4.0, 5.0),)),
        Row(key="h 3p", **base),
    ]
    lines = list(against_openspiel(rows))
    assert lines[-1].split() == [
        "g",
        "2p",
        "g()",
        "(C++)",
        "2.000",
        "0.500",
        "4.0x",
        "(min",
        "3.0x,",
        "max",
        "5.0x)",
    ]
    assert not any(line.startswith("h 3p") for line in lines)
    assert list(against_openspiel(rows[1:])) == []


def test_the_json_figures_keep_the_comparison(tmp_path: Path) -> None:
    require("pyspiel", "openspiel")
    out = tmp_path / "figures.json"
    assert main(["bench", "nim", "--seconds", "0.05", "--rounds", "1", "--json", str(out)]) == 0
    (row,) = json.loads(out.read_text())["rows"]
    assert [entry[:2] for entry in row["against"]] == [["cpp", "nim()"]]
