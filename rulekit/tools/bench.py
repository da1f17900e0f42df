"""Benchmark: random playouts per CPU second, what one action costs, and OpenSpiel alongside.

``rulekit bench RULESET`` measures one configuration; ``rulekit bench --all`` every
bundled ruleset at every player count (and, for a ruleset with modules, also with all
of them).  Figures are CPU time of the measuring process (``time.process_time``), so
other programs on a shared machine disturb them less than wall-clock time would; they
are still noisy, which is why OpenSpiel's games run in the same process, in rounds that
alternate with ours, and every ratio is given as min/median/max over the rounds.

A ruleset with an OpenSpiel counterpart names it in an ``openspiel.json`` next to its
``ruleset.yaml``::

    {"python": "python_tic_tac_toe", "cpp": "tic_tac_toe"}

Rulesets without one print no ratio.
"""

from __future__ import annotations

import argparse
import json
import platform
import random
import statistics
import time
from collections.abc import Callable, Iterator, Sequence
from pathlib import Path
from typing import Any

from attrs import asdict, frozen

from rulekit.engine.game import Game, State

#: Figures of a row, in table order, with their column heading and format.
FIGURES: tuple[tuple[str, str, str], ...] = (
    ("playouts_per_s", "playouts/s", "{:,.1f}"),
    ("actions_per_s", "actions/s", "{:,.0f}"),
    ("us_per_action", "us/action", "{:,.1f}"),
    ("legal_us", "legal us", "{:,.1f}"),
    ("clone_us", "clone us", "{:,.2f}"),
    ("state_fields", "fields", "{:,.0f}"),
)
#: Figures where smaller is better (the others: larger is better).
SMALLER_IS_BETTER = frozenset({"us_per_action", "legal_us", "clone_us"})


@frozen
class BenchResult:
    """Playouts and actions done in ``seconds`` of CPU time."""

    playouts: int
    actions: int
    seconds: float

    @property
    def playouts_per_second(self) -> float:
        return self.playouts / self.seconds if self.seconds else 0.0


@frozen
class Case:
    """One configuration to measure."""

    ruleset: str
    players: int
    modules: tuple[str, ...] = ()

    @property
    def key(self) -> str:
        mods = f" +{','.join(self.modules)}" if self.modules else ""
        return f"{self.ruleset} {self.players}p{mods}"


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


# ------------------------------------------------------------ playout loops


def bench_rulekit(game: Game, seconds: float, seed: int = 0, max_actions: int = 100_000) -> BenchResult:
    """Uniformly random playouts from fresh states (seeds seed, seed+1, ...) for ``seconds``."""
    return _random_playouts(lambda n: game.new_initial_state(seed + n), seconds, seed, max_actions)


def _random_playouts(
    new_state: Callable[[int], Any],
    seconds: float,
    seed: int,
    max_actions: int | None = None,
) -> BenchResult:
    """Play uniformly random games from ``new_state(playout number)`` for ``seconds`` of CPU
    time (at least one game).

    Works on anything with OpenSpiel's state API (``is_terminal``, ``legal_actions``,
    ``apply_action``); a game is cut off after ``max_actions`` when that is given.
    """
    rng = random.Random(seed)
    clock = time.process_time
    wall = time.perf_counter
    playouts = actions = 0
    start = clock()
    deadline = start + seconds
    now = start
    # Reading the CPU clock is a system call (several microseconds on some machines, as much
    # as a tic-tac-toe action): read it only every few milliseconds of wall-clock time.
    check_at = wall()
    while True:
        state = new_state(playouts)
        taken = 0
        while not state.is_terminal() and (max_actions is None or taken < max_actions):
            state.apply_action(rng.choice(state.legal_actions()))
            taken += 1
        actions += taken
        playouts += 1
        if wall() >= check_at:
            now = clock()
            if now >= deadline:
                break
            check_at = wall() + min(0.005, deadline - now)
    return BenchResult(playouts, actions, now - start)


def openspiel_installed() -> bool:
    import importlib.util

    return importlib.util.find_spec("pyspiel") is not None


def _seeded(game: Game, seed: int) -> Callable[[int], State]:
    return lambda n: game.new_initial_state(seed + n)


def load_openspiel(name: str) -> Any | None:
    """An OpenSpiel game by name (its Python games registered), or None when OpenSpiel is
    not installed or has no such game."""
    import importlib

    try:
        importlib.import_module("open_spiel.python.games")  # registers OpenSpiel's Python games
        pyspiel = importlib.import_module("pyspiel")
    except ImportError:
        return None
    try:
        return pyspiel.load_game(name)
    except Exception:  # pyspiel raises its own error type for unknown names
        return None


def bench_openspiel(game: Any, seconds: float, seed: int = 0) -> BenchResult:
    """The same random playout loop on an OpenSpiel game."""
    return _random_playouts(lambda _: game.new_initial_state(), seconds, seed)


def openspiel_counterparts(ruleset_dir: Path) -> dict[str, str]:
    """The OpenSpiel games named in ``openspiel.json`` of a ruleset directory (``python``, ``cpp``)."""
    path = ruleset_dir / "openspiel.json"
    try:
        data = json.loads(path.read_text(encoding="utf-8"))
    except (OSError, ValueError):
        return {}
    if not isinstance(data, dict):
        return {}
    return {k: str(v) for k, v in data.items() if k in ("python", "cpp")}


# ------------------------------------------------------------- measuring


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
        ours.append(_random_playouts(_seeded(game, round_seed), per_round, round_seed))
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
    for kind, results in theirs.items():
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
    )


def all_cases() -> list[Case]:
    """Every bundled ruleset at every player count; with modules, also all modules together
    (at the player counts the modules allow)."""
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

    game = load_game(case.ruleset, case.players, case.modules)
    counterparts = {}
    for kind, name in openspiel_counterparts(find_ruleset(case.ruleset)).items():
        spiel = load_openspiel(name)
        if spiel is not None:
            counterparts[kind] = spiel
    return measure(game, case, seconds, seed, rounds, counterparts)


def _run_case_args(args: tuple[Case, float, int, int]) -> Row:
    return run_case(*args)


def run_cases(cases: Sequence[Case], seconds: float, seed: int, rounds: int, workers: int = 1) -> list[Row]:
    """Measure every case; with ``workers`` > 1, that many cases at once in worker processes
    (each figure is still one process's CPU time, so rows stay per-core figures)."""
    jobs = [(case, seconds, seed, rounds) for case in cases]
    if workers <= 1 or len(jobs) <= 1:
        return [_run_case_args(job) for job in jobs]
    import multiprocessing

    with multiprocessing.get_context("spawn").Pool(min(workers, len(jobs))) as pool:
        rows = pool.map(_run_case_args, jobs, chunksize=1)
    return [_with_workers(row, workers) for row in rows]


def _with_workers(row: Row, workers: int) -> Row:
    import attrs

    return attrs.evolve(row, workers=workers)


# -------------------------------------------------------------- reporting


def format_table(rows: Sequence[Row]) -> Iterator[str]:
    """The rows as an aligned text table; OpenSpiel ratios below it."""
    width = max([len("configuration"), *(len(r.key) for r in rows)])
    head = f"{'configuration':<{width}}" + "".join(f"  {title:>11}" for _, title, _ in FIGURES)
    yield head
    yield "-" * len(head)
    for row in rows:
        yield f"{row.key:<{width}}" + "".join(
            f"  {fmt.format(getattr(row, name)):>11}" for name, _, fmt in FIGURES
        )
    for row in rows:
        for kind, ratio in (("Python", row.openspiel_python), ("C++", row.openspiel_cpp)):
            if ratio is not None:
                low, mid, high = ratio
                yield (
                    f"{row.key}: rulekit / OpenSpiel {kind} playouts per CPU second "
                    f"{mid:.2f}x (min {low:.2f}x, max {high:.2f}x)"
                )


def to_json(rows: Sequence[Row], meta: dict[str, Any]) -> dict[str, Any]:
    return {"meta": meta, "rows": [asdict(r) for r in rows]}


def compare(rows: Sequence[Row], baseline: dict[str, Any]) -> Iterator[str]:
    """Each figure against the same configuration in a saved ``--json`` file, as a factor
    (> 1 is better, whichever way the figure goes)."""
    old = {r["key"]: r for r in baseline.get("rows", [])}
    width = max([len("configuration"), *(len(r.key) for r in rows)])
    head = f"{'configuration':<{width}}" + "".join(f"  {title:>11}" for _, title, _ in FIGURES[:4])
    label = baseline.get("meta", {}).get("label", "the baseline")
    yield f"change against {label} (x > 1: better)"
    yield head
    yield "-" * len(head)
    for row in rows:
        before = old.get(row.key)
        if before is None:
            yield f"{row.key:<{width}}  (not in the baseline)"
            continue
        cells = []
        for name, _, _ in FIGURES[:4]:
            new, was = getattr(row, name), before.get(name) or 0
            if not new or not was:
                cells.append("-")
                continue
            factor = was / new if name in SMALLER_IS_BETTER else new / was
            cells.append(f"{factor:.2f}x")
        yield f"{row.key:<{width}}" + "".join(f"  {c:>11}" for c in cells)


def write_json(path: Path, data: dict[str, Any]) -> None:
    """Write atomically: a temporary file next to ``path``, then renamed over it."""
    path.parent.mkdir(parents=True, exist_ok=True)
    tmp = path.with_name(path.name + ".tmp")
    tmp.write_text(json.dumps(data, indent=2) + "\n", encoding="utf-8")
    tmp.replace(path)


def measure_game(game: Game, ruleset_dir: Path | None, seconds: float, seed: int = 0, rounds: int = 5) -> Row:
    """Measure one loaded game (with OpenSpiel alongside when its directory names a counterpart)."""
    case = Case(game.program.name, game.num_players, tuple(game.program.rules.modules))
    counterparts = {}
    names = openspiel_counterparts(ruleset_dir) if ruleset_dir is not None else {}
    for kind, name in names.items():
        spiel = load_openspiel(name)
        if spiel is not None:
            counterparts[kind] = spiel
    return measure(game, case, seconds, seed, rounds, counterparts)


def openspiel_note(ruleset_dirs: Sequence[Path]) -> str | None:
    """A line to print when a ruleset has an OpenSpiel counterpart but OpenSpiel is missing."""
    if any(openspiel_counterparts(d) for d in ruleset_dirs) and not openspiel_installed():
        return "OpenSpiel is not installed (pip install 'rulekit[openspiel]'): no OpenSpiel ratios"
    return None


# ---------------------------------------------------------------- command


def add_arguments(parser: argparse.ArgumentParser) -> None:
    """The options of ``rulekit bench``."""
    parser.add_argument("ruleset", metavar="RULESET", nargs="?", help="a ruleset name or directory")
    parser.add_argument("--all", action="store_true", help="every bundled ruleset at every player count")
    parser.add_argument("--players", type=int, metavar="N", help="number of players (default: the minimum)")
    parser.add_argument(
        "--seconds",
        type=float,
        metavar="S",
        help="CPU seconds of playouts per configuration (default 3; with --all 1)",
    )
    parser.add_argument(
        "--rounds", type=int, default=5, metavar="N", help="rounds per configuration (default 5)"
    )
    parser.add_argument("--seed", type=int, default=0, metavar="S", help="first seed (default 0)")
    parser.add_argument("--json", metavar="FILE", help="also write the figures to FILE as JSON")
    parser.add_argument("--label", metavar="TEXT", help="a name for this run, kept in the JSON file")
    parser.add_argument(
        "--compare", metavar="FILE", help="show each figure's change against a file written by --json"
    )
    parser.add_argument(
        "--workers",
        type=int,
        default=1,
        metavar="N",
        help="measure N configurations at once in N processes (default 1: figures are per core; "
        "more workers finish sooner but share the machine)",
    )


def check_arguments(args: argparse.Namespace) -> None:
    """Raises:
    UsageError: contradictory or out-of-range options."""
    from rulekit.errors import Diagnostic, UsageError

    if args.all == (args.ruleset is not None):
        raise UsageError(Diagnostic("give a RULESET or --all (not both)"))
    if args.all and (args.players is not None or args.modules or args.variants):
        raise UsageError(
            Diagnostic("--all measures every configuration itself; drop --players/--with/--variant")
        )
    if (args.seconds is not None and args.seconds <= 0) or args.rounds < 1 or args.workers < 1:
        raise UsageError(Diagnostic("--seconds must be positive; --rounds and --workers at least 1"))


def run_command(args: argparse.Namespace, game: Game | None) -> Iterator[str]:
    """Run ``rulekit bench`` and yield its report lines.

    Raises:
        UsageError: contradictory or out-of-range options, an unreadable ``--compare`` file.
    """
    from rulekit.errors import Diagnostic, UsageError
    from rulekit.rules.compose import find_ruleset

    check_arguments(args)
    seconds = args.seconds if args.seconds is not None else (1.0 if args.all else 3.0)
    baseline = None
    if args.compare:
        try:
            baseline = json.loads(Path(args.compare).read_text(encoding="utf-8"))
        except (OSError, ValueError) as error:
            raise UsageError(Diagnostic(f"cannot read --compare {args.compare}: {error}")) from None
    if args.all:
        cases = all_cases()
        dirs = sorted({find_ruleset(c.ruleset) for c in cases})
        yield (
            f"rulekit bench --all: {len(cases)} configurations, {seconds:g} CPU s each "
            f"in {args.rounds} rounds, {args.workers} worker(s)"
        )
        note = openspiel_note(dirs)
        if note:
            yield note
        rows = run_cases(cases, seconds, args.seed, args.rounds, args.workers)
    else:
        assert game is not None
        program = game.program
        directory = find_ruleset(args.ruleset)
        yield (
            f"rulekit {program.name} (fingerprint {program.fingerprint}), {game.num_players} players, "
            f"{seconds:g} CPU s of random playouts in {args.rounds} rounds"
        )
        note = openspiel_note([directory])
        if note:
            yield note
        rows = [measure_game(game, directory, seconds, args.seed, args.rounds)]
    yield from format_table(rows)
    if baseline is not None:
        yield ""
        yield from compare(rows, baseline)
    if args.json:
        meta = {
            "label": args.label or "",
            "seconds": seconds,
            "rounds": args.rounds,
            "seed": args.seed,
            "workers": args.workers,
            "python": platform.python_version(),
            "machine": platform.machine(),
            "rulekit": _version(),
        }
        write_json(Path(args.json), to_json(rows, meta))
        yield f"figures written to {args.json}"


def _version() -> str:
    from importlib import metadata

    try:
        return metadata.version("rulekit")
    except metadata.PackageNotFoundError:
        return "unknown"
