"""A rules file cannot make rulekit generate millions of components or read state while loading."""

from __future__ import annotations

from collections.abc import Callable
from pathlib import Path

from tests.hostile.conftest import Run, assert_refused

CELLS = """\
components:
  cell:
    attributes: {{x: int, y: int}}
    generate:
      for: {{x: "{x}", y: "range(0, 1000)"}}
      id: "c{{x}}_{{y}}"
"""


def test_a_generated_grid_beyond_the_limit_is_refused_before_it_is_made(
    run: Run, ruleset: Callable[[str], Path]
) -> None:
    rules = ruleset(CELLS.format(x="range(0, 1000000)"))
    status, _, err = run("check", str(rules))
    assert_refused(status, err)
    assert "max_generated_items" in err


def test_the_limit_can_be_raised_for_a_trusted_file(run: Run, ruleset: Callable[[str], Path]) -> None:
    rules = ruleset(CELLS.format(x="range(0, 20)"))
    status, _, err = run("check", str(rules))
    assert_refused(status, err)
    status, _, err = run("--limit", "max_generated_items=20000", "check", str(rules))
    assert status == 0, err


def test_a_generated_loop_that_reads_the_state_is_refused(run: Run, ruleset: Callable[[str], Path]) -> None:
    rules = ruleset(CELLS.format(x="range(0, game.n)"))
    status, _, err = run("check", str(rules))
    assert_refused(status, err)
    assert "reads the state" in err
