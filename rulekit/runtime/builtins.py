"""The documented built-in functions of the DSL: signatures for the checker,
implementations for compiled rules.

Pure built-ins take and return values.  Effect built-ins (``effect=True``)
change the state; their ``field`` parameters must be written as a field
reference (``game.deck``, ``me.hand``) and receive the field's key.
Lists are tuples at run time and are never mutated in place.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

from rulekit.dsl.types import (
    ANY,
    ANY_LIST,
    BOOL,
    INT,
    MAP,
    OWNER,
    PLAYER,
    STR,
    TUPLE,
    Type,
    compatible,
    element_type,
    join,
    list_of,
    map_key,
    map_value,
)
from rulekit.limits import LIMITS
from rulekit.runtime.errors import RuleFailure
from rulekit.runtime.registry import BUILTINS as BUILTINS  # the catalogue, filled by every family
from rulekit.runtime.registry import register as _register


def _first_element(args: Sequence[Type]) -> Type:
    return element_type(args[0]) if args else ANY


def _same_as_first(args: Sequence[Type]) -> Type:
    return args[0] if args else ANY


def _map_value(args: Sequence[Type]) -> Type:
    """get(table, key, default): the table's value type, or what the default adds."""
    if not args:
        return ANY
    table = args[0]
    found = element_type(table) if table.is_list else map_value(table)
    return join(found, args[2]) if len(args) > 2 else found


def _key_fits(args: Sequence[Type]) -> tuple[int, str] | None:
    """The key (argument 2) can be a key of the table (argument 1)."""
    if len(args) > 1 and not compatible(map_key(args[0]), args[1]):
        return 1, f"a key of {args[0]} must be {map_key(args[0])}, not {args[1]}"
    return None


def _entry_fits(args: Sequence[Type]) -> tuple[int, str] | None:
    """put(table, key, value): key and value fit a typed map (a record keeps its fields' types)."""
    found = _key_fits(args)
    if found is not None or len(args) < 3:
        return found
    table, value = args[0], args[2]
    if table.is_map and not compatible(map_value(table), value):
        return 2, f"a value of {table} must be {map_value(table)}, not {value}"
    return None


def _keys_of(args: Sequence[Type]) -> Type:
    return list_of(map_key(args[0])) if args else ANY_LIST


def _put_result(args: Sequence[Type]) -> Type:
    """put(table, key, value): a typed map stays typed; an untyped one stays untyped."""
    return args[0] if args and args[0].is_map else MAP


# --------------------------------------------------------------- arithmetic


@_register("half", [("x", INT)], INT, "Half of x, rounded down.", example="half(15) == 7")
def _half(x: int) -> int:
    return x // 2


@_register(
    "div_up", [("x", INT), ("y", INT)], INT, "x divided by y, rounded up.", example="div_up(7, 2) == 4"
)
def _div_up(x: int, y: int) -> int:
    if y == 0:
        raise RuleFailure("division by zero in div_up")
    return -(-x // y)


@_register("abs", [("x", INT)], INT, "The absolute value of x.", example="abs(-3) == 3")
def _abs(x: int) -> int:
    return abs(x)


@_register(
    "least",
    [("a", INT), ("b", INT)],
    INT,
    "The smaller of its arguments (any number of them).",
    variadic=True,
    example="least(3, money) ",
)
def _least(*xs: int) -> int:
    return min(xs)


@_register(
    "greatest",
    [("a", INT), ("b", INT)],
    INT,
    "The larger of its arguments (any number of them).",
    variadic=True,
    example="greatest(0, money - 5)",
)
def _greatest(*xs: int) -> int:
    return max(xs)


@_register(
    "clamp",
    [("x", INT), ("low", INT), ("high", INT)],
    INT,
    "x limited to the range low..high.",
    example="clamp(7, 0, 5) == 5",
)
def _clamp(x: int, low: int, high: int) -> int:
    return max(low, min(high, x))


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
    _first_element,
    "The first element of a list, or none if it is empty.",
    example="first(game.deck)",
)
def _first(items: Sequence[Any]) -> Any:
    return items[0] if items else None


@_register(
    "last",
    [("items", ANY_LIST)],
    _first_element,
    "The last element of a list, or none if it is empty.",
    example="last(track)",
)
def _last(items: Sequence[Any]) -> Any:
    return items[-1] if items else None


@_register(
    "take",
    [("items", ANY_LIST), ("n", INT)],
    _same_as_first,
    "The first n elements of a list.",
    example="take(game.deck, 4)",
)
def _take(items: Sequence[Any], n: int) -> tuple[Any, ...]:
    return tuple(items[: max(0, n)])


@_register(
    "drop",
    [("items", ANY_LIST), ("n", INT)],
    _same_as_first,
    "The list without its first n elements.",
    example="drop(game.deck, 1)",
)
def _drop(items: Sequence[Any], n: int) -> tuple[Any, ...]:
    return tuple(items[max(0, n) :])


@_register(
    "append",
    [("items", ANY_LIST), ("item", ANY)],
    _same_as_first,
    "A new list with item added at the end.",
    example="append(me.hand, card)",
)
def _append(items: Sequence[Any], item: Any) -> tuple[Any, ...]:
    return (*items, item)


@_register(
    "prepend",
    [("items", ANY_LIST), ("item", ANY)],
    _same_as_first,
    "A new list with item added at the front.",
    example="prepend(track, piece)",
)
def _prepend(items: Sequence[Any], item: Any) -> tuple[Any, ...]:
    return (item, *items)


@_register(
    "without",
    [("items", ANY_LIST), ("item", ANY)],
    _same_as_first,
    "A new list with the first occurrence of item removed (unchanged if absent).",
    example="without(game.display, card)",
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
    _same_as_first,
    "A new list with the element at index (0-based) replaced by item.",
    example="replace_at(track, 3, me)",
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
    _same_as_first,
    "The list without repeated elements, first occurrences kept in order.",
    example="unique([w.owner for w in pieces])",
)
def _unique(items: Sequence[Any]) -> tuple[Any, ...]:
    return tuple(dict.fromkeys(items))


@_register(
    "unique_by",
    [("items", ANY_LIST), ("keys", ANY_LIST)],
    _same_as_first,
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
    _same_as_first,
    "The list in reverse order.",
    example="reversed(range(0, 3)) == [2, 1, 0]",
)
def _reversed(items: Sequence[Any]) -> tuple[Any, ...]:
    return tuple(reversed(tuple(items)))


@_register(
    "sort",
    [("items", ANY_LIST)],
    _same_as_first,
    "The list sorted ascending (use sorted(x for x in xs by key) for a key).",
    example="sort([3, 1, 2]) == [1, 2, 3]",
)
def _sort(items: Sequence[Any]) -> tuple[Any, ...]:
    return tuple(sorted(items))


@_register(
    "get",
    [("table", ANY), ("key", ANY), ("default", ANY)],
    _map_value,
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
    _put_result,
    "A new map with key set to value.",
    check=_entry_fits,
    example="put(game.map, (0, 1), tile)",
)
def _put(table: dict[Any, Any], key: Any, value: Any) -> dict[Any, Any]:
    result = dict(table)
    result[key] = value
    return result


@_register(
    "remove_key",
    [("table", MAP), ("key", ANY)],
    _put_result,
    "A new map without key.",
    check=_key_fits,
    example="remove_key(game.map, cell)",
)
def _remove_key(table: dict[Any, Any], key: Any) -> dict[Any, Any]:
    result = dict(table)
    result.pop(key, None)
    return result


@_register(
    "keys", [("table", MAP)], _keys_of, "The keys of a map, in insertion order.", example="keys(game.map)"
)
def _keys(table: dict[Any, Any]) -> tuple[Any, ...]:
    return tuple(table)


@_register(
    "has_key",
    [("table", MAP), ("key", ANY)],
    BOOL,
    "Whether the map has key.",
    check=_key_fits,
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
)
def _str(value: Any) -> str:
    return _text(value)


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
    _same_as_first,
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


# -------------------------------------------------------------------- text
# For display panels and notes.  Values become text as in the action notation
# (none, true, false); players are ints at run time, so use player_name(p).


def _text(value: Any) -> str:
    if value is None:
        return "none"
    if isinstance(value, bool):
        return "true" if value else "false"
    if isinstance(value, tuple | list):
        return "[" + ", ".join(_text(v) for v in value) + "]"
    if isinstance(value, dict):
        return "{" + ", ".join(f"{_text(k)}: {_text(v)}" for k, v in value.items()) + "}"
    return str(value)


@_register(
    "concat",
    [("value", ANY)],
    STR,
    "The values written as text, one after the other (any number of them); players as P1, P2.",
    variadic=True,
    example='concat("round ", 3) == "round 3"',
)
def _concat(*values: Any) -> str:
    return _bounded("".join(_text(v) for v in values))


@_register(
    "join",
    [("items", ANY_LIST), ("separator", STR)],
    STR,
    "The elements of a list written as text, with the separator between them.",
    example='join(["X", "O", "."], " | ") == "X | O | ."',
)
def _join(items: Sequence[Any], separator: str) -> str:
    return _bounded(separator.join(_text(v) for v in items))


def _bounded(text: str) -> str:
    """Text no longer than the limit (doubling a text in a loop would exhaust memory)."""
    if len(text) > LIMITS.max_text_chars:
        raise RuleFailure(f"a text grew beyond {LIMITS.max_text_chars} characters (the limit max_text_chars)")
    return text


@_register(
    "pad",
    [("value", ANY), ("width", INT)],
    STR,
    "The value as text, left-aligned: spaces added on the right up to width.",
    example='pad("ab", 4) == "ab  "',
)
def _pad(value: Any, width: int) -> str:
    return _text(value).ljust(width)


@_register(
    "pad_left",
    [("value", ANY), ("width", INT)],
    STR,
    "The value as text, right-aligned: spaces added on the left up to width.",
    example='pad_left(7, 3) == "  7"',
)
def _pad_left(value: Any, width: int) -> str:
    return _text(value).rjust(width)


@_register(
    "center",
    [("value", ANY), ("width", INT)],
    STR,
    "The value as text, centred in width characters.",
    example='center("X", 3) == " X "',
)
def _center(value: Any, width: int) -> str:
    return _text(value).center(width)


@_register(
    "repeat_text",
    [("text", STR), ("times", INT)],
    STR,
    "The text repeated a number of times (at most 10000 characters).",
    example='repeat_text("-", 3) == "---"',
)
def _repeat_text(text: str, times: int) -> str:
    if len(text) * max(0, times) > 10_000:
        raise RuleFailure("repeat_text() is limited to 10000 characters")
    return text * max(0, times)


@_register(
    "player_name",
    [("player", OWNER)],
    STR,
    'A player as text: "P1", "P2"...; "bank" for the bank and "none" for none.',
    example='player_name(player_at(2)) == "P2"',
)
def _player_name(player: int | None) -> str:
    if player is None:
        return "none"
    return "bank" if player == -1 else f"P{player + 1}"


# ----------------------------------------------------------------- players
# These need the number of players; the runtime passes it as the first argument.


@_register(
    "next_player",
    [("player", PLAYER)],
    PLAYER,
    "The player after this one in seating (clockwise) order.",
    example="next_player(me)",
)
def _next_player(n: int, player: int) -> int:
    return (player + 1) % n


@_register(
    "previous_player",
    [("player", PLAYER)],
    PLAYER,
    "The player before this one in seating order.",
    example="previous_player(game.start)",
)
def _previous_player(n: int, player: int) -> int:
    return (player - 1) % n


@_register(
    "players_from",
    [("player", PLAYER)],
    list_of(PLAYER),
    "All players in seating order, starting with this one.",
    example="players_from(game.start_player)",
)
def _players_from(n: int, player: int) -> tuple[int, ...]:
    return tuple((player + i) % n for i in range(n))


@_register("seat", [("player", PLAYER)], INT, "The player's seat number, 1-based.", example="seat(me)")
def _seat(n: int, player: int) -> int:
    return player + 1


@_register(
    "player_at",
    [("seat", INT)],
    PLAYER,
    "The player in a seat (1-based).",
    example="player_at(1)",
)
def _player_at(n: int, seat: int) -> int:
    if not 1 <= seat <= n:
        raise RuleFailure(f"player_at: no seat {seat} with {n} players")
    return seat - 1


PLAYER_BUILTINS = frozenset({"next_player", "previous_player", "players_from", "seat", "player_at"})

# ----------------------------------------------------------------- effects
# Effect implementations take the runtime ``R`` (rulekit.runtime.context.Runtime)
# and the field dictionary ``F`` first.


@_register(
    "transfer",
    [("amount", INT), ("source", OWNER), ("target", OWNER)],
    ANY,
    "Move money between owners (players or bank); fails if a player cannot pay or the amount is negative.",
    effect=True,
    example="transfer(card.cost, me, bank)",
)
def _transfer(R: Any, F: dict[Any, Any], amount: int, source: int, target: int) -> None:
    R.transfer(F, amount, source, target, partial=False)


@_register(
    "transfer_up_to",
    [("amount", INT), ("source", OWNER), ("target", OWNER)],
    ANY,
    "Like transfer, but a player who cannot pay in full pays all her money.",
    effect=True,
    example="transfer_up_to(3, p, me)",
)
def _transfer_up_to(R: Any, F: dict[Any, Any], amount: int, source: int, target: int) -> None:
    R.transfer(F, amount, source, target, partial=True)


@_register(
    "shuffle",
    [("deck", ANY_LIST)],
    ANY,
    "Shuffle a list field with the game's seeded random generator.",
    effect=True,
    fields=(0,),
    example="shuffle(game.deck)",
)
def _shuffle(R: Any, F: dict[Any, Any], key: Any) -> None:
    F[key] = R.shuffled(F, F[key])


@_register(
    "draw",
    [("source", ANY_LIST), ("target", ANY_LIST), ("count", INT)],
    ANY,
    "Move up to count elements from the front of one list field to the end of another "
    "(fewer if the source runs out).",
    effect=True,
    fields=(0, 1),
    optional=1,
    example="draw(game.deck, game.display, 4 - len(game.display))",
)
def _draw(R: Any, F: dict[Any, Any], source: Any, target: Any, count: int = 1) -> None:
    items = F[source]
    count = max(0, min(count, len(items)))
    F[target] = (*F[target], *items[:count])
    F[source] = items[count:]


@_register(
    "move",
    [("item", ANY), ("source", ANY_LIST), ("target", ANY_LIST)],
    ANY,
    "Move one element from one list field to the end of another; fails if it is not there.",
    effect=True,
    fields=(1, 2),
    example="move(card, game.display, me.hand)",
)
def _move(R: Any, F: dict[Any, Any], item: Any, source: Any, target: Any) -> None:
    items = F[source]
    if item not in items:
        raise RuleFailure(f"move: {R.format_value(item)} is not in {R.format_key(source)}")
    i = items.index(item)
    F[source] = items[:i] + items[i + 1 :]
    F[target] = (*F[target], item)


@_register(
    "ask",
    [("player", PLAYER), ("action", STR)],
    ANY,
    "Ask a player to decide now: she must take one of the named actions before play "
    "goes on. Several asks are answered in the order they were made.",
    effect=True,
    variadic=True,
    example='ask(p, "repay_loan", "extend_loan")',
)
def _ask(R: Any, F: dict[Any, Any], player: int, *actions: str) -> None:
    R.ask(F, player, actions)


@_register(
    "roll",
    [("sides", INT)],
    INT,
    "A random number from 1 to sides, from the game's seeded generator.",
    effect=True,
    example="roll(6)",
)
def _roll(R: Any, F: dict[Any, Any], sides: int) -> int:
    return int(R.random_below(F, sides, f"roll({sides})", 1)) + 1


@_register(
    "pick",
    [("outcomes", ANY_LIST), ("weights", list_of(INT))],
    _first_element,
    "One of outcomes, at random: a chance step whose distribution the rules declare "
    "(each outcome as likely as its weight; without weights all equally likely). "
    "Engines, bots and the OpenSpiel adapter see its outcomes and probabilities.",
    effect=True,
    optional=1,
    example="pick(between(2, 12), [1, 2, 3, 4, 5, 6, 5, 4, 3, 2, 1])",
)
def _pick(R: Any, F: dict[Any, Any], outcomes: Sequence[Any], weights: Sequence[int] | None = None) -> Any:
    return R.pick(F, "pick", outcomes, weights)


@_register(
    "note",
    [("text", STR)],
    ANY,
    "Add a line to the game's message log (shown to people playing).",
    effect=True,
    example='note("the round is over")',
)
def _note(R: Any, F: dict[Any, Any], text: str) -> None:
    R.note(F, text)


@_register(
    "tell",
    [("player", PLAYER), ("text", STR)],
    ANY,
    "A note only player sees: in her view, observation and human play, hidden from the other "
    "players and from spectators (a peek at a card, a secret told).  Replays from the log like "
    "every effect.",
    effect=True,
    example='tell(target, concat("you hold ", target.hand))',
)
def _tell(R: Any, F: dict[Any, Any], player: int, text: str) -> None:
    R.tell(F, player, text)


@_register(
    "end_game",
    [],
    ANY,
    "End the game now; the final standings follow from the scoring section.",
    effect=True,
    example="end_game()",
)
def _end_game(R: Any, F: dict[Any, Any]) -> None:
    R.end_game(F)


# Effect built-ins that produce a value are allowed inside expressions of effects.
VALUE_EFFECTS = frozenset({"roll", "pick"})

from rulekit.runtime import geometry as _geometry  # noqa: E402, F401 - registers the square-grid built-ins
from rulekit.runtime import tiles as _tiles  # noqa: E402, F401 - registers the tile-grid built-ins
