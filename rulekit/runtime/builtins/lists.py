"""List, map and cell built-ins.  Lists are tuples at run time and are never mutated in place."""

from __future__ import annotations

from collections.abc import Sequence
from typing import TYPE_CHECKING, Any

from rulekit.dsl.types import (
    ANY,
    ANY_LIST,
    BOOL,
    INT,
    MAP,
    STR,
    TUPLE,
    list_of,
)
from rulekit.runtime.builtins.signatures import (
    element_fits,
    entry_fits,
    first_element,
    key_fits,
    keys_of,
    map_value_of,
    put_result,
    same_as_first,
)
from rulekit.runtime.builtins.text import bounded_text, text_of
from rulekit.runtime.errors import RuleFailure
from rulekit.runtime.registry import register as _register

if TYPE_CHECKING:
    from rulekit.runtime.memory import Memory

# ------------------------------------------------------------------ lists


@_register(
    "len", [("items", ANY)], INT, "The number of elements of a list or map.", example="len(game.display)"
)
def _len(items: Sequence[Any]) -> int:
    return len(items)


@_register(
    "range",
    [("start", INT), ("stop", INT)],
    list_of(INT),
    "The integers start, start+1, ..., stop-1: stop is left out, as in Python (at most 100000).",
    example="range(0, 3) == [0, 1, 2]",
)
def _range(start: int, stop: int) -> tuple[int, ...]:
    if stop - start > 100_000:
        raise RuleFailure("range() is limited to 100000 elements")
    return tuple(range(start, stop))


@_register(
    "between",
    [("low", INT), ("high", INT)],
    list_of(INT),
    'The integers low, low+1, ..., high: both ends included, as in "spaces 1 to 12" (at most 100000).',
    example="between(1, 3) == [1, 2, 3]",
)
def _between(low: int, high: int) -> tuple[int, ...]:
    if high - low >= 100_000:  # high - low + 1 elements
        raise RuleFailure("between() is limited to 100000 elements")
    return tuple(range(low, high + 1))


@_register(
    "first",
    [("items", ANY_LIST)],
    first_element,
    "The first element of a list, or none if it is empty.",
    example="first(game.deck)",
)
def _first(items: Sequence[Any]) -> Any:
    return items[0] if items else None


@_register(
    "last",
    [("items", ANY_LIST)],
    first_element,
    "The last element of a list, or none if it is empty.",
    example="last(track)",
)
def _last(items: Sequence[Any]) -> Any:
    return items[-1] if items else None


@_register(
    "take",
    [("items", ANY_LIST), ("n", INT)],
    same_as_first,
    "The first n elements of a list.",
    example="take(game.deck, 4)",
)
def _take(items: Sequence[Any], n: int) -> tuple[Any, ...]:
    return tuple(items[: max(0, n)])


@_register(
    "drop",
    [("items", ANY_LIST), ("n", INT)],
    same_as_first,
    "The list without its first n elements.",
    example="drop(game.deck, 1)",
)
def _drop(items: Sequence[Any], n: int) -> tuple[Any, ...]:
    return tuple(items[max(0, n) :])


@_register(
    "append",
    [("items", ANY_LIST), ("item", ANY)],
    same_as_first,
    "A new list with item added at the end.",
    example="append(me.hand, card)",
    check=element_fits(1),
)
def _append(items: Sequence[Any], item: Any) -> tuple[Any, ...]:
    return (*items, item)


@_register(
    "prepend",
    [("items", ANY_LIST), ("item", ANY)],
    same_as_first,
    "A new list with item added at the front.",
    example="prepend(track, piece)",
    check=element_fits(1),
)
def _prepend(items: Sequence[Any], item: Any) -> tuple[Any, ...]:
    return (item, *items)


@_register(
    "without",
    [("items", ANY_LIST), ("item", ANY)],
    same_as_first,
    "A new list with the first occurrence of item removed (unchanged if absent).",
    example="without(game.display, card)",
    check=element_fits(1),
)
def _without(items: Sequence[Any], item: Any) -> tuple[Any, ...]:
    seq = tuple(items)
    if item in seq:
        i = seq.index(item)
        return seq[:i] + seq[i + 1 :]
    return seq


@_register(
    "replace_at",
    [("items", ANY_LIST), ("index", INT), ("item", ANY)],
    same_as_first,
    "A new list with the element at index (0-based) replaced by item.",
    example="replace_at(track, 3, me)",
    check=element_fits(2),
)
def _replace_at(items: Sequence[Any], index: int, item: Any) -> tuple[Any, ...]:
    seq = tuple(items)
    if not 0 <= index < len(seq):
        raise RuleFailure(f"replace_at: index {index} outside a list of {len(seq)}")
    return (*seq[:index], item, *seq[index + 1 :])


@_register(
    "index_of",
    [("items", ANY_LIST), ("item", ANY)],
    INT,
    "The 0-based position of item in the list, or -1.",
    example="index_of(players_from(game.start), me)",
)
def _index_of(items: Sequence[Any], item: Any) -> int:
    seq = tuple(items)
    return seq.index(item) if item in seq else -1


@_register(
    "count_of",
    [("items", ANY_LIST), ("item", ANY)],
    INT,
    "How often item occurs in the list.",
    example="count_of(track, me)",
)
def _count_of(items: Sequence[Any], item: Any) -> int:
    return tuple(items).count(item)


@_register(
    "unique",
    [("items", ANY_LIST)],
    same_as_first,
    "The list without repeated elements (numbers, text, players, records...), first occurrences kept "
    "in order.",
    example="unique([{n: 1}, {n: 2}, {n: 1}]) == [{n: 1}, {n: 2}]",
)
def _unique(items: Sequence[Any]) -> tuple[Any, ...]:
    try:
        return tuple(dict.fromkeys(items))
    except TypeError:  # records (maps) are not hashable: compared one by one
        kept: list[Any] = []
        for item in items:
            if item not in kept:
                kept.append(item)
        return tuple(kept)


@_register(
    "unique_by",
    [("items", ANY_LIST), ("keys", ANY_LIST)],
    same_as_first,
    "The items whose key (the element of keys at the same position) has not occurred before: "
    "one of each group of equivalent items, the first, in order (see the distinct(...) aggregate).",
    example='unique_by(["a1", "a2", "b1"], ["a", "a", "b"]) == ["a1", "b1"]',
)
def _unique_by(items: Sequence[Any], keys: Sequence[Any]) -> tuple[Any, ...]:
    if len(items) != len(keys):
        raise RuleFailure(f"unique_by: {len(items)} items but {len(keys)} keys")
    seen: set[Any] = set()
    unhashable: list[Any] = []  # records (maps) as keys: compared one by one
    kept = []
    for item, key in zip(items, keys, strict=True):
        try:
            if key in seen:
                continue
            seen.add(key)
        except TypeError:
            if key in unhashable:
                continue
            unhashable.append(key)
        kept.append(item)
    return tuple(kept)


@_register(
    "reversed",
    [("items", ANY_LIST)],
    same_as_first,
    "The list in reverse order.",
    example="reversed(range(0, 3)) == [2, 1, 0]",
)
def _reversed(items: Sequence[Any]) -> tuple[Any, ...]:
    return tuple(reversed(tuple(items)))


@_register(
    "sort",
    [("items", ANY_LIST)],
    same_as_first,
    "The list sorted ascending (use sorted(x for x in xs by key) for a key).",
    example="sort([3, 1, 2]) == [1, 2, 3]",
)
def _sort(items: Sequence[Any]) -> tuple[Any, ...]:
    return tuple(sorted(items))


@_register(
    "get",
    [("table", ANY), ("key", ANY), ("default", ANY)],
    map_value_of,
    "table[key] for a map or list, or default when the key is missing.",
    optional=1,
    example="get(PROLIFERATION, n, 0)",
)
def _get(table: Any, key: Any, default: Any = None) -> Any:
    if isinstance(table, dict):
        return table.get(key, default)
    if isinstance(table, tuple | list) and isinstance(key, int) and 0 <= key < len(table):
        return table[key]
    return default


@_register(
    "put",
    [("table", MAP), ("key", ANY), ("value", ANY)],
    put_result,
    "A new map with key set to value.",
    check=entry_fits,
    example="put(game.map, (0, 1), tile)",
    memory=True,
)
def _put(memory: Memory, table: dict[Any, Any], key: Any, value: Any) -> dict[Any, Any]:
    result = dict(table)
    result[key] = value
    memory.lineage.note(result, table, key)
    return result


@_register(
    "remove_key",
    [("table", MAP), ("key", ANY)],
    put_result,
    "A new map without key.",
    check=key_fits,
    example="remove_key(game.map, cell)",
    memory=True,
)
def _remove_key(memory: Memory, table: dict[Any, Any], key: Any) -> dict[Any, Any]:
    result = dict(table)
    result.pop(key, None)
    memory.lineage.note(result, table, key)
    return result


@_register(
    "keys", [("table", MAP)], keys_of, "The keys of a map, in insertion order.", example="keys(game.map)"
)
def _keys(table: dict[Any, Any]) -> tuple[Any, ...]:
    return tuple(table)


@_register(
    "has_key",
    [("table", MAP), ("key", ANY)],
    BOOL,
    "Whether the map has key.",
    check=key_fits,
    example="has_key(game.map, cell)",
)
def _has_key(table: dict[Any, Any], key: Any) -> bool:
    return key in table


@_register(
    "str",
    [("value", ANY)],
    STR,
    "The value as text, as concat writes it: true, false, none, [1, 2], players as P1, P2.",
    example='str(3) == "3"',
    memory=True,
)
def _str(memory: Memory, value: Any) -> str:
    return bounded_text(memory, text_of(value))


@_register(
    "manhattan",
    [("a", TUPLE), ("b", TUPLE)],
    INT,
    "Grid distance |ax-bx| + |ay-by| between two (x, y) cells.",
    example="manhattan((0, 0), (2, 1)) == 3",
)
def _manhattan(a: Sequence[int], b: Sequence[int]) -> int:
    return abs(a[0] - b[0]) + abs(a[1] - b[1])


@_register(
    "neighbors",
    [("cell", TUPLE)],
    list_of(TUPLE),
    "The four orthogonal neighbours of an (x, y) cell: north, east, south, west.",
    example="neighbors((0, 0)) == [(0, -1), (1, 0), (0, 1), (-1, 0)]",
)
def _neighbors(cell: Sequence[int]) -> tuple[tuple[int, int], ...]:
    x, y = cell
    return ((x, y - 1), (x + 1, y), (x, y + 1), (x - 1, y))


@_register(
    "step",
    [("cell", TUPLE), ("side", INT)],
    TUPLE,
    "The neighbour of an (x, y) cell on a side: 0 north, 1 east, 2 south, 3 west.",
    example="step((0, 0), 1) == (1, 0)",
)
def _step(cell: Sequence[int], side: int) -> tuple[int, int]:
    dx, dy = _DIRECTIONS[side % 4]
    return (cell[0] + dx, cell[1] + dy)


_DIRECTIONS = ((0, -1), (1, 0), (0, 1), (-1, 0))


@_register(
    "rotate",
    [("items", ANY_LIST), ("turns", INT)],
    same_as_first,
    "Rotate a list of 4 edge labels by quarter turns clockwise: rotate([a,b,c,d], 1) == [d,a,b,c].",
    example='rotate(["L", "W", "W", "W"], 1) == ["W", "L", "W", "W"]',
)
def _rotate(items: Sequence[Any], turns: int) -> tuple[Any, ...]:
    seq = tuple(items)
    if not seq:
        return seq
    k = turns % len(seq)
    return seq[len(seq) - k :] + seq[: len(seq) - k]


@_register(
    "components",
    [("nodes", ANY_LIST), ("links", ANY_LIST)],
    list_of(ANY_LIST),
    "Connected components of an undirected graph: nodes, and links as (a, b) pairs. "
    "Components come in the order of their first node; nodes keep their order.",
    example="components([1, 2, 3], [(1, 2)]) == [[1, 2], [3]]",
)
def _components(nodes: Sequence[Any], links: Sequence[Sequence[Any]]) -> tuple[tuple[Any, ...], ...]:
    parent: dict[Any, Any] = {n: n for n in nodes}

    def find(x: Any) -> Any:
        while parent[x] != x:
            parent[x] = parent[parent[x]]
            x = parent[x]
        return x

    for a, b in links:
        if a in parent and b in parent:
            ra, rb = find(a), find(b)
            if ra != rb:
                parent[rb] = ra
    groups: dict[Any, list[Any]] = {}
    for n in nodes:
        groups.setdefault(find(n), []).append(n)
    return tuple(tuple(g) for g in groups.values())
