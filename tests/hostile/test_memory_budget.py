"""The state's size is capped like the steps of an evaluation (the limit ``max_state_size``):
a ruleset that keeps adding to its state stops with a located rule error, the state as it
was before the action; the shipped games stay far below the limit."""

from __future__ import annotations

import random
from collections.abc import Callable, Iterator
from pathlib import Path

import pytest

from rulekit.engine.game import BUSY, MEASURE_EVERY, Game
from rulekit.errors import RuleEvaluationError
from rulekit.limits import LIMITS
from rulekit.load import load_program
from rulekit.runtime.sizes import state_size  # (measured afresh, nothing remembered)
from tests.hostile.conftest import Run, assert_refused
from tests.rulesets import Setup, setups, shipped_rulesets

#: The finding of issue #25: passes `check`, stays inside every per-evaluation limit and
#: appends one text of {chars} characters per action (906 MB by action 1,000 at 891,000).
GROWING = """\
ruleset: growing
players: {{min: 2, max: 2}}
state:
  game:
    n: {{type: int, initial: 0}}
    texts: {{type: "list[str]"}}
    numbers: {{type: "list[int]"}}
{setup}actions:
  go:
    effect: |
      game.n += 1
      {effect}
    ends_turn: true
flow:
  - repeat:
      times: 100000
      steps:
        - turn: player_at(1)
"""


_APPEND_TEXT = 'game.texts = append(game.texts, concat(game.n, pad("", {chars})))'


@pytest.fixture(autouse=True)
def _default_limits() -> Iterator[None]:
    yield
    LIMITS.reset()


def _growing(tmp_path: Path, chars: int = 891_000, setup: str = "", effect: str = _APPEND_TEXT) -> Path:
    directory = tmp_path / "growing"
    directory.mkdir(exist_ok=True)
    text = GROWING.format(setup=setup, effect=effect.format(chars=chars))
    (directory / "ruleset.yaml").write_text(text, encoding="utf-8")
    return directory


def test_a_ruleset_appending_a_big_text_per_action_stops_at_the_limit_with_a_located_error(
    run: Run, tmp_path: Path
) -> None:
    rules = _growing(tmp_path)
    assert run("check", str(rules))[0] == 0
    status, _, err = run("play", str(rules), "--quiet", "--max-actions", "40")
    assert_refused(status, err)
    assert "applying go failed" in err and "max_state_size (20000000)" in err
    assert "game.texts" in err
    assert "ruleset.yaml:9:3: error" in err  # at the action's declaration


def test_the_state_is_unchanged_by_the_action_that_grew_it_beyond_the_limit(tmp_path: Path) -> None:
    LIMITS.max_state_size = 2_000_000
    program = load_program(str(_growing(tmp_path, chars=200_000)), [], [])
    state = Game(program, 2).new_initial_state(0)
    for _ in range(40):
        before = dict(state.fields)
        try:
            state.apply_action("go")
        except RuleEvaluationError as error:
            assert "applying go failed" in error.render() and "max_state_size" in error.render()
            break
    else:
        pytest.fail("the state grew past the limit without an error")
    assert state.fields.keys() == before.keys()
    assert all(state.fields[key] is value for key, value in before.items())
    assert state_size(state.fields) <= LIMITS.max_state_size < state_size(before) + 200_000
    assert state.legal_action_strings() == ["go"]  # and the game goes on from there


def test_growth_in_small_steps_is_measured_once_the_actions_built_enough(tmp_path: Path) -> None:
    """Small additions (5,000 characters an action) are measured once the actions since the
    last measurement built BUSY characters: the state never passes the limit by more."""
    LIMITS.max_state_size = 100_000
    program = load_program(str(_growing(tmp_path, chars=5000)), [], [])
    state = Game(program, 2).new_initial_state(0)
    with pytest.raises(RuleEvaluationError, match="max_state_size"):
        for _ in range(200):
            state.apply_action("go")
    assert state_size(state.fields) <= LIMITS.max_state_size + BUSY


def test_growth_without_steps_or_texts_is_measured_every_so_many_moves(tmp_path: Path) -> None:
    """A list that grows by one number an action is measured every MEASURE_EVERY moves."""
    LIMITS.max_state_size = 300
    rules = _growing(tmp_path, effect="game.numbers = append(game.numbers, game.n)")
    state = Game(load_program(str(rules), [], []), 2).new_initial_state(0)
    with pytest.raises(RuleEvaluationError, match="max_state_size"):
        for _ in range(3 * MEASURE_EVERY):
            state.apply_action("go")
    assert 250 < state.moves() < 300 + MEASURE_EVERY


@pytest.mark.parametrize("builtin", ["pad", "pad_left", "center"])
def test_padding_to_a_width_beyond_the_text_limit_is_refused_before_the_text_is_made(
    run: Run, ruleset: Callable[[str], Path], builtin: str
) -> None:
    rules = ruleset(f'setup: game.n = len({builtin}("", {LIMITS.max_text_chars + 1}))\n')
    status, _, err = run("play", str(rules), "--quiet")
    assert_refused(status, err)
    assert "setup failed" in err and "max_text_chars" in err


@pytest.mark.parametrize("setup", [s for r in shipped_rulesets() for s in setups(r)], ids=lambda s: s.name)
def test_shipped_games_play_to_the_end_far_below_the_state_limit(setup: Setup) -> None:
    """Every shipped ruleset (base and all modules, fewest and most players): a random game
    ends without the limit, its state at most a thousandth of it all along."""
    program = load_program(str(setup.ruleset), list(setup.modules), [])
    state = Game(program, setup.players).new_initial_state(1)
    rng = random.Random(1)
    largest = state_size(state.fields)
    while not state.is_terminal():
        state.apply_action(rng.choice(state.legal_actions()))
        largest = max(largest, state_size(state.fields))
    assert largest < LIMITS.max_state_size // 1000, largest
