"""The engine's short ways around an action play exactly as its general ways: a decision's
listing function chosen once per game (``game.listers``) against listing action by action, and
fields keyed by the generated code's own tuples (``literal_keys``) against fields keyed by
tuples made anew. The same seeded games give the same actions, states, steps charged and
branches taken either way."""

from __future__ import annotations

import random
import sys
from collections.abc import Callable
from pathlib import Path
from typing import Any

import pytest

import rulekit.engine.game as game_module
from rulekit.engine.game import Game
from rulekit.engine.slots import DECISION, FLOW, MOVES, OVER
from rulekit.errors import RulekitError
from rulekit.load import load_game
from tests.rulesets import player_range, shipped_rulesets

Trace = list[tuple[Any, ...]]


def _trace(game: Game, seeds: range, limit: int) -> Trace:
    """Seeded random games: after each action, the action, the whole state, the steps charged
    so far, the branches of ``if`` expressions taken and the legal actions."""
    runtime = game.runtime
    taken: list[int] = []
    runtime.branch = lambda span, branch: taken.append(branch)
    found: Trace = []
    try:
        for seed in seeds:
            rng = random.Random(seed)
            state = game.new_initial_state(seed)
            found.append(("start", state.state_hash(), tuple(state.legal_actions())))
            for _ in range(limit):
                if state.is_terminal():
                    break
                action = rng.choice(state.legal_actions())
                try:
                    state.apply_action(action)
                except RulekitError as error:  # a rule failing must fail the same way
                    found.append((action, "refused", str(error)))
                    break
                found.append(
                    (action, state.state_hash(), runtime.work(), len(taken), tuple(state.legal_actions()))
                )
    finally:
        runtime.branch = None
    return found


def _by_names(game: Game) -> Game:
    """``game`` listing every decision action by action (each by its planned enumerator,
    then the fallback filter), the general way: no fused or planned listing is chosen."""
    game.listing = lambda names: (None, None)  # type: ignore[method-assign]
    return game


def _load(ruleset: Path) -> Callable[[], Game]:
    players = player_range(ruleset)[0]
    return lambda: load_game(str(ruleset), players)


@pytest.mark.parametrize("ruleset", shipped_rulesets(), ids=lambda p: p.name)
def test_a_decision_lists_the_same_by_its_listing_function_as_action_by_action(ruleset: Path) -> None:
    """Every shipped ruleset, at its fewest players: the same legal actions, states, steps."""
    make = _load(ruleset)
    short = _trace(make(), range(3), 120)
    general = _trace(_by_names(make()), range(3), 120)
    assert len(short) > 3, "no action was played"
    assert short == general


@pytest.mark.parametrize("ruleset", shipped_rulesets(), ids=lambda p: p.name)
def test_a_game_plays_the_same_with_fields_keyed_by_the_generated_codes_tuples(
    ruleset: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """Keyed by the generated code's tuples or by tuples of their own: the same play."""
    make = _load(ruleset)
    shared = _trace(make(), range(3), 120)
    with monkeypatch.context() as patch:
        patch.setattr(game_module, "literal_keys", lambda code: {})
        own = _trace(make(), range(3), 120)
    assert len(shared) > 3, "no action was played"
    assert shared == own


def test_a_new_games_fields_are_keyed_by_the_generated_codes_tuples() -> None:
    """A field the generated code names literally is keyed by that very tuple, the engine's
    own fields by the engine's constants, and every field name is the interned string the
    generated code spells: a look-up finds them by identity."""
    game = load_game("tic_tac_toe", 2)
    state = game.new_initial_state(0)
    spelled = game_module.literal_keys(game.program.code)
    winner = spelled[("game", "winner")]
    keys = {key: key for key in state.fields}
    assert keys[("game", "winner")] is winner
    for engine_key in (DECISION, FLOW, MOVES, OVER):
        assert keys[engine_key] is engine_key
    mark = keys[("a1", "mark")]  # (built as the code runs: its field name is the interned one)
    assert mark[1] is sys.intern("mark")
    state.apply_action(state.legal_actions()[0])  # (a copy keeps its keys)
    assert {key: key for key in state.fields}[("game", "winner")] is winner


def test_literal_keys_finds_the_pairs_in_nested_functions_once() -> None:
    code = compile(
        "def f(F):\n    return F[('game', 'n')]\n"
        "def g(F):\n    return [F[('game', 'n')] for _ in F] + [F[('turn', 'k')], (1, 2)]\n",
        "<test>",
        "exec",
    )
    found = game_module.literal_keys(code)
    assert set(found) == {("game", "n"), ("turn", "k")}
    assert all(key is value for key, value in found.items())
    assert game_module.literal_keys(None) == {}
