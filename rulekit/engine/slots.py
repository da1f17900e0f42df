"""The engine's own entries in a state's field dict (owner ``"_"``).

A new game's fields are keyed by these very tuples (and a ruleset's fields by the tuples the
generated code spells, :func:`rulekit.engine.game.literal_keys`), so that a look-up with one of
them finds its entry by identity, without comparing the tuples.
"""

from __future__ import annotations

ENGINE = "_"
#: ``(player, action names)`` of the pending decision; None once the game is over.
DECISION = (ENGINE, "decision")
#: How many actions were applied.
MOVES = (ENGINE, "moves")
#: The pending choices of a simultaneous step, ``(seat, action name, args)`` in the order made;
#: present only while such a step waits (:mod:`rulekit.engine.flow`).
CHOSEN = (ENGINE, "chosen")
#: Where the flow is: its stack of frames (:mod:`rulekit.engine.flow`).
FLOW = (ENGINE, "flow")
#: Pending asks, ``(player, action names)``, the first answered next.
ASKS = (ENGINE, "asks")
#: Whether the pending decision answers an ask.
ASKED = (ENGINE, "asked")
#: Whether the game is over.
OVER = (ENGINE, "over")
#: The player whose turn it is (None between turns).
TURN = (ENGINE, "turn")
#: The random generator's state.
RNG = (ENGINE, "rng")
