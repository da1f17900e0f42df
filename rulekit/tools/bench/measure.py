"""Measure configurations: playouts, per-action and per-call costs, OpenSpiel ratios in
alternating rounds; one configuration, or every bundled one over worker processes."""

from __future__ import annotations

import random
import statistics
import time
from collections.abc import Callable, Sequence
from pathlib import Path
from typing import Any

from attrs import frozen

from rulekit.engine.game import Game, State
from rulekit.tools.bench.playouts import (
    BenchResult,
    Counterpart,
    bench_openspiel,
    load_openspiel,
    openspiel_counterpart,
    random_playouts,
)


@frozen
class Case:
    """One configuration to measure."""

    ruleset: str
    players: int
    modules: tuple[str, ...] = ()
    variants: tuple[str, ...] = ()

    @property
    def key(self) -> str:
        mods = f" +{','.join(self.modules)}" if self.modules else ""
        variants = f" ~{','.join(self.variants)}" if self.variants else ""
        return f"{self.ruleset} {self.players}p{mods}{variants}"


@frozen
class Row:
    """The figures measured for one :class:`Case`; ratios are (min, median, max) or None."""

    key: str
    ruleset: str
    players: int
    modules: tuple[str, ...]
    playouts: int
    actions: int
    seconds: float
    playouts_per_s: float
    actions_per_s: float
    us_per_action: float
    legal_us: float
    clone_us: float
    state_fields: int
    workers: int = 1
    openspiel_python: tuple[float, float, float] | None = None
    openspiel_cpp: tuple[float, float, float] | None = None
    #: Against each OpenSpiel counterpart: (kind, its game, rulekit's and its CPU ms per
    #: random playout over all rounds, then the time ratio rulekit / OpenSpiel per round as
    #: min, median, max).
    against: tuple[tuple[str, str, float, float, float, float, float], ...] = ()


def _seeded(game: Game, seed: int) -> Callable[[int], State]:
    return lambda n: game.new_initial_state(seed + n)


def sample_states(game: Game, seed: int, count: int = 300, every: int = 7) -> list[State]:
    """States met in random playouts (every ``every``-th decision), for per-call figures."""
    rng = random.Random(seed)
    found: list[State] = []
    playout = 0
    while len(found) < count and playout < 50:
        state = game.new_initial_state(seed + playout)
        taken = 0
        while not state.is_terminal() and len(found) < count:
            if taken % every == 0:
                found.append(state.clone())
            state.apply_action(rng.choice(state.legal_actions()))
            taken += 1
        playout += 1
    return found


def _per_call_us(states: Sequence[State], fn: Callable[[State], Any], budget: float) -> float:
    """Mean CPU microseconds of ``fn(state)`` over the sampled states, repeated within ``budget``."""
    if not states:
        return 0.0
    clock = time.process_time
    calls = 0
    start = clock()
    while True:
        for state in states:
            fn(state)
        calls += len(states)
        elapsed = clock() - start
        if elapsed >= budget:
            return elapsed / calls * 1e6


def _fresh_listing(state: State) -> Any:
    return State(state.game, state.fields).legal_actions()


def measure(
    game: Game,
    case: Case,
    seconds: float,
    seed: int = 0,
    rounds: int = 5,
    counterparts: dict[str, Any] | None = None,
) -> Row:
    """Measure one case: ``rounds`` rounds of random playouts (alternating with OpenSpiel's
    games when ``counterparts`` are given), then legal-action listing and clone on states
    sampled from the playouts."""
    counterparts = counterparts or {}
    per_round = seconds / rounds
    ours: list[BenchResult] = []
    theirs: dict[str, list[BenchResult]] = {k: [] for k in counterparts}
    for r in range(rounds):
        round_seed = seed + 1_000_003 * r
        ours.append(random_playouts(_seeded(game, round_seed), per_round, round_seed))
        for kind, spiel in counterparts.items():
            theirs[kind].append(bench_openspiel(spiel, per_round, round_seed))
    playouts = sum(b.playouts for b in ours)
    actions = sum(b.actions for b in ours)
    cpu = sum(b.seconds for b in ours)
    sample = sample_states(game, seed)
    legal_us = _per_call_us(sample, _fresh_listing, min(0.5, seconds / 4))
    clone_us = _per_call_us(sample, State.clone, min(0.2, seconds / 10))
    fields = round(statistics.mean(len(s.fields) for s in sample)) if sample else 0
    ratios: dict[str, tuple[float, float, float]] = {}
    against = []
    for kind, results in theirs.items():
        slower = sorted(
            o.seconds / o.playouts / (t.seconds / t.playouts)
            for o, t in zip(ours, results, strict=True)
            if o.playouts and t.playouts and t.seconds
        )
        their_playouts, their_cpu = sum(t.playouts for t in results), sum(t.seconds for t in results)
        if slower and playouts and their_playouts:
            ms, their_ms = cpu / playouts * 1e3, their_cpu / their_playouts * 1e3
            mid = statistics.median(slower)
            against.append((kind, str(counterparts[kind]), ms, their_ms, slower[0], mid, slower[-1]))
        per = sorted(
            o.playouts_per_second / t.playouts_per_second
            for o, t in zip(ours, results, strict=True)
            if t.playouts_per_second
        )
        if per:
            ratios[kind] = (per[0], statistics.median(per), per[-1])
    return Row(
        key=case.key,
        ruleset=case.ruleset,
        players=case.players,
        modules=case.modules,
        playouts=playouts,
        actions=actions,
        seconds=cpu,
        playouts_per_s=playouts / cpu if cpu else 0.0,
        actions_per_s=actions / cpu if cpu else 0.0,
        us_per_action=cpu / actions * 1e6 if actions else 0.0,
        legal_us=legal_us,
        clone_us=clone_us,
        state_fields=fields,
        openspiel_python=ratios.get("python"),
        openspiel_cpp=ratios.get("cpp"),
        against=tuple(against),
    )


def all_cases() -> list[Case]:
    """Every bundled ruleset at every player count; with modules, also all modules together
    (at the player counts the modules allow); and the configuration its OpenSpiel counterpart
    plays when that is none of these (variants chosen in ``openspiel.json``)."""
    from rulekit.errors import RulekitError
    from rulekit.rules.compose import available_rulesets, load_source, module_order

    cases = []
    for name in available_rulesets():
        source = load_source(name)
        low, high = _player_range(source.data)
        for players in range(max(2, low), min(5, high) + 1):
            cases.append(Case(name, players))
        if source.modules:
            modules = sorted(source.modules)
            for players in range(max(2, low), min(5, high) + 1):
                try:
                    ordered = module_order(source, modules, players)
                except RulekitError:
                    continue
                cases.append(Case(name, players, tuple(m.name for m in ordered)))
        counterpart = openspiel_counterpart(source.directory)
        if counterpart is not None and counterpart.variants:
            cases.append(Case(name, counterpart.players or max(2, low), (), counterpart.variants))
    return cases


def _player_range(data: Any) -> tuple[int, int]:
    players = data.get("players", {}) if isinstance(data, dict) else {}
    try:
        return int(players.get("min", 2)), int(players.get("max", 5))
    except (TypeError, ValueError, AttributeError):
        return 2, 5


def run_case(case: Case, seconds: float, seed: int, rounds: int) -> Row:
    """Load and measure one case (the unit of work a worker process runs)."""
    from rulekit.load import load_game
    from rulekit.rules.compose import find_ruleset

    game = load_game(case.ruleset, case.players, case.modules, case.variants)
    low = game.program.rules.min_players
    counterpart = openspiel_counterpart(find_ruleset(case.ruleset))
    counterparts = {}
    if counterpart is not None and counterpart.matches(case.players, case.modules, case.variants, low):
        counterparts = _loaded(counterpart)
    return measure(game, case, seconds, seed, rounds, counterparts)


def _loaded(counterpart: Counterpart) -> dict[str, Any]:
    """The counterpart's OpenSpiel games that load (none without OpenSpiel)."""
    found = {}
    for kind, name in counterpart.games.items():
        spiel = load_openspiel(name, counterpart.params)
        if spiel is not None:
            found[kind] = spiel
    return found


def _run_case_args(args: tuple[Case, float, int, int]) -> Row:
    return run_case(*args)


def run_cases(cases: Sequence[Case], seconds: float, seed: int, rounds: int, workers: int = 1) -> list[Row]:
    """Measure every case; with ``workers`` > 1, that many cases at once in worker processes
    (each figure is still one process's CPU time, so rows stay per-core figures)."""
    jobs = [(case, seconds, seed, rounds) for case in cases]
    if workers <= 1 or len(jobs) <= 1:
        return [_run_case_args(job) for job in jobs]
    import multiprocessing

    processes = min(workers, len(jobs))
    with multiprocessing.get_context("spawn").Pool(processes) as pool:
        rows = pool.map(_run_case_args, jobs, chunksize=1)
    return [_with_workers(row, processes) for row in rows]


def _with_workers(row: Row, workers: int) -> Row:
    import attrs

    return attrs.evolve(row, workers=workers)


def measure_game(game: Game, ruleset_dir: Path | None, seconds: float, seed: int = 0, rounds: int = 5) -> Row:
    """Measure one loaded game (with OpenSpiel alongside when its directory names a counterpart)."""
    rules = game.program.rules
    variants = _names([path for path, _ in rules.variants])
    case = Case(game.program.name, game.num_players, tuple(rules.modules), variants)
    counterpart = openspiel_counterpart(ruleset_dir) if ruleset_dir is not None else None
    counterparts = {}
    if counterpart is not None and counterpart.matches(
        game.num_players, rules.modules, variants, rules.min_players
    ):
        counterparts = _loaded(counterpart)
    return measure(game, case, seconds, seed, rounds, counterparts)


def _names(variants: Sequence[str]) -> tuple[str, ...]:
    """Variant paths as ``openspiel.json`` names them: a shipped variant by its name."""
    return tuple(v if v.startswith("param:") else Path(v).stem for v in variants)
