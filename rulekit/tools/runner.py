"""Play many seeded games on all cores or on a Ray cluster; keep each result in SQLite.

A game is a :class:`GameTask` (configuration, seed, bots) and its result a
:class:`GameRecord`.  A task is a pure function of its fields: the same task gives the
same record (but its duration) in any process, so running with 1 worker, N workers or
Ray changes only the speed.  Records come back in completion order; readers sort them
by seed.

The results database has one row per game (see :data:`SCHEMA`).  A run keyed by
everything that decides a game's outcome (:meth:`GameTask.run_key`) finds the games
already stored and skips them, so a killed run resumes where it stopped; each game is
committed on its own as it reaches the parent, so a kill loses at most the games in
progress (with workers: the batches in progress, see :func:`batches`) and never leaves a
half-written row.
"""

from __future__ import annotations

import atexit
import json
import logging
import os
import sqlite3
import time
from collections.abc import Callable, Iterator, Sequence
from pathlib import Path
from typing import Any

from attrs import evolve, frozen

from rulekit.engine.game import Game
from rulekit.errors import Diagnostic, RulekitError, UsageError
from rulekit.load import load_program
from rulekit.tools import results_db, trace_db
from rulekit.tools.bots import make_bots, parse_bots, play_game, seat_specs
from rulekit.tools.trace import GameTrace, Tracer


@frozen
class GameTask:
    """One game to play: a configuration, a seed and the bots (a ``--bots`` value)."""

    ruleset: str
    modules: tuple[str, ...]
    variants: tuple[str, ...]
    players: int
    seed: int
    bots: str
    max_actions: int
    #: Record the game's trace (scores and legal-action counts at every decision, for
    #: ``rulekit analyze``); it does not change the game, only what is kept of it.
    trace: bool = False

    def run_key(self) -> str:
        """What decides the outcome of the game but its seed (and the rules' content)."""
        return json.dumps(
            [self.ruleset, self.modules, self.variants, self.players, self.bots, self.max_actions]
        )


@frozen
class GameRecord:
    """The outcome of one game."""

    seed: int
    seats: tuple[str, ...]
    fingerprint: str
    modules: tuple[str, ...]
    variants: tuple[str, ...]
    finished: bool
    scores: tuple[int, ...]
    winners: tuple[int, ...]
    length: int
    fired: dict[str, int]
    seconds: float
    #: With :attr:`GameTask.trace`: what happened at each decision (else None).
    trace: GameTrace | None = None


_GAMES: dict[tuple[str, tuple[str, ...], tuple[str, ...], int], Game] = {}


def game_for(task: GameTask) -> Game:
    """The game of a task, compiled once per process."""
    key = (task.ruleset, task.modules, task.variants, task.players)
    game = _GAMES.get(key)
    if game is None:
        program = load_program(task.ruleset, task.modules, task.variants, players=task.players)
        game = _GAMES[key] = Game(program, task.players)
    return game


def play_task(task: GameTask) -> GameRecord:
    """Play one game; counts how often each action and trigger fired in it (not in the
    bots' searches)."""
    game = game_for(task)
    fired: dict[str, int] = {}

    def count(what: str) -> None:
        fired[what] = fired.get(what, 0) + 1

    start = time.perf_counter()
    bots = make_bots(game, task.bots, task.seed)
    tracer = Tracer(bots) if task.trace else None
    played = play_game(
        game, task.seed, bots if tracer is None else tracer.bots, task.max_actions, fired=count
    )
    seconds = time.perf_counter() - start
    state = played.state
    return GameRecord(
        seed=task.seed,
        seats=tuple(str(s) for s in seat_specs(parse_bots(task.bots), game.num_players)),
        fingerprint=game.program.fingerprint,
        modules=task.modules,
        variants=task.variants,
        finished=played.finished,
        scores=tuple(state.scores()),
        winners=tuple(state.winners()) if played.finished else (),
        length=len(played.log.actions),
        fired=dict(sorted(fired.items())),
        seconds=seconds,
        trace=None if tracer is None else tracer.finish(state),
    )


# ---------------------------------------------------------------- executors

EXECUTORS = ("local", "ray")


def run_tasks(
    tasks: Sequence[GameTask],
    *,
    workers: int = 1,
    executor: str = "local",
    address: str | None = None,
) -> Iterator[GameRecord]:
    """Play the tasks, yielding each record as it is done (in completion order).

    ``local`` runs ``workers`` processes (1: in this process); ``ray`` submits one Ray task
    per game to ``ray.init(address=address)`` (a local Ray when None).

    Raises:
        UsageError: an unknown executor, or ``ray`` without the extra installed.
    """
    if not tasks:
        return
    if executor == "ray":
        yield from _run_ray(tasks, address)
        return
    if executor != "local":
        raise UsageError(Diagnostic(f"unknown executor {executor!r} (known: {', '.join(EXECUTORS)})"))
    if workers <= 1 or len(tasks) == 1:
        for task in tasks:
            yield play_task(task)
        return
    import gc
    import multiprocessing

    # fork: the workers start at once with the compiled rules of this process (no threads run here)
    methods = multiprocessing.get_all_start_methods()
    context = multiprocessing.get_context("fork" if "fork" in methods else "spawn")
    # The workers inherit every object of this process; frozen, the collector never walks them
    # there (a walk would also copy every page it touches out of the shared memory)
    gc.freeze()
    try:
        with context.Pool(min(workers, len(tasks))) as pool:
            for records in pool.imap_unordered(play_batch, batches(tasks, workers)):
                yield from records
    finally:
        gc.unfreeze()


#: The most games one message to a worker carries (and a killed worker loses).
MAX_BATCH = 8


def batches(tasks: Sequence[GameTask], workers: int) -> list[Sequence[GameTask]]:
    """The tasks cut into consecutive batches for ``workers`` processes, largest first.

    Each batch is a quarter of an even share of the tasks not yet given out (at most
    :data:`MAX_BATCH`): early batches are large, so the parent handles one message per
    several games rather than per game (on a busy machine each message cost the parent
    ~2 ms of CPU, taken from the workers); the last batches are single games, so no worker
    waits at the end for another's long batch.
    """
    cut: list[Sequence[GameTask]] = []
    start = 0
    while start < len(tasks):
        size = max(1, min(MAX_BATCH, (len(tasks) - start) // (4 * workers)))
        cut.append(tasks[start : start + size])
        start += size
    return cut


def play_batch(tasks: Sequence[GameTask]) -> list[GameRecord]:
    """Play a batch of tasks in order (the unit of work a worker process runs)."""
    return [play_task(task) for task in tasks]


def _run_ray(tasks: Sequence[GameTask], address: str | None) -> Iterator[GameRecord]:
    try:
        import ray
    except ImportError:
        raise UsageError(Diagnostic("--executor ray needs Ray", hint="pip install 'rulekit[ray]'")) from None
    if not ray.is_initialized():
        # once per process: a command that plays several batches (balance) reuses the cluster
        start_ray(address)
        atexit.register(ray.shutdown)
    remote = ray.remote(play_task)
    pending = [remote.remote(task) for task in tasks]
    while pending:
        done, pending = ray.wait(pending, num_returns=1)
        for ref in done:
            yield ray.get(ref)


#: Ray's switch for a single-machine node that uses the loopback address (its default on
#: Windows and macOS); read by the processes Ray starts, from their environment.
_RAY_LOCAL_ONLY = "RAY_ENABLE_WINDOWS_OR_OSX_CLUSTER"


def start_ray(address: str | None) -> None:
    """``ray.init`` for ``--executor ray``: join the cluster at ``address`` (or ``RAY_ADDRESS``),
    or start a local Ray (none, or ``local``) whose servers (GCS, raylet, object manager,
    workers) listen on 127.0.0.1 only.

    Ray has no authentication: a local Ray listening on every interface would let anyone who
    can reach the machine run code as the user for the whole run (see docs/security.md).
    Ray binds its servers to all interfaces unless the node's address is the loopback one,
    which it uses when clusters are disabled; that setting is passed to the processes Ray
    starts through their environment, and is restored in this process afterwards.

    Raises:
        RulekitError: the local Ray came up on another address (it is stopped first).
    """
    import ray
    from ray._private import ray_constants  # the flag is read when ray.init asks for the node IP

    options: dict[str, Any] = {
        "include_dashboard": False,
        "logging_level": logging.ERROR,
        "log_to_driver": False,
    }
    if address is None:
        address = os.environ.get("RAY_ADDRESS") or None  # what ray.init() itself would join
    if address is not None and address != "local":  # "local": Ray's name for a new local Ray
        ray.init(address=address, **options)
        return
    saved_env, saved_flag = (
        os.environ.get(_RAY_LOCAL_ONLY),
        getattr(ray_constants, "ENABLE_RAY_CLUSTER", True),
    )
    os.environ[_RAY_LOCAL_ONLY] = "0"
    ray_constants.ENABLE_RAY_CLUSTER = False
    try:
        ray.init(address="local", _node_ip_address="127.0.0.1", **options)
    finally:
        ray_constants.ENABLE_RAY_CLUSTER = saved_flag
        if saved_env is None:
            del os.environ[_RAY_LOCAL_ONLY]
        else:
            os.environ[_RAY_LOCAL_ONLY] = saved_env
    node = ray.util.get_node_ip_address()
    if node != "127.0.0.1":
        ray.shutdown()
        raise RulekitError(
            Diagnostic(
                f"the local Ray came up on {node}, not 127.0.0.1: stopped it (Ray has no authentication)",
                hint="start Ray yourself (ray start --head --node-ip-address 127.0.0.1) and give --address",
            )
        )


# ---------------------------------------------------------------- the results database

SCHEMA = """
CREATE TABLE IF NOT EXISTS games (
    run_key     TEXT NOT NULL,     -- ruleset, modules, variants, players, bots, max actions (JSON)
    ruleset     TEXT NOT NULL,
    fingerprint TEXT NOT NULL,     -- the composed rules' fingerprint
    seed        INTEGER NOT NULL,
    seats       TEXT NOT NULL,     -- the bot of each seat (JSON list, P1 first)
    modules     TEXT NOT NULL,     -- JSON list
    variants    TEXT NOT NULL,     -- JSON list
    finished    INTEGER NOT NULL,  -- 0: cut off after max actions
    scores      TEXT NOT NULL,     -- JSON list, P1 first
    winner      TEXT NOT NULL,     -- JSON list of the seats tied for first (0 = P1)
    length      INTEGER NOT NULL,  -- actions played
    fired       TEXT NOT NULL,     -- JSON {"action:NAME" | "trigger:NAME": count}
    duration    REAL NOT NULL,     -- seconds
    PRIMARY KEY (run_key, fingerprint, seed)
)
"""


class ResultsDB:
    """The SQLite results file: one row per game, committed as each game ends."""

    def __init__(self, path: str | Path) -> None:
        self.path = Path(path)
        # a stranger's file: a foreign schema is refused (rulekit/tools/results_db.py)
        self.connection = results_db.open_checked(self.path, SCHEMA)
        try:
            trace_db.create(self.connection)  # the traces of analyzed games, a table of their own
            self.connection.commit()
        except sqlite3.Error as error:  # a locked or read-only file, a damaged one
            self.connection.close()
            raise results_db.refused(self.path, f"cannot add the traces table ({error})") from None

    def close(self) -> None:
        self.connection.close()

    def __enter__(self) -> ResultsDB:
        return self

    def __exit__(self, *_: object) -> None:
        self.close()

    def count(self, run_key: str, fingerprint: str) -> int:
        row = self.connection.execute(
            "SELECT count(*) FROM games WHERE run_key = ? AND fingerprint = ?", (run_key, fingerprint)
        ).fetchone()
        return int(row[0])

    def stored(self, tasks: Sequence[GameTask], fingerprint: str) -> dict[int, GameRecord]:
        """The games of ``tasks`` (all of one run) the file holds, by seed, each row checked.

        Raises:
            RulekitError: a damaged or foreign row, located by rowid and column.
        """
        if not tasks:
            return {}
        task = tasks[0]
        game = game_for(task)
        names = None
        if game.program.fingerprint == fingerprint:  # the rules' own names (else: any name)
            rules = game.program.rules
            names = frozenset(
                [*(f"action:{a}" for a in rules.actions), *(f"trigger:{t}" for t in rules.triggers)]
            )
        seats = tuple(str(s) for s in seat_specs(parse_bots(task.bots), task.players))
        expected = results_db.Expected(
            task.ruleset, task.modules, task.variants, seats, task.max_actions, names
        )
        rows = results_db.read_games(
            self.connection, self.path, task.run_key(), fingerprint, [t.seed for t in tasks], expected
        )
        return {seed: GameRecord(**row) for seed, row in rows.items()}

    def add(self, task: GameTask, record: GameRecord) -> None:
        with results_db.writing(self.path), self.connection:
            self.connection.execute(
                "INSERT OR REPLACE INTO games VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)",
                (
                    task.run_key(),
                    task.ruleset,
                    record.fingerprint,
                    record.seed,
                    json.dumps(list(record.seats)),
                    json.dumps(list(record.modules)),
                    json.dumps(list(record.variants)),
                    int(record.finished),
                    json.dumps(list(record.scores)),
                    json.dumps(list(record.winners)),
                    record.length,
                    json.dumps(record.fired, sort_keys=True),
                    record.seconds,
                ),
            )
            if record.trace is not None:
                trace_db.store(self.connection, task.run_key(), record.fingerprint, record.seed, record.trace)

    def traced_seeds(self, run_key: str, fingerprint: str) -> set[int]:
        """The seeds of the run whose traces the file holds."""
        return trace_db.traced_seeds(self.connection, run_key, fingerprint)


def play_all(
    tasks: Sequence[GameTask],
    fingerprint: str,
    *,
    workers: int = 1,
    executor: str = "local",
    address: str | None = None,
    db: ResultsDB | None = None,
    resume: bool = False,
    progress: Callable[[GameRecord, bool], None] | None = None,
) -> list[GameRecord]:
    """Play every task (all of one run) and return the records sorted by seed.

    With ``db``, each record is stored as it arrives; with ``resume`` too, the games the
    database already holds for this run are read back instead of played again.
    ``progress(record, stored)`` hears of every record, ``stored`` true for those read back
    (they come first).

    Raises:
        UsageError: the database already holds games of this run and ``resume`` is off.
        RulekitError: a game was played with other rules than ``fingerprint`` (a worker
            compiled the rule files after they were edited).
    """
    stored: list[GameRecord] = []
    todo = list(tasks)
    if db is not None and tasks:
        found = db.stored(tasks, fingerprint)
        held = set(found)
        if held and not resume:
            raise UsageError(
                Diagnostic(
                    f"{db.path} already holds {len(held)} of these games",
                    hint="add --resume to continue that run, or use another --db file",
                )
            )
        done = held
        if tasks[0].trace:  # a game stored without its trace is played again (to the same end)
            key = tasks[0].run_key()
            done = held & db.traced_seeds(key, fingerprint)
            records = [found[seed] for seed in sorted(done)]
            shapes = [(r.seed, len(r.scores), r.length) for r in records]
            traces = trace_db.read(db.connection, db.path, key, fingerprint, shapes)
            stored = [evolve(r, trace=traces.get(r.seed)) for r in records]
        else:
            stored = [found[seed] for seed in sorted(done)]
        todo = [t for t in tasks if t.seed not in done]
        for record in stored:
            if progress is not None:
                progress(record, True)
    by_seed = {t.seed: t for t in todo}
    records = list(stored)
    for record in run_tasks(todo, workers=workers, executor=executor, address=address):
        if record.fingerprint != fingerprint:  # a worker compiled other rules: the files changed
            raise RulekitError(
                Diagnostic(
                    f"the rules changed while the games were played: game {record.seed} was played with "
                    f"rules of fingerprint {record.fingerprint}, the run started with {fingerprint}",
                    hint="do not edit the rules during a run; start it again (with --db, the games "
                    "stored so far are kept under the rules they were played with)",
                )
            )
        if db is not None:
            db.add(by_seed[record.seed], record)
        records.append(record)
        if progress is not None:
            progress(record, False)
    return sorted(records, key=lambda r: r.seed)
