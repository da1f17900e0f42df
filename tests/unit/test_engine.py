"""The engine's OpenSpiel-style API: legal actions, atomic apply, clone, JSON, views, results."""

from __future__ import annotations

import json
from collections.abc import Callable
from pathlib import Path

import pytest

from rulekit.engine.game import TERMINAL, Action, Game, State
from rulekit.errors import IllegalActionError, RuleEvaluationError, RulekitError
from rulekit.load import load_game

CARDS = str(Path(__file__).resolve().parents[1] / "data" / "cards")


@pytest.fixture(scope="module")
def ttt() -> Game:
    return load_game("tic_tac_toe", 2)


@pytest.fixture(scope="module")
def cards() -> Game:
    return load_game(CARDS, 2)


def _play(game: Game, *actions: str, seed: int = 0) -> State:
    state = game.new_initial_state(seed)
    for action in actions:
        state.apply_action(action)
    return state


def test_initial_legal_actions_are_complete_and_ordered(ttt: Game) -> None:
    """Tic-tac-toe opens with the nine cells, in the order of the components list."""
    state = ttt.new_initial_state(0)
    assert state.current_player() == 0
    assert state.legal_action_strings() == [f"place({c}{r})" for r in "123" for c in "abc"]


def test_apply_action_by_text_or_value_gives_the_same_state(ttt: Game) -> None:
    """An action may be given as text in the log notation or as an Action value."""
    by_text = _play(ttt, "place(b2)")
    by_value = ttt.new_initial_state(0)
    by_value.apply_action(Action("place", ("b2",)))
    assert by_text.state_hash() == by_value.state_hash()
    assert by_text.current_player() == 1
    assert by_text.value("b2", "mark") == 0


def test_illegal_action_is_explained_and_changes_nothing(ttt: Game) -> None:
    """Marking a taken cell names the parameter, the possible values and the rule's position."""
    state = _play(ttt, "place(a1)")
    before = state.state_hash()
    with pytest.raises(IllegalActionError) as caught:
        state.apply_action("place(a1)")
    diagnostic = caught.value.diagnostics[0]
    assert diagnostic.message.startswith(
        "place(a1) is not legal: a1 is not a possible 'cell' now (possible: b1, "
    )
    assert diagnostic.span is not None and diagnostic.span.file.endswith("tic_tac_toe/ruleset.yaml")
    assert state.state_hash() == before


@pytest.mark.parametrize(
    ("text", "message"),
    [
        ("plac(a1)", "unknown action 'plac'"),
        ("place", "action 'place' takes 1 argument(s) (cell), not 0"),
        ("place(a1", "cannot read action 'place(a1': a '(' is never closed"),
    ],
)
def test_malformed_action_text_is_an_illegal_action_error(ttt: Game, text: str, message: str) -> None:
    """Unknown names, wrong arity and bad notation are user errors."""
    state = ttt.new_initial_state(0)
    with pytest.raises(IllegalActionError) as caught:
        state.apply_action(text)
    assert caught.value.diagnostics[0].message == message


def test_requirement_failure_quotes_its_message_and_citation(cards: Game) -> None:
    """A failed require: shows its else: message and its cite:."""
    state = cards.new_initial_state(0)
    state.fields[(0, "hand")] = ("c1", "c2", "c3")
    state.refresh()
    market = state.value("game", "market")
    with pytest.raises(IllegalActionError, match=r"a hand holds at most 3 cards \[§2.1\]"):
        state.apply_action(f"buy({market[0]})")


def test_unaffordable_cost_is_explained(cards: Game) -> None:
    """An action whose cost exceeds the player's money is illegal, with the price in the message."""
    state = cards.new_initial_state(0)
    state.fields[(0, "coins")] = 0
    state.refresh()
    card = state.value("game", "market")[0]
    assert state.legal_action_strings() == ["done"]
    with pytest.raises(IllegalActionError, match=r"it costs \d and P1 has 0"):
        state.apply_action(f"buy({card})")


def test_fail_during_an_effect_rolls_everything_back(write_ruleset: Callable[..., Path]) -> None:
    """An action that fails half-way leaves no trace: the state hash is unchanged."""
    directory = write_ruleset(
        "ruleset: f\nplayers: {min: 1, max: 1}\nstate: {game: {n: {type: int}}}\n"
        "actions:\n"
        "  risky:\n"
        "    effect: |\n"
        "      game.n += 1\n"
        '      fail "too risky"\n'
        "  broken:\n"
        "    effect: game.n = [1, 2][game.n + 5]\n"
        "flow:\n  - turn: player_at(1)\n"
    )
    state = load_game(str(directory), 1).new_initial_state(0)
    before = state.state_hash()
    with pytest.raises(IllegalActionError) as caught:
        state.apply_action("risky")
    assert caught.value.diagnostics[0].message == "risky cannot be carried out: too risky"
    assert caught.value.diagnostics[0].span is not None
    assert caught.value.diagnostics[0].span.line == 8
    assert state.state_hash() == before
    with pytest.raises(RuleEvaluationError, match="IndexError"):
        state.apply_action("broken")
    assert state.state_hash() == before


def test_clone_is_independent(ttt: Game) -> None:
    """Applying an action to a clone leaves the original as it was."""
    state = _play(ttt, "place(a1)")
    before = state.state_hash()
    copy = state.clone()
    copy.apply_action("place(b1)")
    assert state.state_hash() == before
    assert copy.state_hash() != before
    assert state.legal_actions() != copy.legal_actions()


def test_json_round_trip_is_exact(cards: Game) -> None:
    """to_json -> JSON text -> from_json gives equal fields (tuples, None, players) and the same hash."""
    state = _play(cards, "done", "done", seed=3)
    data = json.loads(json.dumps(state.to_json()))
    restored = State.from_json(cards, data)
    assert restored.fields == state.fields
    assert restored.state_hash() == state.state_hash()
    assert data["ruleset"] == "cards"
    assert data["fingerprint"] == cards.program.fingerprint


def test_same_seed_same_state_different_seed_different_shuffle(cards: Game) -> None:
    """The shuffle in setup draws from the seeded generator held in the state."""
    assert cards.new_initial_state(5).state_hash() == cards.new_initial_state(5).state_hash()
    decks = {cards.new_initial_state(seed).value("game", "deck") for seed in range(5)}
    assert len(decks) > 1


def test_view_hides_hidden_and_other_players_owner_fields(cards: Game) -> None:
    """A hidden deck shows only its size; a hand only to its owner; the generator to nobody."""
    state = _play(cards, seed=1)
    state.fields[(0, "hand")] = ("c1",)
    state.fields[(1, "hand")] = ("c2", "c3")
    mine, spectator = state.view(0), state.view(None)
    assert mine["game.deck"] == {"hidden": 5}  # eight cards, three in the market
    assert mine["P1.hand"] == ["c1"]
    assert mine["P2.hand"] == {"hidden": 2}
    assert spectator["P1.hand"] == {"hidden": 1}
    assert mine["game.market"] == list(state.value("game", "market"))
    assert "_.rng" not in mine


def test_a_win_ends_the_game_with_returns_and_standings(ttt: Game) -> None:
    """Three in a row: terminal, no legal actions, +1/-1 returns, winner first in standings."""
    state = _play(ttt, "place(a1)", "place(a2)", "place(b1)", "place(b2)", "place(c1)")
    assert state.is_terminal()
    assert state.current_player() == TERMINAL
    assert state.legal_actions() == []
    assert state.returns() == [1.0, -1.0]
    assert state.winners() == [0]
    assert state.standings()[0] == (0, (1,))
    with pytest.raises(IllegalActionError, match="the game is over"):
        state.apply_action("place(c3)")


def test_a_draw_gives_zero_returns(ttt: Game) -> None:
    """A full board without a line: all players tie."""
    moves = ["a1", "b1", "c1", "b2", "a2", "c2", "b3", "a3", "c3"]
    state = _play(ttt, *(f"place({m})" for m in moves))
    assert state.is_terminal()
    assert state.returns() == [0.0, 0.0]


def test_player_count_outside_the_ruleset_range_is_refused() -> None:
    """Tic-tac-toe is for exactly two players."""
    with pytest.raises(RulekitError, match="is for 2-2 players, not 3"):
        load_game("tic_tac_toe", 3)


def test_a_domain_that_fails_is_a_rule_error_not_a_crash(write_ruleset: Callable[..., Path]) -> None:
    """Listing legal actions runs rules too; an index out of range there is a RuleEvaluationError."""
    directory = write_ruleset(
        "ruleset: d\nplayers: {min: 1, max: 1}\nstate: {game: {n: {type: int}}}\n"
        "actions:\n"
        "  pick: {params: {x: '[[1], [2]][game.n]'}}\n"
        "  bump: {effect: game.n += 5}\n"
        "flow:\n  - turn: player_at(1)\n"
    )
    state = load_game(str(directory), 1).new_initial_state(0)
    before = state.state_hash()
    with pytest.raises(RuleEvaluationError, match="cannot list the legal actions: IndexError"):
        state.apply_action("bump")
    assert state.state_hash() == before
    data = state.to_json()
    data["fields"] = [[o, f, 7 if (o, f) == ("game", "n") else v] for o, f, v in data["fields"]]
    restored = State.from_json(state.game, data)  # legal actions are listed lazily
    with pytest.raises(RuleEvaluationError, match="cannot list the legal actions"):
        restored.legal_actions()


def test_a_failing_domain_names_its_action_and_points_at_it(write_ruleset: Callable[..., Path]) -> None:
    """The error from listing legal actions says which action's rules failed, and points at the
    failing domain expression."""
    directory = write_ruleset(
        "ruleset: d\nplayers: {min: 1, max: 1}\nstate: {game: {n: {type: int}}}\n"
        "actions:\n"
        "  pick: {params: {x: '[[1], [2]][game.n + 5]'}}\n"
        "flow:\n  - turn: player_at(1)\n"
    )
    with pytest.raises(RuleEvaluationError) as caught:
        load_game(str(directory), 1).new_initial_state(0)
    rendered = caught.value.render()
    assert "ruleset.yaml:5:23: error: cannot list the legal actions: IndexError" in rendered
    assert "hint: a parameter domain, requirement or cost of 'pick' failed" in rendered


def test_a_state_saved_with_other_rules_is_refused(ttt: Game, cards: Game) -> None:
    """from_json checks the fingerprint and the player count recorded by to_json."""
    data = cards.new_initial_state(0).to_json()
    with pytest.raises(RulekitError, match="the state was saved with other rules"):
        State.from_json(ttt, data)
    three = load_game(CARDS, 3)
    with pytest.raises(RulekitError, match="the state is for 2 players, not 3"):
        State.from_json(three, data)


_BAD_INDEX = """\
ruleset: bad
players: {min: 2, max: 2}
constants:
  TABLE: [1, 2, 3]
state:
  game:
    n: {type: int}
actions:
  go:
    effect: |
      game.n += 1
      game.n += TABLE[game.n + 5]
    ends_turn: true
flow:
  - repeat:
      times: 3
      steps:
        - turn: player_at(1)
"""


def test_a_python_error_in_an_effect_points_at_the_failing_statement(
    write_ruleset: Callable[..., Path],
) -> None:
    """A bad index inside an effect is reported at the statement's line and column, not the action's."""
    state = load_game(str(write_ruleset(_BAD_INDEX)), 2).new_initial_state(0)
    before = state.state_hash()
    with pytest.raises(RuleEvaluationError) as caught:
        state.apply_action("go")
    span = caught.value.diagnostics[0].span
    assert span is not None
    assert (span.line, span.column) == (12, 7)
    assert "IndexError" in caught.value.render()
    assert state.state_hash() == before


_PRUNED = """\
ruleset: pruned
players: {min: 1, max: 1}
state:
  game:
    n: {type: int}
actions:
  pick:
    params:
      a: "[1, 2, 3]"
      b: "[12 // (a - 1)]"
    require:
      - if: a > 1
        else: a must be more than 1
    effect: game.n = b
    ends_turn: true
flow:
  - turn: player_at(1)
"""


def test_a_requirement_is_tested_as_soon_as_its_parameters_are_chosen(
    write_ruleset: Callable[..., Path],
) -> None:
    """A requirement on the first parameter prunes it before the second parameter's domain is
    listed (here that domain would divide by zero for a = 1)."""
    state = load_game(str(write_ruleset(_PRUNED)), 1).new_initial_state(0)
    assert state.legal_action_strings() == ["pick(2, 12)", "pick(3, 6)"]
    with pytest.raises(IllegalActionError, match="a must be more than 1"):
        state.apply_action(Action("pick", (1, 0)))
