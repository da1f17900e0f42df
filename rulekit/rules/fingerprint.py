"""The semantic fingerprint: a hash of what decides play, not of how the rules are worded.

The full fingerprint (:func:`rulekit.rules.compose.fingerprint`) changes with every
edit.  The semantic one leaves out what cannot change a game's course: titles,
descriptions and versions, ``doc`` and ``cite`` entries, the messages of
requirements (``else``, also in requirement groups), the invariants, properties and
actions' ``ensures`` and ``postconditions`` (checks that never change a state), the display panels, the view
(the pictures), the bots' hints and the numbering of moves for OpenSpiel (``spaces``).
A log whose semantic fingerprint still matches replays to the same states (``rulekit
replay`` accepts it).

Everything else counts, also text that reaches the state: a ``note(...)`` in an
effect is part of the state, so rewording it is a change of play.
"""

from __future__ import annotations

import hashlib
import json
from typing import Any

from rulekit.rules.compose import plain_data

#: Top-level keys that never decide play (``spaces`` only numbers the moves for OpenSpiel and
#: PettingZoo; a log records the moves' text).
COSMETIC_TOP = frozenset(
    {
        "title",
        "description",
        "version",
        "doc",
        "cite",
        "display",
        "view",
        "bots",
        "invariants",
        "properties",
        "symmetries",
    }
    | {"postconditions", "visibility"}
    | {"spaces"}
)
#: Keys of a section's entry (an action, trigger, function, field, kind...) that never decide play.
COSMETIC_ENTRY = frozenset({"doc", "cite"})
#: Keys of an action (or trigger) that never decide play: its wording and its ``ensures`` (checked by verify).
COSMETIC_ACTION = COSMETIC_ENTRY | {"ensures"}
#: Keys of an action's requirement that never decide play (the message shown when it fails).
COSMETIC_REQUIREMENT = frozenset({"else", "cite"})


def semantic_data(data: Any) -> Any:
    """Composed rules data without the parts that cannot change a game (plain dicts and lists)."""
    plain = plain_data(data)
    if not isinstance(plain, dict):
        return plain
    result: dict[str, Any] = {}
    for key, value in plain.items():
        if key in COSMETIC_TOP:
            continue
        if key == "state" and isinstance(value, dict):
            value = {scope: _entries(fields) for scope, fields in value.items()}
        elif key in ("actions", "requirements") and isinstance(value, dict):
            value = {name: _action(action) for name, action in value.items()}
        elif key == "triggers" and isinstance(value, dict):
            value = {name: _strip(trigger, COSMETIC_ACTION) for name, trigger in value.items()}
        elif isinstance(value, dict):
            value = _entries(value)
        result[key] = value
    return result


def semantic_fingerprint(data: Any) -> str:
    """A stable hash of :func:`semantic_data`."""
    text = json.dumps(semantic_data(data), sort_keys=True, separators=(",", ":"))
    return hashlib.sha256(text.encode("utf-8")).hexdigest()[:16]


def _entries(section: Any) -> Any:
    if not isinstance(section, dict):
        return section
    return {name: _strip(entry, COSMETIC_ENTRY) for name, entry in section.items()}


def _action(action: Any) -> Any:
    """An action or a requirement group, without its wording and its requirements' messages."""
    action = _strip(action, COSMETIC_ACTION)
    if isinstance(action, dict):
        require = action.get("require")
        if isinstance(require, list):
            action = {**action, "require": [_strip(r, COSMETIC_REQUIREMENT) for r in require]}
        elif isinstance(require, dict):
            action = {**action, "require": _strip(require, COSMETIC_REQUIREMENT)}
    return action


def _strip(entry: Any, keys: frozenset[str]) -> Any:
    if not isinstance(entry, dict):
        return entry
    return {k: v for k, v in entry.items() if k not in keys}
