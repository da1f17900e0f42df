"""A results database is data from a stranger: its schema and every row read back are checked.

``simulate``/``balance --db FILE --resume`` read games back from a SQLite file that anyone
may have written or edited.  Before rulekit uses the file, :func:`open_checked` makes sure it
is a rulekit results database: a table ``games`` (not a view, not a virtual table) with exactly
the columns of the runner's schema, no trigger on it, and no other tables when ``games`` is
missing (a foreign database is never written to).  :func:`read_games` checks every row it reads
back before a figure is computed from it: SQLite types, JSON parsed with the depth limit and
without NaN or Infinity, list lengths against the player count, values against the run
(ruleset, modules, variants, seats, ``max_actions``, the names the rules can fire), ranges,
and at most one row per seed.  Any problem is a :class:`~rulekit.errors.RulekitError` naming
the file and, for a row, its ``rowid`` and the column (``r.db: row 12, column scores: not
JSON``); a write that fails (a read-only, locked or damaged file) names the file too.
"""

from __future__ import annotations

import json
import math
import re
import sqlite3
from collections.abc import Callable, Collection, Iterator
from contextlib import contextmanager
from pathlib import Path
from typing import Any

from attrs import frozen

from rulekit.errors import Diagnostic, RulekitError
from rulekit.limits import LIMITS, json_too_deep

#: Seconds to wait for another process's lock before a read or write is refused.
BUSY_SECONDS = 5.0
#: A seed, like any SQLite integer, is a signed 64-bit number.
SEED_RANGE = (-(2**63), 2**63 - 1)
#: Counts in ``fired`` are below this (a game takes far fewer steps).
MAX_COUNT = 2**63
#: The columns :func:`read_games` reads, in order (``rowid`` first).
_READ = (
    "rowid, ruleset, seed, seats, fingerprint, modules, variants, finished, scores, winner, "
    "length, fired, duration"
)
_FIRED_KEY = re.compile(r"(action|trigger):[A-Za-z_][A-Za-z0-9_]*")


def refused(path: Path, message: str, hint: str | None = None) -> RulekitError:
    """The error for a results file rulekit will not use."""
    return RulekitError(Diagnostic(f"{path}: {message}", hint=hint))


def open_checked(path: Path, schema: str) -> sqlite3.Connection:
    """Open (or create) the results database at ``path`` and check its schema against ``schema``.

    Raises:
        RulekitError: not a regular file, not a database, a foreign or damaged schema.
    """
    if path.exists() and not path.is_file():
        raise refused(path, "not a results database (not a regular file)")
    try:
        connection = sqlite3.connect(path, timeout=BUSY_SECONDS)
    except sqlite3.Error as error:  # no such directory, no permission
        raise refused(path, f"cannot open it as a results database ({error})") from None
    connection.text_factory = _text
    try:
        # SQL functions in the file's schema (views, triggers, indexes) may not have side effects
        connection.execute("PRAGMA trusted_schema = OFF")
        # no value read back (or written) may be longer than a log line
        connection.setlimit(sqlite3.SQLITE_LIMIT_LENGTH, LIMITS.max_line_bytes)
        check_schema(connection, path, schema)
    except sqlite3.OperationalError as error:  # a locked file, a file that cannot be created
        connection.close()
        raise refused(path, f"cannot open it as a results database ({error})") from None
    except sqlite3.Error as error:  # not a database, a damaged one
        connection.close()
        raise refused(path, f"not a rulekit results database ({error})") from None
    except UnicodeDecodeError:  # SQLite's message quotes a damaged schema that is not UTF-8
        connection.close()
        raise refused(path, "not a rulekit results database (its schema is damaged)") from None
    except BaseException:
        connection.close()
        raise
    return connection


class NotUtf8(bytes):
    """Text in the file that is not UTF-8: kept as bytes, shown as such, equal to no text."""

    def __repr__(self) -> str:
        return "text that is not UTF-8"


def _text(raw: bytes) -> str:
    """How text comes out of the file (a ``text_factory``): decoded, or :class:`NotUtf8`, which
    every check refuses (typed ``str`` for the schema's columns, which are compared only)."""
    try:
        return raw.decode("utf-8")
    except UnicodeDecodeError:
        return NotUtf8(raw)  # type: ignore[return-value]


def check_schema(connection: sqlite3.Connection, path: Path, schema: str) -> None:
    """Refuse a foreign schema: ``games`` must be a plain table with ``schema``'s columns and no
    trigger; a database without ``games`` gets it only if it has no tables of its own."""
    entries = connection.execute("SELECT type, name, tbl_name, sql FROM sqlite_master").fetchall()
    games = [e for e in entries if e[1] == "games"]
    if not games:
        tables = sorted(str(e[1]) for e in entries if e[0] == "table" and not str(e[1]).startswith("sqlite_"))
        if tables:
            raise refused(
                path,
                f"not a rulekit results database (it has no table 'games' but {_names(tables)})",
                hint="give --db a new file or one that rulekit wrote",
            )
        with connection:
            connection.execute(schema)
        return
    kind, _, _, sql = games[0]
    if kind != "table":
        article = "an" if str(kind)[:1] in "aeiou" else "a"
        raise refused(path, f"not a rulekit results database ('games' is {article} {kind}, not a table)")
    if (
        not isinstance(sql, str)
        or isinstance(sql, NotUtf8)
        or not re.match(r"\s*CREATE\s+TABLE\b", sql, re.IGNORECASE)
    ):
        raise refused(path, "not a rulekit results database ('games' is not a plain table)")
    triggers = sorted(str(e[1]) for e in entries if e[0] == "trigger" and e[2] == "games")
    if triggers:
        raise refused(
            path,
            f"not a rulekit results database (a trigger on 'games': {_names(triggers)})",
            hint="rulekit's results databases have no triggers; drop them or use another file",
        )
    found = _columns(connection)
    wanted = _schema_columns(schema)
    if found != wanted:
        raise refused(
            path,
            "not a rulekit results database (table 'games' has other columns: "
            f"{_describe(found)}; rulekit's are {_describe(wanted)})",
        )
    try:
        connection.execute("SELECT rowid FROM games LIMIT 0")
    except sqlite3.OperationalError:
        raise refused(path, "not a rulekit results database (table 'games' has no rowid)") from None


def _columns(connection: sqlite3.Connection) -> list[tuple[Any, ...]]:
    """Each column of ``games``: name, declared type, not null, default, primary-key position,
    hidden (generated)."""
    return [tuple(row[1:]) for row in connection.execute("PRAGMA table_xinfo(games)")]


_SCHEMAS: dict[str, list[tuple[Any, ...]]] = {}


def _schema_columns(schema: str) -> list[tuple[Any, ...]]:
    columns = _SCHEMAS.get(schema)
    if columns is None:
        memory = sqlite3.connect(":memory:")
        try:
            memory.execute(schema)
            columns = _SCHEMAS[schema] = _columns(memory)
        finally:
            memory.close()
    return columns


def _describe(columns: list[tuple[Any, ...]]) -> str:
    if not columns:
        return "none"
    shown = ", ".join(f"{str(c[0])[:40]} {str(c[1])[:20]}".strip() for c in columns[:20])
    return shown + (" ..." if len(columns) > 20 else "")


def _names(names: list[str]) -> str:
    shown = ", ".join(repr(n[:40]) for n in names[:5])
    return shown + (f" and {len(names) - 5} more" if len(names) > 5 else "")


@contextmanager
def reading(path: Path) -> Iterator[None]:
    """SQLite errors while reading: the file is named (a locked, damaged or hostile file)."""
    try:
        yield
    except sqlite3.DataError as error:  # a value longer than the limit
        raise refused(
            path,
            f"cannot read it ({error}: a value is longer than {LIMITS.max_line_bytes} bytes)",
            hint="see docs/security.md for the limit (max_line_bytes) and how to raise it",
        ) from None
    except sqlite3.Error as error:
        raise refused(path, f"cannot read it as a results database ({error})") from None
    except UnicodeDecodeError:  # SQLite's message quotes damaged text
        raise refused(path, "cannot read it as a results database (it is damaged)") from None


@contextmanager
def writing(path: Path) -> Iterator[None]:
    """SQLite errors while storing a game: the file is named (read-only, locked, full, damaged)."""
    try:
        yield
    except (sqlite3.Error, OverflowError) as error:
        raise refused(path, f"cannot store a game in it ({error})") from None
    except UnicodeDecodeError:  # SQLite's message quotes damaged text
        raise refused(path, "cannot store a game in it (it is damaged)") from None


@frozen
class Expected:
    """What every stored row of one run must hold."""

    ruleset: str
    modules: tuple[str, ...]
    variants: tuple[str, ...]
    #: the bot of each seat, P1 first (their number is the player count)
    seats: tuple[str, ...]
    max_actions: int
    #: the ``action:NAME`` and ``trigger:NAME`` the rules can fire (None: any such name)
    fired: frozenset[str] | None = None


class _BadCell(Exception):
    """A cell that is not what its column holds (the message says what is wrong)."""


def read_games(
    connection: sqlite3.Connection,
    path: Path,
    run_key: str,
    fingerprint: str,
    seeds: Collection[int],
    expected: Expected,
) -> dict[int, dict[str, Any]]:
    """The stored games of the run among ``seeds``, by seed: each a checked row as the fields of
    a :class:`~rulekit.tools.runner.GameRecord`.

    Raises:
        RulekitError: a row (or the file) is damaged or foreign, located by rowid and column.
    """
    if not seeds:
        return {}
    low, high = min(seeds), max(seeds)
    if low < SEED_RANGE[0] or high > SEED_RANGE[1]:
        raise refused(path, f"seeds {low}..{high} do not fit in a 64-bit SQLite integer")
    wanted = set(seeds)
    checks = row_checks(fingerprint, expected)
    games: dict[int, dict[str, Any]] = {}
    rows: dict[int, int] = {}
    with reading(path):
        odd = connection.execute(
            "SELECT rowid, typeof(seed) FROM games WHERE run_key = ? AND fingerprint = ?"
            " AND typeof(seed) != 'integer' LIMIT 1",
            (run_key, fingerprint),
        ).fetchone()
        if odd is not None:
            raise _located(path, odd[0], "seed", f"expected a whole number, not {odd[1]}")
        where = "FROM games WHERE run_key = ? AND fingerprint = ? AND seed BETWEEN ? AND ?"
        keys = (run_key, fingerprint, low, high)
        try:
            for row in connection.execute(f"SELECT {_READ} {where}", keys):
                if row[2] not in wanted:
                    continue
                game = check_row(path, row, checks)
                seed = game["seed"]
                if seed in games:
                    also = rows[seed]
                    raise _located(path, row[0], "seed", f"seed {seed} is stored twice (also in row {also})")
                games[seed] = game
                rows[seed] = row[0]
        except sqlite3.DataError:  # a value over the length limit, never loaded: which row?
            for (rowid,) in connection.execute(f"SELECT rowid {where}", keys).fetchall():
                try:
                    connection.execute(f"SELECT {_READ} FROM games WHERE rowid = ?", (rowid,)).fetchone()
                except sqlite3.DataError:
                    raise refused(
                        path,
                        f"row {rowid}: a value longer than {LIMITS.max_line_bytes} bytes",
                        hint="see docs/security.md for the limit (max_line_bytes) and how to raise it",
                    ) from None
            raise
    return games


#: The columns of ``_READ`` by name.
_NAMES = tuple(c.strip() for c in _READ.split(","))

Checks = list[tuple[int, str, Callable[[Any], Any]]]


def row_checks(fingerprint: str, expected: Expected) -> Checks:
    """(position in ``_READ``, column, check) for every column of a row of the run."""
    players = len(expected.seats)
    checks: list[tuple[str, Callable[[Any], Any]]] = [
        ("ruleset", lambda v: _equal(v, expected.ruleset)),
        ("fingerprint", lambda v: _equal(v, fingerprint)),
        ("seed", lambda v: _integer(v, *SEED_RANGE)),
        ("seats", _same_list(expected.seats)),
        ("modules", _same_list(expected.modules)),
        ("variants", _same_list(expected.variants)),
        ("finished", lambda v: bool(_integer(v, 0, 1))),
        ("scores", lambda v: _scores(_json(v, list), players)),
        ("winner", lambda v: _winners(_json(v, list), players)),
        ("length", lambda v: _integer(v, 0, expected.max_actions)),
        ("fired", lambda v: _fired(_json(v, dict), expected.fired)),
        ("duration", _duration),
    ]
    return [(_NAMES.index(column), column, check) for column, check in checks]


def _same_list(wanted: tuple[str, ...]) -> Callable[[Any], tuple[str, ...]]:
    """The check of a column that holds the same JSON list in every row of the run: the text
    rulekit writes is accepted as it is, any other is parsed and compared."""
    text = json.dumps(list(wanted))

    def check(value: Any) -> tuple[str, ...]:
        if value == text and type(value) is str:
            return wanted
        return _equal(tuple(_json(value, list)), wanted)

    return check


def check_row(path: Path, row: tuple[Any, ...], checks: Checks) -> dict[str, Any]:
    """One row (the columns of ``_READ``) checked against the run it was read for."""
    values: dict[str, Any] = {}
    for position, column, check in checks:
        try:
            values[column] = check(row[position])
        except _BadCell as error:
            raise _located(path, row[0], column, str(error)) from None
    if values["winner"] and not values["finished"]:
        raise _located(path, row[0], "winner", "a game cut off at --max-actions has no winner")
    if not values["winner"] and values["finished"]:
        raise _located(path, row[0], "winner", "a finished game has at least one winner")
    return {
        "seed": values["seed"],
        "seats": values["seats"],
        "fingerprint": values["fingerprint"],
        "modules": values["modules"],
        "variants": values["variants"],
        "finished": values["finished"],
        "scores": values["scores"],
        "winners": values["winner"],
        "length": values["length"],
        "fired": values["fired"],
        "seconds": values["duration"],
    }


def _located(path: Path, rowid: object, column: str, problem: str) -> RulekitError:
    return refused(path, f"row {rowid}, column {column}: {problem}")


def _shown(value: object) -> str:
    """A short, printable rendering of a stored value for a message."""
    text = repr(value)
    return text if len(text) <= 60 else text[:57] + "..."


def _equal(value: object, wanted: object) -> Any:
    if value != wanted:
        raise _BadCell(f"{_shown(value)} is not this run's {_shown(wanted)}")
    return value


def _integer(value: object, low: int, high: int) -> int:
    if not isinstance(value, int) or isinstance(value, bool):
        raise _BadCell(f"expected a whole number, not {_shown(value)}")
    if not low <= value <= high:
        raise _BadCell(f"{_shown(value)} is out of range ({low}..{high})")
    return value


def _reject_constant(name: str) -> Any:
    raise ValueError(f"{name} is not a number")


#: JSON without NaN, Infinity and -Infinity (Python's json accepts them by default).
_DECODER = json.JSONDecoder(parse_constant=_reject_constant)


def _json(value: object, kind: type) -> Any:
    """The JSON text of a cell parsed, nesting bounded before the parser recurses."""
    if not isinstance(value, str):
        raise _BadCell(f"expected JSON text, not {_shown(value)}")
    if json_too_deep(value, LIMITS.max_depth):
        raise _BadCell(f"JSON nested more than {LIMITS.max_depth} levels deep")
    try:
        parsed = _DECODER.decode(value)
    except json.JSONDecodeError as error:
        raise _BadCell(f"not JSON ({error.msg} at character {error.pos + 1})") from None
    except (ValueError, RecursionError) as error:  # NaN, Infinity, an integer beyond the digit limit
        raise _BadCell(f"not JSON rulekit writes ({error})") from None
    if not isinstance(parsed, kind):
        raise _BadCell(f"expected a JSON {'list' if kind is list else 'object'}, not {_shown(parsed)}")
    return parsed


def _is_whole(value: object) -> bool:
    return isinstance(value, int) and not isinstance(value, bool)


def _scores(values: list[Any], players: int) -> tuple[int, ...]:
    bound = 2**LIMITS.max_int_bits
    if len(values) != players or not all(_is_whole(v) and -bound < v < bound for v in values):
        raise _BadCell(f"expected {players} whole numbers (one score per player), not {_shown(values)}")
    return tuple(values)


def _winners(values: list[Any], players: int) -> tuple[int, ...]:
    if not all(_is_whole(v) and 0 <= v < players for v in values) or len(set(values)) != len(values):
        raise _BadCell(f"expected distinct seats 0..{players - 1}, not {_shown(values)}")
    return tuple(values)


def _fired(values: dict[str, Any], names: frozenset[str] | None) -> dict[str, int]:
    for key, count in values.items():
        if not _FIRED_KEY.fullmatch(key) or (names is not None and key not in names):
            raise _BadCell(f"{_shown(key)} is not an action or trigger of these rules")
        if not _is_whole(count) or not 0 <= count < MAX_COUNT:
            raise _BadCell(f"the count of {key} is {_shown(count)}, not a whole number 0..{MAX_COUNT - 1}")
    return dict(sorted(values.items()))


def _duration(value: object) -> float:
    if (
        not isinstance(value, (int, float))
        or isinstance(value, bool)
        or not math.isfinite(value)
        or value < 0
    ):
        raise _BadCell(f"expected seconds (a finite number, 0 or more), not {_shown(value)}")
    return float(value)
