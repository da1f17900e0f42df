"""The rulekit command: outputs and exit statuses (0 ok, 1 user error, 2 usage error, 3 bug)."""

from __future__ import annotations

import io
import json
import subprocess
import sys
from collections.abc import Callable
from pathlib import Path

import pytest

from rulekit import cli
from rulekit.cli import main

ROOT = Path(__file__).resolve().parents[2]
Run = Callable[..., tuple[int, str, str]]


@pytest.fixture
def run(capsys: pytest.CaptureFixture[str]) -> Run:
    def run_(*argv: str) -> tuple[int, str, str]:
        status = main(list(argv))
        captured = capsys.readouterr()
        return status, captured.out, captured.err

    return run_


def test_check_prints_a_summary_with_the_fingerprint(run: Run) -> None:
    status, out, _ = run("check", "tic_tac_toe")
    assert status == 0
    assert out.startswith("ok: tic_tac_toe (fingerprint ")
    assert "1 actions, 1 triggers" in out


def test_check_reports_a_misspelled_name_with_position_and_caret(
    run: Run, write_ruleset: Callable[..., Path]
) -> None:
    directory = write_ruleset(
        "ruleset: typo\nplayers: {min: 2, max: 2}\nstate:\n  game:\n    n: {type: int}\n"
        "flow:\n  - do: game.m = 1\n"
    )
    status, out, err = run("check", str(directory))
    assert status == 1
    assert out == ""
    lines = err.splitlines()
    assert lines[0] == f"{directory / 'ruleset.yaml'}:7:9: error: unknown game field 'm'"
    assert lines[1] == "    7 |   - do: game.m = 1"
    assert lines[2] == "      |         ^^^^^^"
    assert "Traceback" not in err


def test_check_of_an_unknown_ruleset_is_a_user_error(run: Run) -> None:
    status, _, err = run("check", "tic_tac_tow")
    assert status == 1
    assert "did you mean 'tic_tac_toe'?" in err


@pytest.mark.parametrize("argv", [[], ["frobnicate"], ["play"], ["play", "tic_tac_toe", "--seed", "x"]])
def test_usage_errors_exit_2(run: Run, argv: list[str]) -> None:
    status, _, err = run(*argv)
    assert status == 2
    assert "usage:" in err


def test_version_prints_the_installed_version_and_exits_0(run: Run) -> None:
    from importlib import metadata

    status, out, _ = run("--version")
    assert status == 0
    assert out.strip() == f"rulekit {metadata.version('rulekit')}"


@pytest.mark.parametrize(
    ("argv", "needed"),
    [
        (["check", "tic_tac_toe"], False),
        (["--limit", "max_steps=10", "bench", "tic_tac_toe"], False),
        (["--limit=max_steps=10", "play", "pig"], False),
        (["verify", "tic_tac_toe"], True),
        (["simulate", "tic_tac_toe"], True),
        (["chek", "tic_tac_toe"], True),  # "invalid choice" lists every command
        (["--lim", "x=1", "check"], True),  # an abbreviated option: argparse decides
        (["--help"], True),
        ([], True),
    ],
)
def test_plugin_commands_are_loaded_unless_a_built_in_command_is_named(argv: list[str], needed: bool) -> None:
    assert cli._needs_plugins(argv) is needed


def test_check_starts_without_the_tools_it_does_not_use() -> None:
    """`rulekit check` imports no plugin command, no scenario runner and no package metadata."""
    code = (
        "import sys\n"
        "from rulekit.cli import main\n"
        "assert main(['check', 'tic_tac_toe']) == 0\n"
        "print(sorted(m for m in sys.modules if m.startswith(('rulekit.tools.verify', "
        "'rulekit.tools.simulate', 'rulekit.tools.balance', 'rulekit.tools.diff', "
        "'rulekit.tools.scenario', 'rulekit.tools.human'))))\n"
    )
    done = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, cwd=ROOT, check=True)
    assert done.stdout.splitlines()[-1] == "[]"


def test_only_the_program_s_own_main_freezes_its_objects_for_the_collector_at_the_end(run: Run) -> None:
    """Called with arguments (a caller that lives on), main leaves the collector alone."""
    import gc

    before = gc.get_freeze_count()
    assert run("check", "tic_tac_toe")[0] == 0
    assert gc.get_freeze_count() == before
    code = (
        "import gc, sys\n"
        "from rulekit import cli\n"
        "sys.argv = ['rulekit', 'check', 'tic_tac_toe']\n"
        "assert cli.main() == 0\n"
        "print(gc.get_freeze_count() > 1000)\n"
    )
    done = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, cwd=ROOT, check=True)
    assert done.stdout.splitlines()[-1] == "True"


def test_the_parser_has_the_plugin_commands_unless_told_not_to() -> None:
    assert {"simulate", "verify"} <= set(cli.build_parser()[1])
    assert cli.build_parser(plugins=False)[1] == {}


def test_a_bad_human_seat_is_a_usage_error(run: Run) -> None:
    status, _, err = run("play", "tic_tac_toe", "--human", "3")
    assert status == 2
    assert "--human takes a seat from 1 to 2" in err


def test_an_internal_error_exits_3_and_says_it_is_a_bug(run: Run, monkeypatch: pytest.MonkeyPatch) -> None:
    def broken(args: object) -> int:
        raise ZeroDivisionError("oops")

    monkeypatch.setattr(cli, "cmd_check", broken)
    status, _, err = run("check", "tic_tac_toe")
    assert status == 3
    assert "internal error: this is a bug in rulekit" in err
    assert "ZeroDivisionError: oops" in err


def test_a_log_that_cannot_be_written_is_a_user_error_without_a_traceback(run: Run, tmp_path: Path) -> None:
    """An OSError from a file the user named exits 1 with the file and the reason."""
    missing = tmp_path / "no such directory" / "game.jsonl"
    status, _, err = run("play", "tic_tac_toe", "--quiet", "--log", str(missing))
    assert status == 1
    assert err.strip() == f"error: {missing}: No such file or directory"


def test_play_finishes_and_prints_the_standings(run: Run, tmp_path: Path) -> None:
    log = tmp_path / "game.jsonl"
    status, out, _ = run("play", "tic_tac_toe", "--players", "2", "--seed", "3", "--log", str(log))
    assert status == 0
    assert "    1. P1 place(" in out
    standings = out[out.index("final standings") :].splitlines()
    assert standings[1].split() == ["place", "player", "score"]
    assert {standings[2].split()[1], standings[3].split()[1]} == {"P1", "P2"}
    assert standings[4].startswith(("winner: P", "result: a tie"))
    assert json.loads(log.read_text().splitlines()[0])["seed"] == 3

    status, out, _ = run("replay", str(log))
    assert status == 0
    assert out.startswith("ok: replayed ")
    final = json.loads(log.read_text().splitlines()[-1])["final_hash"]
    assert f"final state hash {final}" in out


def test_play_quiet_prints_only_the_standings(run: Run) -> None:
    status, out, _ = run("play", "tic_tac_toe", "--quiet", "--bot", "first")
    assert status == 0
    assert out.splitlines()[0].startswith("final standings after 7 actions")
    assert "winner: P1" in out


def test_play_that_does_not_end_within_max_actions_is_an_error(run: Run) -> None:
    status, _, err = run("play", "tic_tac_toe", "--quiet", "--max-actions", "3")
    assert status == 1
    assert "did not end within 3 actions" in err


def test_a_person_can_play_a_whole_game_through_stdin(run: Run, monkeypatch: pytest.MonkeyPatch) -> None:
    # P1 answers by number, by notation, and recovers from a taken cell and bad numbers; an option
    # keeps its number for the whole game (1 stays place(a1) after P2 took a1).
    answers = "5\nplace(b2)\n42\nplace(c3)\n1\n3\n7\n"
    monkeypatch.setattr(sys, "stdin", io.StringIO(answers))
    status, out, _ = run("play", "tic_tac_toe", "--human", "1", "--bot", "first", "--seed", "1")
    assert status == 0
    assert "    5. place(b2)" in out
    assert "P2 plays place(a1)" in out
    assert "b2 is not a possible 'cell' now" in out
    assert "there is no option 42" in out
    assert "option 1 (place(a1)) is not possible now" in out
    assert "    3. place(c1)" in out and "-> place(a3)" in out
    assert "winner: P1" in out
    assert "-- Board --" in out
    assert "final standings" in out


def test_a_person_can_quit(run: Run, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(sys, "stdin", io.StringIO("q\n"))
    status, out, _ = run("play", "tic_tac_toe", "--human", "P2")
    assert status == 0
    assert "you quit the game" in out


def test_the_help_for_a_person_shows_an_action_of_the_game_being_played(
    run: Run, monkeypatch: pytest.MonkeyPatch
) -> None:
    """The example of the action notation is a legal action of this game, not tic-tac-toe's."""
    monkeypatch.setattr(sys, "stdin", io.StringIO("?\nq\n"))
    status, out, _ = run("play", "el_capitan", "--human", "1", "--bot", "first")
    assert status == 0
    assert "(e.g. place(" not in out
    assert "(e.g. buy_card(" in out


def test_replay_refuses_changed_rules_with_exit_1(run: Run, tmp_path: Path) -> None:
    log = tmp_path / "game.jsonl"
    run("play", "tic_tac_toe", "--quiet", "--log", str(log))
    lines = log.read_text().splitlines()
    header = json.loads(lines[0])
    header["fingerprint"] = "0123456789abcdef"
    header["semantics"] = "fedcba9876543210"  # changed in what decides play, not only in wording
    log.write_text("\n".join([json.dumps(header), *lines[1:]]) + "\n")
    status, _, err = run("replay", str(log))
    assert status == 1
    assert "the log has fingerprint 0123456789abcdef" in err


def test_scenario_command_exit_status(run: Run, tmp_path: Path) -> None:
    status, out, _ = run("scenario", str(ROOT / "rulesets" / "tic_tac_toe" / "scenarios"))
    assert status == 0
    assert out.count("PASS  ") >= 5
    bad = tmp_path / "bad.yaml"
    bad.write_text("scenario: wrong\nruleset: tic_tac_toe\nexpect:\n  - game.winner != none\n")
    status, out, _ = run("scenario", str(bad))
    assert status == 1
    assert out.startswith("FAIL  wrong")
    assert f"{bad}:4:5: error: expectation failed: game.winner != none" in out
    assert "game.winner = none" in out


def test_rules_lists_actions_triggers_and_constants(run: Run) -> None:
    status, out, _ = run("rules", "tic_tac_toe")
    assert status == 0
    assert "  place(cell)  ends turn  [Rules: a turn]" in out
    assert "      cell in [c for c in cells if c.mark == none]" in out
    assert "  three_in_a_row: after place when " in out
    assert "  LINES: list[list[cell]] = [[a1, b1, c1]," in out
    assert "modules: none" in out


def test_rules_shows_long_rule_text_whole_wrapped_at_100_columns(
    run: Run, write_ruleset: Callable[..., Path]
) -> None:
    from tests.tools.conftest import TINY

    terms = " and ".join(f"me.coins >= amount + {n}" for n in range(12))
    assert len(terms) > 300
    directory = write_ruleset(TINY.replace('"me.coins >= amount"', f'"{terms}"'), name="tiny")
    status, out, _ = run("rules", str(directory))
    assert status == 0, out
    lines = out.splitlines()
    start = next(i for i, line in enumerate(lines) if line.startswith("      requires "))
    shown = []
    for line in lines[start:]:
        if line is not lines[start] and not line.startswith("          "):
            break
        assert len(line) <= 100
        shown.append(line.strip())
    assert len(shown) > 2
    assert " ".join(shown).startswith(f"requires {terms} else")
    assert "..." not in out


def test_rules_with_a_module_marks_what_it_added_and_changed(
    run: Run, write_ruleset: Callable[..., Path]
) -> None:
    from tests.tools.conftest import TINY

    module = (
        "module: rich\ntitle: Rich start\nconstants:\n  BONUS: 2\n"
        "override:\n  actions:\n    wait:\n      ends_turn: true\n      effect: me.coins += BONUS\n"
    )
    directory = write_ruleset(TINY, modules={"rich": module}, name="tiny")
    status, out, _ = run("rules", str(directory), "--with", "rich")
    assert status == 0, out
    assert "  rich (on): Rich start" in out
    assert "  BONUS = 2  [added by module rich]" in out
    assert "  wait()  ends turn  [changed by module rich]" in out
    status, out, _ = run("rules", str(directory))
    assert "  rich: Rich start" in out
    assert "[added by" not in out


def test_bench_prints_rates_and_the_fingerprint(run: Run) -> None:
    status, out, _ = run("bench", "tic_tac_toe", "--seconds", "0.05")
    assert status == 0
    assert "rulekit tic_tac_toe (fingerprint " in out
    assert "playouts/s" in out and "actions/s" in out
    assert "OpenSpiel" in out


def test_python_dash_m_rulekit_runs_the_cli() -> None:
    done = subprocess.run(
        [sys.executable, "-m", "rulekit", "check", "tic_tac_toe"],
        capture_output=True,
        text=True,
        cwd=ROOT,
        check=False,
    )
    assert done.returncode == 0, done.stderr
    assert done.stdout.startswith("ok: tic_tac_toe")
