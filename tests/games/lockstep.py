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

import random
from collections import defaultdict
from collections.abc import Callable
from pathlib import Path
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


def constants_variant(directory: Path, ruleset: str, **constants: Any) -> str:
    """A variant file in ``directory`` setting the ruleset's constants (a board size)."""
    name = "size_" + "_".join(f"{k}{v}" for k, v in constants.items())
    lines = [f"variant: {name}", f"ruleset: {ruleset}", "set:"]
    lines += [f"  constants.{key}: {value}" for key, value in constants.items()]
    path = directory / f"{name}.yaml"
    path.write_text("\n".join(lines) + "\n", encoding="utf-8")
    return str(path)
