"""Player-order built-ins."""

from __future__ import annotations

from rulekit.dsl.types import (
    INT,
    PLAYER,
    list_of,
)
from rulekit.runtime.errors import RuleFailure
from rulekit.runtime.registry import register as _register

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
