"""Hostile inputs made from a seed, and the judge that runs rulekit on them.

Shared by ``test_fuzz.py`` (hypothesis chooses the seeds and the DSL snippets) and
``campaign.py`` (a long run over consecutive seeds).  The ``web`` kind sends hostile HTTP
requests to ``serve``'s application instead of running a command line.  Each case writes its files into a
work directory and returns the command lines to run, in order; the judge runs each in
this process and classifies the outcome.  Anything but exit 0, 1 or 2 — in particular
exit 3, an exception escaping ``main`` — is an internal error; an HTML page or SVG picture
written that is not inert (:mod:`tests.hostile.html_checks`) is a live script.
"""

from __future__ import annotations

import contextlib
import io
import json
import random
import re
import shutil
import sqlite3
from collections.abc import Callable
from pathlib import Path
from typing import Any

from attrs import evolve, frozen

from rulekit import load
from rulekit.cli import main
from tests.hostile.html_checks import PLACES, hostile_ruleset, hostile_text, page_problems, svg_problems

ROOT = Path(__file__).resolve().parents[2]
TIC_TAC_TOE = ROOT / "rulesets" / "tic_tac_toe"
SOURCES = {
    "tic_tac_toe": TIC_TAC_TOE,
    "cards": ROOT / "tests" / "data" / "cards",
    "el_caballero": ROOT / "rulesets" / "el_caballero",
    "el_capitan": ROOT / "rulesets" / "el_capitan",
}
#: How often each source is mutated (the big rulesets are slow to compile).
WEIGHTS = {"tic_tac_toe": 8, "cards": 6, "el_caballero": 1, "el_capitan": 1}

_POSITION = re.compile(r":\d+:\d+: (error|note)")
#: A results database's errors name the file (and the row and column where one applies).
_DB_POSITION = re.compile(r"error: \S+\.db: ")

#: Bounds that keep every run short: a hostile input may not hang the fuzzer either.
LIMITS = ["--limit", "max_steps=200000", "--limit", "max_candidates=5000"]

#: Text an attacker would try, inserted at random places.
INSERTS = [
    "&a ",
    "*a",
    "<<: *a",
    "!!python/object/apply:os.system ['true']",
    "\x00",
    '"\\ud800"',
    "9" * 5000,
    "-.inf",
    ".nan",
    "1.0e+309",
    "[" * 300,
    "{",
    "'",
    '"',
    ": ",
    "- ",
    "\t",
    "\x1b[31m",
    '"x=().__class__.__base__.__subclasses__()"',
    "__class__",
    "1 // 0",
    "between(1, 100000)",
    "x where x = " * 60 + "1",
    "1 if true else " * 80 + "1",
    "player_at(9)",
    "none",
    "me",
    "[]",
    "{}",
    "\n",
    "  ",
]


@frozen
class Outcome:
    """What one command did: exit status, output, and whether it is an internal error."""

    argv: tuple[str, ...]
    status: int
    out: str
    err: str
    #: What in the page or picture the command wrote is not inert (an event handler, a script...).
    live: tuple[str, ...] = ()

    @property
    def internal(self) -> bool:
        return self.status not in (0, 1, 2)

    @property
    def located(self) -> bool:
        """Exit 1 with a file:line:col (or log line) in the message, or for the fuzzer's own
        ``--max-actions`` cap (a game that goes on is no input error)."""
        text = self.out + self.err
        return (
            self.status != 1
            or _POSITION.search(text) is not None
            or _DB_POSITION.search(text) is not None
            or "did not end within" in text
        )


def run(argv: list[str]) -> Outcome:
    """Run the command line in this process; an exception escaping ``main`` counts as exit 99."""
    out, err = io.StringIO(), io.StringIO()
    try:
        with contextlib.redirect_stdout(out), contextlib.redirect_stderr(err):
            status = main(argv)
    except BaseException as error:  # the fuzzer must catch everything
        if isinstance(error, KeyboardInterrupt):
            raise
        status = 99
        err.write(f"escaped main: {type(error).__name__}: {error}")
    finally:
        load._CACHE.clear()  # every case compiles new rules: keep memory flat
    return Outcome(tuple(argv), status, out.getvalue(), err.getvalue())


#: Values that keep a ``key: value`` line well-formed YAML, so that the input gets past the
#: parser and reaches the checker, the engine and the log.
VALUES = [
    "0",
    "-1",
    "1",
    "2",
    "99999999999999999999",
    "none",
    "true",
    "false",
    "''",
    "[]",
    "{}",
    "1 // 0",
    "-.inf",
    ".nan",
    "between(1, 100000)",
    "player_at(9)",
    "me",
    "x",
    "'__class__'",
    "*a",
    '"\\x1b[31m"',
]

_NUMBER = re.compile(r"\d+")


def mutate(text: str, rng: random.Random, edits: int | None = None) -> str:
    """``text`` with one to four random edits (one, half of the time): lines deleted,
    duplicated, swapped, truncated, characters replaced, attacker text inserted, the value
    of a ``key: value`` line replaced, or a number changed."""
    lines = text.split("\n")
    for _ in range(edits if edits is not None else rng.choice((1, 1, 1, 2, 3, 4))):
        if not lines:
            lines = [""]
        i = rng.randrange(len(lines))
        kind = rng.randrange(10)
        if kind >= 7:  # structure-preserving edits: most reach the checker and the engine
            numbers = list(_NUMBER.finditer(lines[i]))
            if kind == 9 and numbers:
                found = rng.choice(numbers)
                number = rng.choice(["0", "1", "2", "3", "7", "100", "100000", found.group() + "1"])
                lines[i] = lines[i][: found.start()] + number + lines[i][found.end() :]
                continue
            if ": " in lines[i]:
                key = lines[i][: lines[i].index(": ") + 2]
                lines[i] = key + rng.choice([*VALUES, json.dumps(_random_expression(rng, 2))])
                continue
        if kind == 0 and len(lines) > 1:
            del lines[i]
        elif kind == 1:
            lines.insert(i, lines[rng.randrange(len(lines))])
        elif kind == 2:
            j = rng.randrange(len(lines))
            lines[i], lines[j] = lines[j], lines[i]
        elif kind == 3:
            lines = lines[: i + 1]
            lines[-1] = lines[-1][: rng.randint(0, len(lines[-1]))]
        elif kind == 4 and lines[i]:
            k = rng.randrange(len(lines[i]))
            lines[i] = lines[i][:k] + rng.choice(":-[]{}\"' 0#|()=.,&*!%@`") + lines[i][k + 1 :]
        else:
            k = rng.randint(0, len(lines[i]))
            lines[i] = lines[i][:k] + rng.choice(INSERTS) + lines[i][k:]
    return "\n".join(lines)


def _rules_case(rng: random.Random, work: Path) -> list[list[str]]:
    name = rng.choices(list(WEIGHTS), weights=list(WEIGHTS.values()))[0]
    target = work / "rules"
    shutil.rmtree(target, ignore_errors=True)
    shutil.copytree(SOURCES[name], target, ignore=shutil.ignore_patterns("scenarios", "README.md"))
    files = sorted(p for p in target.rglob("*.yaml") if "variants" not in p.parts)
    victim = rng.choice(files)
    victim.write_text(mutate(victim.read_text(encoding="utf-8"), rng), encoding="utf-8")
    log = str(work / "game.jsonl")
    Path(log).unlink(missing_ok=True)
    play = [*LIMITS, "play", str(target), "--quiet", "--max-actions", "25", "--seed", str(rng.randrange(100))]
    return [[*LIMITS, "check", str(target)], [*play, "--log", log], ["replay", log, "--ruleset", str(target)]]


def _dsl_case(rng: random.Random, work: Path, snippet: str | None = None) -> list[list[str]]:
    text = snippet if snippet is not None else mutate(_random_expression(rng, 4), rng, rng.randint(0, 2))
    slot = rng.choice(["setup", "score", "require", "domain", "function", "weight", "when"])
    rules = _slot(text, slot)
    target = work / "dsl"
    target.mkdir(exist_ok=True)
    (target / "ruleset.yaml").write_text(rules, encoding="utf-8")
    return [[*LIMITS, "check", str(target)], [*LIMITS, "play", str(target), "--quiet", "--max-actions", "10"]]


def _slot(text: str, slot: str) -> str:
    quoted = json.dumps(text)
    lines = [
        "ruleset: fuzz",
        "players: {min: 2, max: 2}",
        "state:",
        "  game:",
        "    n: {type: int, initial: 1}",
        "    l: {type: 'list[int]', initial: '[1, 2, 3]'}",
        "functions:",
        f"  f: {quoted if slot == 'function' else '1'}",
        "actions:",
        "  go:",
        f"    params: {{x: {quoted if slot == 'domain' else json.dumps('between(1, 3)')}}}",
        f"    require: {quoted if slot == 'require' else 'true'}",
        "    effect: game.n += 1",
        "    ends_turn: true",
        "triggers:",
        "  t:",
        "    after: go",
        f"    when: {quoted if slot == 'when' else 'true'}",
        "    effect: game.n += 0",
        "flow:",
        "  - repeat:",
        "      times: 3",
        "      steps:",
        "        - turn: player_at(1)",
        f"scoring: {{score: {quoted if slot == 'score' else 'game.n'}}}",
        f"bots: {{weights: {{go: {quoted if slot == 'weight' else '1'}}}}}",
    ]
    if slot == "setup":
        lines.append(f"setup: {json.dumps('game.n = ' + text)}")
    return "\n".join(lines) + "\n"


_ATOMS = [
    "game.n",
    "1",
    "0",
    "-1",
    "me",
    "players",
    "game.l",
    "f()",
    "none",
    "true",
    "'a'",
    "num_players",
    "x",
]


def _random_expression(rng: random.Random, depth: int) -> str:
    if depth <= 0 or rng.random() < 0.3:
        return rng.choice(_ATOMS)
    a, b = _random_expression(rng, depth - 1), _random_expression(rng, depth - 1)
    return rng.choice(
        [
            f"{a} + {b}",
            f"{a} * {b}",
            f"{a} // {b}",
            f"{a} % {b}",
            f"{a} == {b}",
            f"{a} < {b}",
            f"{a} and {b}",
            f"not {a}",
            f"-{a}",
            f"({a}, {b})",
            f"[{a}, {b}]",
            f"{a}[{b}]",
            f"{a} if {b} else {a}",
            f"{a} where y = {b}",
            f"sum(v for v in {a})",
            f"count(v for v in between(1, {b}))",
            f"len({a})",
            f"str({a})",
            f"concat({a}, {b})",
            f"max(v for v in {a})",
            f"{a} in {b}",
            f"seat({a})",
        ]
    )


def _log_case(rng: random.Random, work: Path) -> list[list[str]]:
    log = work / "base.jsonl"
    if not log.exists():
        run(["play", "tic_tac_toe", "--quiet", "--seed", "5", "--log", str(log)])
    damaged = work / "damaged.jsonl"
    damaged.write_text(mutate(log.read_text(encoding="utf-8"), rng), encoding="utf-8")
    return [["replay", str(damaged)]]


def _scenario_case(rng: random.Random, work: Path) -> list[list[str]]:
    files = sorted((TIC_TAC_TOE / "scenarios").glob("*.yaml"))
    text = rng.choice(files).read_text(encoding="utf-8")
    if "ruleset:" not in text:
        text = "ruleset: tic_tac_toe\n" + text
    target = work / "scenario.yaml"
    target.write_text(mutate(text, rng), encoding="utf-8")
    return [[*LIMITS, "scenario", str(target)]]


def _variant_case(rng: random.Random, work: Path) -> list[list[str]]:
    files = sorted((TIC_TAC_TOE / "variants").glob("*.yaml"))
    target = work / "variant.yaml"
    target.write_text(mutate(rng.choice(files).read_text(encoding="utf-8"), rng), encoding="utf-8")
    return [
        [*LIMITS, "check", "tic_tac_toe", "--variant", str(target)],
        [*LIMITS, "play", "tic_tac_toe", "--quiet", "--variant", str(target)],
    ]


def _web_case(rng: random.Random, work: Path) -> list[list[str]]:
    """Hostile HTTP requests to serve's application (:mod:`tests.hostile.web_requests`); the
    "command" names the seed of the requests, :func:`run_web` sends them."""
    return [[WEB, str(rng.randrange(2**32))]]


WEB = "web"
#: Requests per web input: each is judged on its own (any 5xx is an internal error).
WEB_REQUESTS = 8
_WEB_SESSIONS: dict[Path, tuple[Any, Any]] = {}


def run_web(argv: list[str], work: Path) -> Outcome:
    """Send the requests of a web "command" to a session kept per work directory (a new game
    once one is over); a 5xx or an exception escaping the application is exit 3."""
    from tests.hostile.web_requests import client, hostile_request, new_session, send

    found = _WEB_SESSIONS.get(work)
    if found is None or found[0].state.is_terminal():
        session = new_session(work)
        found = _WEB_SESSIONS[work] = (session, client(session))
    session, test_client = found
    rng = random.Random(argv[1])
    seen = []
    for _ in range(WEB_REQUESTS):
        request = hostile_request(session, rng)
        answer = send(test_client, request)
        seen.append(f"HTTP {answer.status}")
        if answer.internal:
            shown = f"{request.method} {request.path[:200]} {request.headers} {request.body[:200]!r}"
            return Outcome(tuple(argv), 3, " ".join(seen), f"{shown}\n{answer.escaped or answer.body}")
    return Outcome(tuple(argv), 0, " ".join(seen), "")


#: Hostile cell values for a results database: wrong types, NaN and Infinity, huge and deep.
DB_VALUES: list[object] = [
    None,
    0,
    -1,
    1,
    7,
    2**63 - 1,
    -(2**63),
    1.5,
    float("inf"),
    float("-inf"),
    b"\x00\xff",
    b"[0]",
    "",
    "not json",
    "[" * 3000 + "]" * 3000,
    '{"a":' * 500 + "1" + "}" * 500,
    "[NaN, 1]",
    "[Infinity, 0]",
    "[1e999, 0]",
    "[" + "9" * 5000 + ", 0]",
    "[1.5, 0]",
    "[]",
    "[0]",
    "[0, 1, 2]",
    "[5]",
    "[-1]",
    "[true, false]",
    '"random"',
    "{}",
    '{"action:place": -1}',
    '{"action:place": 1e400}',
    '{"action:\\u001b[31m": 1}',
    '{"action:\\ud800": 1}',
    '["random", "random", "random"]',
    '["tic_tac_toe"]',
    "x" * 2_000_000,
]

#: Schema changes: foreign tables, views, triggers, indexes, columns.
DB_SCHEMAS: list[list[str]] = [
    ["DROP TABLE games", "CREATE TABLE games (id INTEGER, name TEXT)"],
    ["ALTER TABLE games RENAME TO old", "CREATE VIEW games AS SELECT * FROM old"],
    ["ALTER TABLE games RENAME TO old"],
    ["ALTER TABLE games ADD COLUMN extra TEXT"],
    ["ALTER TABLE games RENAME COLUMN scores TO points"],
    ["ALTER TABLE games DROP COLUMN duration"],
    ["CREATE TABLE copy AS SELECT * FROM games", "DROP TABLE games", "ALTER TABLE copy RENAME TO games"],
    ["CREATE TRIGGER t BEFORE INSERT ON games BEGIN SELECT RAISE(ABORT, 'no'); END"],
    [
        "CREATE TRIGGER t BEFORE INSERT ON games BEGIN SELECT count(*) FROM"
        " (WITH RECURSIVE c(x) AS (SELECT 1 UNION ALL SELECT x + 1 FROM c) SELECT x FROM c); END"
    ],
    ["CREATE INDEX i ON games(json_extract(scores, '$[0]'))"],
    ["CREATE TABLE other (x)", "DROP TABLE games"],
    ["CREATE VIEW v AS SELECT * FROM games", "CREATE TABLE t2 (a)"],
]


def _results_db_case(rng: random.Random, work: Path) -> list[list[str]]:
    """A results database of a short run, damaged (cells, schema, bytes), then resumed."""
    base = work / "base.db"
    simulate = ["simulate", "tic_tac_toe", "--games", "4", "--workers", "1"]
    if not base.exists():
        run([*simulate, "--db", str(base)])
    damaged = work / "damaged.db"
    shutil.copyfile(base, damaged)
    connection = sqlite3.connect(damaged)
    try:
        columns = [row[1] for row in connection.execute("PRAGMA table_info(games)")]
        # cells, then rows, then the schema: the fuzzer's own writes must not fire a trigger
        # that never ends (a recursive one), and each cell is one of the rows of the run
        kinds = [rng.randrange(10) for _ in range(rng.choice((1, 1, 2, 3)))]
        for kind in sorted(kinds, key=lambda k: (k >= 6) + (k in (6, 7))):
            if kind < 6:  # a cell: a hostile value, or the stored text mutated
                column, rowid = rng.choice(columns), rng.randint(1, 4)
                value = rng.choice(DB_VALUES)
                if kind < 2:
                    old = connection.execute(f"SELECT {column} FROM games WHERE rowid = ?", (rowid,))
                    value = mutate(str(old.fetchone()[0]), rng).replace("\n", "")
                connection.execute(f"UPDATE games SET {column} = ? WHERE rowid = ?", (value, rowid))
            elif kind < 8:
                with contextlib.suppress(sqlite3.Error):  # a change may not apply after another one
                    for statement in rng.choice(DB_SCHEMAS):
                        connection.execute(statement)
            else:
                connection.execute(
                    "INSERT OR REPLACE INTO games SELECT run_key, ruleset, fingerprint, ?, seats, modules,"
                    " variants, finished, scores, winner, length, fired, duration FROM games WHERE rowid = 1",
                    (rng.choice([-1, 2, 3, 5, 2**63 - 1]),),
                )
        connection.commit()
    except sqlite3.Error:
        pass  # the damage before the failing statement stays
    finally:
        connection.close()
    if rng.random() < 0.3:  # bytes of the file overwritten, or the file cut short
        data = bytearray(damaged.read_bytes())
        if rng.random() < 0.2:
            del data[rng.randrange(len(data)) :]
        else:
            for _ in range(rng.randint(1, 16)):
                data[rng.randrange(len(data))] = rng.randrange(256)
        damaged.write_bytes(bytes(data))
    return [[*simulate, "--games", str(rng.choice((4, 5, 6))), "--db", str(damaged), "--resume"]]


def _html_case(rng: random.Random, work: Path) -> list[list[str]]:
    """Tic-tac-toe with breakouts of HTML, SVG, scripts and templates at some of the places whose
    text reaches a page (and, a third of the time, a mutation), replayed as a page and drawn."""
    texts = {place: hostile_text(rng) for place in rng.sample(PLACES, rng.randint(1, len(PLACES)))}
    if "title" in texts:  # a title is printable text (check refuses the others)
        texts["title"] = "".join(c for c in texts["title"] if c.isprintable())[:200]
    target = hostile_ruleset(work / "html", texts)
    if rng.random() < 0.3:
        rules = target / "ruleset.yaml"
        rules.write_text(mutate(rules.read_text(encoding="utf-8"), rng), encoding="utf-8")
    log, page, picture = work / "html.jsonl", work / "html.html", work / "html.svg"
    for path in (log, page, picture):
        path.unlink(missing_ok=True)
    play = [*LIMITS, "play", str(target), "--quiet", "--max-actions", "25", "--seed", str(rng.randrange(100))]
    return [
        [*LIMITS, "check", str(target)],
        [*play, "--log", str(log)],
        [*LIMITS, "replay", str(log), "--ruleset", str(target), "--html", str(page)],
        [*LIMITS, "render", str(log), "--ruleset", str(target), "-o", str(picture)],
    ]


def _live(argv: list[str], outcome: Outcome) -> Outcome:
    """The outcome with what is not inert in the page or picture the command wrote."""
    if outcome.status != 0:
        return outcome
    if "--html" in argv:
        page = Path(argv[argv.index("--html") + 1])
        return evolve(outcome, live=tuple(page_problems(page.read_text(encoding="utf-8"))))
    if "render" in argv and "-o" in argv:
        picture = Path(argv[argv.index("-o") + 1])
        return evolve(outcome, live=tuple(svg_problems(picture.read_text(encoding="utf-8"))))
    return outcome


CASES: dict[str, Callable[[random.Random, Path], list[list[str]]]] = {
    "html": _html_case,
    "rules": _rules_case,
    "dsl": _dsl_case,
    "log": _log_case,
    "scenario": _scenario_case,
    "variant": _variant_case,
    WEB: _web_case,
    "results_db": _results_db_case,
}


def fuzz_one(kind: str, seed: int, work: Path, snippet: str | None = None) -> list[Outcome]:
    """Build case ``kind`` from ``seed`` in ``work`` and run its commands (a later one only
    when the earlier ones succeeded, e.g. play after check)."""
    rng = random.Random(f"{kind}:{seed}")
    commands = _dsl_case(rng, work, snippet) if snippet is not None else CASES[kind](rng, work)
    outcomes = []
    for argv in commands:
        command = next((c for c in ("replay", "render") if c in argv), None)
        if command is not None and not Path(argv[argv.index(command) + 1]).exists():
            continue  # the game before failed to start: nothing to replay
        outcome = run_web(argv, work) if argv[0] == WEB else _live(argv, run(argv))
        outcomes.append(outcome)
        if outcome.status != 0 and "check" in argv:
            break
    return outcomes
