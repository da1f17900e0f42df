"""New games: a setup that draws no random number is run once per game and copied after,
and every new game is the state a full setup gives for its seed."""

from __future__ import annotations

from collections.abc import Callable
from pathlib import Path

import pytest

from rulekit.engine.game import Game, State
from rulekit.errors import RuleEvaluationError
from rulekit.limits import LIMITS
from rulekit.load import load_game

RULES = """\
ruleset: start
players: {{min: 2, max: 2}}
state:
  game:
    n: {{type: int, initial: 3}}
    deck: {{type: "list[int]", initial: "[1, 2, 3, 4, 5, 6]"}}
    rolled: {{type: int}}
actions:
  bump:
    params: {{k: "[x for x in game.deck if x <= game.n]"}}
    effect: game.n += k
setup: |
  for i in range(0, 200):
    game.n += 0
{setup}
flow:
  - repeat: {{times: 2, steps: [{{turn: player_at(1)}}]}}
"""

Writer = Callable[..., Path]


def _game(write: Writer, setup: str = "") -> Game:
    return load_game(str(write(RULES.format(setup=setup))), 2)


def _from_scratch(game: Game, seed: int) -> State:
    """The state a full setup gives (a ``before_setup`` hook always runs the setup)."""
    return game.new_initial_state(seed, before_setup=lambda F: None)


def test_games_from_a_setup_without_chance_are_full_setups_with_their_own_seed(write_ruleset: Writer) -> None:
    game = _game(write_ruleset)
    first = game.new_initial_state(0)
    first.legal_actions().clear()  # a caller's change to a listing stays its own
    for seed in (0, 1, 7):
        copied = game.new_initial_state(seed)
        assert copied.fields == _from_scratch(game, seed).fields
        assert copied.legal_actions() == _from_scratch(game, seed).legal_actions() != []
        assert copied.fields is not first.fields
    assert game.new_initial_state(1).fields[("_", "rng")] != game.new_initial_state(2).fields[("_", "rng")]


def test_a_copied_start_plays_and_replays_like_a_full_setup(write_ruleset: Writer) -> None:
    game = _game(write_ruleset)
    game.new_initial_state(5)
    played, scratch = game.new_initial_state(5), _from_scratch(game, 5)
    for state in (played, scratch):
        state.apply_action("bump(2)")
    assert played.state_hash() == scratch.state_hash()


def test_a_setup_that_draws_runs_for_every_game(write_ruleset: Writer) -> None:
    game = _game(write_ruleset, "  shuffle(game.deck)\n  game.rolled = roll(6)\n")
    decks = set()
    for seed in range(6):
        state = game.new_initial_state(seed)
        assert state.fields == _from_scratch(game, seed).fields
        decks.add(state.value("game", "deck"))
    assert len(decks) > 1


def test_a_lower_step_limit_applies_to_the_next_new_game(write_ruleset: Writer) -> None:
    """The copy is made under the limits in force: lowering one makes the setup run again
    (and fail here, as a full setup would)."""
    game = _game(write_ruleset)
    game.new_initial_state(0)
    LIMITS.max_steps = 50
    try:
        with pytest.raises(RuleEvaluationError, match="more than 50 steps"):
            game.new_initial_state(1)
    finally:
        LIMITS.reset()
    assert game.new_initial_state(2).fields == _from_scratch(game, 2).fields


def test_hooks_see_every_setup(write_ruleset: Writer) -> None:
    """With a coverage hook set (tools), the setup runs for each game, so the hook sees it."""
    game = _game(write_ruleset, "  if game.n > 2:\n    game.n += 1\n")
    game.new_initial_state(0)
    seen: list[int] = []
    game.runtime.branch = lambda span, taken: seen.append(taken)
    try:
        game.new_initial_state(1)
        game.new_initial_state(2)
    finally:
        game.runtime.branch = None
    assert seen == [0, 0]
