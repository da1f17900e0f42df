"""Information-set MCTS: determinizations that never read hidden data, determinism, search."""

from __future__ import annotations

import random
from collections import Counter
from collections.abc import Callable
from pathlib import Path
from types import SimpleNamespace

import pytest

from rulekit.engine.game import State
from rulekit.engine.information import determinize, hidden_places
from rulekit.load import load_game
from rulekit.tools import mcts
from rulekit.tools.bots import make_bot, make_bots, play_game
from rulekit.tools.mcts import MctsBot, margins

CARDS = """\
ruleset: cards
title: Cards
players: {min: 2, max: 3}
state:
  game:
    deck: {type: "list[int]", initial: "between(1, 12)", visibility: hidden}
    pile: {type: "list[int]"}
    secret: {type: int, initial: 7, visibility: hidden}
  player:
    hand: {type: "list[int]", visibility: owner}
    points: {type: int}
actions:
  play:
    params:
      card: me.hand
    effect: |
      move(card, me.hand, game.pile)
      me.points += card
      draw(game.deck, me.hand, 1)
    ends_turn: true
setup: |
  shuffle(game.deck)
  for p in players:
      draw(game.deck, p.hand, 3)
flow:
  - repeat:
      times: 3
      steps:
        - turn: player_at(1)
        - turn: player_at(2)
bots:
  evaluate: "me.points"
scoring:
  score: player.points
"""


def _cards(write_ruleset: Callable[..., Path]) -> State:
    return load_game(str(write_ruleset(CARDS, name="cards")), 2).new_initial_state(4)


def test_hidden_places_are_the_unseen_fields_grouped_by_type(write_ruleset: Callable[..., Path]) -> None:
    state = _cards(write_ruleset)
    places = hidden_places(state, 0)
    assert places.pools == ((("game", "deck"), (1, "hand")),)
    assert places.kept == (("game", "secret"),)
    assert hidden_places(state, None).pools == ((("game", "deck"), (0, "hand"), (1, "hand")),)


def test_a_determinization_keeps_what_the_player_sees_and_deals_the_rest_again(
    write_ruleset: Callable[..., Path],
) -> None:
    state = _cards(write_ruleset)
    unseen = Counter(state.value("game", "deck") + state.value(1, "hand"))
    other_hands = set()
    for seed in range(20):
        copy = determinize(state, 0, random.Random(seed))
        assert copy.view(0) == state.view(0)  # everything P1 can see, sizes of the rest included
        assert Counter(copy.value("game", "deck") + copy.value(1, "hand")) == unseen
        assert copy.fields[("_", "rng")] != state.fields[("_", "rng")]  # chance re-seeded
        other_hands.add(copy.value(1, "hand"))
    assert len(other_hands) > 5
    assert state.value(1, "hand") not in other_hands or len(other_hands) > 1


def test_a_determinization_does_not_depend_on_where_the_unseen_items_are(
    write_ruleset: Callable[..., Path],
) -> None:
    state = _cards(write_ruleset)
    swapped = state.clone()
    pool = list(state.value("game", "deck") + state.value(1, "hand"))
    random.Random(99).shuffle(pool)
    swapped.fields[("game", "deck")] = tuple(pool[: len(state.value("game", "deck"))])
    swapped.fields[(1, "hand")] = tuple(pool[len(state.value("game", "deck")) :])
    assert swapped.state_hash() != state.state_hash()
    assert determinize(state, 0, random.Random(3)).fields == determinize(swapped, 0, random.Random(3)).fields
    # so the search, which sees only determinizations, decides the same: it never peeks
    first = make_bot("mcts:iterations=60", 11, state.game).choose(state)
    second = make_bot("mcts:iterations=60", 11, state.game).choose(swapped)
    assert first == second


def test_mcts_is_deterministic_for_a_seed() -> None:
    game = load_game("tic_tac_toe", 2)
    logs = [play_game(game, 5, make_bots(game, "mcts:iterations=30,random", 5)).log.actions for _ in range(2)]
    assert logs[0] == logs[1]


def test_mcts_takes_a_winning_move_and_blocks_a_losing_one() -> None:
    game = load_game("tic_tac_toe", 2)
    state = game.new_initial_state(0)
    for text in ("place(a1)", "place(b1)", "place(a2)"):
        state.apply_action(text)
    # O must block a3; then X, with the diagonal open, must not lose the tempo
    bot = make_bot("mcts:iterations=300", 1, game)
    assert game.action_to_string(bot.choose(state)) == "place(a3)"
    state.apply_action("place(c3)")
    assert game.action_to_string(bot.choose(state)) == "place(a3)"


def test_mcts_with_a_cut_off_evaluates_the_rules_expression(write_ruleset: Callable[..., Path]) -> None:
    # the best card is the highest one: with a cut-off of 1 action the evaluation decides
    state = _cards(write_ruleset)
    bot = make_bot("mcts:iterations=100:cutoff=1", 5, state.game)
    assert bot.choose(state).args == (max(state.value(0, "hand")),)


def test_a_value_is_the_margin_over_the_best_other_player() -> None:
    assert margins([5, 5]) == [0, 0]
    assert margins([1, 9, 4]) == [-8, 5, -5]


def test_unseen_hands_pool_with_every_hidden_list_of_their_type(
    write_ruleset: Callable[..., Path],
) -> None:
    """A card the player cannot see may be in any hidden list of its type or in another
    player's hand: they form one pool, so no determinization keeps an opponent's real hand."""
    text = CARDS.replace(
        "    pile:", '    spare: {type: "list[int]", initial: "[20, 21, 22]", visibility: hidden}\n    pile:'
    )
    state = load_game(str(write_ruleset(text, name="two_decks")), 2).new_initial_state(4)
    assert hidden_places(state, 0).pools == ((("game", "deck"), ("game", "spare"), (1, "hand")),)
    places = (("game", "deck"), ("game", "spare"), (1, "hand"))
    unseen = Counter(c for place in places for c in state.value(*place))
    hands = set()
    for seed in range(8):
        copy = determinize(state, 0, random.Random(seed))
        assert Counter(c for place in places for c in copy.value(*place)) == unseen
        assert [len(copy.value(*p)) for p in places] == [len(state.value(*p)) for p in places]
        assert copy.value(0, "hand") == state.value(0, "hand")  # her own hand stays
        hands.add(tuple(sorted(copy.value(1, "hand"))))
    assert len(hands) > 1


def test_two_hidden_decks_of_one_type_without_hands_stay_apart(
    write_ruleset: Callable[..., Path],
) -> None:
    """Without unseen hands, two hidden decks of one type are each shuffled on their own (an
    item of one may not fit the other)."""
    text = CARDS.replace(
        "    pile:", '    spare: {type: "list[int]", initial: "[20, 21, 22]", visibility: hidden}\n    pile:'
    ).replace('hand: {type: "list[int]", visibility: owner}', 'hand: {type: "list[int]"}')
    state = load_game(str(write_ruleset(text, name="two_decks")), 2).new_initial_state(4)
    assert hidden_places(state, 0).pools == ((("game", "deck"),), (("game", "spare"),))
    for seed in range(5):
        copy = determinize(state, 0, random.Random(seed))
        assert sorted(copy.value("game", "spare")) == [20, 21, 22]
        assert Counter(copy.value("game", "deck")) == Counter(state.value("game", "deck"))


@pytest.mark.parametrize("ruleset", ["tic_tac_toe", "kuhn_poker"])
def test_a_time_budget_searches_until_the_deadline(monkeypatch: pytest.MonkeyPatch, ruleset: str) -> None:
    # a fake clock that advances 1 ms each time the bot reads it: no real timing in the test
    # (tic-tac-toe is searched with states in the tree, Kuhn poker by determinizations)
    ticks = iter(range(10**6))
    monkeypatch.setattr(mcts, "time", SimpleNamespace(perf_counter=lambda: next(ticks) / 1000))
    game = load_game(ruleset, 2)
    state = game.new_initial_state(0)
    while len(state.legal_actions()) < 2:
        state.apply_action(state.legal_actions()[0])
    bot = make_bot("mcts:ms=25", 1, game)
    assert isinstance(bot, MctsBot)
    assert bot.choose(state) in state.legal_actions()
    assert bot.iterations_run == 25  # one clock reading per iteration after the one that sets the deadline
