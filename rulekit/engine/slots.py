"""The engine's own entries in a state's field dict (owner ``"_"``)."""

from __future__ import annotations

ENGINE = "_"
#: ``(player, action names)`` of the pending decision; None once the game is over.
DECISION = (ENGINE, "decision")
#: How many actions were applied.
MOVES = (ENGINE, "moves")
#: The pending choices of a simultaneous step, ``(seat, action name, args)`` in the order made;
#: present only while such a step waits (:mod:`rulekit.engine.flow`).
CHOSEN = (ENGINE, "chosen")
