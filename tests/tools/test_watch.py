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


def test_ctrl_c_stops_the_watch_in_a_process_started_with_sigint_ignored(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """A child inherits SIG_IGN for SIGINT from a parent that ignores it at that moment (seen in
    pytest-xdist workers); Ctrl-C is the only way to stop watching, so it must still work."""
    file = tmp_path / "ruleset.yaml"
    file.write_text("a: 1\n")
    out: list[str] = []
    calls: list[int] = []

    def check() -> int:
        calls.append(1)
        if len(calls) > 1:
            raise AssertionError("Ctrl-C did not stop the watch")
        threading.Timer(1.0, lambda: file.write_text("a: 22\n")).start()  # a second check if it goes on
        os.kill(os.getpid(), signal.SIGINT)
        return 0

    monkeypatch.setattr(watch, "POLL", 0.05)
    previous = signal.signal(signal.SIGINT, signal.SIG_IGN)
    try:
        assert watch.watch([tmp_path], check, out.append, polling=True) == 0
        assert signal.getsignal(signal.SIGINT) == signal.SIG_IGN  # the old handling is back
    finally:
        signal.signal(signal.SIGINT, previous)
    assert out[-1] == "stopped"
