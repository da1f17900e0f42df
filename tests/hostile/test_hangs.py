"""Rules that would run for ever, or exhaust memory, stop at a limit with a located rule error."""

from __future__ import annotations

import re
from collections.abc import Callable
from pathlib import Path

import attrs
import pytest

from rulekit.errors import RuleEvaluationError
from rulekit.limits import LIMITS, Limits
from rulekit.load import load_game
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


#: An expression of 10^10 steps: without a budget it runs for hours.
_HUGE = "count(i for i in between(1, 100000) for j in between(1, 100000))"

#: name -> (extra YAML putting the huge expression in one kind of rule, the command that
#: evaluates that rule, text the error must contain).
_SLOTS = {
    "requirement": ("", ["play", "--quiet"], "cannot list the legal actions"),
    "score": (f'scoring:\n  score: "{_HUGE}"\n', ["play", "--quiet"], "computing the standings failed"),
    "bot_weight": (
        f'bots:\n  weights:\n    go: "{_HUGE}"\n',
        ["play", "--quiet"],
        "the bot weight of go failed",
    ),
    "invariant": (
        f'invariants:\n  i:\n    holds: "{_HUGE} > 0"\n    message: never\n',
        ["check", "--all-combinations"],
        "invariant 'i' does not hold: never (it could not be evaluated: the rules ran more than",
    ),
    "bench": ("", ["bench", "--rounds", "1", "--seconds", "1"], "cannot list the legal actions"),
}


@pytest.mark.parametrize("slot", sorted(_SLOTS))
def test_every_kind_of_rule_evaluation_has_a_step_budget(
    run: Run, ruleset: Callable[[str], Path], slot: str
) -> None:
    """Requirements, scores, bot weights and invariants, under play, bench and check
    --all-combinations: exit 1 naming the rule, never a hang or a traceback (an invariant
    used to escape as exit 3)."""
    extra, command, message = _SLOTS[slot]
    rules = ruleset(extra)
    if slot in ("requirement", "bench"):
        _replace(rules, "    effect: game.n += 1\n", f'    require: "{_HUGE} > 0"\n    effect: game.n += 1\n')
    assert run("check", str(rules))[0] == 0
    status, out, err = run("--limit", "max_steps=100000", command[0], str(rules), *command[1:])
    assert status == 1, out + err
    assert "Traceback" not in out + err
    assert message in out + err
    assert re.search(r"ruleset\.yaml:\d+:\d+", out + err), out + err


def _replace(rules: Path, old: str, new: str) -> None:
    text = (rules / "ruleset.yaml").read_text(encoding="utf-8")
    assert old in text
    (rules / "ruleset.yaml").write_text(text.replace(old, new, 1), encoding="utf-8")


def test_triggers_that_fan_out_under_the_depth_limit_stop_at_the_budget(
    run: Run, ruleset: Callable[[str], Path]
) -> None:
    """25 events, each trigger emitting the next event twice: 2^25 trigger runs, never deeper
    than 25, so only the step budget stops them; the error names a trigger."""
    levels = 25
    events = "events:\n" + "".join(f"  b{i}: {{}}\n" for i in range(levels + 1))
    triggers = "triggers:\n" + "".join(
        f"  t{i}:\n    after: b{i}\n    effect: |\n      emit b{i + 1}()\n      emit b{i + 1}()\n"
        for i in range(levels)
    )
    rules = ruleset(events + triggers)
    _replace(rules, "    effect: game.n += 1\n", "    effect: |\n      game.n += 1\n      emit b0()\n")
    assert run("check", str(rules))[0] == 0
    status, _, err = run("--limit", "max_steps=100000", "play", str(rules), "--quiet")
    assert_refused(status, err)
    assert "steps in one evaluation" in err
    assert re.search(r"ruleset\.yaml:\d+:\d+: error: applying go failed", err), err
    assert re.search(r"\|   t\d+:", err), err  # the trigger's line is quoted


def test_a_log_replayed_under_a_smaller_budget_stops_at_its_line(
    run: Run, ruleset: Callable[[str], Path], tmp_path: Path
) -> None:
    """replay evaluates the rules under the same budget as play: a heavy action stops
    with the log line and the action named, not a hang."""
    rules = ruleset("")
    _replace(
        rules,
        "    effect: game.n += 1\n",
        "    effect: |\n      for i in between(1, 100000):\n          for j in between(1, 3):\n"
        "              pass\n      game.n += 1\n",
    )
    log = tmp_path / "game.jsonl"
    assert run("play", str(rules), "--quiet", "--log", str(log))[0] == 0
    status, _, err = run("--limit", "max_steps=100000", "replay", str(log), "--ruleset", str(rules))
    assert_refused(status, err)
    assert (
        f"{log}:2:1: error: cannot replay go: applying go failed: the rules ran more than 100000 steps" in err
    )


def test_a_scenario_setup_effect_that_runs_away_is_a_located_failure(run: Run, tmp_path: Path) -> None:
    """``setup_effect`` runs under the step budget too."""
    scenario = tmp_path / "s.yaml"
    scenario.write_text(
        "scenario: a\nruleset: tic_tac_toe\nsetup_effect: |\n  for i in between(1, 100000):\n"
        "      for j in between(1, 100000):\n          pass\nactions: [place(a1)]\n",
        encoding="utf-8",
    )
    status, out, err = run("--limit", "max_steps=100000", "scenario", str(scenario))
    assert status == 1, out + err
    assert f"{scenario}:3:15: error: setup_effect failed: the rules ran more than 100000 steps" in out


def test_an_action_stopped_by_the_budget_leaves_the_state_unchanged(ruleset: Callable[[str], Path]) -> None:
    """The budget error is a located rule error naming the action; fields are as before."""
    rules = ruleset("")
    _replace(
        rules,
        "    effect: game.n += 1\n",
        "    effect: |\n      game.n += 1\n      for i in between(1, 100000):\n"
        "          for j in between(1, 100000):\n              game.n += 1\n",
    )
    LIMITS.max_steps = 100_000
    try:
        game = load_game(str(rules), 2)
        state = game.new_initial_state(0)
        before = state.state_hash()
        with pytest.raises(RuleEvaluationError, match="applying go failed") as caught:
            state.apply_action("go")
    finally:
        LIMITS.reset()
    assert caught.value.diagnostics[0].span is not None
    assert state.state_hash() == before
    assert state.value("game", "n") == 0


def test_docs_list_every_limit_with_its_default() -> None:
    """docs/security.md's table of limits matches rulekit.limits: every limit, the same default."""
    text = (Path(__file__).resolve().parents[2] / "docs" / "security.md").read_text(encoding="utf-8")
    documented = {
        name: int(default.replace(",", ""))
        for name, default in re.findall(r"^\| `(\w+)` \| ([\d,]+) \|", text, re.MULTILINE)
    }
    assert documented == {f.name: f.default for f in attrs.fields(Limits)}


def test_a_flow_that_never_asks_anyone_is_a_located_error(run: Run, ruleset: Callable[[str], Path]) -> None:
    """A billion turns that nobody can play (each ends by itself): the flow stops after its step
    limit with the position of the flow step under way (it used to have no position)."""
    rules = ruleset("")
    _replace(rules, "times: 3", "times: 1000000000")
    _replace(rules, "    effect: game.n += 1\n", "    require: game.n < 1\n    effect: game.n += 1\n")
    status, _, err = run("play", str(rules), "--quiet")
    assert_refused(status, err)
    assert "ruleset.yaml:15:11: error: the flow runs without ever asking a player to decide" in err


def test_a_flow_step_that_runs_out_of_the_budget_before_the_first_turn_points_at_the_step(
    run: Run, ruleset: Callable[[str], Path]
) -> None:
    """Flow ``do:`` steps looping before anyone decides stop at the step budget; the error names
    the ``do:`` (the budget is charged on entering its block, before its first statement)."""
    rules = ruleset("")
    _replace(rules, "        - turn: player_at(1)\n", "        - do: game.n += 1\n")
    _replace(rules, "times: 3", "times: 1000000000")
    status, _, err = run("--limit", "max_steps=1000", "play", str(rules), "--quiet")
    assert_refused(status, err)
    assert "ruleset.yaml:14:15: error: setup failed: the rules ran more than 1000 steps" in err, err
