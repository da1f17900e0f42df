"""Nothing is lost: logs grow line by line, final files appear whole, truncated logs replay their prefix."""

from __future__ import annotations

import json
import os
import re
import signal
import subprocess
import sys
import time
from collections.abc import Callable
from pathlib import Path

import pytest

from rulekit.tools import files
from rulekit.tools.files import LineSink, atomic_write_text
from tests.hostile.conftest import Run, assert_refused


def test_a_log_is_kept_when_a_rule_fails_in_the_middle_of_the_game(
    run: Run, ruleset: Callable[[str], Path], tmp_path: Path
) -> None:
    """A rule error at the third action leaves a log of the first two, which replays."""
    rules = ruleset("")
    text = (rules / "ruleset.yaml").read_text(encoding="utf-8")
    text = text.replace("effect: game.n += 1", "effect: 'game.n += 1 // (2 - game.n) * 0 + 1'")
    (rules / "ruleset.yaml").write_text(text, encoding="utf-8")
    log = tmp_path / "game.jsonl"
    status, _, err = run("play", str(rules), "--quiet", "--log", str(log))
    assert_refused(status, err)
    lines = log.read_text(encoding="utf-8").splitlines()
    assert [json.loads(line).get("action") for line in lines[1:3]] == ["go", "go"]
    status, out, err = run("replay", str(log), "--ruleset", str(rules))
    assert status == 0, err
    assert "replayed 2 actions" in out


def test_the_streamed_log_is_on_disk_after_every_action(tmp_path: Path) -> None:
    """Each line is flushed as it is written: a killed game leaves its prefix in TARGET.partial."""
    sink = LineSink(tmp_path / "game.jsonl")
    sink.write_line('{"rulekit_log": 1}')
    sink.write_line('{"player": "P1", "action": "go"}')
    assert (tmp_path / "game.jsonl.partial").read_text(encoding="utf-8").count("\n") == 2
    assert not (tmp_path / "game.jsonl").exists()
    sink.close()
    assert (tmp_path / "game.jsonl").read_text(encoding="utf-8").count("\n") == 2
    assert not (tmp_path / "game.jsonl.partial").exists()


def test_a_failed_write_leaves_the_previous_file_intact(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """A full disk while writing a final file keeps the old file and leaves no temporary file."""
    target = tmp_path / "game.jsonl"
    target.write_text("previous good log\n", encoding="utf-8")

    def full_disk(fd: int) -> None:
        raise OSError(28, "No space left on device")

    monkeypatch.setattr(files.os, "fsync", full_disk)
    with pytest.raises(OSError):
        atomic_write_text(target, "new\n")
    assert target.read_text(encoding="utf-8") == "previous good log\n"
    assert os.listdir(tmp_path) == ["game.jsonl"]


def test_a_truncated_log_replays_its_complete_lines_and_says_where_it_stopped(
    run: Run, tmp_path: Path
) -> None:
    """A log cut in the middle of its last line replays what came before, with a note."""
    log = tmp_path / "game.jsonl"
    run("play", "tic_tac_toe", "--quiet", "--seed", "2", "--log", str(log))
    lines = log.read_text(encoding="utf-8").splitlines()
    actions = len(lines) - 2
    cut = "\n".join(lines[:-2]) + "\n" + lines[-2][:10]  # the last action line half written
    log.write_text(cut, encoding="utf-8")
    status, out, err = run("replay", str(log))
    assert status == 0, err
    assert f"replayed {actions - 1} actions" in out
    assert f"{log}:{len(lines) - 1}:1: the log breaks off" in err


def test_a_broken_line_in_the_middle_of_a_log_is_still_an_error(run: Run, tmp_path: Path) -> None:
    """Only an unfinished last line counts as truncation; damage elsewhere is refused with its line."""
    log = tmp_path / "game.jsonl"
    run("play", "tic_tac_toe", "--quiet", "--log", str(log))
    lines = log.read_text(encoding="utf-8").splitlines()
    lines[1] = lines[1][:10]
    log.write_text("\n".join(lines) + "\n", encoding="utf-8")
    status, _, err = run("replay", str(log))
    assert_refused(status, err)
    assert f"{log}:2:" in err


@pytest.mark.parametrize(
    ("line", "message"),
    [
        ('{"rulekit_log": true, "ruleset": "tic_tac_toe"}', "not a rulekit log"),
        ("[" * 100_000 + "]" * 100_000, "nested"),
        ('{"rulekit_log": ' + "1" * 5000 + "}", "cannot read"),
        ('{"x": "' + "a" * 2_000_000 + '"}', "longer than"),
    ],
    ids=["version_true", "deep_json", "huge_integer", "huge_line"],
)
def test_a_hostile_log_header_is_refused_with_its_position(
    run: Run, tmp_path: Path, line: str, message: str
) -> None:
    """Header version true, deeply nested JSON, 5000-digit numbers and huge lines: exit 1 at line 1."""
    log = tmp_path / "bad.jsonl"
    log.write_text(line + "\n", encoding="utf-8")
    status, _, err = run("replay", str(log))
    assert_refused(status, err)
    assert message in err
    assert f"{log}:1:" in err


def test_a_game_killed_outright_leaves_a_partial_log_that_replays(
    run: Run, ruleset: Callable[[str], Path], tmp_path: Path
) -> None:
    """SIGKILL in the middle of a long game: FILE.partial holds every action flushed so far,
    and replaying it gives back those actions (the last line may be cut: it is reported)."""
    rules = ruleset("")
    text = (rules / "ruleset.yaml").read_text(encoding="utf-8").replace("times: 3", "times: 1000000")
    (rules / "ruleset.yaml").write_text(text, encoding="utf-8")
    log = tmp_path / "game.jsonl"
    partial = tmp_path / "game.jsonl.partial"
    env = {**os.environ, "PYTHONPATH": str(Path(__file__).resolve().parents[2])}
    argv = [sys.executable, "-m", "rulekit", "play", str(rules), "--quiet", "--max-actions", "10000000"]
    with subprocess.Popen([*argv, "--log", str(log)], env=env, stdout=subprocess.DEVNULL) as game:
        try:
            for _ in range(1200):  # wait (up to 2 minutes on a busy machine) for 50 actions
                if partial.exists() and partial.read_text(encoding="utf-8").count("\n") > 50:
                    break
                time.sleep(0.1)
        finally:
            game.kill()
    assert game.returncode == -signal.SIGKILL
    assert not log.exists()
    written = partial.read_text(encoding="utf-8").count("\n")
    assert written > 50
    status, out, err = run("replay", str(partial), "--ruleset", str(rules))
    assert status == 0, err
    assert f"replayed {written - 1} actions" in out  # every complete line after the header


#: Modules allowed to write files by other means than rulekit.tools.files, and why.
_OWN_WRITERS = {
    "tools/files.py": "the one writer: temporary file + fsync + rename, and the streamed log",
    "cachedir.py": "the program cache: temporary file + rename in the user's private directory",
    "tools/bench/report.py": "benchmark results: temporary file + rename",
    "tools/schema.py": "regenerates the JSON schemas shipped in the source tree (a developer tool)",
}
_WRITES = re.compile(r"\.write_text\(|\.write_bytes\(|\bopen\([^)]*['\"][wax]b?['\"]|os\.fdopen\([^)]*['\"]w")


def test_rulekit_writes_files_only_through_the_atomic_writers() -> None:
    """Every log, counterexample, report and page goes through rulekit.tools.files (whole file
    or nothing; a streamed log that replays after a kill): a new ``write_text`` elsewhere fails."""
    package = Path(__file__).resolve().parents[2] / "rulekit"
    offenders = [
        f"{path.relative_to(package)}:{number}: {line.strip()}"
        for path in sorted(package.rglob("*.py"))
        if path.relative_to(package).as_posix() not in _OWN_WRITERS
        for number, line in enumerate(path.read_text(encoding="utf-8").splitlines(), 1)
        if _WRITES.search(line)
    ]
    assert offenders == []


def test_ctrl_c_at_the_human_prompt_keeps_the_log_of_the_actions_so_far(run: Run, tmp_path: Path) -> None:
    """Ctrl-C in ``play --human`` (here: at the second prompt) leaves the log of what was played,
    which replays."""
    from rulekit.load import load_game
    from rulekit.tools.bots import make_bots
    from rulekit.tools.human import play_human

    game = load_game("tic_tac_toe", 2)
    answers = iter(["1", KeyboardInterrupt()])

    def read(_: str) -> str:
        answer = next(answers)
        if isinstance(answer, BaseException):
            raise answer
        return answer

    log = tmp_path / "game.jsonl"
    with pytest.raises(KeyboardInterrupt):
        play_human(
            game,
            0,
            make_bots(game, "random", 0),
            seed=0,
            max_actions=9,
            log=str(log),
            read=read,
            write=lambda _: None,
        )
    lines = [json.loads(line) for line in log.read_text(encoding="utf-8").splitlines()]
    assert [line["player"] for line in lines if "action" in line] == ["P1", "P2"]  # P1's move, the bot's
    status, out, err = run("replay", str(log))
    assert status == 0, err
    assert "replayed 2 actions" in out


def test_a_log_header_with_a_player_count_the_rules_do_not_allow_is_refused_at_its_line(
    run: Run, tmp_path: Path
) -> None:
    """Found by the fuzz campaign: ``"players": 21`` in a tic-tac-toe log was an error without a position."""
    log = tmp_path / "game.jsonl"
    run("play", "tic_tac_toe", "--quiet", "--log", str(log))
    lines = log.read_text(encoding="utf-8").splitlines()
    header = json.loads(lines[0])
    header["players"] = 21
    log.write_text("\n".join([json.dumps(header), *lines[1:]]) + "\n", encoding="utf-8")
    status, _, err = run("replay", str(log))
    assert_refused(status, err)
    assert f"{log}:1:1: error: Tic-tac-toe is for 2-2 players, not 21" in err
