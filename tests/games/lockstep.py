"""Play a rulekit game and OpenSpiel's own implementation of it in lockstep.

Both go through OpenSpiel's API (rulekit's through its adapter). At every state the player to
move, the terminal flag and the legal actions (through the game's action mapping) must agree,
and at the end the returns; a game may also compare its board at every state. One random game
per seed, the same random choice made in both.
"""

from __future__ import annotations

import math
import random
from collections.abc import Callable
from pathlib import Path
from typing import Any

#: rulekit's action text (in its state) -> OpenSpiel's action string.
ToTheirs = Callable[[Any, str], str]
#: Asserts that the two states show the same board.
SameBoard = Callable[[Any, Any], None]


def lockstep(
    ours: Any, theirs: Any, seed: int, to_theirs: ToTheirs, same_board: SameBoard | None = None
) -> int:
    """Play one random game of ``ours`` and ``theirs`` (pyspiel games) together; return how
    many states were compared."""
    rng = random.Random(seed)
    a, b = ours.new_initial_state(), theirs.new_initial_state()
    compared = 0
    while True:
        compared += 1
        if same_board is not None:
            same_board(a, b)
        assert a.is_terminal() == b.is_terminal(), (seed, compared, str(b))
        if b.is_terminal():
            assert a.returns() == b.returns(), (seed, str(b))
            return compared
        assert a.current_player() == b.current_player(), (seed, compared, str(b))
        mine = {to_theirs(a, a.action_to_string(x)): x for x in a.legal_actions()}
        offered = {b.action_to_string(x): x for x in b.legal_actions()}
        assert set(mine) == set(offered), (seed, compared, str(b))
        text = rng.choice(sorted(mine))
        a.apply_action(mine[text])
        b.apply_action(offered[text])


def constants_variant(directory: Path, ruleset: str, **constants: Any) -> str:
    """A variant file in ``directory`` setting the ruleset's constants (a board size)."""
    name = "size_" + "_".join(f"{k}{v}" for k, v in constants.items())
    lines = [f"variant: {name}", f"ruleset: {ruleset}", "set:"]
    lines += [f"  constants.{key}: {value}" for key, value in constants.items()]
    path = directory / f"{name}.yaml"
    path.write_text("\n".join(lines) + "\n", encoding="utf-8")
    return str(path)


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
