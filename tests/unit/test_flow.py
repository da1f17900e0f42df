"""The flow interpreter: repeat, for_each, turn, if, do and ask, each in a tiny ruleset."""

from __future__ import annotations

from collections.abc import Callable
from pathlib import Path

import pytest

from rulekit.engine.game import State
from rulekit.errors import IllegalActionError, RuleEvaluationError, RulesetError
from rulekit.load import load_game

HEAD = """\
ruleset: flow
players: {min: 2, max: 3}
state:
  game:
    n: {type: int}
    i: {type: int}
    who: {type: "player?"}
    log: {type: "list[int]"}
  turn:
    moves: {type: int}
  player:
    score: {type: int}
actions:
  tick:
    effect: |
      game.n += 1
      turn.moves += 1
      me.score += 1
  stop:
    ends_turn: true
  answer:
    prompt: true
    params: {x: "[1, 2]"}
    effect: game.log += [x]
"""

Writer = Callable[..., Path]


def _start(write: Writer, flow: str, players: int = 2, extra: str = "") -> State:
    directory = write(HEAD + extra + "flow:\n" + flow)
    return load_game(str(directory), players).new_initial_state(0)


def _run(state: State, *actions: str) -> State:
    for action in actions:
        state.apply_action(action)
    return state


def test_do_step_runs_its_block(write_ruleset: Writer) -> None:
    """A do: step runs once; with nothing to decide, the game is then over."""
    state = _start(write_ruleset, "  - do: game.n = 5\n")
    assert state.is_terminal()
    assert state.value("game", "n") == 5


def test_repeat_times_with_a_counter(write_ruleset: Writer) -> None:
    """repeat: times runs the steps N times and stores the 1-based iteration in the counter field."""
    state = _start(
        write_ruleset, "  - repeat: {times: 3, counter: i, steps: [{do: 'game.log += [game.i]'}]}\n"
    )
    assert state.value("game", "log") == (1, 2, 3)


@pytest.mark.parametrize(
    ("loop", "count"),
    [("while: game.n < 4", 4), ("until: game.n >= 4", 4), ("until: true", 1), ("while: false", 0)],
)
def test_repeat_while_and_until(write_ruleset: Writer, loop: str, count: int) -> None:
    """while is tested before each iteration; until after each (so the steps run at least once)."""
    state = _start(write_ruleset, f"  - repeat:\n      {loop}\n      steps: [{{do: game.n += 1}}]\n")
    assert state.value("game", "n") == count


def test_for_each_stores_each_element_in_a_game_field(write_ruleset: Writer) -> None:
    """for_each: in/as walks a list, element by element."""
    state = _start(
        write_ruleset, "  - for_each: {in: '[3, 1, 2]', as: i, steps: [{do: 'game.log += [game.i * 10]'}]}\n"
    )
    assert state.value("game", "log") == (30, 10, 20)


def test_if_step_chooses_a_branch(write_ruleset: Writer) -> None:
    """if/then/else run one list of steps."""
    flow = "  - if: num_players == 3\n    then: [{do: game.n = 3}]\n    else: [{do: game.n = 2}]\n"
    assert _start(write_ruleset, flow, players=2).value("game", "n") == 2
    assert _start(write_ruleset, flow, players=3).value("game", "n") == 3


def test_turn_lasts_until_an_action_that_ends_it(write_ruleset: Writer) -> None:
    """A turn goes on after tick and ends after stop (ends_turn: true); turn fields reset."""
    flow = "  - for_each: {in: players, as: who, steps: [{turn: game.who}]}\n"
    state = _start(write_ruleset, flow)
    _run(state, "tick", "tick")
    assert state.current_player() == 0
    assert state.value("turn", "moves") == 2
    _run(state, "stop")
    assert state.current_player() == 1
    assert state.value("turn", "moves") == 0
    _run(state, "stop")
    assert state.is_terminal()
    assert state.value(0, "score") == 2


def test_turn_once_and_turn_until(write_ruleset: Writer) -> None:
    """once: true ends the turn after one action; until: ends it when the condition holds."""
    once = _start(write_ruleset, "  - turn: {player: player_at(1), once: true}\n  - turn: player_at(2)\n")
    _run(once, "tick")
    assert once.current_player() == 1
    until = _start(
        write_ruleset, "  - turn: {player: player_at(1), until: turn.moves >= 2}\n  - turn: player_at(2)\n"
    )
    _run(until, "tick")
    assert until.current_player() == 0
    _run(until, "tick")
    assert until.current_player() == 1


def test_turn_offers_only_its_listed_actions(write_ruleset: Writer) -> None:
    """actions: restricts the choice; prompt-only actions are never offered by default."""
    listed = _start(write_ruleset, "  - turn: {player: player_at(1), actions: [stop]}\n")
    assert listed.legal_action_strings() == ["stop"]
    default = _start(write_ruleset, "  - turn: player_at(1)\n")
    assert default.legal_action_strings() == ["tick", "stop"]


def test_turn_hooks_run_with_the_turn_player_as_me(write_ruleset: Writer) -> None:
    """on_start and on_end run at the turn's edges with me = the turn's player."""
    flow = "  - turn: {player: player_at(2), on_start: me.score += 10, on_end: me.score += 100}\n"
    state = _start(write_ruleset, flow)
    assert state.value(1, "score") == 10
    _run(state, "stop")
    assert state.value(1, "score") == 110


def test_turn_without_a_legal_action_ends_by_itself(write_ruleset: Writer) -> None:
    """If nothing is legal the turn is skipped instead of blocking the game."""
    extra = "  blocked:\n    require: [{if: 'false', else: never}]\n"
    directory = write_ruleset(
        HEAD + extra + "flow:\n  - turn: {player: player_at(1), actions: [blocked]}\n  - do: game.n = 9\n"
    )
    state = load_game(str(directory), 2).new_initial_state(0)
    assert state.is_terminal()
    assert state.value("game", "n") == 9


def test_asks_are_answered_first_in_order(write_ruleset: Writer) -> None:
    """ask() queues decisions; each asked player answers, in order, before the flow goes on."""
    flow = (
        "  - do: |\n"
        '      ask(player_at(2), "answer")\n'
        '      ask(player_at(1), "answer")\n'
        "  - turn: player_at(1)\n"
    )
    state = _start(write_ruleset, flow)
    assert state.current_player() == 1
    assert state.legal_action_strings() == ["answer(1)", "answer(2)"]
    _run(state, "answer(2)")
    assert state.current_player() == 0
    _run(state, "answer(1)")
    assert state.value("game", "log") == (2, 1)
    assert state.legal_action_strings() == ["tick", "stop"]


def test_end_when_and_end_game_stop_the_game(write_ruleset: Writer) -> None:
    """scoring.end_when is checked after every action; end_game() ends at once."""
    flow = "  - repeat: {while: 'true', steps: [{turn: player_at(1)}]}\n"
    state = _start(write_ruleset, flow, extra="scoring:\n  score: player.score\n  end_when: game.n >= 2\n")
    _run(state, "tick")
    assert not state.is_terminal()
    _run(state, "tick")
    assert state.is_terminal()
    assert state.standings()[0] == (0, (2,))
    ended = _start(write_ruleset, "  - do: end_game()\n  - do: game.n = 1\n")
    assert ended.is_terminal()
    assert ended.value("game", "n") == 0


def test_flow_variables_must_be_game_fields(write_ruleset: Writer) -> None:
    """counter: and as: name game fields; a typo is reported with a hint."""
    with pytest.raises(RulesetError, match="flow variable 'ii' must be a game field"):
        _start(write_ruleset, "  - repeat: {times: 2, counter: ii, steps: []}\n")


def test_me_is_not_defined_in_flow_steps(write_ruleset: Writer) -> None:
    """Flow steps run for nobody in particular; only turn hooks and a turn's until see 'me'."""
    with pytest.raises(RulesetError, match="'me' means the acting player and is not defined here"):
        _start(write_ruleset, "  - do: me.score = 1\n")


def test_a_turn_for_nobody_is_a_located_rule_error(write_ruleset: Writer) -> None:
    """A turn whose player expression gives none fails with the step's position, not a crash."""
    with pytest.raises(RuleEvaluationError, match="the turn's player is none, not a player") as caught:
        _start(write_ruleset, "  - turn: game.who\n")
    assert caught.value.diagnostics[0].span is not None
    assert caught.value.diagnostics[0].span.line == HEAD.count("\n") + 2  # the turn step


def test_asking_nobody_is_refused(write_ruleset: Writer) -> None:
    """ask() with something that is not a player makes the effect fail, and nothing changes."""
    extra = '  bad_ask:\n    effect: ask(game.who, "answer")\n'
    directory = write_ruleset(HEAD + extra + "flow:\n  - turn: player_at(1)\n")
    state = load_game(str(directory), 2).new_initial_state(0)
    before = state.state_hash()
    with pytest.raises(IllegalActionError, match="ask: none is not a player"):
        state.apply_action("bad_ask")
    assert state.state_hash() == before


@pytest.mark.parametrize(
    "steps",
    [
        "[]",  # nothing at all: only the loop's own steps, which run no effect
        "[{do: game.n += 1}]",  # an effect every time round
    ],
)
def test_a_flow_that_never_asks_anybody_is_stopped(write_ruleset: Writer, steps: str) -> None:
    """A loop that never reaches a decision is a located error, not a hang, whether or not
    its steps run effects."""
    with pytest.raises(RuleEvaluationError, match="the flow runs without ever asking a player to decide"):
        _start(write_ruleset, f"  - repeat: {{while: 'true', steps: {steps}}}\n")


def test_the_flow_position_kept_in_the_state_is_where_the_flow_stopped(write_ruleset: Writer) -> None:
    """The frames stored in the state are the flow's position when it stopped: the turn
    being played while a player decides, nothing once the flow has run to its end."""
    flow = "  - turn: {player: player_at(1), once: true}\n  - turn: {player: player_at(2), once: true}\n"
    state = _start(write_ruleset, flow)
    nodes = state.game.program.flow
    frames = state.value("_", "flow")
    assert nodes[frames[-1][0]].kind == "turn" and frames[-1][1:] == (0, False)
    _run(state, "tick")
    frames = state.value("_", "flow")
    assert nodes[frames[-1][0]].kind == "turn" and frames[-1][1:] == (1, False)
    _run(state, "tick")
    assert state.is_terminal()
    assert state.value("_", "flow") == ()
