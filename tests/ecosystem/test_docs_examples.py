"""The examples in docs/ecosystem.md run as shown."""

from __future__ import annotations

import re
from pathlib import Path

import pytest

from tests.ecosystem.extras import require

DOC = Path(__file__).resolve().parents[2] / "docs" / "ecosystem.md"
BLOCKS = re.findall(r"```python\n(.*?)```", DOC.read_text(encoding="utf-8"), re.DOTALL)


def test_the_doc_has_one_example_per_library() -> None:
    """docs/ecosystem.md has a ten-line example for each library."""
    assert len(BLOCKS) == 2
    assert "pyspiel" in BLOCKS[0]
    assert "pettingzoo" in BLOCKS[1]
    assert all(len(block.strip().splitlines()) <= 10 for block in BLOCKS)


@pytest.mark.slow
def test_the_openspiel_example_plays_a_game(capsys: pytest.CaptureFixture[str]) -> None:
    """The OpenSpiel example of docs/ecosystem.md runs and prints the returns."""
    require("pyspiel", "openspiel")
    exec(compile(BLOCKS[0], f"{DOC}:openspiel", "exec"), {})
    assert re.fullmatch(r"\[-?[01]\.0, -?[01]\.0\]\n", capsys.readouterr().out)


@pytest.mark.slow  # a whole game through PettingZoo: minutes
def test_the_pettingzoo_example_plays_a_game(capsys: pytest.CaptureFixture[str]) -> None:
    """The PettingZoo example of docs/ecosystem.md runs and prints the returns."""
    require("pettingzoo", "pettingzoo")
    exec(compile(BLOCKS[1], f"{DOC}:pettingzoo", "exec"), {})
    assert re.fullmatch(r"\[(-?[01]\.0, ){2}-?[01]\.0\]\n", capsys.readouterr().out)
