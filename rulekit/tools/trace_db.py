"""Game traces in a results database: a table of their own, checked when read back.

The runner's ``games`` table keeps its columns (other tools and older files read it); a
traced game (:mod:`rulekit.tools.trace`) also gets a row in ``traces``, written in the same
transaction as its ``games`` row.  A results file is data from a stranger: every trace read
back is parsed with the JSON depth limit and checked against its game (player count, length,
seats, whole numbers) before a figure is computed from it; anything else is a located error.
"""

from __future__ import annotations

import json
import sqlite3
from collections.abc import Iterable
from pathlib import Path

from rulekit.errors import Diagnostic, RulekitError
from rulekit.limits import LIMITS
from rulekit.tools.trace import GameTrace

SCHEMA = """
CREATE TABLE IF NOT EXISTS traces (
    run_key     TEXT NOT NULL,     -- as in games
    fingerprint TEXT NOT NULL,
    seed        INTEGER NOT NULL,
    trace       TEXT NOT NULL,     -- JSON {"deciders": [...], "legal": [...], "scores": [[...], ...]}
    PRIMARY KEY (run_key, fingerprint, seed)
)
"""


def create(connection: sqlite3.Connection) -> None:
    connection.execute(SCHEMA)


def store(
    connection: sqlite3.Connection, run_key: str, fingerprint: str, seed: int, trace: GameTrace
) -> None:
    """Add (or replace) a game's trace; the caller commits with the game's row."""
    connection.execute(
        "INSERT OR REPLACE INTO traces VALUES (?, ?, ?, ?)",
        (run_key, fingerprint, seed, json.dumps(trace.to_json(), separators=(",", ":"))),
    )


def traced_seeds(connection: sqlite3.Connection, run_key: str, fingerprint: str) -> set[int]:
    rows = connection.execute(
        "SELECT seed FROM traces WHERE run_key = ? AND fingerprint = ?", (run_key, fingerprint)
    )
    return {seed for (seed,) in rows if type(seed) is int}


def read(
    connection: sqlite3.Connection,
    path: Path,
    run_key: str,
    fingerprint: str,
    games: Iterable[tuple[int, int, int]],
) -> dict[int, GameTrace]:
    """The traces of ``games`` (``(seed, players, length)`` each, from checked ``games`` rows).

    Raises:
        RulekitError: a trace that is not valid for its game, naming the file and the seed.
    """
    found: dict[int, GameTrace] = {}
    for seed, players, length in games:
        row = connection.execute(
            "SELECT trace FROM traces WHERE run_key = ? AND fingerprint = ? AND seed = ?",
            (run_key, fingerprint, seed),
        ).fetchone()
        if row is None:
            continue
        text = row[0]
        try:
            if not isinstance(text, str):
                raise ValueError("not text")
            if len(text) > LIMITS.max_line_bytes:
                raise ValueError(f"longer than {LIMITS.max_line_bytes} bytes")
            found[seed] = GameTrace.from_json(_loads(text), players, length)
        except ValueError as error:
            raise RulekitError(
                Diagnostic(
                    f"{path}: table traces, game of seed {seed}, column trace: {error}",
                    hint="the file was damaged or written by something else; use another --db file",
                )
            ) from None
    return found


def _loads(text: str) -> object:
    """JSON without NaN or Infinity and at most a few levels deep (a trace is 3)."""

    def constant(name: str) -> object:
        raise ValueError(f"not JSON ({name})")

    try:
        data = json.loads(text, parse_constant=constant)
    except RecursionError:
        raise ValueError("not JSON (nested too deep)") from None
    except json.JSONDecodeError as error:
        raise ValueError(f"not JSON ({error.msg})") from None
    return data
