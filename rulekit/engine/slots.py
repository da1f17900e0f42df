"""The engine's own entries in a state's field dict (owner ``"_"``)."""

from __future__ import annotations

ENGINE = "_"
#: ``(player, action names)`` of the pending decision; None once the game is over.
DECISION = (ENGINE, "decision")
#: How many actions were applied.
MOVES = (ENGINE, "moves")
