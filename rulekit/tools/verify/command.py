"""``rulekit verify``: the run that ties exploration, shrinking and reporting together; its command line."""

from __future__ import annotations

import argparse
import sys
import time
from collections.abc import Callable, Sequence
from pathlib import Path
from typing import Any

import attrs
from attrs import define

from rulekit.compiler.program import Program
from rulekit.errors import RulekitError, UsageError
from rulekit.load import load_program
from rulekit.tools.bots import parse_bots
from rulekit.tools.cores import all_cores
from rulekit.tools.options import add_rules_options, module_names
from rulekit.tools.verify.checker import Checker
from rulekit.tools.verify.components import symmetric_groups
from rulekit.tools.verify.counterexample import Counterexample, make_counterexample, write_counterexample
from rulekit.tools.verify.coverage import Coverage
from rulekit.tools.verify.declared import summary as declared_summary
from rulekit.tools.verify.explore import player_counts
from rulekit.tools.verify.failures import ENGINE_PROPERTIES, PropertyFailure
from rulekit.tools.verify.generalise import summary as scenario_summary
from rulekit.tools.verify.lanes import explore
from rulekit.tools.verify.options import (
    DEFAULT_EXAMPLES,
    DEFAULT_LANES,
    DEFAULT_MAX_ACTIONS,
    DEFAULT_SHRINK_SECONDS,
    Stats,
    VerifyOptions,
)
from rulekit.tools.verify.properties import compile_properties
from rulekit.tools.verify.report import Progress, format_counterexample, no_progress
from rulekit.tools.verify.seats import asymmetry
from rulekit.tools.verify.shrink import Shrinker


@define
class VerifyResult:
    """The outcome of :func:`verify`."""

    program: Program
    stats: Stats
    counterexample: Counterexample | None = None
    coverage: Coverage | None = None

    @property
    def ok(self) -> bool:
        return self.counterexample is None


def verify(options: VerifyOptions, say: Callable[[str], None] = lambda text: None) -> VerifyResult:
    """Explore games of a ruleset and check invariants and engine properties.

    On a violation the counterexample is written at once (with ``options.out``),
    then shrunk for at most ``options.shrink_seconds`` of work (``shrink.py``), its files rewritten as it
    gets shorter. ``say`` receives a line for each stage (for a terminal).

    Raises:
        RulekitError: the ruleset cannot be loaded (with positions).
    """
    stats = Stats()
    program, counts = player_counts(options)
    coverage = None
    if options.coverage:  # the lanes' coverage is merged into this one
        coverage = Coverage(program)
        coverage.instrument()  # registers the conditions the report lists
    progress = Progress(options, stats) if options.progress else None
    stats.started = time.perf_counter()
    try:
        failure = explore(options, stats, coverage, progress or no_progress)
    finally:
        if progress is not None:
            progress.done()
    stats.seconds = time.perf_counter() - stats.started
    result = VerifyResult(program, stats, coverage=coverage)
    if failure is None:
        return result
    original = len(failure.history)
    result.counterexample = make_counterexample(program, failure, original)
    written = _Writer(options, program, original, result)
    written(failure)
    if options.shrink and failure.key != "engine:ends" and failure.history:
        say(
            f"found a counterexample of {original} action(s){written.where()}; "
            f"shrinking it (up to {options.shrink_seconds:g}s of work)"
        )
        focused = Checker(program, Stats(), full=not failure.key.startswith("invariant:"), focus=failure.key)
        shrinker = Shrinker(focused, options.shrink_seconds, counts[0], on_better=written.better)
        started = time.perf_counter()
        best = shrinker.shrink(failure)
        written(best)
        example = result.counterexample
        assert example is not None
        example.shrink_note = shrinker.describe(original, len(best.history))
        stats.shrink_seconds = time.perf_counter() - started
    elif not options.shrink and result.counterexample is not None:
        result.counterexample.shrink_note = "not shrunk (--no-shrink)"
    return result


class _Writer:
    """Keeps the result's counterexample and its files up to date while shrinking."""

    #: Rewrite the files at most this often while shrinking (and always at the end).
    EVERY = 1.0

    def __init__(self, options: VerifyOptions, program: Program, original: int, result: VerifyResult) -> None:
        self.options = options
        self.program = program
        self.original = original
        self.result = result
        self.last = 0.0
        self.pending: PropertyFailure | None = None

    def better(self, failure: PropertyFailure) -> None:
        self.pending = failure
        if time.perf_counter() - self.last >= self.EVERY:
            self(failure)

    def __call__(self, failure: PropertyFailure) -> None:
        self.last = time.perf_counter()
        self.pending = None
        example = make_counterexample(self.program, failure, self.original)
        if self.options.out is not None:
            example.files = write_counterexample(self.options, self.program, example)
        self.result.counterexample = example

    def where(self) -> str:
        example = self.result.counterexample
        if example is None or not example.files:
            return ""
        return f", written to {example.files[0].parent}"


# ------------------------------------------------------------------ command line


def add_parser(subparsers: Any) -> argparse.ArgumentParser:
    """Add ``verify`` to the CLI's subcommands."""
    parser: argparse.ArgumentParser = subparsers.add_parser(
        "verify",
        help="explore games and check invariants, properties and engine properties",
        description=(
            "Explore games of RULESET (coverage-guided, swarm-tested random play), checking every "
            "invariant of the rules and the engine properties after every action. On a violation, "
            "write a replayable log and a scenario at once, shrink them within --shrink-seconds, "
            "print the violation with the values involved and the actions, and exit 1."
        ),
    )
    parser.add_argument("ruleset", help="a bundled ruleset name or a ruleset directory")
    add_rules_options(parser)
    parser.add_argument(
        "--examples",
        type=int,
        default=DEFAULT_EXAMPLES,
        metavar="N",
        help=f"games to explore (default {DEFAULT_EXAMPLES})",
    )
    parser.add_argument(
        "--max-actions",
        type=int,
        default=DEFAULT_MAX_ACTIONS,
        metavar="M",
        help=f"every game must end within M actions, or it is a violation (default {DEFAULT_MAX_ACTIONS})",
    )
    parser.add_argument(
        "--cut-off",
        action="store_true",
        help="stop games at --max-actions without calling it a violation",
    )
    parser.add_argument(
        "--seed", type=int, default=0, metavar="S", help="exploration seed (default 0: reproducible)"
    )
    parser.add_argument("--players", type=int, default=None, metavar="N", help="only this player count")
    parser.add_argument(
        "--coverage",
        action="store_true",
        help="(the default) report actions, triggers and conditions never reached",
    )
    parser.add_argument(
        "--no-coverage",
        action="store_true",
        help="collect no coverage: the exploration is then not guided by it, and nothing is reported",
    )
    parser.add_argument(
        "--weighted",
        action="store_true",
        help="every game follows the ruleset's bots.weights (by default half the games do)",
    )
    parser.add_argument("--out", default="verify-out", metavar="DIR", help="where to write counterexamples")
    parser.add_argument("--no-shrink", action="store_true", help="report the first counterexample unshrunk")
    parser.add_argument(
        "--shrink-seconds",
        type=float,
        default=DEFAULT_SHRINK_SECONDS,
        metavar="S",
        help=f"shrink for at most S seconds of work (the rules' steps, 1,000,000 a second; not wall or "
        f"CPU time: the same result on a loaded machine); the best so far is on disk "
        f"(default {DEFAULT_SHRINK_SECONDS:g})",
    )
    parser.add_argument(
        "--mutants",
        type=int,
        nargs="?",
        const=-1,
        default=0,
        metavar="N",
        help="mutation score: try every small mutation of the rules (or a seeded sample of N), "
        "report which the scenarios and checks kill and print each survivor",
    )
    parser.add_argument(
        "--mutant-seconds",
        type=float,
        default=None,
        metavar="S",
        help="with --mutants: the work each mutant's exploration may do (the rules' steps, "
        "1,000,000 a second; default 10)",
    )
    parser.add_argument(
        "--differential",
        action="store_true",
        help="play the same games under the rules with and without --variant; report the first difference",
    )
    parser.add_argument(
        "--against",
        default=None,
        metavar="REV",
        help="play the same seeded games with another version of the rules (a git revision of the "
        "ruleset's repository, or a directory) and report the first divergence in rule terms",
    )
    parser.add_argument(
        "--suggest",
        action="store_true",
        help="watch --examples random games and write likely properties (mined from play) to "
        "OUT/RULESET-suggested.yaml, a variant for review",
    )
    parser.add_argument(
        "--allow",
        default="",
        metavar="FIELDS",
        help="with --differential: fields the variant is meant to change (player.money,game.round)",
    )
    parser.add_argument(
        "--all-combinations",
        action="store_true",
        help="verify every allowed combination of the ruleset's modules (each with --examples games)",
    )
    parser.add_argument(
        "--bots",
        default="",
        metavar="SPECS",
        help="bots (the --bots syntax of play, e.g. mcts:iterations=50,heuristic) that play a third of the "
        "games as explorers",
    )
    parser.add_argument(
        "--workers",
        type=int,
        default=all_cores(),
        metavar="N",
        help=f"explore with N processes (default: all cores, {all_cores()} here; at most --lanes are used); "
        "the result does not depend on N",
    )
    parser.add_argument(
        "--lanes",
        type=int,
        default=DEFAULT_LANES,
        metavar="L",
        help=f"deal the games to L independent explorers, lane l playing games l, l+L, ... "
        f"(default {DEFAULT_LANES}); the games played depend on L, not on --workers",
    )
    parser.add_argument(
        "--executor",
        choices=("local", "ray"),
        default="local",
        help="where the lanes run: local processes (default, --workers) or a Ray cluster, a task per lane "
        "(pip install 'rulekit[ray]'); the same result",
    )
    parser.add_argument(
        "--address",
        metavar="ADDR",
        help="with --executor ray: the cluster to join (ray.init(address=...)); default a local Ray "
        "on 127.0.0.1",
    )
    parser.add_argument("--quiet", action="store_true", help="no progress line")
    parser.add_argument(
        "--progress", action="store_true", help="a progress line even when stderr is not a terminal"
    )
    parser.set_defaults(func=run)
    return parser


def run(args: argparse.Namespace) -> int:
    """Run ``rulekit verify``: 0 if everything held; 1 on a violation (or rules that do not
    load); 2 on a usage error."""
    modules = tuple(module_names(args.modules))
    if args.examples < 1 or args.max_actions < 1 or args.lanes < 1 or not args.shrink_seconds >= 0:
        print(
            "rulekit verify: error: --examples, --max-actions and --lanes must be at least 1, "
            "--shrink-seconds at least 0",
            file=sys.stderr,
        )
        return 2
    if args.address and args.executor != "ray":
        print("rulekit verify: error: --address is for --executor ray", file=sys.stderr)
        return 2
    try:
        bots = tuple(str(spec) for spec in parse_bots(args.bots)) if args.bots else ()
    except UsageError as error:
        print(f"rulekit verify: {error}", file=sys.stderr)
        return 2
    progress = not args.quiet and (args.progress or sys.stderr.isatty())
    options = VerifyOptions(
        ruleset=args.ruleset,
        modules=modules,
        variants=tuple(args.variants or ()),
        examples=args.examples,
        max_actions=args.max_actions,
        seed=args.seed,
        players=args.players,
        coverage=not args.no_coverage,
        weighted=args.weighted,
        out=Path(args.out),
        shrink=not args.no_shrink,
        shrink_seconds=args.shrink_seconds,
        progress=progress,
        must_end=not args.cut_off,
        workers=max(1, args.workers),
        lanes=args.lanes,
        bots=bots,
        executor=args.executor,
        address=args.address,
    )
    say = _say if not args.quiet else lambda text: None
    if args.mutants != 0:
        if args.mutants < -1 or (args.mutant_seconds is not None and not args.mutant_seconds > 0):
            print("rulekit verify: error: --mutants N and --mutant-seconds must be positive", file=sys.stderr)
            return 2
        return _run_mutants(options, None if args.mutants == -1 else args.mutants, args.mutant_seconds, say)
    if args.against is not None:
        return _run_against(options, args.against)
    if args.suggest:
        return _run_suggest(options)
    if args.differential:
        return _run_differential(options, [f for f in args.allow.split(",") if f])
    if args.all_combinations:
        if modules:
            print(
                "rulekit verify: error: --all-combinations chooses the modules itself; drop --with",
                file=sys.stderr,
            )
            return 2
        return _run_all_combinations(options, say)
    return _run_one(options, say)


def _run_one(options: VerifyOptions, say: Callable[[str], None]) -> int:
    try:
        result = verify(options, say=say)
    except UsageError as error:
        print(f"rulekit verify: {error.render()}", file=sys.stderr)
        return 2
    except RulekitError as error:  # the rules do not load: as for every command, status 1
        print(error.render(), file=sys.stderr)
        return 1
    program = result.program
    modules = options.modules
    title = program.name + (f" with {', '.join(modules)}" if modules else "")
    if result.counterexample is not None:
        print(f"verify {title}: FAILED")
        print(format_counterexample(result.counterexample))
    else:
        rules = program.rules
        properties = (
            len(rules.properties)
            + sum(len(a.ensures) for a in rules.actions.values())
            + sum(len(t.ensures) for t in rules.triggers.values())
        )
        derived = sum(
            1 for prop in compile_properties(program).all() if prop.decl.name.startswith("derived:")
        )
        seen = len(rules.visibility)
        print(
            f"verify {title}: OK, {len(program.invariants)} invariant(s), {properties} transition "
            f"propert{'y' if properties == 1 else 'ies'}, "
            + (f"{seen} visibility expectation(s), " if seen else "")
            + f"{derived} derived from the rules and {len(ENGINE_PROPERTIES)} engine properties held"
        )
    print(f"  {result.stats.summary()}")
    unseen = asymmetry(program)
    if unseen is not None:
        print(f"  seat symmetry not checked: {unseen}")
    counts = result.stats.counts
    checked, skipped = counts.get("component_symmetry", 0), counts.get("component_symmetry_skipped", 0)
    print(f"  {symmetric_groups(program).summary(checked, skipped)}")
    declared = declared_summary(
        program, counts.get("declared_symmetry", 0), counts.get("declared_symmetry_skipped", 0)
    )
    if declared is not None:
        print(f"  {declared}")
    print(f"  {scenario_summary(program, result.stats)}")
    if result.coverage is not None:
        if result.counterexample is not None:
            games = result.stats.games
            print(f"(coverage of the {games} game{'' if games == 1 else 's'} played until the violation)")
        print(result.coverage.report())
    return 0 if result.ok else 1


def _run_all_combinations(options: VerifyOptions, say: Callable[[str], None]) -> int:
    """Verify every allowed combination of modules (each with the player counts it allows);
    stop at the first that fails."""
    from rulekit.tools.combinations import allowed_combinations

    try:
        combinations = allowed_combinations(options.ruleset, options.variants)
    except RulekitError as error:
        print(error.render(), file=sys.stderr)
        return 1
    for combination in combinations:
        say(f"verifying {', '.join(combination.modules) or '(no modules)'}")
        status = _run_one(attrs.evolve(options, modules=combination.modules), say)
        if status != 0:
            return status
    print(f"verify {options.ruleset}: all {len(combinations)} combinations of modules held")
    return 0


def _run_mutants(
    options: VerifyOptions, count: int | None, seconds: float | None, say: Callable[[str], None]
) -> int:
    from rulekit.rules.compose import find_ruleset
    from rulekit.tools.verify.mutation_run import DEFAULT_MUTANT_SECONDS, run_mutants, scenario_files

    options = attrs.evolve(options, shrink=False, out=None, coverage=False, progress=False)
    try:
        report = run_mutants(
            options,
            count,
            scenarios=scenario_files(options.ruleset),
            say=say,
            seconds=DEFAULT_MUTANT_SECONDS if seconds is None else seconds,
            directory=find_ruleset(options.ruleset),
        )
    except UsageError as error:
        print(f"rulekit verify: {error.render()}", file=sys.stderr)
        return 2
    except RulekitError as error:
        print(error.render(), file=sys.stderr)
        return 1
    print(report.render())
    return 0


def _run_differential(options: VerifyOptions, allow: list[str]) -> int:
    from rulekit.tools.verify.differential import differential

    if not options.variants:
        print("rulekit verify: error: --differential needs --variant (what to compare with)", file=sys.stderr)
        return 2
    try:
        result = differential(options, allow)
    except RulekitError as error:
        print(error.render(), file=sys.stderr)
        return 1
    names = ", ".join(Path(v).stem for v in options.variants)
    summary = f"  {result.games} games, {result.actions} actions side by side in {result.seconds:.1f}s"
    if result.allowed_seen:
        summary += f"; the declared changes showed in {', '.join(sorted(result.allowed_seen))}"
    elif allow:
        summary += f"; the declared changes ({', '.join(allow)}) never showed"
    if result.divergence is not None:
        print(result.divergence.render(options.ruleset, names))
        print(summary)
        return 1
    print(f"differential: {names} changes nothing but what it declares in these games")
    print(summary)
    return 0


def _run_against(options: VerifyOptions, revision: str) -> int:
    from rulekit.tools.verify.against import against

    try:
        result = against(options, revision)
    except UsageError as error:
        print(f"rulekit verify: {error.render()}", file=sys.stderr)
        return 2
    except RulekitError as error:  # a bad revision, or rules that do not load
        print(f"rulekit verify: {error.render()}", file=sys.stderr)
        return 1
    print(result.render())
    return 0 if result.divergence is None else 1


def _run_suggest(options: VerifyOptions) -> int:
    from rulekit.tools.files import atomic_write_text
    from rulekit.tools.verify.properties import compile_properties
    from rulekit.tools.verify.suggest import suggest

    try:
        mined = suggest(options)
    except UsageError as error:
        print(f"rulekit verify: {error.render()}", file=sys.stderr)
        return 2
    except RulekitError as error:
        print(error.render(), file=sys.stderr)
        return 1
    out = options.out or Path("verify-out")
    path = out / f"{mined.program.name}-suggested.yaml"
    out.mkdir(parents=True, exist_ok=True)
    atomic_write_text(path, mined.variant_text(options.ruleset))
    try:  # what is suggested must load and compile as written
        compile_properties(load_program(options.ruleset, options.modules, (*options.variants, str(path))))
    except RulekitError as error:  # pragma: no cover - a bug in the suggester
        print(error.render(), file=sys.stderr)
        return 1
    suggestions = mined.suggestions
    per_action = [s for s in suggestions if s.action is not None]
    per_trigger = [s for s in suggestions if s.trigger is not None]
    at_end = sum(1 for s in suggestions if s.action is None and s.over == "game")
    seen = sum(1 for s in suggestions if s.relation == "visibility")
    triggers = (
        f", {len(per_trigger)} of {len({s.trigger for s in per_trigger})} trigger(s)" if per_trigger else ""
    )
    print(
        f"suggest {mined.program.name}: {len(suggestions)} likely properties from {mined.games} games "
        f"({mined.actions} actions): "
        f"{len(suggestions) - len(per_action) - len(per_trigger) - at_end - seen} over every action, "
        f"{at_end} at the end of the game, "
        + (f"{seen} visibility expectation(s), " if seen else "")
        + f"{len(per_action)} postconditions of {len({s.action for s in per_action})} action(s){triggers}; "
        f"written to {path}"
    )
    for suggestion in suggestions:
        if suggestion.relation == "visibility":
            print(f"  visibility: {suggestion.holds} seen by {suggestion.seen_by}")
            continue
        name = suggestion.action or suggestion.trigger
        where = f"{'trigger ' if suggestion.trigger else ''}{name}: " if name else ""
        print(f"  {where}{suggestion.holds}")
    print(f"  review them, then: rulekit verify {options.ruleset} --variant {path}")
    return 0


def _say(text: str) -> None:
    print(f"rulekit verify: {text}", file=sys.stderr, flush=True)


def main(argv: Sequence[str] | None = None) -> int:
    """Run verify on its own: ``python -m rulekit.tools.verify RULESET ...``."""
    parser = argparse.ArgumentParser(prog="rulekit")
    sub = parser.add_subparsers(dest="command", required=True)
    add_parser(sub)
    args = parser.parse_args(["verify", *(argv if argv is not None else sys.argv[1:])])
    return run(args)
