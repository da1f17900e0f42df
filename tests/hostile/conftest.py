"""Helpers for the hostile-input tests: run the command line in-process and judge its answer.

Every test here plays an attacker: it hands rulekit a rules file, variant, scenario or
log built to run code, hang, crash or lose data, and checks that rulekit refuses it as a
user error (exit 1) that points at the offending place, and that nothing ran.
"""

from __future__ import annotations

import os
import re
from collections.abc import Callable, Iterator
from pathlib import Path

import pytest

from rulekit.cli import main

#: A ruleset skeleton; tests add sections by formatting ``{extra}`` into it.
BASE = """\
ruleset: hostile
players: {{min: 2, max: 2}}
state:
  game:
    n: {{type: int, initial: 0}}
actions:
  go:
    effect: game.n += 1
    ends_turn: true
flow:
  - repeat:
      times: 3
      steps:
        - turn: player_at(1)
{extra}"""

Run = Callable[..., tuple[int, str, str]]

_ROOT = Path(__file__).resolve().parents[2]


@pytest.fixture(autouse=True)
def _nothing_written_outside_the_temp_dir(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Iterator[None]:
    """Every hostile test: rulekit's cache goes to the test's temporary directory, and after
    the test no file has appeared in the project, the home directory or next to that
    temporary directory (a payload that ran, or a path that escaped, would leave one).
    Hidden names are not watched: tools (hypothesis, editors, shells) create them at any time."""
    monkeypatch.setenv("RULEKIT_CACHE_DIR", str(tmp_path / ".cache"))
    watched = [_ROOT, tmp_path.parent, Path.home()]
    before = {d: _visible(d) for d in watched}
    yield
    for directory in watched:
        appeared = _visible(directory) - before[directory]
        assert not appeared, f"files appeared in {directory}: {sorted(appeared)}"


def _visible(directory: Path) -> set[str]:
    return {name for name in os.listdir(directory) if not name.startswith(".")}


@pytest.fixture
def run(capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch, tmp_path: Path) -> Run:
    """``run(*argv)`` -> (exit status, stdout, stderr), with the temporary directory as cwd."""
    monkeypatch.chdir(tmp_path)

    def call(*argv: str) -> tuple[int, str, str]:
        status = main(list(argv))
        captured = capsys.readouterr()
        return status, captured.out, captured.err

    return call


@pytest.fixture
def ruleset(tmp_path: Path) -> Callable[[str], Path]:
    """``ruleset(extra_yaml)``: a ruleset directory of :data:`BASE` plus ``extra_yaml``."""

    def write(extra: str, name: str = "rs") -> Path:
        directory = tmp_path / name
        directory.mkdir(exist_ok=True)
        (directory / "ruleset.yaml").write_text(BASE.format(extra=extra), encoding="utf-8")
        return directory

    return write


@pytest.fixture
def marker(tmp_path: Path) -> Path:
    """A file that an executed payload would create; it must never exist."""
    return tmp_path / "PWNED"


def shell_payload(marker: Path) -> str:
    """Python that runs ``touch marker`` through object subclasses, if it is ever evaluated."""
    return (
        "[c for c in ().__class__.__base__.__subclasses__() if c.__name__ == '_wrap_close'][0]"
        f".__init__.__globals__['system']('touch {marker}')"
    )


def assert_refused(status: int, err: str) -> None:
    """Exit 1, no traceback, and the message names a file:line:col."""
    assert status == 1, err
    assert "Traceback" not in err and "internal error" not in err, err
    assert re.search(r"\S+:\d+:\d+: error", err), err
