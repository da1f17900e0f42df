"""A results database is a stranger's file: ``simulate``/``balance --db F --resume`` over a
damaged or foreign one is exit 1 naming the file (and the row and column), never a traceback."""

from __future__ import annotations

import sqlite3
from collections.abc import Callable
from pathlib import Path

import pytest

from rulekit.tools import results_db
from rulekit.tools.balance import command as balance_command
from tests.hostile.conftest import Run

MISERE = Path(__file__).resolve().parents[2] / "rulesets" / "tic_tac_toe" / "variants" / "misere.yaml"

#: The two commands that store games, three games (a side), on one core.
COMMANDS = {
    "simulate": ["simulate", "tic_tac_toe", "--games", "3", "--workers", "1"],
    "balance": [
        "balance",
        "tic_tac_toe",
        "--variant",
        str(MISERE),
        "--games",
        "3",
        "--batch",
        "3",
        "--no-early-stop",
        "--workers",
        "1",
        "--json",
    ],
}

Stored = Callable[..., tuple[Path, list[str]]]


@pytest.fixture(params=sorted(COMMANDS))
def stored(
    request: pytest.FixtureRequest, run: Run, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> Stored:
    """``stored(*sql)``: a results file written by a short run of the command, then changed by
    the SQL statements; returns the file and the command line that resumes that run."""
    monkeypatch.setattr(balance_command, "write_plots", lambda *_: [])  # 2 s of matplotlib a run

    def make(*statements: str) -> tuple[Path, list[str]]:
        db = tmp_path / "results.db"
        argv = [*COMMANDS[request.param], "--db", str(db)]
        status, _, err = run(*argv)
        assert status == 0, err
        connection = sqlite3.connect(db)
        try:
            for statement in statements:
                connection.execute(statement)
            connection.commit()
        finally:
            connection.close()
        return db, [*argv, "--resume"]

    return make


def assert_refused(status: int, err: str, db: Path, *where: str) -> None:
    """Exit 1, no traceback, the message names the file and says where (row, column)."""
    assert status == 1, err
    assert "Traceback" not in err and "internal error" not in err, err
    assert f"{db}: " in err, err
    for part in where:
        assert part in err, err


# ------------------------------------------------------------------ damaged rows


@pytest.mark.parametrize(
    ("statement", "where"),
    [
        ("UPDATE games SET scores = 'not json' WHERE rowid = 2", ("row 2, column scores: not JSON",)),
        (
            "UPDATE games SET fired = '" + "[" * 3000 + "]" * 3000 + "' WHERE rowid = 2",
            ("row 2, column fired: JSON nested more than 100 levels deep",),
        ),
        ("UPDATE games SET seed = 'one' WHERE rowid = 2", ("row 2, column seed: expected a whole number",)),
        ("UPDATE games SET scores = '{\"P1\": 1}' WHERE rowid = 2", ("row 2, column scores: expected",)),
        (
            "UPDATE games SET fired = '[1, 2]' WHERE rowid = 2",
            ("row 2, column fired: expected a JSON object",),
        ),
        (
            "UPDATE games SET seats = '\"random\"' WHERE rowid = 2",
            ("row 2, column seats: expected a JSON list",),
        ),
    ],
    ids=["scores_not_json", "deep_json", "text_seed", "scores_an_object", "fired_a_list", "seats_a_text"],
)
def test_a_damaged_row_that_crashed_resume_is_a_located_error(
    run: Run, stored: Stored, statement: str, where: tuple[str, ...]
) -> None:
    """The cases that ended in exit 3: not JSON, 3000-deep JSON, a text seed, JSON of the wrong type."""
    db, resume = stored(statement)
    assert_refused(*run(*resume)[::2], db, *where)


@pytest.mark.parametrize(
    ("statement", "where"),
    [
        ("UPDATE games SET scores = '[NaN, 1]' WHERE rowid = 2", "column scores: not JSON rulekit writes"),
        ("UPDATE games SET scores = '[1e999, 0]' WHERE rowid = 2", "column scores: expected 2 whole numbers"),
        ("UPDATE games SET scores = '[" + "9" * 5000 + ", 0]' WHERE rowid = 2", "column scores: not JSON"),
        ("UPDATE games SET scores = '[1]' WHERE rowid = 2", "column scores: expected 2 whole numbers"),
        ("UPDATE games SET scores = '[1.5, 0]' WHERE rowid = 2", "column scores: expected 2 whole numbers"),
        ("UPDATE games SET winner = '[5]' WHERE rowid = 2", "column winner: expected distinct seats 0..1"),
        ("UPDATE games SET winner = '[0, 0]' WHERE rowid = 2", "column winner: expected distinct seats"),
        ("UPDATE games SET winner = '[]', finished = 1 WHERE rowid = 2", "column winner: a finished game"),
        ("UPDATE games SET finished = 7 WHERE rowid = 2", "column finished: 7 is out of range"),
        ("UPDATE games SET length = -1 WHERE rowid = 2", "column length: -1 is out of range"),
        ("UPDATE games SET length = 10001 WHERE rowid = 2", "column length: 10001 is out of range"),
        ("UPDATE games SET length = 'nine' WHERE rowid = 2", "column length: expected a whole number"),
        ("UPDATE games SET duration = 9e999 WHERE rowid = 2", "column duration: expected seconds"),
        ("UPDATE games SET duration = -1 WHERE rowid = 2", "column duration: expected seconds"),
        ("UPDATE games SET duration = x'00' WHERE rowid = 2", "column duration: expected seconds"),
        ("UPDATE games SET fired = '{\"action:place\": -3}' WHERE rowid = 2", "column fired: the count"),
        (
            "UPDATE games SET fired = '{\"action:place\": 1e400}' WHERE rowid = 2",
            "column fired: the count of action:place",
        ),
        (
            "UPDATE games SET fired = '{\"action:\\u001b[31m<script>\": 1}' WHERE rowid = 2",
            "column fired: ",
        ),
        (
            "UPDATE games SET fired = '{\"action:teleport\": 1}' WHERE rowid = 2",
            "is not an action or trigger",
        ),
        ("UPDATE games SET scores = x'5b315d' WHERE rowid = 2", "column scores: expected JSON text"),
        ("UPDATE games SET ruleset = 'chess' WHERE rowid = 2", "column ruleset: 'chess' is not this run's"),
        ('UPDATE games SET seats = \'["mcts", "random"]\' WHERE rowid = 2', "column seats: "),
        ("UPDATE games SET modules = '[\"harbor\"]' WHERE rowid = 2", "column modules: "),
        ("UPDATE games SET variants = '[\"x.yaml\"]' WHERE rowid = 1", "column variants: "),
        (
            "UPDATE games SET seed = 2.5 WHERE rowid = 2",
            "row 2, column seed: expected a whole number, not real",
        ),
    ],
    ids=lambda v: v if len(v) < 40 else None,
)
def test_hostile_values_in_a_row_are_refused_where_they_are(
    run: Run, stored: Stored, statement: str, where: str
) -> None:
    """NaN and Infinity, huge numbers, lengths that do not match the players, values of another
    run or out of range, names the rules do not have, blobs: the row and column are named."""
    db, resume = stored(statement)
    status, _, err = run(*resume)
    assert_refused(status, err, db, "row ", where)
    assert "\x1b" not in err


def test_a_value_longer_than_a_log_line_is_refused_before_it_is_read(run: Run, stored: Stored) -> None:
    """A 2 MB cell is not loaded: the file, the row and the limit are named."""
    db, resume = stored(
        "UPDATE games SET fired = '{\"a\": \"' || hex(zeroblob(1000000)) || '\"}' WHERE rowid = 3"
    )
    assert_refused(*run(*resume)[::2], db, "row 3: a value longer than 1000000 bytes")


def test_rows_of_other_seeds_and_runs_are_not_read(run: Run, stored: Stored) -> None:
    """Rows the run does not ask for (a negative or enormous seed, another run's key) are left
    alone, however damaged; the run's own games are read back."""
    _, resume = stored(
        "INSERT INTO games SELECT run_key, ruleset, fingerprint, -5, seats, modules, variants, finished,"
        " 'junk', winner, length, fired, duration FROM games WHERE rowid = 1",
        "INSERT INTO games SELECT run_key, ruleset, fingerprint, 9223372036854775807, seats, modules,"
        " variants, finished, 'junk', winner, length, fired, duration FROM games WHERE rowid = 1",
        "INSERT INTO games SELECT 'another run', ruleset, fingerprint, seed, seats, modules, variants,"
        " finished, 'junk', winner, length, fired, duration FROM games WHERE rowid = 1",
    )
    status, _, err = run(*resume)
    assert status == 0, err


# ------------------------------------------------------------------ foreign schemas


@pytest.mark.parametrize(
    ("statements", "where"),
    [
        (
            ("DROP TABLE games", "CREATE TABLE games (id INTEGER, name TEXT)"),
            "table 'games' has other columns",
        ),
        (("ALTER TABLE games RENAME TO old", "CREATE VIEW games AS SELECT * FROM old"), "'games' is a view"),
        (
            ("CREATE TRIGGER t BEFORE INSERT ON games BEGIN SELECT RAISE(ABORT, 'no'); END",),
            "a trigger on 'games': 't'",
        ),
    ],
    ids=["foreign_table", "view", "aborting_trigger"],
)
def test_a_foreign_schema_that_crashed_resume_is_refused(
    run: Run, stored: Stored, statements: tuple[str, ...], where: str
) -> None:
    """A foreign table, a view named games, an insert trigger that aborts: refused before use."""
    db, resume = stored(*statements)
    assert_refused(*run(*resume, "--games", "4")[::2], db, where)


@pytest.mark.parametrize(
    ("statements", "where"),
    [
        (
            (
                "CREATE TABLE copy AS SELECT * FROM games",
                "DROP TABLE games",
                "ALTER TABLE copy RENAME TO games",
                "INSERT INTO games SELECT * FROM games",
            ),
            "table 'games' has other columns",  # no primary key: a seed could be stored twice
        ),
        (
            (
                "ALTER TABLE games RENAME TO old",
                "CREATE TABLE games AS SELECT * FROM old",
                "DROP TABLE old",
                "ALTER TABLE games ADD COLUMN extra TEXT",
            ),
            "table 'games' has other columns",
        ),
        (("ALTER TABLE games RENAME TO old",), "it has no table 'games' but 'old'"),
        (("CREATE TRIGGER t AFTER DELETE ON games BEGIN SELECT 1; END",), "a trigger on 'games'"),
    ],
    ids=["no_primary_key", "extra_column", "another_database", "any_trigger"],
)
def test_a_foreign_or_altered_schema_is_refused_and_not_written(
    run: Run, stored: Stored, statements: tuple[str, ...], where: str
) -> None:
    """Duplicated seeds (no primary key), a column too many, a database of another program
    (rulekit does not add its table to it), any trigger: refused, the file unchanged."""
    db, resume = stored(*statements)
    before = db.read_bytes()
    assert_refused(*run(*resume, "--games", "4")[::2], db, where)
    assert db.read_bytes() == before


# ------------------------------------------------------------------ files that fail


def test_a_read_only_database_is_a_write_error_naming_the_file(run: Run, stored: Stored) -> None:
    """A file SQLite must treat as read-only (write version 3 in its header; chmod does not stop
    root): the stored games are read back, the first new one cannot be written: exit 1."""
    db, resume = stored()
    data = bytearray(db.read_bytes())
    data[18] = 3
    db.write_bytes(bytes(data))
    assert_refused(*run(*resume, "--games", "4")[::2], db, "cannot store a game in it", "readonly")


def test_a_locked_database_is_a_write_error_naming_the_file(
    run: Run, stored: Stored, monkeypatch: pytest.MonkeyPatch
) -> None:
    """Another process holds the write lock for longer than rulekit waits: exit 1, the file named."""
    monkeypatch.setattr(results_db, "BUSY_SECONDS", 0.05)
    db, resume = stored()
    other = sqlite3.connect(db)
    try:
        other.execute("BEGIN IMMEDIATE")
        other.execute("DELETE FROM games WHERE rowid = 99")
        assert_refused(*run(*resume, "--games", "4")[::2], db, "cannot store a game in it", "locked")
    finally:
        other.close()


@pytest.mark.parametrize("offset", [100, 1024, 2048, 3000])
def test_a_database_with_corrupted_bytes_is_refused(run: Run, stored: Stored, offset: int) -> None:
    """Bytes of the file overwritten (the schema page, a data page): exit 1 naming the file."""
    db, resume = stored()
    data = bytearray(db.read_bytes())
    data[offset : offset + 64] = bytes(range(64, 128))
    db.write_bytes(bytes(data))
    status, _, err = run(*resume, "--games", "4")
    assert status in (0, 1), err
    assert "Traceback" not in err, err
    if status == 1:
        assert f"{db}: " in err, err


def test_a_file_that_is_not_a_database_is_refused(run: Run, tmp_path: Path) -> None:
    db = tmp_path / "results.db"
    db.write_bytes(b"SQLite format 3\x00" + b"\xff" * 5000)
    status, _, err = run(*COMMANDS["simulate"], "--db", str(db), "--resume")
    assert_refused(status, err, db, "not a rulekit results database")


def test_a_directory_or_device_as_the_database_is_refused(run: Run, tmp_path: Path) -> None:
    status, _, err = run(*COMMANDS["simulate"], "--db", "/dev/null")
    assert_refused(status, err, Path("/dev/null"), "not a regular file")
    status, _, err = run(*COMMANDS["simulate"], "--db", str(tmp_path))
    assert_refused(status, err, tmp_path, "not a regular file")


def test_a_seed_beyond_64_bits_with_a_database_is_refused(run: Run, tmp_path: Path) -> None:
    """SQLite stores 64-bit integers: a first seed of 2**63 cannot be a row (was an OverflowError)."""
    db = tmp_path / "results.db"
    status, _, err = run(*COMMANDS["simulate"], "--seed", str(2**63), "--db", str(db))
    assert_refused(status, err, db, "do not fit in a 64-bit SQLite integer")


def test_text_that_is_not_utf8_is_refused_where_it_is(run: Run, stored: Stored) -> None:
    """Bytes that are not UTF-8 in a text cell (found by the fuzzer: a UnicodeDecodeError)."""
    db, resume = stored("UPDATE games SET scores = CAST(x'5bff5d' AS TEXT) WHERE rowid = 2")
    assert_refused(
        *run(*resume)[::2], db, "row 2, column scores: expected JSON text, not text that is not UTF-8"
    )


def test_a_schema_that_is_not_utf8_is_refused(run: Run, stored: Stored) -> None:
    """SQLite's own message quotes the damaged schema text (found by the fuzzer)."""
    db, resume = stored(
        "PRAGMA writable_schema = ON",
        "UPDATE sqlite_master SET sql = 'CREATE TABLE games (' || CAST(x'ff' AS TEXT) WHERE name = 'games'",
    )
    assert_refused(*run(*resume)[::2], db, "not a rulekit results database")
