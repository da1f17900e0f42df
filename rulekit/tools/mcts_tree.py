"""MCTS on a game every seat sees whole and chance never touches: states kept in the tree,
transpositions, and the tree kept from one decision to the next.

:class:`rulekit.tools.mcts.MctsBot` searches here when the rules hide nothing, draw nothing
and have no simultaneous step (:func:`is_open_and_deterministic`): then an action always
leads to the same state, so

* each node keeps its state (listed: the engine lists a decision when it reaches it), and an
  iteration clones the state of the node it expanded instead of replaying the path from the
  root (no determinization either: there is nothing to deal again);
* nodes are shared by *transposition*: a table maps each state's fields, frozen
  (:func:`state_key`), to its node, so two orders of the same moves reach one node (a DAG:
  the statistics of a position gather every path's iterations; a value is backed up along
  the path the iteration took);
* the table outlives a decision: at the next one the real state is looked up in it, and the
  subtree found there (after the bot's own move and the replies since) is searched further;
  the nodes it cannot reach are dropped.

Selection, expansion, play-outs and values are the information-set search's
(:mod:`rulekit.tools.mcts`): UCB1 ``mean + c · sqrt(ln(visits of the node) / visits of the
child)`` on values rescaled to [0, 1], one untried action expanded per iteration (chosen as
``bots.weights`` say), random play-outs, margins over the best other player.
"""

from __future__ import annotations

import math
import random
from collections.abc import Callable, Hashable
from typing import Any

from rulekit.engine.flow import has_simultaneous
from rulekit.engine.game import Action, Game, State
from rulekit.engine.information import has_hidden_information
from rulekit.engine.spaces import uses_randomness
from rulekit.errors import IllegalActionError

#: choose(state, legal actions, rng) -> one of them (the bot's weighted or uniform choice).
Chooser = Callable[[State, list[Action], random.Random], Action]


def is_open_and_deterministic(game: Game) -> bool:
    """Whether every seat sees the whole state, no rule draws at random and no step is
    simultaneous: a state and an action determine the next state (cached per game)."""
    found = game.__dict__.get("_mcts_open")
    if found is None:
        program = game.program
        found = not (has_hidden_information(program) or uses_randomness(program) or has_simultaneous(program))
        game.__dict__["_mcts_open"] = found
    return bool(found)


def state_key(state: State) -> Hashable | None:
    """The state's fields as one hashable value (maps frozen into sets of items), equal for
    equal states; None when a value cannot be frozen that way (a map inside a list): such a
    node is kept out of the table."""
    items = []
    for name, value in state.fields.items():
        if type(value) is dict:
            value = frozenset(value.items())
        items.append((name, value))
    try:
        return frozenset(items)
    except TypeError:
        return None


class Node:
    """A position of the search: its state, the actions not tried yet, its children and the
    values backed up through it (per player)."""

    __slots__ = ("children", "mover", "reward", "state", "untried", "visits")

    def __init__(self, state: State, players: int) -> None:
        self.state = state
        self.mover = state.current_player()
        self.untried: list[Action] = [] if state.is_terminal() else list(state.legal_actions())
        self.children: list[tuple[Action, Node]] = []
        self.visits = 0
        self.reward = [0.0] * players


class TreeSearch:
    """The search tree and transposition table of one bot, kept across its decisions."""

    def __init__(self, game: Game) -> None:
        self.game = game
        self.players = game.num_players
        self.table: dict[Hashable, Node] = {}
        self.low = math.inf
        self.high = -math.inf

    def root(self, state: State) -> Node:
        """The node of ``state``: the one kept from earlier searches when the table has it
        (the rest of the table, unreachable from it, is dropped), else a new tree."""
        key = state_key(state)
        node = self.table.get(key) if key is not None else None
        if node is None:
            self.table = {}
            self.low, self.high = math.inf, -math.inf
            node = Node(_copy(state), self.players)
            if key is not None:
                self.table[key] = node
            return node
        self._keep_reachable(node)
        return node

    def _keep_reachable(self, root: Node) -> None:
        reachable = {id(root)}
        todo = [root]
        while todo:
            for _, child in todo.pop().children:
                if id(child) not in reachable:
                    reachable.add(id(child))
                    todo.append(child)
        self.table = {k: n for k, n in self.table.items() if id(n) in reachable}

    def iterate(
        self,
        root: Node,
        rng: random.Random,
        exploration: float,
        choose: Chooser,
        play_out: Callable[[State], None],
        values: Callable[[State], list[float]],
    ) -> None:
        """One iteration: select, expand one action, play out a copy of its state, back up."""
        node = root
        path = [root]
        leaf: State | None = None
        while True:
            untried = node.untried
            while untried:
                action = choose(node.state, untried, rng)
                untried.remove(action)
                state = node.state.clone()
                try:
                    state.apply_action(action)
                except IllegalActionError:  # a rule refused it: never offered again here
                    continue
                key = state_key(state)
                child = self.table.get(key) if key is not None else None
                if child is None:
                    child = Node(state, self.players)
                    if key is not None:
                        self.table[key] = child
                    leaf = state.clone()
                else:
                    leaf = child.state.clone()
                node.children.append((action, child))
                path.append(child)
                break
            if leaf is not None or not node.children:
                break
            node = self._select(node, exploration)
            path.append(node)
        if leaf is None:  # a terminal node (or one whose every action was refused)
            leaf = node.state.clone()
        play_out(leaf)
        rewards = values(leaf)
        self.low = min(self.low, *rewards)
        self.high = max(self.high, *rewards)
        for visited in path:
            visited.visits += 1
            total = visited.reward
            for p, r in enumerate(rewards):
                total[p] += r

    def _select(self, node: Node, c: float) -> Node:
        mover = node.mover
        low, spread = self.low, self.high - self.low
        scale = c * c * math.log(node.visits or 1)
        best: Node | None = None
        best_score = -math.inf
        for _, child in node.children:
            visits = child.visits
            if visits == 0:
                return child
            value = (child.reward[mover] / visits - low) / spread if spread > 0 else 0.5
            score = value + math.sqrt(scale / visits)
            if score > best_score:
                best, best_score = child, score
        assert best is not None
        return best


def best_action(root: Node, legal: list[Action], me: int) -> Action:
    """The root's most visited action (then the best mean for ``me``; then the first legal)."""
    stats: dict[Action, tuple[int, float]] = {}
    for action, child in root.children:
        if child.visits:
            stats[action] = (child.visits, child.reward[me] / child.visits)
    return max(legal, key=lambda a: stats.get(a, (0, 0.0)))


def _copy(state: State) -> Any:
    copy = state.clone()
    copy.legal_actions()  # listed once, on the node's own state
    return copy
