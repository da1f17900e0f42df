"""Rules that would run for ever, or exhaust memory, stop at a limit with a located rule error."""

from __future__ import annotations

from collections.abc import Callable
from pathlib import Path

import pytest

from tests.hostile.conftest import Run, assert_refused

#: name -> extra YAML; each passes `check` and makes the first action (or setup) blow up.
HANGS = {
    "nested_loops": """\
actions2: {}
setup: |
  for i in between(1, 100000):
      for j in between(1, 100000):
          game.n += 1
""",
    "exponential_functions": "functions:\n  f0: '1'\n"
    + "".join(f"  f{i}: 'f{i - 1}() + f{i - 1}()'\n" for i in range(1, 60))
    + "setup: game.n = f59()\n",
    "repeated_squaring": """\
setup: |
  game.n = 2
  for i in range(1, 64):
      game.n = game.n * game.n
""",
}


def _rules(ruleset: Callable[[str], Path], extra: str) -> Path:
    return ruleset(extra.replace("actions2: {}\n", ""))


@pytest.mark.parametrize("case", ["nested_loops", "exponential_functions", "repeated_squaring"])
def test_a_runaway_setup_stops_at_a_limit_with_a_located_error(
    run: Run, ruleset: Callable[[str], Path], case: str
) -> None:
    """Setup loops, exponential call chains and number blow-ups end as exit 1 naming the rule."""
    rules = _rules(ruleset, HANGS[case])
    assert run("check", str(rules))[0] == 0
    status, _, err = run("--limit", "max_steps=200000", "play", str(rules), "--quiet")
    assert_refused(status, err)
    assert "setup failed" in err


def test_the_default_step_budget_stops_a_loop_of_ten_billion_steps(
    run: Run, ruleset: Callable[[str], Path]
) -> None:
    """Without any flag, the default budget ends a 10^10-step loop (no timing asserted)."""
    status, _, err = run("play", str(_rules(ruleset, HANGS["nested_loops"])), "--quiet")
    assert_refused(status, err)
    assert "steps in one evaluation" in err


def test_text_doubled_in_a_loop_stops_at_the_text_limit(run: Run, ruleset: Callable[[str], Path]) -> None:
    """concat() refuses to build a text beyond max_text_chars (63 doublings would need 2^64 bytes)."""
    rules = ruleset(
        'setup: |\n  game.s = "ab"\n  for i in between(1, 63):\n      game.s = concat(game.s, game.s)\n'
    )
    text = (rules / "ruleset.yaml").read_text(encoding="utf-8")
    text = text.replace(
        "    n: {type: int, initial: 0}\n", "    n: {type: int, initial: 0}\n    s: {type: str}\n"
    )
    (rules / "ruleset.yaml").write_text(text, encoding="utf-8")
    status, _, err = run("play", str(rules), "--quiet")
    assert_refused(status, err)
    assert "max_text_chars" in err


def test_an_enumeration_of_ten_billion_combinations_stops_and_names_the_action(
    run: Run, ruleset: Callable[[str], Path]
) -> None:
    """Parameter domains are charged to the step budget; the error names the action's rule."""
    rules = ruleset("")
    text = (rules / "ruleset.yaml").read_text(encoding="utf-8")
    text = text.replace(
        "  go:\n",
        "  go:\n    params:\n"
        + "".join(f"      p{i}: between(1, 99999)\n" for i in range(2))
        + "    require: p0 + p1 < 0\n",
    )
    (rules / "ruleset.yaml").write_text(text, encoding="utf-8")
    status, _, err = run("--limit", "max_steps=300000", "play", str(rules), "--quiet")
    assert_refused(status, err)
    assert "cannot list the legal actions" in err
    assert "ruleset.yaml:" in err


def test_too_many_legal_actions_are_refused(run: Run, ruleset: Callable[[str], Path]) -> None:
    """A listing with more candidates than max_candidates is a located error, not a huge list."""
    rules = ruleset("")
    text = (rules / "ruleset.yaml").read_text(encoding="utf-8")
    text = text.replace("  go:\n", "  go:\n    params:\n      p: between(1, 5000)\n")
    (rules / "ruleset.yaml").write_text(text, encoding="utf-8")
    status, _, err = run("--limit", "max_candidates=1000", "play", str(rules), "--quiet")
    assert_refused(status, err)
    assert "max_candidates" in err


def test_an_unknown_limit_is_a_usage_error(run: Run) -> None:
    """--limit names a known limit and takes a positive whole number."""
    status, _, err = run("--limit", "max_bananas=3", "check", "tic_tac_toe")
    assert status == 2 and "max_steps" in err
    status, _, err = run("--limit", "max_steps=-1", "check", "tic_tac_toe")
    assert status == 2


def test_a_number_doubled_in_a_loop_cannot_reach_the_state(run: Run, ruleset: Callable[[str], Path]) -> None:
    """Numbers stored in the state stay within max_int_bits, so logs and hashes can always write them."""
    rules = ruleset("setup: |\n  game.n = 1\n  for i in between(1, 20000):\n      game.n += game.n\n")
    status, _, err = run("play", str(rules), "--quiet")
    assert_refused(status, err)
    assert "max_int_bits" in err
