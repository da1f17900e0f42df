"""The size of run-time values, for the limit ``max_state_size`` (docs/security.md).

A value's size is what it holds: a text counts its characters (at least 1), a list one
plus the sizes of its elements, a map one plus the sizes of its keys and values, anything
else (a number, a boolean, none) 1.  A value shared in several places counts in each
(the state is written out, hashed and compared in full), but is measured only once.

Values are immutable, so the size of a big list or map is remembered (by identity, with
the value kept alive while it is remembered); a map made by ``put`` or ``remove_key``
from a remembered one is measured from it and the changed key (:mod:`rulekit.runtime.lineage`).
"""

from __future__ import annotations

from operator import not_
from typing import Any

from rulekit.runtime import lineage

#: Characters of text the text built-ins made (``concat``, ``join``, ``pad``...) since the
#: process started: the engine reads it before and after an action to see how busy it was.
TEXT_BUILT = [0]

#: id(value) -> (value, size) for lists and maps of at least :data:`_BIG` elements.
_KNOWN: dict[int, tuple[Any, int]] = {}
_BIG = 16
#: Remembered sizes at most, and elements of the values they keep alive at most (then all
#: are forgotten at once: old versions of a huge list are not kept).
_LIMIT = 4096
_HELD_MOST = 1_000_000
_HELD = [0]
#: field key -> (value, size): each field's list or map when it was last measured.
_FIELDS: dict[Any, tuple[Any, int]] = {}
#: How many ``put`` steps back a map's size is derived from a remembered one.
_STEPS = 8


def size_of(value: Any) -> int:
    """The size of ``value`` (see the module's docstring)."""
    kind = type(value)
    if kind is str:
        return len(value) or 1
    if kind is tuple or kind is dict:
        return _sized(value, {})
    return 1


def state_size(fields: dict[Any, Any]) -> int:
    """The size of a state's fields: the sum of their values' sizes (a field whose value
    is the one it held when last measured is not measured again)."""
    seen: dict[int, int] = {}
    total = 1
    last = _FIELDS
    if len(last) > _LIMIT:
        last.clear()
    for key, value in fields.items():
        kind = type(value)
        if kind is tuple or kind is dict:
            known = last.get(key)
            if known is not None and known[0] is value:
                total += known[1]
                continue
            size = _sized(value, seen)
            last[key] = (value, size)
            total += size
        elif kind is str:
            total += len(value) or 1
        else:
            total += 1
    return total


def _sized(value: Any, seen: dict[int, int]) -> int:
    key = id(value)
    known = _KNOWN.get(key)
    if known is not None and known[0] is value:
        return known[1]
    total = seen.get(key)
    if total is not None:
        return total
    if type(value) is dict:
        derived = _from_lineage(value, seen, _STEPS) if len(value) >= _BIG else None
        total = 1 + _items(value.keys(), seen) + _items(value.values(), seen) if derived is None else derived
    else:
        total = 1 + _items(value, seen)
    seen[key] = total
    if len(value) >= _BIG:
        _HELD[0] += len(value)
        if len(_KNOWN) >= _LIMIT or _HELD[0] > _HELD_MOST:
            _KNOWN.clear()
            _HELD[0] = len(value)
        _KNOWN[key] = (value, total)
    return total


#: The types whose values hold more than themselves.
_DEEP = frozenset({str, tuple, dict})


def _items(items: Any, seen: dict[int, int]) -> int:
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
            total += _sized(item, seen)
        else:
            total += 1
    return total


def _from_lineage(new: dict[Any, Any], seen: dict[int, int], steps: int) -> int | None:
    """The size of ``new`` from the remembered size of a map it was made from by ``put`` or
    ``remove_key`` (at most ``steps`` back), or None."""
    made = lineage.made_from(new)
    if made is None:
        return None
    old, changed = made
    known = _KNOWN.get(id(old))
    if known is not None and known[0] is old:
        base = known[1]
    elif steps > 1 and len(old) >= _BIG:
        found = _from_lineage(old, seen, steps - 1)
        if found is None:
            return None
        base = found
    else:
        return None
    return base - _entry(old, changed, seen) + _entry(new, changed, seen)


def _entry(table: dict[Any, Any], key: Any, seen: dict[int, int]) -> int:
    if key not in table:
        return 0
    return _items((key, table[key]), seen)
