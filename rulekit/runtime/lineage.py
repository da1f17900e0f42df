"""Where a map came from: the built-ins that make a new map from another (``put``,
``remove_key``) note the key they changed, so that data derived from maps (the tile-grid
caches) can tell what changed between a map and an earlier one without comparing the two
cell by cell.

Each program has its own :class:`Lineage` (in its :class:`~rulekit.runtime.memory.Memory`).
Only the last few maps made are remembered (each entry holds its new map, so its ``id``
cannot be reused while the entry lives): a question about older maps just gets no answer.
"""

from __future__ import annotations

from typing import Any

#: Entries kept at most (then forgotten all at once: play asks about the last few maps).
LIMIT = 16


class Lineage:
    """The maps made last by ``put`` and ``remove_key``: id(new map) -> (new map, the map
    it was made from, the key changed)."""

    __slots__ = ("made",)

    def __init__(self) -> None:
        self.made: dict[int, tuple[dict[Any, Any], dict[Any, Any], Any]] = {}

    def note(self, new: dict[Any, Any], old: dict[Any, Any], key: Any) -> None:
        """``new`` is ``old`` with ``key`` set or removed."""
        made = self.made
        if len(made) >= LIMIT:
            made.clear()
        made[id(new)] = (new, old, key)

    def changed_keys(self, new: dict[Any, Any], old: dict[Any, Any], most: int) -> list[Any] | None:
        """The keys changed on the way from ``old`` to ``new`` (a superset of the keys whose
        values differ), if ``new`` was made from ``old`` by at most ``most`` noted changes;
        otherwise None."""
        keys: list[Any] = []
        current = new
        made = self.made
        while len(keys) < most:
            entry = made.get(id(current))
            if entry is None or entry[0] is not current:
                return None
            keys.append(entry[2])
            current = entry[1]
            if current is old:
                return keys
        return None

    def made_from(self, new: dict[Any, Any]) -> tuple[dict[Any, Any], Any] | None:
        """The map ``new`` was made from and the key changed, if that is still remembered."""
        entry = self.made.get(id(new))
        if entry is None or entry[0] is not new:
            return None
        return entry[1], entry[2]
