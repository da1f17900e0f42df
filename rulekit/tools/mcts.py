"""A Monte Carlo tree search bot for any compiled ruleset, hidden information included.

The search is single-observer information-set MCTS (Cowling, Powley & Whitehouse 2012):
every iteration starts from a fresh *determinization* of the real state
(:func:`rulekit.engine.information.determinize`: what the deciding player cannot see is
dealt again and chance is re-seeded), so the tree, keyed by actions, gathers statistics
over the states the player cannot tell apart and never reads what it cannot see.

One iteration:

1. *select*: from the root, while every legal action of the node has been tried, follow
   the child with the best UCB1 score for the player who moves there,
   ``mean reward + c · sqrt(ln(availability) / visits)``, where availability counts the
   iterations in which the action was legal (actions can be legal in one determinization
   and not in another);
2. *expand*: try one untried legal action, chosen as the ruleset's ``bots.weights`` say;
3. *play out*: weighted random actions until the game ends or ``cutoff`` actions were
   played (0: no cut-off);
4. *score*: every player gets its margin over the best other player (negative when
   behind), by the scores when the game ended, by the ruleset's ``bots.evaluate`` at a
   cut-off: what a player wants is to be ahead of everybody else, by as much as it can
   (with ``outcome: teams``, its team ahead of the other teams; in a cooperative game every
   player gets the shared score itself);
5. *back up*: each node on the path adds the value vector; a node's statistics are read
   for the player who moved into it, the mean value rescaled to [0, 1] by the lowest and
   highest values seen in this search (so the exploration constant means the same for
   any game's scale of points).

In a ``simultaneous`` flow step the later seats' choices are searched without the earlier
seats' pending choices: their statistics are kept on the step's first node, shared by every
choice the earlier seats may have made (each seat decides on its own information), while
the tree below the step follows the actual choices.  (At the root the real pending choices
of others are never read: :func:`determinize` deals them again.)

The move played is the root's most visited action.  With an iteration budget the bot is
deterministic for its seed; with a time budget (``ms``) the number of iterations depends
on the machine.

When the rules hide nothing, draw nothing and have no simultaneous step, there is nothing to
determinize and the search runs on :mod:`rulekit.tools.mcts_tree` instead: the same
selection, expansion, play-outs and values, with states kept in the nodes, transpositions,
and the tree kept from one decision to the next.
"""

from __future__ import annotations

import math
import random
import time
from collections.abc import Callable, Sequence

from rulekit.engine.game import Action, State
from rulekit.engine.information import determinize
from rulekit.engine.outcome import bot_values
from rulekit.engine.slots import CHOSEN
from rulekit.errors import IllegalActionError
from rulekit.tools.evaluation import evaluate, weighted_choice
from rulekit.tools.mcts_tree import TreeSearch, best_action, is_open_and_deterministic


class _Node:
    __slots__ = ("avail", "children", "reward", "shared", "visits")

    def __init__(self, players: int) -> None:
        self.children: dict[Action, _Node] = {}
        self.visits = 0
        self.avail = 1
        self.reward = [0.0] * players
        #: At the start of a simultaneous step: per later seat of the step, the node whose
        #: children hold that seat's statistics, whatever the earlier seats chose.
        self.shared: dict[int, _Node] | None = None


def margins(values: Sequence[float]) -> list[float]:
    """Each player's lead over the best of the others (negative when behind).

    >>> margins([3, 1, 5])
    [-2, -4, 2]
    """
    if len(values) == 1:
        return list(values)
    result = []
    for p, mine in enumerate(values):
        result.append(mine - max(v for q, v in enumerate(values) if q != p))
    return result


def state_values(state: State) -> list[float]:
    """What a state is worth to each player: its margin over the best other player (its
    team's over the best other team; the shared value itself in a cooperative game:
    :func:`rulekit.engine.outcome.bot_values`), by the scores at the end (or without
    ``bots.evaluate``), else by ``bots.evaluate``."""
    n = state.game.num_players
    if state.is_terminal() or state.game.program.evaluate is None:
        values = [float(v) for v in state.scores()]
    else:
        values = [float(evaluate(state, p)) for p in range(n)]
    return bot_values(state, values)


class MctsBot:
    """Information-set MCTS with UCB1 selection and weighted random play-outs (uniform
    without ``weighted``); on a game with nothing hidden and no chance, MCTS with
    transpositions and tree reuse (:mod:`rulekit.tools.mcts_tree`)."""

    def __init__(
        self,
        seed: int = 0,
        *,
        iterations: int = 200,
        milliseconds: float | None = None,
        cutoff: int = 0,
        exploration: float = 0.7,
        max_playout: int = 10_000,
        weighted: bool = True,
    ) -> None:
        self._rng = random.Random(seed)
        self.iterations = iterations
        self.milliseconds = milliseconds
        self.cutoff = cutoff
        self.exploration = exploration
        self.max_playout = max_playout
        self.weighted = weighted
        self._low = self._high = 0.0
        #: Iterations run since the bot was made (a time budget runs a varying number).
        self.iterations_run = 0
        #: The tree kept between decisions on a game with nothing hidden and no chance
        #: (:mod:`rulekit.tools.mcts_tree`); None before such a search.
        self.tree: TreeSearch | None = None

    def choose(self, state: State) -> Action:
        legal = state.legal_actions()
        if len(legal) == 1:
            return legal[0]
        if is_open_and_deterministic(state.game):
            return self._choose_in_tree(state, legal)
        me = state.current_player()
        root = _Node(state.game.num_players)
        self._low, self._high = math.inf, -math.inf
        self._run(lambda: self._iterate(root, state, me))

        def preference(action: Action) -> tuple[int, float]:
            child = root.children.get(action)
            if child is None or child.visits == 0:
                return (0, 0.0)
            return child.visits, child.reward[me] / child.visits

        return max(legal, key=preference)

    def _run(self, iterate: Callable[[], None]) -> None:
        """Iterate for the bot's budget: its iterations, or until its time is up."""
        if self.milliseconds is not None:
            deadline = time.perf_counter() + self.milliseconds / 1000
            while True:
                iterate()
                self.iterations_run += 1
                if time.perf_counter() >= deadline:
                    break
        else:
            for _ in range(self.iterations):
                iterate()
            self.iterations_run += self.iterations

    def _choose_in_tree(self, state: State, legal: list[Action]) -> Action:
        """The search of :mod:`rulekit.tools.mcts_tree`, its tree kept for the next decision."""
        tree = self.tree
        if tree is None or tree.game is not state.game:
            tree = self.tree = TreeSearch(state.game)
        root = tree.root(state)
        rng, c = self._rng, self.exploration
        choose = self._choice
        play_out, values = self._play_out, state_values
        self._run(lambda: tree.iterate(root, rng, c, choose, play_out, values))
        return best_action(root, legal, state.current_player())

    def _choice(self, state: State, legal: list[Action], rng: random.Random) -> Action:
        return weighted_choice(state, legal, rng, self.weighted)

    def _iterate(self, root: _Node, real: State, me: int) -> None:
        rng = self._rng
        state = determinize(real, me, rng)
        node = root
        path = [root]
        c = self.exploration
        anchor: _Node | None = None  # the node where the simultaneous step under way started
        # (None at the root: the real pending choices of others are dealt again there)
        while not state.is_terminal():
            legal = state.legal_actions()
            # In a simultaneous step a seat chooses without seeing the earlier seats' choices:
            # its statistics are kept on the step's first node, the same whatever they chose.
            stats = node
            if state.is_simultaneous():
                mover = state.current_player()
                if not any(entry[0] != mover for entry in state.fields.get(CHOSEN, ())):
                    anchor = node
                elif anchor is not None:
                    if anchor.shared is None:
                        anchor.shared = {}
                    stats = anchor.shared.setdefault(mover, _Node(len(root.reward)))
            children = stats.children
            untried = []
            for action in legal:
                child = children.get(action)
                if child is None:
                    untried.append(action)
                else:
                    child.avail += 1
            if untried:
                action = weighted_choice(state, untried, rng, self.weighted)
                child = _Node(len(root.reward))
                if not _apply(state, action):
                    break
                children[action] = child
                path.append(child)
                break
            mover = state.current_player()
            best_action = legal[0]
            best_score = -math.inf
            low, spread = self._low, self._high - self._low
            for action in legal:
                child = children[action]
                mean = child.reward[mover] / child.visits
                value = (mean - low) / spread if spread > 0 else 0.5
                score = value + c * math.sqrt(math.log(child.avail) / child.visits)
                if score > best_score:
                    best_action, best_score = action, score
            if not _apply(state, best_action):
                break
            if stats is not node:  # the shared statistics, then the game's own path
                path.append(children[best_action])
                children = node.children
                if best_action not in children:
                    children[best_action] = _Node(len(root.reward))
            node = children[best_action]
            path.append(node)
        self._play_out(state)
        rewards = state_values(state)
        self._low = min(self._low, *rewards)
        self._high = max(self._high, *rewards)
        for visited in path:
            visited.visits += 1
            total = visited.reward
            for p, r in enumerate(rewards):
                total[p] += r

    def _play_out(self, state: State) -> None:
        rng = self._rng
        limit = self.cutoff or self.max_playout
        weighted = self.weighted and state.has_bot_weights()
        apply = state.apply_action
        for _ in range(limit):
            if state.is_terminal():
                return
            legal = state.legal_actions()
            # (uniform: weighted_choice's own draw, without its calls)
            action = weighted_choice(state, legal, rng) if weighted else rng.choice(legal)
            try:
                apply(action)
            except IllegalActionError:  # a rule refused it there: the play-out ends
                return


def _apply(state: State, action: Action) -> bool:
    """Apply ``action`` in place; False when a rule refused it there (state unchanged)."""
    try:
        state.apply_action(action)
    except IllegalActionError:
        return False
    return True
