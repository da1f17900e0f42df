"""The exploration's games in *lanes*, so that its result does not depend on ``--workers``.

Game *n* is seeded from ``(--seed, n)``. The games are dealt to ``--lanes L`` lanes (a fixed
number, not the number of processes): lane *l* plays games ``l, l + L, l + 2L, ...`` in that
order, with its own explorer -- its own coverage corpus, its own coverage counts steering its
choices, its own instrumented program. A lane learns only from its own games, so what it plays
depends on nothing but ``(--seed, --lanes, the options)``, never on which process plays it
or beside which other lanes.

The lanes are dealt to ``min(--workers, L)`` processes (lane *l* to process ``l mod N``); a
process plays its lanes' games in increasing game number, interleaved. With one process that is
simply games ``0, 1, 2, ...`` in turn -- the same code path as with N.

* The failure reported is the one of the *lowest game number*. A lane that fails at game *g*
  lowers a shared bound to *g*; every lane stops before its first game above the bound, so the
  lanes still playing games below *g* go on (one of them may fail earlier and lower the bound
  again) and none plays more than needed.
* Each game's contribution (statistics, coverage counts, closeness) is recorded on its own
  (a :class:`GameRecord`); the run's statistics and coverage are the records of the games up
  to the reported failure (or of all games), merged in game order. A process that had already
  played games above the final bound when it learned of it has their records left out. So the
  games counted, the statistics, the coverage report and the first counterexample (before
  shrinking) are the same for any number of workers.
* The counterexample comes back from a worker process as action texts and is replayed here,
  with the checks the exploration made, to rebuild the failure; with one process too, so the
  failure reported is built the same way for any number of workers. Replaying exactly the
  failing game's actions fails again: a check runs after the action it is about (a property
  over a turn after the action that ended the turn, not before the next one).
"""

from __future__ import annotations

import atexit
import contextlib
import multiprocessing
import time
from collections.abc import Callable, Sequence
from concurrent.futures import FIRST_EXCEPTION, ProcessPoolExecutor, wait
from pathlib import Path
from typing import Any

import attrs
from attrs import define, field

from rulekit.errors import Diagnostic, Span, UsageError
from rulekit.tools.verify.checker import Checker
from rulekit.tools.verify.coverage import Coverage
from rulekit.tools.verify.explore import Explorer, player_counts
from rulekit.tools.verify.failures import NotReplayable, PropertyFailure
from rulekit.tools.verify.options import Stats, VerifyOptions
from rulekit.tools.verify.shrink import play_sequence

#: A failure as it travels between processes: game number, key, players, seed, action texts.
Found = tuple[int, str, int, int, list[str]]


@define
class GameRecord:
    """What one game added to its lane's statistics and coverage."""

    number: int
    games: int = 0
    actions: int = 0
    invariant_checks: int = 0
    property_checks: int = 0
    longest: int = 0
    fired: dict[str, int] = field(factory=dict)
    conditions: dict[str, tuple[int, int]] = field(factory=dict)
    branches: list[tuple[Span, int, int]] = field(factory=list)
    closest: dict[str, tuple[int, str]] = field(factory=dict)
    counts: dict[str, int] = field(factory=dict)


class Lane:
    """One lane: an explorer with its own checker, coverage and corpus, and what it had counted
    after its previous game (to record each game's contribution)."""

    def __init__(self, options: VerifyOptions, index: int) -> None:
        self.index = index
        self.stats = Stats()
        program, counts = player_counts(options)
        self.coverage = Coverage(program) if options.coverage else None
        checker = Checker(self.coverage.instrument() if self.coverage else program, self.stats)
        if self.coverage is not None:
            checker.fired = self.coverage.fire
            checker.branch = self.coverage.branch
        self.explorer = Explorer(options, checker, counts, self.coverage)
        self._fired: dict[str, int] = {}
        self._conditions: dict[str, tuple[int, int]] = {}
        self._branches: dict[Span, list[int]] = {}
        self._closest: dict[str, tuple[int, str]] = {}
        self._stats = (0, 0, 0, 0)
        self._counts: dict[str, int] = {}

    def play(self, number: int) -> tuple[GameRecord, PropertyFailure | None]:
        """Play game ``number``; what it added, and its failure (if any)."""
        failure = None
        try:
            self.explorer.play(number)
        except PropertyFailure as found:
            failure = found
        return self._record(number), failure

    def _record(self, number: int) -> GameRecord:
        stats = self.stats
        now = (stats.games, stats.actions, stats.invariant_checks, stats.property_checks)
        games, actions, invariant_checks, property_checks = (
            a - b for a, b in zip(now, self._stats, strict=True)
        )
        self._stats = now
        record = GameRecord(number, games, actions, invariant_checks, property_checks, stats.longest)
        record.counts = {k: n - self._counts.get(k, 0) for k, n in stats.counts.items()}
        self._counts = dict(stats.counts)
        coverage = self.coverage
        if coverage is None:
            return record
        for key, count in coverage.fired.items():
            if count != self._fired.get(key, 0):
                record.fired[key] = count - self._fired.get(key, 0)
        self._fired = dict(coverage.fired)
        for key, condition in coverage.conditions.items():
            true, false = self._conditions.get(key, (0, 0))
            if (condition.true, condition.false) != (true, false):
                record.conditions[key] = (condition.true - true, condition.false - false)
                self._conditions[key] = (condition.true, condition.false)
        for span, counts in coverage.branches.items():
            before = self._branches.get(span)
            if before is None:
                before = self._branches[span] = [0] * len(counts)
            for index, count in enumerate(counts):
                if count != before[index]:
                    record.branches.append((span, index, count - before[index]))
                    before[index] = count
        for key, found in coverage.closest.items():
            if self._closest.get(key) != found:
                record.closest[key] = found
        self._closest = dict(coverage.closest)
        return record


class _Bound:
    """The lowest failing game number so far (in one process)."""

    def __init__(self, value: int) -> None:
        self.value = value

    def get_lock(self) -> Any:
        return contextlib.nullcontext()


def play_lanes(
    options: VerifyOptions, lanes: Sequence[int], bound: Any, progress: Callable[[GameRecord], None]
) -> tuple[list[GameRecord], tuple[int, PropertyFailure] | None]:
    """Play the games of ``lanes`` in increasing game number, stopping before the first game
    above ``bound.value`` (lowered, under its lock, by a failure); each game's record, and this
    process's lowest failure."""
    count = options.lanes
    playing: dict[int, Lane] = {}  # each lane set up at its first game
    records: list[GameRecord] = []
    for start in range(0, options.examples, count):
        for index in sorted(lanes):
            number = start + index
            if number >= options.examples:
                break
            if number > bound.value:
                return records, None
            lane = playing.get(index)
            if lane is None:
                lane = playing[index] = Lane(options, index)
            record, failure = lane.play(number)
            records.append(record)
            progress(record)
            if failure is not None:
                with bound.get_lock():
                    if number < bound.value:
                        bound.value = number
                return records, (number, failure)  # the other lanes here only play above it
    return records, None


_BOUND: Any = None
_PLAYED: Any = None


def _init(bound: Any, played: Any) -> None:
    global _BOUND, _PLAYED
    _BOUND, _PLAYED = bound, played


def _count(record: GameRecord) -> None:
    with _PLAYED.get_lock():
        _PLAYED[0] += record.games
        _PLAYED[1] += record.actions
        _PLAYED[2] += record.invariant_checks


def _worker(options: VerifyOptions, lanes: list[int]) -> tuple[list[GameRecord], Found | None]:
    """Play ``lanes`` (in a worker process); the failure travels as action texts."""
    records, found = play_lanes(options, lanes, _BOUND, _count)
    if found is None:
        return records, None
    number, failure = found
    return records, found_texts(number, failure)


def explore(
    options: VerifyOptions,
    stats: Stats,
    coverage: Coverage | None,
    progress: Callable[[], None] = lambda: None,
) -> PropertyFailure | None:
    """Explore ``options.examples`` games in ``options.lanes`` lanes over ``options.workers``
    processes, merging the statistics and coverage of the games up to the first failure (all
    games if none) into ``stats`` and ``coverage``; that failure, or ``None``."""
    lanes = max(1, min(options.lanes, options.examples))
    workers = max(1, min(options.workers, lanes))
    records: list[GameRecord] = []
    failure: PropertyFailure | None = None
    number = options.examples
    if workers == 1 and options.executor != "ray":

        def count(record: GameRecord) -> None:
            stats.games += record.games
            stats.actions += record.actions
            stats.invariant_checks += record.invariant_checks
            progress()

        live = (stats.games, stats.actions, stats.invariant_checks)  # counted for progress only
        records, found = play_lanes(options, range(lanes), _Bound(options.examples), count)
        stats.games, stats.actions, stats.invariant_checks = live  # the records are merged below
        if found is not None:
            number = found[0]
            failure = rebuild(options, found_texts(*found))  # as a worker's: the same result
    else:
        if options.executor == "ray":
            results = _on_ray(options, lanes)
            progress()
        else:
            results = _on_processes(options, lanes, workers, stats, progress)
        stats.games = stats.actions = stats.invariant_checks = 0
        texts: Found | None = None
        for share_records, share_found in results:
            records.extend(share_records)
            if share_found is not None and (texts is None or share_found[0] < texts[0]):
                texts = share_found
        if texts is not None:
            number = texts[0]
            failure = rebuild(options, texts)
    merge(sorted((r for r in records if r.number <= number), key=lambda r: r.number), stats, coverage)
    if failure is not None:
        stats.found_after_games = stats.games
        stats.found_after_seconds = time.perf_counter() - stats.started
    return failure


def _on_processes(
    options: VerifyOptions, lanes: int, workers: int, stats: Stats, progress: Callable[[], None]
) -> list[tuple[list[GameRecord], Found | None]]:
    """The lanes dealt to ``workers`` forked processes sharing the bound; each share's records
    and lowest failure."""
    context = multiprocessing.get_context("fork")
    bound = context.Value("q", options.examples)
    played = context.Array("q", 3)
    with ProcessPoolExecutor(
        workers, mp_context=context, initializer=_init, initargs=(bound, played)
    ) as pool:
        shares = [pool.submit(_worker, options, list(range(w, lanes, workers))) for w in range(workers)]
        while True:
            done, running = wait(shares, timeout=0.25, return_when=FIRST_EXCEPTION)
            stats.games, stats.actions, stats.invariant_checks = played[:]
            progress()
            if not running or any(share.exception() for share in done):
                break
        return [share.result() for share in shares]


def play_lane(options: VerifyOptions, lane: int) -> tuple[list[GameRecord], Found | None]:
    """One lane to its end or its first failure (a Ray task: no bound is shared between lanes,
    so a lane may play games above another lane's failure; their records are left out when
    merged, as a process's are)."""
    records, found = play_lanes(options, [lane], _Bound(options.examples), lambda record: None)
    return records, None if found is None else found_texts(*found)


def _on_ray(options: VerifyOptions, lanes: int) -> list[tuple[list[GameRecord], Found | None]]:
    """Each lane as a task of a Ray cluster (``--executor ray``; ``--address``, else a local
    Ray on 127.0.0.1 only: :func:`rulekit.tools.runner.start_ray`). The rules are named by
    absolute paths, which must hold the same rules on every node.

    Raises:
        UsageError: Ray is not installed.
    """
    try:
        import ray
    except ImportError:
        raise UsageError(Diagnostic("--executor ray needs Ray", hint="pip install 'rulekit[ray]'")) from None
    from rulekit.tools.runner import start_ray

    if not ray.is_initialized():
        start_ray(options.address)
        atexit.register(ray.shutdown)
    remote = ray.remote(play_lane)
    portable = attrs.evolve(
        options,
        ruleset=_absolute(options.ruleset),
        variants=tuple(_absolute(v) for v in options.variants),
        progress=False,
    )
    results: list[tuple[list[GameRecord], Found | None]] = ray.get(
        [remote.remote(portable, lane) for lane in range(lanes)]
    )
    return results


def _absolute(path: str) -> str:
    """A path that exists here as an absolute path (a bundled ruleset's name as it is)."""
    return str(Path(path).resolve()) if Path(path).exists() else path


def rebuild(options: VerifyOptions, found: Found) -> PropertyFailure:
    """The failure a lane found, rebuilt here by replaying its actions with the checks the
    exploration made (the same checker mode, the end-of-game checks after the last action; a
    game that did not end: called unfinished there), whichever process played it.

    Raises:
        RuntimeError: the replay does not fail the same way (a bug in rulekit: a check that
            depends on more than the game's actions, players and seed).
    """
    _, key, players, seed, texts = found
    program, _ = player_counts(options)
    checker = Checker(program, Stats())
    failure: PropertyFailure | None = None
    try:
        state = play_sequence(checker, players, seed, texts)
        checker.finish(state)
        if key == "engine:ends":
            failure = checker.unfinished(state, options.max_actions)
    except PropertyFailure as raised:
        failure = raised
    except NotReplayable:
        failure = None
    if failure is None or failure.key != key or len(failure.history) != len(texts):
        raise RuntimeError(f"a lane's counterexample ({key}) did not fail the same way when replayed")
    return failure


def found_texts(number: int, failure: PropertyFailure) -> Found:
    """A failure as it travels between processes (and is rebuilt from)."""
    return number, failure.key, failure.players, failure.seed, [text for _, text in failure.history]


def merge(records: Sequence[GameRecord], stats: Stats, coverage: Coverage | None) -> None:
    """Add ``records`` (in game order) to ``stats`` and ``coverage``."""
    for record in records:
        stats.games += record.games
        stats.actions += record.actions
        stats.invariant_checks += record.invariant_checks
        stats.property_checks += record.property_checks
        stats.longest = max(stats.longest, record.longest)
        for name, count in record.counts.items():
            stats.counts[name] = stats.counts.get(name, 0) + count
        if coverage is None:
            continue
        for key, count in record.fired.items():
            coverage.fired[key] = coverage.fired.get(key, 0) + count
        for key, (true, false) in record.conditions.items():
            condition = coverage.conditions.get(key)
            if condition is not None:
                condition.true += true
                condition.false += false
        for span, index, count in record.branches:
            counts = coverage.branches.get(span)
            if counts is not None and index < len(counts):
                counts[index] += count
        for key, found in record.closest.items():
            best = coverage.closest.get(key)
            if best is None or found[0] < best[0]:
                coverage.closest[key] = found
