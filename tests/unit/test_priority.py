"""An action offered only if nothing else is possible (Ludii's priority)."""

from __future__ import annotations

import random
from collections.abc import Callable
from pathlib import Path
from typing import Any

import pytest

from rulekit.engine import priority
from rulekit.engine.action import make_action
from rulekit.engine.game import Game
from rulekit.engine.priority import _blocking
from rulekit.errors import IllegalActionError
from rulekit.load import load_game

RULES = """\
ruleset: pile
players: {min: 2, max: 2}
state:
  game:
    pile: {type: int, initial: "2"}
    passes: {type: int}
actions:
  take:
    require:
      - {if: "game.pile > 0", else: the pile is empty}
    effect: game.pile -= 1
    ends_turn: true
  pass_turn:
    effect: game.passes += 1
    ends_turn: true
flow:
  - repeat:
      until: game.passes >= 2
      steps:
        - turn: player_at(1)
        - turn: player_at(2)
"""


def _game(write_ruleset: Callable[..., Path]) -> Game:
    game = load_game(str(write_ruleset(RULES)), 2)
    game.program.actions["pass_turn"].fallback = "she can still take, so she may not pass"
    return game


def test_the_fallback_is_offered_only_when_no_other_action_is_legal(
    write_ruleset: Callable[..., Path],
) -> None:
    game = _game(write_ruleset)
    state = game.new_initial_state(0)
    assert state.legal_action_strings() == ["take"]
    state.apply_action("take")
    state.apply_action("take")
    assert state.legal_action_strings() == ["pass_turn"]


def test_refusing_the_fallback_gives_the_rules_message_and_what_is_possible(
    write_ruleset: Callable[..., Path],
) -> None:
    state = _game(write_ruleset).new_initial_state(0)
    before = state.state_hash()
    message = r"she can still take, so she may not pass \(possible: take\)"
    with pytest.raises(IllegalActionError, match=message):
        state.apply_action("pass_turn")
    assert state.state_hash() == before


def test_without_the_flag_both_are_offered(write_ruleset: Callable[..., Path]) -> None:
    state = load_game(str(write_ruleset(RULES)), 2).new_initial_state(0)
    assert state.legal_action_strings() == ["take", "pass_turn"]


def test_ignored_actions_do_not_rule_the_fallback_out(write_ruleset: Callable[..., Path]) -> None:
    """An action the fallback ignores (here 'look') is offered beside it."""
    rules = RULES.replace("actions:\n", "actions:\n  look:\n    effect: pass\n")
    game = load_game(str(write_ruleset(rules)), 2)
    game.program.actions["pass_turn"].fallback = "she can still take"
    game.program.actions["pass_turn"].fallback_ignoring = frozenset({"look"})
    state = game.new_initial_state(0)
    assert state.legal_action_strings() == ["look", "take"]
    state.apply_action("take")
    state.apply_action("take")
    assert state.legal_action_strings() == ["look", "pass_turn"]


CONDITIONAL = RULES.replace(
    "actions:\n",
    """actions:
  look:
    params: {n: "[1, 2, 3]"}
    effect: pass
""",
).replace(
    "  pass_turn:\n",
    """  pass_turn:
    only_if_nothing_else: she can still do something, so she may not pass
    ignoring:
      - {action: look, when: "n != game.pile"}
""",
)


def test_an_action_ignored_only_when_a_condition_holds_counts_when_it_does_not(
    write_ruleset: Callable[..., Path],
) -> None:
    """``ignoring: [{action: look, when: ...}]``: look(n) does not keep the pass away unless n is
    the pile's size; the refusal names the look that counts."""
    rules = CONDITIONAL.replace(
        '      - {if: "game.pile > 0", else: the pile is empty}\n', '      - {if: "false", else: never}\n'
    )
    state = load_game(str(write_ruleset(rules)), 2).new_initial_state(0)
    assert state.legal_action_strings() == ["look(1)", "look(2)", "look(3)"]  # look(2): n == pile
    with pytest.raises(IllegalActionError, match=r"so she may not pass \(possible: look\(2\)\)"):
        state.apply_action("pass_turn")
    state.fields[("game", "pile")] = 5  # no look has n == 5 now: every look is ignored
    state.refresh()
    assert state.legal_action_strings() == ["look(1)", "look(2)", "look(3)", "pass_turn"]


def test_an_ignoring_condition_is_checked_with_the_ignored_actions_parameters(
    write_ruleset: Callable[..., Path],
) -> None:
    """The condition is typed against the ignored action's parameters; an unknown action is named."""
    from rulekit.errors import RulesetError

    with pytest.raises(RulesetError, match="unknown name 'm'"):
        load_game(str(write_ruleset(CONDITIONAL.replace("n != game.pile", "m != game.pile"))), 2)
    with pytest.raises(RulesetError, match="ignores unknown action 'lok'"):
        load_game(str(write_ruleset(CONDITIONAL.replace("action: look, when", "action: lok, when"))), 2)


def _keep_by_walking(found: list[Any], names: Any, actions: Any, state: Any, me: int) -> list[Any]:
    """The fallback filter as first written: every fallback walks every legal action."""
    fallbacks = [actions[n] for n in names if actions[n].fallback is not None]
    out = {f.name for f in fallbacks if any(True for _ in _blocking(f, found, actions, state, me))}
    return [a for a in found if a.name not in out]


@pytest.mark.parametrize(
    ("ruleset", "modules", "players"),
    [("el_capitan", ("porto", "lisboa", "islas_canarias"), 4), ("othello", (), 2), ("checkers", (), 2)],
)
def test_the_fallback_filter_asks_and_charges_what_walking_every_action_does(
    ruleset: str, modules: tuple[str, ...], players: int
) -> None:
    """Deciding from the names present keeps the same actions, asks the same ``ignoring ...
    when`` conditions and charges the same steps as walking every legal action per fallback."""
    game = load_game(ruleset, players, modules)
    actions = game.program.actions
    R = game.runtime
    rng = random.Random(5)
    ruled_out = compared = 0
    for seed in range(3):
        state = game.new_initial_state(seed)
        while not state.is_terminal() and compared < 400:
            me, names = state.fields[("_", "decision")] or (None, ())
            if me is not None and any(actions[n].fallback is not None for n in names):
                found = list(state.legal_actions())
                for n in names:  # every fallback listed, as before the filter
                    if actions[n].fallback is not None and make_action((n, ())) not in found:
                        found.append(make_action((n, ())))
                R.memo = {}
                before = R.left
                expected = _keep_by_walking(found, names, actions, state, me)
                walked = before - R.left
                R.memo = {}
                before = R.left
                assert priority.keep(found, names, actions, state, me) == expected
                assert before - R.left == walked
                R.memo = None
                compared += 1
                ruled_out += len(expected) < len(found)
            state.apply_action(rng.choice(state.legal_actions()))
    assert compared and ruled_out
