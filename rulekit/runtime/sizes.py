"""The size of run-time values, for the limit ``max_state_size`` (docs/security.md).

A value's size is what it holds: a text counts its characters (at least 1), a list one
plus the sizes of its elements, a map one plus the sizes of its keys and values, anything
else (a number, a boolean, none) 1.  A value shared in several places counts in each
(the state is written out, hashed and compared in full), but is measured only once.

Values are immutable, so the size of a big list or map is remembered (by identity, with
the value kept alive while it is remembered, in the program's :class:`Sizes`); a map made
by ``put`` or ``remove_key`` from a remembered one is measured from it and the changed key
(:mod:`rulekit.runtime.lineage`).
"""

from __future__ import annotations

from operator import not_
from typing import Any

from rulekit.runtime.lineage import Lineage

_BIG = 16
#: Remembered sizes at most, and elements of the values they keep alive at most (then all
#: are forgotten at once: old versions of a huge list are not kept).
_LIMIT = 4096
_HELD_MOST = 1_000_000
#: How many ``put`` steps back a map's size is derived from a remembered one.
_STEPS = 8


class Sizes:
    """The sizes one program remembers (in its :class:`~rulekit.runtime.memory.Memory`):
    ``known``, id(value) -> (value, size) for lists and maps of at least ``_BIG`` elements
    (``held``: the elements they keep alive); ``fields``, field key -> (value, size), each
    field's list or map when it was last measured."""

    __slots__ = ("fields", "held", "known", "lineage")

    def __init__(self, lineage: Lineage | None = None) -> None:
        self.lineage = Lineage() if lineage is None else lineage
        self.known: dict[int, tuple[Any, int]] = {}
        self.held = 0
        self.fields: dict[Any, tuple[Any, int]] = {}

    def size_of(self, value: Any) -> int:
        """The size of ``value`` (see the module's docstring)."""
        kind = type(value)
        if kind is str:
            return len(value) or 1
        if kind is tuple or kind is dict:
            return self._sized(value, {})
        return 1

    def state_size(self, fields: dict[Any, Any]) -> int:
        """The size of a state's fields: the sum of their values' sizes (a field whose value
        is the one it held when last measured is not measured again)."""
        seen: dict[int, int] = {}
        total = 1
        last = self.fields
        if len(last) > _LIMIT:
            last.clear()
        for key, value in fields.items():
            kind = type(value)
            if kind is tuple or kind is dict:
                known = last.get(key)
                if known is not None and known[0] is value:
                    total += known[1]
                    continue
                size = self._sized(value, seen)
                last[key] = (value, size)
                total += size
            elif kind is str:
                total += len(value) or 1
            else:
                total += 1
        return total

    def _sized(self, value: Any, seen: dict[int, int]) -> int:
        key = id(value)
        known_sizes = self.known
        known = known_sizes.get(key)
        if known is not None and known[0] is value:
            return known[1]
        total = seen.get(key)
        if total is not None:
            return total
        if type(value) is dict:
            derived = self._from_lineage(value, seen, _STEPS) if len(value) >= _BIG else None
            total = (
                1 + self._items(value.keys(), seen) + self._items(value.values(), seen)
                if derived is None
                else derived
            )
        else:
            total = 1 + self._items(value, seen)
        seen[key] = total
        if len(value) >= _BIG:
            self.held += len(value)
            if len(known_sizes) >= _LIMIT or self.held > _HELD_MOST:
                known_sizes.clear()
                self.held = len(value)
            known_sizes[key] = (value, total)
        return total

    def _items(self, items: Any, seen: dict[int, int]) -> int:
        kinds = set(map(type, items))  # in C: most lists hold only numbers, or only texts
        if kinds.isdisjoint(_DEEP):
            return len(items)
        if len(kinds) == 1 and str in kinds:
            return sum(map(len, items)) + sum(map(not_, items))  # an empty text counts 1
        total = 0
        for item in items:
            kind = type(item)
            if kind is str:
                total += len(item) or 1
            elif kind is tuple or kind is dict:
                total += self._sized(item, seen)
            else:
                total += 1
        return total

    def _from_lineage(self, new: dict[Any, Any], seen: dict[int, int], steps: int) -> int | None:
        """The size of ``new`` from the remembered size of a map it was made from by ``put``
        or ``remove_key`` (at most ``steps`` back), or None."""
        made = self.lineage.made_from(new)
        if made is None:
            return None
        old, changed = made
        known = self.known.get(id(old))
        if known is not None and known[0] is old:
            base = known[1]
        elif steps > 1 and len(old) >= _BIG:
            found = self._from_lineage(old, seen, steps - 1)
            if found is None:
                return None
            base = found
        else:
            return None
        return base - self._entry(old, changed, seen) + self._entry(new, changed, seen)

    def _entry(self, table: dict[Any, Any], key: Any, seen: dict[int, int]) -> int:
        if key not in table:
            return 0
        return self._items((key, table[key]), seen)


#: The types whose values hold more than themselves.
_DEEP = frozenset({str, tuple, dict})


def size_of(value: Any) -> int:
    """The size of ``value``, measured afresh (nothing remembered)."""
    return Sizes().size_of(value)


def state_size(fields: dict[Any, Any]) -> int:
    """The size of a state's fields, measured afresh (nothing remembered)."""
    return Sizes().state_size(fields)
