"""``verify --workers N``: the exploration's games split over N processes.

Game *n* is seeded from ``(--seed, n)``, so worker *w* plays games ``w, w + N, w + 2N, ...``
and the games are the same whichever process plays them (each worker keeps its own
coverage corpus, so the coverage-guided choices differ from a one-process run). The
first worker to find a violation tells the others to stop; its counterexample comes
back as action texts and is replayed here, with every check, to rebuild the failure.
Coverage and statistics are summed.
"""

from __future__ import annotations

import multiprocessing
from concurrent.futures import ProcessPoolExecutor
from typing import Any

from rulekit.tools.verify.checker import Checker
from rulekit.tools.verify.coverage import Coverage
from rulekit.tools.verify.explore import Explorer, player_counts
from rulekit.tools.verify.failures import PropertyFailure
from rulekit.tools.verify.options import Stats, VerifyOptions
from rulekit.tools.verify.shrink import find_failure

_STOP: Any = None


def _init(stop: Any) -> None:
    global _STOP
    _STOP = stop


def _share(options: VerifyOptions, index: int, workers: int) -> dict[str, Any]:
    """Play this worker's share of the games (run in a worker process)."""
    stats = Stats()
    program, counts = player_counts(options)
    coverage = Coverage(program) if options.coverage else None
    checker = Checker(coverage.instrument() if coverage else program, stats)
    if coverage is not None:
        checker.fired = coverage.fire
        checker.branch = coverage.branch
    explorer = Explorer(options, checker, counts, coverage)
    failure = explorer.run(
        range(index, options.examples, workers), stop=lambda: _STOP is not None and _STOP.is_set()
    )
    found = None
    if failure is not None:
        if _STOP is not None:
            _STOP.set()
        found = (failure.key, failure.players, failure.seed, [text for _, text in failure.history])
    return {
        "stats": (stats.games, stats.actions, stats.invariant_checks, stats.property_checks, stats.longest),
        "fired": dict(coverage.fired) if coverage else {},
        "conditions": {k: (c.true, c.false) for k, c in coverage.conditions.items()} if coverage else {},
        "branches": list(coverage.branches.items()) if coverage else [],
        "closest": dict(coverage.closest) if coverage else {},
        "failure": found,
    }


def explore_in_workers(
    options: VerifyOptions, workers: int, stats: Stats, coverage: Coverage | None
) -> PropertyFailure | None:
    """Explore with ``workers`` processes, adding their statistics and coverage to ``stats`` and
    ``coverage``; the first failure found (replayed and rebuilt here), or ``None``."""
    context = multiprocessing.get_context("fork")
    stop = context.Event()
    with ProcessPoolExecutor(workers, mp_context=context, initializer=_init, initargs=(stop,)) as pool:
        shares = [pool.submit(_share, options, i, workers) for i in range(workers)]
        results = [share.result() for share in shares]
    found = None
    for result in results:
        games, actions, invariant_checks, property_checks, longest = result["stats"]
        stats.longest = max(stats.longest, longest)
        stats.games += games
        stats.actions += actions
        stats.invariant_checks += invariant_checks
        stats.property_checks += property_checks
        if coverage is not None:
            for key, count in result["fired"].items():
                coverage.fired[key] = coverage.fired.get(key, 0) + count
            for key, (true, false) in result["conditions"].items():
                condition = coverage.conditions.get(key)
                if condition is not None:
                    condition.true += true
                    condition.false += false
            for key, found in result["closest"].items():
                best = coverage.closest.get(key)
                if best is None or found[0] < best[0]:
                    coverage.closest[key] = found
            for span, counts in result["branches"]:
                for index, count in enumerate(counts):
                    if count:
                        coverage.branch(span, index)
                        coverage.branches[span][index] += count - 1
        if found is None and result["failure"] is not None:
            found = result["failure"]
    if found is None:
        return None
    key, players, seed, texts = found
    program, _ = player_counts(options)
    return find_failure(Checker(program, Stats()), players, seed, texts, key)
