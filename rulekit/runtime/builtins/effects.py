"""Effect built-ins: they change the state (``effect=True``)."""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

from rulekit.dsl.types import (
    ANY,
    ANY_LIST,
    INT,
    OWNER,
    PLAYER,
    STR,
    list_of,
)
from rulekit.runtime.builtins.signatures import (
    first_element,
)
from rulekit.runtime.errors import RuleFailure
from rulekit.runtime.registry import register as _register

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
    first_element,
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
    "reveal",
    [("owner", ANY), ("field", STR), ("to", PLAYER)],
    ANY,
    "Show a field of owner (a player, a component, game) to player for the rest of the game, "
    "whatever its visibility says: its later contents too (a hand shown to the one who peeked). "
    "Who was shown what is public; the engine keeps it in its state.",
    effect=True,
    example='reveal(target, "hand", me)',
)
def _reveal(R: Any, F: dict[Any, Any], owner: Any, field: str, to: int) -> None:
    R.reveal(F, owner, field, to)


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
