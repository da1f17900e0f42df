"""Fixtures for variant tests: a copy of tic-tac-toe with modules, and a variant writer."""

from __future__ import annotations

import shutil
from collections.abc import Callable, Iterator
from pathlib import Path

import pytest

from rulekit import load

ROOT = Path(__file__).resolve().parents[2]
TTT = ROOT / "rulesets" / "tic_tac_toe"

#: Modules for a throwaway copy of tic-tac-toe, to exercise module/variant constraints.
MODULES = {
    "big": """\
module: big
title: Four players
players: {min: 3, max: 4}
conflicts: [quiet]
""",
    "quiet": """\
module: quiet
title: A quiet module
""",
    "needs_quiet": """\
module: needs_quiet
requires: [quiet]
""",
}


@pytest.fixture(autouse=True)
def _fresh_cache() -> Iterator[None]:
    load._CACHE.clear()
    yield
    load._CACHE.clear()


@pytest.fixture
def ttt_copy(tmp_path: Path) -> Path:
    """tic-tac-toe copied to a temporary directory with three small modules."""
    target = tmp_path / "ttt"
    target.mkdir()
    text = (TTT / "ruleset.yaml").read_text(encoding="utf-8")
    text = text.replace("players: {min: 2, max: 2}", "players: {min: 2, max: 4}")
    (target / "ruleset.yaml").write_text(text, encoding="utf-8")
    shutil.copy(TTT / "properties.yaml", target / "properties.yaml")
    (target / "modules").mkdir()
    for name, body in MODULES.items():
        (target / "modules" / f"{name}.yaml").write_text(body, encoding="utf-8")
    shutil.copytree(TTT / "variants", target / "variants")
    return target


@pytest.fixture
def write_variant(tmp_path: Path) -> Callable[[str, str], Path]:
    """Write a variant file ``name.yaml`` into the temporary directory and return its path."""

    def write(text: str, name: str = "house") -> Path:
        path = tmp_path / f"{name}.yaml"
        path.write_text(text, encoding="utf-8")
        return path

    return write


def base_line(text: str) -> str:
    """``rulesets/tic_tac_toe/ruleset.yaml:LINE`` of the first line containing ``text``."""
    for number, line in enumerate((TTT / "ruleset.yaml").read_text(encoding="utf-8").splitlines(), start=1):
        if text in line:
            return f"rulesets/tic_tac_toe/ruleset.yaml:{number}"
    raise AssertionError(f"{text!r} is not in tic_tac_toe's ruleset.yaml")
