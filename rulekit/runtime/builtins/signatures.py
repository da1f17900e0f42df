"""Result-type rules and argument checks shared by the built-in families."""

from __future__ import annotations

from collections.abc import Callable, Sequence

from rulekit.dsl.types import (
    ANY,
    ANY_LIST,
    MAP,
    Type,
    compatible,
    element_type,
    join,
    list_of,
    map_key,
    map_value,
)


def first_element(args: Sequence[Type]) -> Type:
    return element_type(args[0]) if args else ANY


def same_as_first(args: Sequence[Type]) -> Type:
    return args[0] if args else ANY


def map_value_of(args: Sequence[Type]) -> Type:
    """get(table, key, default): the table's value type, or what the default adds."""
    if not args:
        return ANY
    table = args[0]
    found = element_type(table) if table.is_list else map_value(table)
    return join(found, args[2]) if len(args) > 2 else found


def key_fits(args: Sequence[Type]) -> tuple[int, str] | None:
    """The key (argument 2) can be a key of the table (argument 1)."""
    if len(args) > 1 and not compatible(map_key(args[0]), args[1]):
        return 1, f"a key of {args[0]} must be {map_key(args[0])}, not {args[1]}"
    return None


def entry_fits(args: Sequence[Type]) -> tuple[int, str] | None:
    """put(table, key, value): key and value fit a typed map (a record keeps its fields' types)."""
    found = key_fits(args)
    if found is not None or len(args) < 3:
        return found
    table, value = args[0], args[2]
    if table.is_map and not compatible(map_value(table), value):
        return 2, f"a value of {table} must be {map_value(table)}, not {value}"
    return None


def element_fits(position: int) -> Callable[[Sequence[Type]], tuple[int, str] | None]:
    """The argument at ``position`` can be an element of the list (argument 1): ``append``,
    ``replace_at``... on a ``list[card]`` take a card, not a player."""

    def check(args: Sequence[Type]) -> tuple[int, str] | None:
        if len(args) > position and args[0].is_list:
            element = element_type(args[0])
            if not compatible(element, args[position]):
                return position, f"an element of {args[0]} must be {element}, not {args[position]}"
        return None

    return check


def keys_of(args: Sequence[Type]) -> Type:
    return list_of(map_key(args[0])) if args else ANY_LIST


def put_result(args: Sequence[Type]) -> Type:
    """put(table, key, value): a typed map stays typed; an untyped one stays untyped."""
    return args[0] if args and args[0].is_map else MAP
