"""Simultaneous flow steps: each seat chooses unseen by the others, then all resolve in order."""

from __future__ import annotations

import random
from collections.abc import Callable
from pathlib import Path

import pytest

from rulekit.engine.game import Game, State
from rulekit.engine.information import (
    HIDDEN_CHOICE,
    determinize,
    information_key,
    masked_fields,
    seat_history,
)
from rulekit.errors import IllegalActionError, RulesetError
from rulekit.load import load_game
from rulekit.tools.bots import HeuristicBot, RandomBot, play_game
from rulekit.tools.log import replay
from rulekit.tools.mcts import MctsBot

RULES = """\
ruleset: duel
players: {min: 2, max: 3}
state:
  game:
    order: {type: "list[int]", doc: the seats in the order their choices resolved}
    total: {type: int}
  player:
    shown: {type: int}
    left: {type: int, initial: 2}
actions:
  show:
    params: {n: "between(1, 5)"}
    require:
      - {if: n <= me.left + 2, else: not that many}
    effect: |
      me.shown = n
      game.order = append(game.order, seat(me))
      game.total += n
  overdraw:
    require: ["me.left >= 0"]
    effect: |
      me.left -= 10
      if me.left < 0:
          fail("nobody may overdraw")
flow:
  - repeat:
      times: 2
      steps:
        - simultaneous: {players: SEATS, actions: [show, overdraw]}
"""

Writer = Callable[..., Path]


def _game(write: Writer, seats: str = "players", players: int = 2) -> Game:
    directory = write(RULES.replace("SEATS", seats))
    return load_game(str(directory), players)


def test_the_choices_resolve_only_once_every_seat_has_chosen(write_ruleset: Writer) -> None:
    state = _game(write_ruleset).new_initial_state(0)
    assert state.is_simultaneous() and state.simultaneous_seats() == (0, 1)
    state.apply_action("show(4)")
    assert state.value(0, "shown") == 0 and state.value("game", "total") == 0  # not applied yet
    assert state.current_player() == 1 and state.simultaneous_seats() == (1,)
    state.apply_action("show(2)")
    assert (state.value(0, "shown"), state.value(1, "shown"), state.value("game", "total")) == (4, 2, 6)
    assert state.simultaneous_seats() == (0, 1)  # the next round's step


def test_the_choices_resolve_in_the_order_the_step_declares(write_ruleset: Writer) -> None:
    state = _game(write_ruleset, seats='"[player_at(2), player_at(1)]"').new_initial_state(0)
    assert state.current_player() == 1
    state.apply_joint({0: "show(1)", 1: "show(2)"})
    assert state.value("game", "order") == (2, 1)


def test_a_seat_with_no_legal_action_chooses_nothing(write_ruleset: Writer) -> None:
    game = _game(write_ruleset, seats="players", players=3)
    state = game.new_initial_state(0)
    # as if P2 had no action: its domain of legal choices is empty when its 'left' is very low
    state.fields[(1, "left")] = -10
    state.refresh()
    assert state.legal_actions_of(1) == []
    state.apply_joint({0: "show(1)", 2: "show(1)"})
    assert state.value("game", "order") == (1, 3)


def test_an_illegal_joint_action_is_refused_and_changes_nothing(write_ruleset: Writer) -> None:
    state = _game(write_ruleset).new_initial_state(0)
    before = state.state_hash()
    with pytest.raises(IllegalActionError, match=r"P2's choice is refused.*not that many"):
        state.apply_joint({0: "show(1)", 1: "show(5)"})
    assert state.state_hash() == before and state.current_player() == 0
    with pytest.raises(IllegalActionError, match="none for P2"):
        state.apply_joint({0: "show(1)"})
    with pytest.raises(IllegalActionError, match="does not choose now"):
        state.apply_joint({0: "show(1)", 1: "show(1)", 2: "show(1)"})
    assert state.state_hash() == before


def test_a_rule_failing_while_the_choices_resolve_refuses_the_last_and_changes_nothing(
    write_ruleset: Writer,
) -> None:
    state = _game(write_ruleset).new_initial_state(0)
    state.apply_action("overdraw")
    before = state.state_hash()
    with pytest.raises(IllegalActionError, match="nobody may overdraw"):
        state.apply_action("show(1)")
    assert state.state_hash() == before and state.current_player() == 1


def _after_first_choice(game: Game, choice: str) -> State:
    state = game.new_initial_state(0)
    state.apply_action(choice)
    return state


def test_a_pending_choice_is_hidden_from_the_other_seats(write_ruleset: Writer) -> None:
    game = _game(write_ruleset)
    low, high = _after_first_choice(game, "show(1)"), _after_first_choice(game, "show(4)")
    assert low.state_hash() != high.state_hash()  # the engine itself knows
    for seat in (1, None):
        assert low.view(seat) == high.view(seat)
        assert masked_fields(low, seat) == masked_fields(high, seat)
        assert information_key(low, seat, ["show(1)"]) == information_key(high, seat, ["show(4)"])
        assert seat_history(low, ["show(1)"], seat) == [HIDDEN_CHOICE]
    assert low.legal_actions_of(1) == high.legal_actions_of(1)
    assert low.view(0) != high.view(0)  # the seat that chose sees its own choice
    assert seat_history(low, ["show(1)"], 0) == ["show(1)"]


def test_determinize_guesses_the_others_pending_choices_and_keeps_the_seats_own(
    write_ruleset: Writer,
) -> None:
    state = _after_first_choice(_game(write_ruleset), "show(4)")
    rng = random.Random(1)
    guessed = {determinize(state, 1, rng).fields[("_", "chosen")] for _ in range(40)}
    assert len(guessed) > 2  # drawn among P1's legal choices, not the real one
    assert all(entry[0][0] == 0 for entry in guessed)
    own = determinize(state, 0, rng).fields[("_", "chosen")]
    assert own == ((0, "show", (4,)),)


@pytest.mark.parametrize("make", [lambda: HeuristicBot(3, depth=2), lambda: MctsBot(3, iterations=60)])
def test_a_bot_chooses_the_same_whatever_the_other_seat_chose(write_ruleset: Writer, make: Callable) -> None:
    game = load_game("goofspiel", 2)
    choices = set()
    for first in ("bid(1)", "bid(13)", "bid(7)"):
        state = game.new_initial_state(5)
        state.apply_action(first)
        choices.add(make().choose(state))
    assert len(choices) == 1


def test_a_game_replays_from_its_log_to_the_identical_state(tmp_path: Path) -> None:
    game = load_game("goofspiel", 2)
    log = tmp_path / "game.jsonl"
    played = play_game(game, 11, [RandomBot(1), RandomBot(2)], log=log)
    played.log.close()
    assert played.finished
    assert replay(log).state_hash() == played.state.state_hash()


def test_the_checker_refuses_a_simultaneous_step_with_unknown_actions_or_not_players(
    write_ruleset: Writer,
) -> None:
    with pytest.raises(RulesetError, match="simultaneous step lists unknown action 'shw'"):
        load_game(
            str(write_ruleset(RULES.replace("[show, overdraw]", "[shw]").replace("SEATS", "players"))), 2
        )
    with pytest.raises(RulesetError, match="players who choose"):
        load_game(str(write_ruleset(RULES.replace("SEATS", "game.total"))), 2)


def test_mcts_searches_a_later_seats_choice_without_the_earlier_seats_choice() -> None:
    """In its tree, the second seat of a simultaneous step keeps one set of statistics for
    every choice of the first: it never answers a choice it could not have seen."""
    from rulekit.tools import mcts

    game = load_game("goofspiel", 2)
    state = game.new_initial_state(2)
    bot = MctsBot(4, iterations=300)
    root = mcts._Node(2)
    bot._low, bot._high = float("inf"), float("-inf")
    for _ in range(300):
        bot._iterate(root, state, 0)
    assert root.shared is not None and set(root.shared) == {1}
    shared = root.shared[1].children
    assert set(shared) == set(state.legal_actions_of(1))  # every P2 bid, once for all P1 bids
    assert sum(child.visits for child in shared.values()) > 250
