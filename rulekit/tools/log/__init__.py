"""Action logs (JSON Lines) and replay.

A log is a header line, one line per action and optionally a final hash::

    {"rulekit_log": 1, "ruleset": "tic_tac_toe", "modules": [], "variants": [],
     "fingerprint": "…", "players": 2, "seed": 7, "referee": true}
    {"player": "P1", "action": "place(b2)", "h": "3f0c9a1e5b7d"}
    {"player": "P2", "action": "place(a1)", "h": "a41b0e6c92f3"}
    {"final_hash": "…"}

``h`` is the digest of the state after the action (:func:`state_digest`); logs
written before it existed have none and stay valid.  Replaying loads the same
ruleset with the same modules and variants, refuses if the composed rules
changed (their fingerprint differs), re-applies every action, checks each
digest and the final state hash.

This log is the referee's: its seed deals every hidden card again.  What one seat saw is
written by :mod:`rulekit.tools.log.seat` (no seed, no chance outcomes, no digests).
"""

from rulekit.tools.log.reading import GameLog, read_log
from rulekit.tools.log.replaying import (
    apply_logged,
    load_game_for,
    outcome_differs,
    replay,
    replay_actions,
    rules_match,
)
from rulekit.tools.log.writing import (
    DIGEST_LENGTH,
    LOG_VERSION,
    GameRecorder,
    action_line,
    make_header,
    player_text,
    state_digest,
    write_actions,
)

__all__ = [
    "DIGEST_LENGTH",
    "LOG_VERSION",
    "GameLog",
    "GameRecorder",
    "action_line",
    "apply_logged",
    "load_game_for",
    "make_header",
    "outcome_differs",
    "player_text",
    "read_log",
    "replay",
    "replay_actions",
    "rules_match",
    "state_digest",
    "write_actions",
]
