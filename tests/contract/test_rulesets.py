"""The contract every directory in ``rulesets/`` keeps, found by discovery: adding a ruleset there
is enough for it to be checked, played at its fewest and most players (with and without all its
modules), replayed from its log, its scenarios run and a brief ``verify`` passed.
"""

from __future__ import annotations

from pathlib import Path

import pytest
import yaml

from rulekit.cli import main
from rulekit.engine.outcome import cooperative
from rulekit.load import load_game
from rulekit.tools.bots import make_bots, play_game
from rulekit.tools.log import read_log, replay_actions
from rulekit.tools.scenario import run_scenario
from rulekit.tools.scenario.versions import FORMAT
from rulekit.tools.verify import VerifyOptions, verify
from tests.rulesets import Setup, module_names, scenario_files, setups, shipped_rulesets

RULESETS = shipped_rulesets()
SETUPS = [setup for ruleset in RULESETS for setup in setups(ruleset)]
SCENARIOS = [(ruleset, path) for ruleset in RULESETS for path in scenario_files(ruleset)]
MAX_ACTIONS = 20_000


def _scenario_id(case: tuple[Path, Path]) -> str:
    ruleset, path = case
    return f"{ruleset.name}/{path.relative_to(ruleset).with_suffix('')}"


def test_every_shipped_ruleset_is_discovered() -> None:
    """Discovery finds the bundled games (a broken glob would silently test nothing)."""
    assert {"el_capitan", "el_caballero", "tic_tac_toe"} <= {p.name for p in RULESETS}


@pytest.mark.parametrize("case", SCENARIOS, ids=_scenario_id)
def test_every_shipped_scenario_declares_the_current_format(case: tuple[Path, Path]) -> None:
    """A file without ``format:`` runs with the oldest semantics (no invariant checks): every
    shipped scenario says it is written for today's."""
    data = yaml.safe_load(case[1].read_text(encoding="utf-8"))
    assert data.get("format") == FORMAT, f"add 'format: {FORMAT}' to {case[1]}"


@pytest.mark.parametrize("ruleset", RULESETS, ids=lambda p: p.name)
def test_check_passes_with_and_without_modules(ruleset: Path, capsys: pytest.CaptureFixture[str]) -> None:
    """``rulekit check`` accepts the ruleset, alone and with all its modules."""
    assert main(["check", str(ruleset)]) == 0
    modules = module_names(ruleset)
    if modules:
        assert main(["check", str(ruleset), "--with", ",".join(modules)]) == 0
    assert capsys.readouterr().out.startswith("ok: ")


@pytest.mark.parametrize("setup", SETUPS, ids=lambda s: s.name)
def test_a_random_game_ends_and_replays_from_its_log(setup: Setup, tmp_path: Path) -> None:
    """Random bots finish a game without an internal error; its log replays to the identical state."""
    game = load_game(str(setup.ruleset), setup.players, setup.modules)
    played = play_game(game, 3, make_bots(game, "random", 3), MAX_ACTIONS)
    assert played.finished, f"no end after {MAX_ACTIONS} actions"
    # someone wins; in a cooperative game nobody may (the table failed), and every seat gets the same
    assert played.state.winners() or (cooperative(game) and len(set(played.state.returns())) == 1)
    path = tmp_path / "game.jsonl"
    played.log.write(path)
    replayed = replay_actions(load_game(str(setup.ruleset), setup.players, setup.modules), read_log(path))
    assert replayed.is_terminal()
    assert replayed.state_hash() == played.state.state_hash()
    assert replayed.to_json() == played.state.to_json()


@pytest.mark.parametrize("case", SCENARIOS, ids=_scenario_id)
def test_every_shipped_scenario_passes(case: tuple[Path, Path]) -> None:
    """Each scenario file shipped with a ruleset (rulebook examples, modules, variants) passes."""
    result = run_scenario(case[1])
    assert result.passed, "\n".join(result.failures)


@pytest.mark.parametrize("ruleset", RULESETS, ids=lambda p: p.name)
def test_a_brief_verify_finds_nothing(ruleset: Path) -> None:
    """A few explored games keep the ruleset's invariants and the engine's properties (cut off
    at 400 actions: a five-player El Capitan game takes about 500)."""
    options = VerifyOptions(str(ruleset), examples=4, max_actions=400, out=None, shrink=False, must_end=False)
    result = verify(options)
    assert result.ok, result.counterexample
    assert result.stats.games == 4
