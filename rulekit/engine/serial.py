"""A state as exact JSON, its stable hash, and what one player may see of it."""

from __future__ import annotations

import hashlib
import json
from typing import TYPE_CHECKING, Any

from rulekit.engine.slots import ENGINE as _ENGINE
from rulekit.engine.values import from_json, to_json
from rulekit.errors import Diagnostic, RulekitError

if TYPE_CHECKING:
    from rulekit.engine.game import Game, State


def state_to_json(state: State) -> dict[str, Any]:
    """The whole state as JSON-compatible data (exact; see :meth:`from_json`)."""
    return {
        "ruleset": state.game.program.name,
        "fingerprint": state.game.program.fingerprint,
        "players": state.game.num_players,
        "fields": [[to_json(owner), name, to_json(value)] for (owner, name), value in state.fields.items()],
    }


def state_from_json(cls: type[State], game: Game, data: dict[str, Any]) -> State:
    """The state saved by :meth:`to_json`, for the same rules and player count.

    Raises:
        RulekitError: the data was saved with other rules (fingerprint) or players.
    """
    saved = data.get("fingerprint")
    if saved is not None and saved != game.program.fingerprint:
        raise RulekitError(
            Diagnostic(
                f"the state was saved with other rules (fingerprint {saved}, "
                f"these rules {game.program.fingerprint})",
                hint="load the same ruleset, modules and variants that made it",
            )
        )
    if data.get("players", game.num_players) != game.num_players:
        raise RulekitError(Diagnostic(f"the state is for {data['players']} players, not {game.num_players}"))
    fields = {(from_json(owner), name): from_json(value) for owner, name, value in data["fields"]}
    return cls(game, fields)


def state_hash(state: State) -> str:
    """A stable hash of the whole state (hidden parts included)."""
    canonical = sorted(
        (json.dumps(to_json(owner)), name, json.dumps(to_json(value), sort_keys=True))
        for (owner, name), value in state.fields.items()
    )
    return hashlib.sha256(json.dumps(canonical).encode("utf-8")).hexdigest()[:16]


def state_view(state: State, player: int | None) -> dict[str, Any]:
    """What ``player`` may see (``None``: a spectator); what the information model
    (:func:`rulekit.engine.information.unseen`) hides shows only its size."""
    from rulekit.engine.information import unseen

    hidden = unseen(state, player)
    result: dict[str, Any] = {}
    for (owner, name), value in state.fields.items():
        if owner == _ENGINE:
            if name in ("rng",):
                continue
            if name == "told":  # private notes: each player sees only her own
                result["_.told"] = list(state.told(player))
                continue
            if name == "chosen":  # a simultaneous step's pending choices: each seat sees only its own
                result["_.chosen"] = to_json(state.chosen(player))
                continue
            result[f"_.{name}"] = to_json(value)
            continue
        shown: Any = to_json(value)
        if (owner, name) in hidden:
            shown = {"hidden": len(value) if isinstance(value, tuple | dict) else 1}
        key = f"P{owner + 1}.{name}" if isinstance(owner, int) else f"{owner}.{name}"
        result[key] = shown
    return result
