"""MCTS on games with nothing hidden and no chance: states in the nodes, transpositions,
and the tree kept from one decision to the next."""

from __future__ import annotations

from collections import Counter

from rulekit.engine.game import State
from rulekit.load import load_game
from rulekit.tools.bots import make_bot
from rulekit.tools.mcts import MctsBot
from rulekit.tools.mcts_tree import is_open_and_deterministic, state_key


def _played(*moves: str) -> State:
    state = load_game("tic_tac_toe", 2).new_initial_state(0)
    for move in moves:
        state.apply_action(move)
    return state


def test_games_with_hidden_information_or_chance_are_searched_by_determinizations() -> None:
    assert is_open_and_deterministic(load_game("tic_tac_toe", 2))
    assert is_open_and_deterministic(load_game("connect_four", 2))
    assert not is_open_and_deterministic(load_game("kuhn_poker", 2))  # hidden cards
    assert not is_open_and_deterministic(load_game("pig", 2))  # dice
    assert not is_open_and_deterministic(load_game("goofspiel", 2))  # simultaneous bids


def test_two_orders_of_the_same_moves_are_one_state_key() -> None:
    assert state_key(_played("place(a1)", "place(b1)", "place(c1)")) == state_key(
        _played("place(c1)", "place(b1)", "place(a1)")
    )
    assert state_key(_played("place(a1)", "place(b1)", "place(c1)")) != state_key(
        _played("place(a1)", "place(c1)", "place(b1)")
    )


def test_a_state_with_a_value_that_cannot_be_frozen_has_no_key() -> None:
    state = _played("place(a1)")
    state.fields[("game", "odd")] = ({"a map": 1},)  # a map inside a list
    assert state_key(state) is None


def test_transposed_positions_share_one_node() -> None:
    state = _played()
    bot = make_bot("mcts:iterations=300", 3, state.game)
    assert isinstance(bot, MctsBot)
    bot.choose(state)
    assert bot.tree is not None
    parents: Counter[int] = Counter()
    for node in bot.tree.table.values():
        for _, child in node.children:
            parents[id(child)] += 1
    assert max(parents.values()) >= 2


def test_the_next_search_continues_the_subtree_of_the_moves_played() -> None:
    state = _played()
    bot = make_bot("mcts:iterations=200", 5, state.game)
    assert isinstance(bot, MctsBot)
    mine = bot.choose(state)
    assert bot.tree is not None
    root = bot.tree.table[state_key(state)]
    after_mine = next(child for action, child in root.children if action == mine)
    reply, kept = max(after_mine.children, key=lambda pair: pair[1].visits)
    state.apply_action(mine)
    state.apply_action(reply)
    before = kept.visits
    assert before > 0
    bot.choose(state)
    assert bot.tree.table[state_key(state)] is kept
    assert kept.visits == before + 200
    # the positions the game has left behind are dropped
    assert all(node.state.moves() >= 2 for node in bot.tree.table.values())


def test_a_new_game_starts_a_new_tree() -> None:
    game = load_game("tic_tac_toe", 2)
    bot = make_bot("mcts:iterations=50", 5, game)
    assert isinstance(bot, MctsBot)
    bot.choose(_played("place(a1)", "place(b1)"))
    assert bot.tree is not None
    assert bot.tree.root(_played("place(c3)")).visits == 0
    assert len(bot.tree.table) == 1


def test_the_tree_search_is_deterministic_for_a_seed() -> None:
    moves = []
    for _ in range(2):
        state = load_game("connect_four", 2).new_initial_state(0)
        bots = [make_bot("mcts:iterations=40:cutoff=0", 7 + p, state.game) for p in range(2)]
        played = []
        for _ in range(8):
            action = bots[state.current_player()].choose(state)
            played.append(action)
            state.apply_action(action)
        moves.append(played)
    assert moves[0] == moves[1]
