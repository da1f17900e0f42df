"""A seat's log: what one seat saw of a game, and nothing it did not.

The log :class:`~rulekit.tools.log.writing.GameRecorder` writes is the **referee's**: its seed
and chance outcomes deal every hidden card again, and each line's digest hashes the whole state
(with few hidden cards a player could try every deal against it).  A seat's log is computed from
the engine's information model instead::

    {"rulekit_seat_log": 1, "seat": "P2", "ruleset": "my_game", ..., "players": 2}
    {"player": "P1", "action": "play(c3, P2)"}
    {"player": "P2", "action": "play(baron, P1)", "saw": {...}, "scores": [null, 3]}
    {"end": true, "saw": {...}, "scores": [4, 1]}

Every action is there (actions are public in rulekit; another seat's choice in a simultaneous
step shows as ``"?"`` until the step resolves, then in a ``{"revealed": [...]}`` line); the
seat's view (``State.view``: the fields it may see, hidden ones as their size, the notes told
to it) and the scores it may know (``known_scores``) are written where it decided and at the
end.  No seed, no chance outcomes, no state digest: a seat's log cannot be replayed, and reading
it tells nothing the seat was not shown.  ``seat`` None writes a spectator's.
"""

from __future__ import annotations

import json
from collections.abc import Iterator, Sequence
from pathlib import Path
from typing import Any

from rulekit.engine.chance import apply_with_chance
from rulekit.engine.game import Game, State
from rulekit.engine.information import HIDDEN_CHOICE, known_scores
from rulekit.engine.slots import CHOSEN
from rulekit.tools.files import atomic_write_text
from rulekit.tools.log.writing import player_text

SEAT_LOG_VERSION = 1


def seat_name(seat: int | None) -> str:
    return "spectator" if seat is None else player_text(seat)


def seat_header(game: Game, seat: int | None) -> dict[str, Any]:
    """The first line of ``seat``'s log: the rules it was played with, the seat, no seed."""
    rules = game.program.rules
    return {
        "rulekit_seat_log": SEAT_LOG_VERSION,
        "seat": seat_name(seat),
        "ruleset": rules.name,
        "modules": list(rules.modules),
        "variants": [path for path, _ in rules.variants],
        "fingerprint": game.program.fingerprint,
        "players": game.num_players,
    }


def seen(state: State, seat: int | None) -> dict[str, Any]:
    """What ``seat`` is shown of ``state`` in its log: its view and the scores it may know."""
    return {"saw": state.view(seat), "scores": known_scores(state, seat)}


#: One action of the referee's log: its text and the outcomes its chance steps took.
Played = tuple[str, Sequence[int]]


def seat_log_lines(game: Game, seed: int, actions: Sequence[Played], seat: int | None) -> Iterator[str]:
    """``seat``'s log of the game started with ``seed`` and played with ``actions``."""
    yield json.dumps(seat_header(game, seat))
    state = game.new_initial_state(seed)
    held: list[dict[str, str]] = []  # others' choices in a simultaneous step, not yet resolved
    for text, chance in actions:
        player = state.current_player()
        entry: dict[str, Any] = {"player": player_text(player), "action": text}
        if player == seat:
            entry.update(seen(state, seat))
        apply_with_chance(state, text, chance)
        pending = bool(state.fields.get(CHOSEN))
        if pending and player != seat:  # chosen face down: the seat hears of it when the step resolves
            held.append({"player": entry["player"], "action": text})
            entry["action"] = HIDDEN_CHOICE
        yield json.dumps(entry, sort_keys=True)
        if held and not pending:
            yield json.dumps({"revealed": held}, sort_keys=True)
            held = []
    if state.is_terminal():
        yield json.dumps({"end": True, **seen(state, seat)}, sort_keys=True)


def write_seat_log(
    path: str | Path, game: Game, seed: int, actions: Sequence[Played], seat: int | None
) -> None:
    """Write ``seat``'s log to ``path`` (whole, or not at all)."""
    atomic_write_text(path, "".join(line + "\n" for line in seat_log_lines(game, seed, actions, seat)))


def logged_actions(log: Any) -> list[Played]:
    """The actions of a referee's log read back (:class:`~rulekit.tools.log.GameLog`)."""
    return [(text, log.chances.get(number, ())) for number, _, text in log.actions]
