"""Play a rulekit game and OpenSpiel's own implementation of it in lockstep.

Both go through OpenSpiel's API (rulekit's through its adapter). At every state the player to
move, the terminal flag and the legal actions (through the game's action mapping) must agree,
and at the end the returns; a game may also compare its board at every state. At a chance node
the outcomes with their probabilities must agree (through the game's outcome mapping). For an
imperfect-information game an :class:`InfoSets` collects, on both sides, which histories share
each player's information state, so that the two partitions can be compared. One random game
per seed, the same random choice made in both; :func:`lockstep_tree` walks every history.
"""

from __future__ import annotations

import math
import random
from collections import defaultdict
from collections.abc import Callable
from typing import Any

#: rulekit's action text (in its state) -> OpenSpiel's action string.
ToTheirs = Callable[[Any, str], str]
#: Asserts that the two states show the same board.
SameBoard = Callable[[Any, Any], None]
#: rulekit's chance outcome (in its state) -> OpenSpiel's outcome.
Outcome = Callable[[Any, int], int]


class InfoSets:
    """The information states met on both sides: for each (player, information state
    string), the set of histories (OpenSpiel's) that share it."""

    def __init__(self) -> None:
        self.ours: dict[tuple[int, str], set[tuple[int, ...]]] = defaultdict(set)
        self.theirs: dict[tuple[int, str], set[tuple[int, ...]]] = defaultdict(set)

    def record(self, a: Any, b: Any) -> None:
        """Every player's information state in the paired states ``a`` (ours), ``b``."""
        history = tuple(b.history())
        for player in range(b.num_players()):
            self.ours[player, a.information_state_string(player)].add(history)
            self.theirs[player, b.information_state_string(player)].add(history)

    def assert_same_partition(self) -> int:
        """Two histories share ours exactly when they share theirs; return how many classes."""
        ours = {(key[0], frozenset(histories)) for key, histories in self.ours.items()}
        theirs = {(key[0], frozenset(histories)) for key, histories in self.theirs.items()}
        only_ours = sorted(ours - theirs, key=repr)[:1]
        only_theirs = sorted(theirs - ours, key=repr)[:1]
        assert ours == theirs, ("classes of ours not in theirs", only_ours, "and back", only_theirs)
        return len(ours)


def _paired(
    a: Any,
    b: Any,
    to_theirs: ToTheirs,
    outcome: Outcome | None,
    same_board: SameBoard | None,
    infosets: InfoSets | None,
    where: Any,
) -> dict[Any, tuple[int, int]]:
    """Compare ``a`` and ``b``; return for each legal move its key (OpenSpiel's action string,
    or its chance outcome) -> (our action, theirs); empty at the end."""
    if same_board is not None:
        same_board(a, b)
    assert a.is_terminal() == b.is_terminal(), (where, str(b))
    if b.is_terminal():
        assert a.returns() == b.returns(), (where, str(b))
        return {}
    assert a.current_player() == b.current_player(), (where, str(b))
    if b.is_chance_node():
        assert outcome is not None, "a chance node needs an outcome mapping"
        mine = {outcome(a, x): (x, p) for x, p in a.chance_outcomes()}
        offered = dict(b.chance_outcomes())
        assert set(mine) == set(offered), (where, str(b))
        for key, (_, probability) in mine.items():
            assert abs(probability - offered[key]) < 1e-12, (where, key, probability, offered[key])
        assert sorted(x for x, _ in a.chance_outcomes()) == sorted(a.legal_actions())
        return {key: (x, key) for key, (x, _) in mine.items()}
    if infosets is not None:
        infosets.record(a, b)
    ours = {to_theirs(a, a.action_to_string(x)): x for x in a.legal_actions()}
    offered_text = {b.action_to_string(x): x for x in b.legal_actions()}
    assert set(ours) == set(offered_text), (where, str(b))
    return {text: (x, offered_text[text]) for text, x in ours.items()}


def lockstep(
    ours: Any,
    theirs: Any,
    seed: int,
    to_theirs: ToTheirs,
    same_board: SameBoard | None = None,
    *,
    outcome: Outcome | None = None,
    infosets: InfoSets | None = None,
) -> int:
    """Play one random game of ``ours`` and ``theirs`` (pyspiel games) together; return how
    many states were compared."""
    rng = random.Random(seed)
    a, b = ours.new_initial_state(), theirs.new_initial_state()
    compared = 0
    while True:
        compared += 1
        actions = _paired(a, b, to_theirs, outcome, same_board, infosets, (seed, compared))
        if not actions:
            return compared
        mine, theirs_action = actions[rng.choice(sorted(actions))]
        a.apply_action(mine)
        b.apply_action(theirs_action)


def lockstep_tree(
    ours: Any,
    theirs: Any,
    to_theirs: ToTheirs,
    *,
    outcome: Outcome | None = None,
    infosets: InfoSets | None = None,
) -> int:
    """Walk every history of both games together (a small game); return how many states
    were compared."""
    compared = 0
    stack = [(ours.new_initial_state(), theirs.new_initial_state())]
    while stack:
        a, b = stack.pop()
        compared += 1
        actions = _paired(a, b, to_theirs, outcome, None, infosets, b.history())
        for mine, theirs_action in actions.values():
            stack.append((a.child(mine), b.child(theirs_action)))
    return compared


#: rulekit's chance outcome text (``event = value``) -> OpenSpiel's chance outcome string.
ChanceToTheirs = Callable[[str], str]


class SameInformation:
    """Checks, over many games, that two histories share rulekit's information state exactly
    when they share OpenSpiel's: each information state string of one side always comes with
    the same string of the other side (for the same player)."""

    def __init__(self) -> None:
        self.ours: dict[tuple[int, str], str] = {}
        self.theirs: dict[tuple[int, str], str] = {}

    def record(self, player: int, ours: str, theirs: str) -> None:
        mine = self.ours.setdefault((player, ours), theirs)
        assert mine == theirs, (player, ours, mine, theirs)
        other = self.theirs.setdefault((player, theirs), ours)
        assert other == ours, (player, theirs, other, ours)

    @property
    def classes(self) -> int:
        """How many information states were seen (the two sides have as many)."""
        assert len(self.ours) == len(self.theirs)
        return len(self.ours)


def lockstep_chance(
    ours: Any,
    theirs: Any,
    seed: int,
    to_theirs: ToTheirs,
    chance_to_theirs: ChanceToTheirs,
    information: SameInformation | None = None,
) -> int:
    """:func:`lockstep` for games with chance nodes: also at every chance node the outcomes
    and their probabilities (through ``chance_to_theirs``), one picked uniformly by the seed;
    and, given ``information``, every player's information state at every decision node
    (rulekit's shows the result once the game is over, OpenSpiel's does not: terminal
    states are left out). Returns how many states were compared."""
    rng = random.Random(seed)
    a, b = ours.new_initial_state(), theirs.new_initial_state()
    compared = 0
    while True:
        compared += 1
        assert a.is_terminal() == b.is_terminal(), (seed, compared, str(b))
        if b.is_terminal():
            assert a.returns() == b.returns(), (seed, str(b))
            return compared
        assert a.current_player() == b.current_player(), (seed, compared, str(b))
        if b.is_chance_node():
            mine_p = {
                chance_to_theirs(a.action_to_string(a.current_player(), x)): (x, p)
                for x, p in a.chance_outcomes()
            }
            offered_p = {b.action_to_string(b.current_player(), x): (x, p) for x, p in b.chance_outcomes()}
            assert set(mine_p) == set(offered_p), (seed, compared, str(b))
            for text, (_, p) in offered_p.items():
                assert math.isclose(mine_p[text][1], p, rel_tol=1e-12), (seed, text, mine_p[text][1], p)
            text = rng.choice(sorted(offered_p))
            a.apply_action(mine_p[text][0])
            b.apply_action(offered_p[text][0])
            continue
        if information is not None:
            for player in range(b.num_players()):
                information.record(
                    player, a.information_state_string(player), b.information_state_string(player)
                )
        mine = {to_theirs(a, a.action_to_string(x)): x for x in a.legal_actions()}
        offered = {b.action_to_string(x): x for x in b.legal_actions()}
        assert set(mine) == set(offered), (seed, compared, str(b))
        text = rng.choice(sorted(mine))
        a.apply_action(mine[text])
        b.apply_action(offered[text])
