"""``rulekit check --watch``: a saved edit is checked again and reported; Ctrl-C stops."""

from __future__ import annotations

import os
import queue
import signal
import subprocess
import sys
import threading
from collections.abc import Callable
from pathlib import Path

import pytest

from rulekit.tools import watch
from tests.tools.conftest import TINY

ROOT = Path(__file__).resolve().parents[2]


def _reader(process: subprocess.Popen[str]) -> queue.Queue[str]:
    lines: queue.Queue[str] = queue.Queue()

    def read() -> None:
        assert process.stdout is not None
        with process.stdout:  # closed at the end of the output, not left to the garbage collector
            for line in process.stdout:
                lines.put(line)

    threading.Thread(target=read, daemon=True).start()
    return lines


def _until(lines: queue.Queue[str], text: str, timeout: float = 30) -> str:
    """The output up to the first line containing ``text`` (fails after ``timeout`` seconds)."""
    seen = []
    while True:
        line = lines.get(timeout=timeout)
        seen.append(line)
        if text in line:
            return "".join(seen)


def _signal_state(pid: int) -> str:
    """The process's blocked, ignored, caught and pending signals, as Linux shows them (for a
    failure's message: a SIGINT blocked or ignored by what started the process never arrives)."""
    try:
        status = Path(f"/proc/{pid}/status").read_text().splitlines()
    except OSError:
        return "unknown"
    kinds = ("SigPnd", "ShdPnd", "SigBlk", "SigIgn", "SigCgt")
    return ", ".join(line for line in status if line.startswith(kinds))


def _quiet(lines: queue.Queue[str], seconds: float = 1.0) -> str:
    """The output until none comes for ``seconds`` (a save may reach the watcher as two
    batches of changes, so a second check may start after the first is reported)."""
    seen = []
    while True:
        try:
            seen.append(lines.get(timeout=seconds))
        except queue.Empty:
            return "".join(seen)


def test_check_watch_reports_a_saved_mistake_then_its_fix_and_stops_on_ctrl_c(
    write_ruleset: Callable[..., Path],
) -> None:
    folder = write_ruleset(TINY, name="watched")
    env = {**os.environ, "PYTHONPATH": str(ROOT), "RULEKIT_NO_CACHE": "1"}
    process = subprocess.Popen(
        [sys.executable, "-m", "rulekit", "check", str(folder), "--watch"],
        stdout=subprocess.PIPE,
        stderr=subprocess.STDOUT,
        text=True,
        env=env,
    )
    try:
        lines = _reader(process)
        first = _until(lines, "watching for changes")
        (folder / "ruleset.yaml").write_text(TINY.replace('"me.coins >= amount"', '"me.coins >= True"'))
        second = _until(lines, "watching for changes")
        (folder / "ruleset.yaml").write_text(TINY)
        third = _until(lines, "watching for changes")
        third += _quiet(lines)
        process.send_signal(signal.SIGINT)
        try:
            status = process.wait(timeout=30)
        except subprocess.TimeoutExpired:
            pytest.fail(
                f"no exit 30 s after Ctrl-C; the output after the third check: {_quiet(lines)!r}; "
                f"its signals: {_signal_state(process.pid)}"
            )
        assert status == 0
    finally:
        process.kill()
        process.wait(timeout=30)
    assert "ok: tiny" in first and "--- ok;" in first
    line = TINY[: TINY.index('"me.coins >= amount"')].count("\n") + 1
    assert f"ruleset.yaml:{line}:" in second and "write 'true'" in second and "problems found" in second
    assert "ok: tiny" in third


def test_watching_without_watchfiles_polls_the_files(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    file = tmp_path / "ruleset.yaml"
    file.write_text("a: 1\n")
    calls: list[str] = []
    out: list[str] = []

    def check() -> int:
        calls.append(file.read_text())
        if len(calls) == 1:
            threading.Timer(0.2, lambda: file.write_text("a: 22\n")).start()
            return 0
        raise KeyboardInterrupt

    monkeypatch.setattr(watch, "POLL", 0.05)
    assert watch.watch([tmp_path], check, out.append, polling=True) == 0
    assert calls == ["a: 1\n", "a: 22\n"]
    assert out[-1] == "stopped"


#: The child of the test below: it watches a folder whose check sends the process a Ctrl-C
#: (and, should the watch go on, saves the file again a second later for a second check).
_IGNORED_SIGINT_CHILD = """
import os, signal, sys, threading
from pathlib import Path
from rulekit.tools import watch

folder = Path(sys.argv[1])
calls = []

def check():
    calls.append(1)
    if len(calls) > 1:
        print("the watch went on after Ctrl-C", flush=True)
        os._exit(3)
    threading.Timer(1.0, lambda: (folder / "ruleset.yaml").write_text("a: 22\\n")).start()
    os.kill(os.getpid(), signal.SIGINT)
    return 0

watch.POLL = 0.05
started_ignored = signal.getsignal(signal.SIGINT) == signal.SIG_IGN
out = []
status = watch.watch([folder], check, out.append, polling=True)
print(started_ignored, status, out[-1], signal.getsignal(signal.SIGINT) == signal.SIG_IGN, flush=True)
os._exit(0)
"""


def test_ctrl_c_stops_the_watch_in_a_process_started_with_sigint_ignored(tmp_path: Path) -> None:
    """A child inherits SIG_IGN for SIGINT from a parent that ignores it at that moment (seen in
    pytest-xdist workers); Ctrl-C is the only way to stop watching, so it must still work.  Run
    in a process of its own, started so: a Ctrl-C sent to the test's own process could land in
    a garbage-collector callback of another library and be lost there."""
    (tmp_path / "ruleset.yaml").write_text("a: 1\n")
    previous = signal.signal(signal.SIGINT, signal.SIG_IGN)  # what the child starts with
    try:
        process = subprocess.Popen(
            [sys.executable, "-c", _IGNORED_SIGINT_CHILD, str(tmp_path)],
            stdout=subprocess.PIPE,
            stderr=subprocess.PIPE,
            text=True,
            env={**os.environ, "PYTHONPATH": str(ROOT)},
        )
    finally:
        signal.signal(signal.SIGINT, previous)
    try:
        out, err = process.communicate(timeout=60)
    finally:
        process.kill()
        process.communicate()
    # started with SIGINT ignored, stopped by the Ctrl-C (exit 0, "stopped"), the old handling back
    assert out.split() == ["True", "0", "stopped", "True"], out + err
