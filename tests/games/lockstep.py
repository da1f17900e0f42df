"""Play a rulekit game and OpenSpiel's own implementation of it in lockstep.

Both go through OpenSpiel's API (rulekit's through its adapter). At every state the player to
move, the terminal flag and the legal actions (through the game's action mapping) must agree,
and at the end the returns; a game may also compare its board at every state. One random game
per seed, the same random choice made in both.
"""

from __future__ import annotations

import random
from collections.abc import Callable
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
