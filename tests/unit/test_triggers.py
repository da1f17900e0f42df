"""Triggers: before/after actions and events, their conditions, what they see, and their limits."""

from __future__ import annotations

from collections.abc import Callable
from pathlib import Path

import pytest

from rulekit.engine.game import State
from rulekit.errors import IllegalActionError, RulesetError
from rulekit.load import load_game

RULES = """\
ruleset: trig
players: {min: 2, max: 2}
state:
  game:
    n: {type: int}
    log: {type: "list[int]"}
    last: {type: "player?"}
events:
  scored: {points: int, by: player}
  ping: {depth: int}
actions:
  add:
    params: {k: "[1, 2, 3]"}
    effect: |
      game.n += k
      emit scored(points=k, by=me)
  loop:
    effect: emit ping(depth=1)
triggers:
  guard:
    before: add
    when: game.n + k > 5
    effect: fail "the total may not pass 5"
  note_after:
    after: add
    effect: game.log += [k]
  big_score:
    after: scored
    when: points >= 2
    effect: |
      game.log += [100 + points]
      game.last = by
"""
LOOP = """\
  echo:
    after: ping
    effect: emit ping(depth=depth + 1)
"""
FLOW = "flow:\n  - repeat: {while: 'true', steps: [{turn: {player: player_at(1), once: true}}]}\n"


def _state(write: Callable[..., Path], extra_triggers: str = "") -> State:
    text = RULES + extra_triggers + FLOW
    return load_game(str(write(text)), 2).new_initial_state(0)


def test_after_triggers_see_the_action_parameters_and_event_fields(
    write_ruleset: Callable[..., Path],
) -> None:
    """An after-action trigger sees k; an event trigger sees the event's fields; when: filters."""
    state = _state(write_ruleset)
    state.apply_action("add(1)")
    assert state.value("game", "log") == (1,)
    state.apply_action("add(2)")
    assert state.value("game", "log") == (1, 102, 2)  # the event fires inside the effect
    assert state.value("game", "last") == 0


def test_a_before_trigger_can_forbid_the_action(write_ruleset: Callable[..., Path]) -> None:
    """fail in a before trigger rejects the action and nothing changes."""
    state = _state(write_ruleset)
    state.apply_action("add(3)")
    before = state.state_hash()
    with pytest.raises(
        IllegalActionError, match="add\\(3\\) cannot be carried out: the total may not pass 5"
    ) as caught:
        state.apply_action("add(3)")
    assert caught.value.diagnostics[0].span is not None
    assert caught.value.diagnostics[0].span.line == 23  # the guard trigger
    assert state.state_hash() == before


def test_triggers_that_emit_their_own_event_are_stopped(write_ruleset: Callable[..., Path]) -> None:
    """A trigger chain deeper than the limit is an error, and the action is undone."""
    state = _state(write_ruleset, extra_triggers=LOOP)
    before = state.state_hash()
    with pytest.raises(IllegalActionError, match="triggers nested more than 32 deep at event 'ping'"):
        state.apply_action("loop")
    assert state.state_hash() == before


def test_a_trigger_on_an_unknown_event_is_a_load_error(write_ruleset: Callable[..., Path]) -> None:
    """after: must name an action or an event; a typo gets a hint."""
    with pytest.raises(
        RulesetError, match="listens to 'ad', which is neither an action nor an event"
    ) as caught:
        _state(write_ruleset, extra_triggers="  typo:\n    after: ad\n    effect: pass\n")
    assert caught.value.diagnostics[0].hint == "did you mean 'add'?"


def test_before_triggers_listen_to_actions_only(write_ruleset: Callable[..., Path]) -> None:
    """Events happen inside effects, so 'before' an event is refused."""
    with pytest.raises(RulesetError, match="'before' triggers listen to actions"):
        _state(write_ruleset, extra_triggers="  early:\n    before: scored\n    effect: pass\n")


PAIR = """\
  pair:
    params: {a: "[1, 2]", b: "[10, 20]"}
    effect: game.n += a
  deep:
    effect: game.n += 1
"""
PAIR_TRIGGERS = """\
  pair_before:
    before: pair
    when: b == 20
    effect: game.log += [a * 1000 + b]
  pair_after:
    after: pair
    effect: game.log += [a * 100 + b]
  deep_start:
    after: deep
    effect: emit ping(depth=1)
  echo:
    after: ping
    when: depth < game.n
    effect: |
      game.log += [depth]
      emit ping(depth=depth + 1)
"""


def _pair_state(write: Callable[..., Path]) -> State:
    text = RULES.replace("actions:\n", "actions:\n" + PAIR) + PAIR_TRIGGERS + FLOW
    return load_game(str(write(text)), 2).new_initial_state(0)


def test_triggers_of_an_action_get_each_argument_under_its_own_name(
    write_ruleset: Callable[..., Path],
) -> None:
    """Triggers of an action with several parameters see each argument as the parameter it
    is given for, before and after the action, in their conditions and effects."""
    state = _pair_state(write_ruleset)
    state.apply_action("pair(2, 10)")
    assert state.value("game", "log") == (210,)
    state.apply_action("pair(1, 20)")
    assert state.value("game", "log") == (210, 1020, 120)


def test_events_emitted_by_an_action_trigger_nest_one_level_below_it(
    write_ruleset: Callable[..., Path],
) -> None:
    """An action's trigger counts as one level of nesting: the events its effect emits can
    nest 31 deep under it, not 32."""
    ok = _pair_state(write_ruleset)
    ok.fields[("game", "n")] = 30  # deep adds 1 first: pings 1..31, the last echoing nothing
    ok.apply_action("deep")
    assert ok.value("game", "log") == tuple(range(1, 31))
    too_deep = _pair_state(write_ruleset)
    too_deep.fields[("game", "n")] = 31  # ping 32 would be emitted
    before = too_deep.state_hash()
    with pytest.raises(IllegalActionError, match="triggers nested more than 32 deep at event 'ping'"):
        too_deep.apply_action("deep")
    assert too_deep.state_hash() == before
