"""Game parameters: declared in ``parameters:``, read as constants, chosen with ``--param NAME=VALUE``
on every command that starts games, recorded in logs (replay plays the same game) and keyed on by
the program cache."""

from __future__ import annotations

import json
from collections.abc import Callable
from pathlib import Path

import pytest

from rulekit.cli import build_parser, main
from rulekit.errors import RulesetError
from rulekit.load import load_game, load_program

Run = Callable[..., tuple[int, str, str]]

COUNTED = """\
ruleset: counted
players: {min: 2, max: 2}
parameters:
  GOAL: {type: int, default: 3, min: 1, max: 9, doc: how many steps end the game}
  DOUBLE: {type: bool, default: false, doc: whether a step counts twice}
  PACE: {type: choice, choices: [slow, fast], default: slow, doc: a fast step counts three}
state:
  game:
    n: {type: int}
actions:
  step:
    effect: "game.n += (3 if PACE == 'fast' else 2 if DOUBLE else 1)"
    ends_turn: true
flow:
  - repeat:
      until: game.n >= GOAL
      steps:
        - turn: player_at(1)
"""


@pytest.fixture
def run(capsys: pytest.CaptureFixture[str]) -> Run:
    def run_(*argv: str) -> tuple[int, str, str]:
        status = main(list(argv))
        captured = capsys.readouterr()
        return status, captured.out, captured.err

    return run_


def _steps(directory: Path, *settings: str) -> int:
    state = load_game(str(directory), 2, variants=[f"param:{s}" for s in settings]).new_initial_state(0)
    steps = 0
    while not state.is_terminal():
        state.apply_action("step()")
        steps += 1
    return steps


def test_parameters_are_read_as_constants_with_their_defaults(write_ruleset: Callable[..., Path]) -> None:
    directory = write_ruleset(COUNTED)
    rules = load_program(str(directory)).rules
    assert {n: p.value for n, p in rules.parameters.items()} == {"GOAL": 3, "DOUBLE": False, "PACE": "slow"}
    assert _steps(directory) == 3


@pytest.mark.parametrize(
    ("settings", "steps"),
    [(("GOAL=7",), 7), (("GOAL=7", "DOUBLE=true"), 4), (("GOAL=9", "PACE=fast"), 3), (("DOUBLE=false",), 3)],
)
def test_a_setting_changes_the_game(
    write_ruleset: Callable[..., Path], settings: tuple[str, ...], steps: int
) -> None:
    assert _steps(write_ruleset(COUNTED), *settings) == steps


@pytest.mark.parametrize(
    ("setting", "message"),
    [
        ("GOAL=10", "parameter GOAL must be a whole number from 1 to 9, not '10'"),
        ("GOAL=0", "parameter GOAL must be a whole number from 1 to 9, not '0'"),
        ("GOAL=three", "parameter GOAL must be a whole number from 1 to 9, not 'three'"),
        ("DOUBLE=yes", "parameter DOUBLE must be true or false, not 'yes'"),
        ("PACE=medium", "parameter PACE must be one of slow, fast, not 'medium'"),
        ("GAOL=3", "counted has no parameter 'GAOL'"),
        ("GOAL", "--param takes NAME=VALUE, not 'GOAL'"),
    ],
)
def test_a_bad_setting_is_exit_1_naming_the_parameter_and_what_it_allows(
    run: Run, write_ruleset: Callable[..., Path], setting: str, message: str
) -> None:
    status, out, err = run("simulate", str(write_ruleset(COUNTED)), "--games", "2", "--param", setting)
    assert status == 1
    assert out == ""
    assert err.startswith(f"error: {message}\n"), err
    assert "Traceback" not in err


def test_an_unknown_parameter_is_answered_with_the_nearest_name(
    run: Run, write_ruleset: Callable[..., Path]
) -> None:
    _, _, err = run("play", str(write_ruleset(COUNTED)), "--quiet", "--param", "GAOL=3")
    assert "did you mean 'GOAL'?" in err


@pytest.mark.parametrize(
    ("old", "new", "message"),
    [
        ("default: 3, min: 1", "default: 12, min: 1", "parameter GOAL: the default must be a whole number"),
        ("default: false", "default: 2", "parameter DOUBLE: the default must be true or false"),
        ("min: 1, max: 9", "min: 9, max: 1", "parameter GOAL: min 9 is above max 1"),
        ("choices: [slow, fast], ", "", "parameter PACE: a choice parameter needs choices"),
        ("type: bool, default: false", "type: bool, min: 0, default: false", "min and max are for int"),
        ("state:", "constants:\n  GOAL: 4\nstate:", "'GOAL' is both a constant and a parameter"),
    ],
)
def test_an_inconsistent_declaration_is_a_ruleset_error_at_its_position(
    write_ruleset: Callable[..., Path], old: str, new: str, message: str
) -> None:
    assert old in COUNTED
    directory = write_ruleset(COUNTED.replace(old, new, 1))
    with pytest.raises(RulesetError) as caught:
        load_program(str(directory))
    found = [d for d in caught.value.diagnostics if message in d.message]
    assert found, caught.value
    assert found[0].span is not None and found[0].span.file.endswith("ruleset.yaml")


def test_a_log_records_the_parameters_and_replay_plays_the_same_game(run: Run, tmp_path: Path) -> None:
    log = tmp_path / "game.jsonl"
    status, _, _ = run("play", "nim", "--quiet", "--seed", "1", "--param", "PILE_COUNT=1", "--log", str(log))
    assert status == 0
    lines = log.read_text().splitlines()
    header = json.loads(lines[0])
    assert [v["path"] for v in header["variants"]] == ["param:PILE_COUNT=1"]
    assert [json.loads(line)["action"] for line in lines[1:-1]] == ["take(1, 1)"]  # one pile of one
    status, out, err = run("replay", str(log))
    assert (status, err) == (0, "")
    assert out.startswith("ok: replayed 1 actions")


def test_a_log_with_a_setting_out_of_range_is_refused(run: Run, tmp_path: Path) -> None:
    log = tmp_path / "game.jsonl"
    run("play", "nim", "--quiet", "--seed", "1", "--param", "PILE_COUNT=1", "--log", str(log))
    log.write_text(log.read_text().replace("PILE_COUNT=1", "PILE_COUNT=99"))
    status, _, err = run("replay", str(log))
    assert status == 1
    assert "parameter PILE_COUNT must be a whole number from 1 to 20, not '99'" in err


def test_the_program_cache_keys_on_the_parameters(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, write_ruleset: Callable[..., Path]
) -> None:
    monkeypatch.setenv("RULEKIT_CACHE_DIR", str(tmp_path / "cache"))
    monkeypatch.delenv("RULEKIT_NO_CACHE", raising=False)
    directory = str(write_ruleset(COUNTED))
    goals = [
        load_program(directory, variants=settings).rules.constants["GOAL"].value
        for settings in ([], ["param:GOAL=5"], [], ["param:GOAL=7"], ["param:GOAL=5"])
    ]
    assert goals == [3, 5, 3, 7, 5]


@pytest.mark.parametrize(
    "command",
    ["play", "simulate", "balance", "verify", "render", "serve", "replay", "bench", "analyze", "check"],
)
def test_every_command_that_starts_games_takes_param(command: str) -> None:
    parser, _ = build_parser()
    words = {"replay": ["LOG"], "render": ["nim", "-o", "out.svg"], "bench": ["nim"]}.get(command, ["nim"])
    args = parser.parse_args([command, *words, "--param", "PILE_COUNT=2", "--param", "MISERE=false"])
    assert args.variants == ["param:PILE_COUNT=2", "param:MISERE=false"]


@pytest.mark.parametrize(
    "setting",
    [
        "param:PILE_COUNT=" + "9" * 5000,
        "param:=3",
        "param:__class__=1",
        "param:PILE_COUNT=\u0661",
        "param:MISERE=1",
    ],
)
def test_a_hostile_setting_in_a_log_is_exit_1_without_a_traceback(
    run: Run, tmp_path: Path, setting: str
) -> None:
    log = tmp_path / "game.jsonl"
    run("play", "nim", "--quiet", "--seed", "1", "--param", "PILE_COUNT=1", "--log", str(log))
    log.write_text(log.read_text().replace("param:PILE_COUNT=1", setting.replace("\\", "\\\\")))
    status, _, err = run("replay", str(log))
    assert status == 1, err
    assert "\x1b" not in err
    assert err.startswith("error: ") and "Traceback" not in err
    assert len(err) < 2000
