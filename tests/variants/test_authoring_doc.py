"""docs/authoring.md cannot go stale: its files are written and its commands run and compared.

Conventions in the document:

* ``<!-- file: NAME -->`` right before a fenced block: the block is written to NAME.
* a fenced ``console`` block: lines starting with ``$ `` are ``rulekit`` commands; the
  lines after one, up to the next command, are its expected output.  Each non-empty
  expected line must match an output line, in order; ``...`` matches anything (a line
  that is only ``...`` stands for any number of lines).
* ``<!-- exit: N -->`` right before a console block: its commands exit with N (default 0).
"""

from __future__ import annotations

import re
import shlex
from pathlib import Path

import pytest

from rulekit import load
from rulekit.cli import main

DOC = Path(__file__).resolve().parents[2] / "docs" / "authoring.md"
_BLOCK = re.compile(r"(?:<!-- (file|exit): ([^ ]+) -->\n)?```(\w*)\n(.*?)```", re.DOTALL)


def _steps() -> list[tuple[str, str, str]]:
    """('file', name, text) and ('run', exit status, console text), in document order."""
    steps = []
    for marker, value, lang, body in _BLOCK.findall(DOC.read_text(encoding="utf-8")):
        if marker == "file":
            steps.append(("file", value, body))
        elif lang == "console":
            steps.append(("run", value if marker == "exit" else "0", body))
    return steps


def _commands(console: str) -> list[tuple[str, list[str]]]:
    commands: list[tuple[str, list[str]]] = []
    for line in console.splitlines():
        if line.startswith("$ "):
            commands.append((line[2:], []))
        elif commands:
            commands[-1][1].append(line)
    return commands


def _pattern(line: str) -> re.Pattern[str]:
    return re.compile("^" + ".*".join(re.escape(part) for part in line.split("...")) + "$")


def _check_output(command: str, expected: list[str], actual: str) -> None:
    lines = actual.splitlines()
    position = 0
    for wanted in expected:
        if not wanted.strip() or wanted.strip() == "...":
            continue
        pattern = _pattern(wanted.rstrip())
        while position < len(lines) and not pattern.match(lines[position].rstrip()):
            position += 1
        assert position < len(lines), (
            f"$ {command}\nexpected a line like:\n{wanted}\nin the output:\n{actual}"
        )
        position += 1


def test_tutorial_has_the_four_steps_in_order() -> None:
    commands = [c for kind, _, body in _steps() if kind == "run" for c, _ in _commands(body)]
    order = [
        next(i for i, c in enumerate(commands) if c.startswith(f"rulekit {name}"))
        for name in ("check", "scenario", "verify", "diff")
    ]
    assert order == sorted(order)


def test_tutorial_commands_work_as_shown(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    monkeypatch.chdir(tmp_path)
    load._CACHE.clear()
    ran = 0
    for kind, value, body in _steps():
        if kind == "file":
            (tmp_path / value).write_text(body, encoding="utf-8")
            continue
        for command, expected in _commands(body):
            argv = shlex.split(command)
            assert argv[0] == "rulekit", command
            status = main(argv[1:])
            captured = capsys.readouterr()
            output = captured.out + captured.err
            assert status == int(value), f"$ {command}\nexit status {status}, expected {value}\n{output}"
            _check_output(command, expected, output)
            ran += 1
    assert ran >= 8
