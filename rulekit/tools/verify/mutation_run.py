"""Mutation score: how well a ruleset's invariants, properties and scenarios guard its rules.

``rulekit verify RULESET --mutants [N]`` applies the mutations of :mod:`.mutants` one at a time
(all of them, or a seeded sample of N) and checks whether anything notices: first the ruleset's
scenarios (cheap: a few actions each), then an exploration like ``verify``'s (``--examples``
games, no shrinking) bounded by ``--mutant-seconds`` of work (the rules' steps, as shrinking's
budget: the same verdict on a loaded machine). A mutant is *killed* when a scenario fails on it
or the exploration fails an invariant, a property or an engine property. The mutants nobody
kills are listed with the rule text before and after: each is a rule no check pins down.

Mutants that cannot be killed because they mean the same rules (``x + FEE`` and ``x - FEE``
while the fee is 0) are declared in the ruleset's ``mutants.yaml`` with a reason, and are left
out of the score. Mutants run in ``--workers`` processes; each is seeded on its own, so the
report does not depend on the number of workers.
"""

from __future__ import annotations

import multiprocessing
import random
import time
from collections.abc import Callable, Iterator, Sequence
from contextlib import contextmanager
from pathlib import Path
from typing import Any

from attrs import define, field

from rulekit.compiler.build import compile_rules
from rulekit.compiler.program import Program
from rulekit.errors import RulekitError
from rulekit.tools.verify.checker import Checker
from rulekit.tools.verify.exclusions import EXCLUSIONS, Exclusion, load_exclusions
from rulekit.tools.verify.explore import Explorer, player_counts
from rulekit.tools.verify.mutants import Mutation, mutate, mutation_sites
from rulekit.tools.verify.options import STEPS_PER_SECOND, Stats, VerifyOptions

#: Work (seconds of STEPS_PER_SECOND rule steps) each mutant's exploration may do by default.
DEFAULT_MUTANT_SECONDS = 10.0


@define
class MutantResult:
    """What happened to one mutant."""

    mutation: Mutation
    killed_by: str | None = None  # "invariant:NAME", "property:NAME", "engine:...", "scenario:NAME"
    invalid: str | None = None  # the mutant does not compile: not counted
    equivalent: str | None = None  # declared equivalent (the reason): not counted
    games: int = 0  # games its exploration played (within --examples and the work budget)


@define
class MutationReport:
    """The mutation score of a ruleset."""

    results: list[MutantResult]
    seconds: float
    sites: int
    #: Declarations of ``mutants.yaml`` that matched none of the mutants tried.
    unused: list[Exclusion] = field(factory=list)

    @property
    def valid(self) -> list[MutantResult]:
        return [r for r in self.results if r.invalid is None and r.equivalent is None]

    @property
    def killed(self) -> list[MutantResult]:
        return [r for r in self.valid if r.killed_by is not None]

    @property
    def survivors(self) -> list[MutantResult]:
        return [r for r in self.valid if r.killed_by is None]

    @property
    def score(self) -> float:
        return len(self.killed) / len(self.valid) if self.valid else 1.0

    def by_kind(self) -> dict[str, int]:
        counts: dict[str, int] = {}
        for result in self.killed:
            assert result.killed_by is not None
            kind = result.killed_by.split(":", 1)[0]
            counts[kind] = counts.get(kind, 0) + 1
        return counts

    def render(self, *, killed: bool = True) -> str:
        valid, dead = self.valid, self.killed
        kinds = ", ".join(f"{n} by {k}" for k, n in sorted(self.by_kind().items())) or "none"
        lines = [
            f"mutation score: {len(dead)}/{len(valid)} killed ({100 * self.score:.0f}%; {kinds}); "
            f"{len(self.results)} of {self.sites} mutation sites tried in {self.seconds:.0f}s"
        ]
        invalid = [r for r in self.results if r.invalid is not None]
        if invalid:
            lines.append(f"  {len(invalid)} mutant(s) did not compile (not counted)")
        equivalent = [r for r in self.results if r.equivalent is not None]
        if equivalent:
            lines.append(f"  {len(equivalent)} mutant(s) declared equivalent in {EXCLUSIONS} (not counted):")
            lines.extend(f"    {r.mutation.describe()}: {r.equivalent}" for r in equivalent)
        if killed:
            for result in dead:
                lines.append(f"  killed  {result.mutation.describe()}  <- {result.killed_by}")
        if self.survivors:
            lines.append("  surviving mutants (no invariant, property or scenario notices them):")
            for result in self.survivors:
                mutation = result.mutation
                lines.append(f"    {mutation.describe()}")
                lines.append(f"      before: {mutation.before or '?'}")
                lines.append(f"      after:  {mutation.after or '?'}")
        for unused in self.unused:
            lines.append(
                f"  note: {unused.span or EXCLUSIONS}: no mutant tried matches {unused.at} {unused.change!r}"
            )
        return "\n".join(lines)


# ---------------------------------------------------------------- equivalent mutants


def _relative(file: str, directory: Path) -> str:
    try:
        return Path(file).resolve().relative_to(directory.resolve()).as_posix()
    except ValueError:
        return file


def _exclusion(
    mutation: Mutation, exclusions: Sequence[Exclusion], directory: Path | None
) -> Exclusion | None:
    file, line, column = mutation.where[:3]
    at = f"{_relative(file, directory) if directory else file}:{line}:{column}"
    for exclusion in exclusions:
        if exclusion.at == at and exclusion.change == mutation.detail:
            return exclusion
    return None


# ---------------------------------------------------------------- running them


@define
class _Job:
    options: VerifyOptions
    program: Program
    counts: list[int]
    scenarios: Sequence[Path]
    budget: int


_JOB: _Job | None = None


def run_mutants(
    options: VerifyOptions,
    count: int | None,
    *,
    scenarios: Sequence[Path] = (),
    say: Callable[[str], None] = lambda text: None,
    seconds: float = DEFAULT_MUTANT_SECONDS,
    directory: Path | None = None,
) -> MutationReport:
    """Try every mutant (``count`` None) or a seeded sample of ``count``, in ``options.workers``
    processes, and see what kills each.

    Raises:
        RulekitError: the rules (or ``mutants.yaml``) do not load.
    """
    global _JOB
    started = time.perf_counter()
    program, counts = player_counts(options)
    exclusions = load_exclusions(directory) if directory is not None else []
    sites = mutation_sites(program.rules)
    chosen = (
        sites if count is None or count >= len(sites) else random.Random(options.seed).sample(sites, count)
    )
    _JOB = _Job(options, program, counts, scenarios, int(seconds * STEPS_PER_SECOND))
    results: list[MutantResult] = []
    todo: list[int] = []
    for index, mutation in enumerate(chosen):
        result = MutantResult(mutation)
        exclusion = _exclusion(mutation, exclusions, directory)
        if exclusion is not None:
            exclusion.used = True
            result.equivalent = exclusion.reason
        else:
            todo.append(index)
        results.append(result)
    try:
        for done, (index, result) in enumerate(_each(todo, chosen, options.workers), start=1):
            results[index] = result
            verdict = (result.invalid and "invalid") or result.killed_by or "SURVIVED"
            say(f"mutant {done}/{len(todo)}: {result.mutation.describe()}: {verdict}")
    finally:
        _JOB = None
    unused = [e for e in exclusions if not e.used] if count is None or count >= len(sites) else []
    return MutationReport(results, time.perf_counter() - started, len(sites), unused)


def _each(todo: list[int], chosen: list[Mutation], workers: int) -> Iterator[tuple[int, MutantResult]]:
    tasks = [(index, chosen[index]) for index in todo]
    if workers <= 1 or len(tasks) <= 1:
        for task in tasks:
            yield _run_one(task)
        return
    context = multiprocessing.get_context("fork")  # the workers inherit the compiled rules
    with context.Pool(min(workers, len(tasks))) as pool:
        yield from pool.imap(_run_one, tasks)


def _run_one(task: tuple[int, Mutation]) -> tuple[int, MutantResult]:
    index, mutation = task
    job = _JOB
    assert job is not None
    result = MutantResult(mutation)
    try:
        mutant = compile_rules(mutate(job.program.rules, mutation))
    except RulekitError as error:
        result.invalid = error.render().splitlines()[0]
        return index, result
    if job.scenarios:
        result.killed_by = _scenarios(job.scenarios, mutation)
    if result.killed_by is None:
        result.killed_by, result.games = _explore(job.options, mutant, job.counts, job.budget)
    return index, result


def _explore(
    options: VerifyOptions, program: Program, counts: list[int], budget: int
) -> tuple[str | None, int]:
    """What the exploration of a mutant failed (None), and how many games it played."""
    stats = Stats()
    checker = Checker(program, stats)
    explorer = Explorer(options, checker, counts)
    failure = explorer.run(range(options.examples), stop=lambda: checker.work() > budget)
    return (None if failure is None else failure.key), stats.games


def _scenarios(paths: Sequence[Path], mutation: Mutation) -> str | None:
    from rulekit.tools import scenario

    with _mutated_loading(mutation):
        for path in paths:
            result = scenario.run_scenario(path)
            if not result.passed:
                return f"scenario:{path.stem}"
    return None


@contextmanager
def _mutated_loading(mutation: Mutation) -> Iterator[None]:
    """Scenarios load their rules through ``load_program``: give them the mutant's."""
    from rulekit.tools import scenario

    real = scenario.load_program
    cache: dict[int, Program] = {}

    def load(*args: Any, **kwargs: Any) -> Program:
        program = real(*args, **kwargs)
        mutant = cache.get(id(program))
        if mutant is None:
            mutant = cache[id(program)] = compile_rules(mutate(program.rules, mutation))
        return mutant

    scenario.load_program = load
    try:
        yield
    finally:
        scenario.load_program = real


def scenario_files(ruleset: str) -> list[Path]:
    """The scenarios shipped with a ruleset (its ``scenarios/`` directory), if any."""
    from rulekit.rules.compose import find_ruleset
    from rulekit.tools.scenario import find_scenarios

    directory = find_ruleset(ruleset) / "scenarios"
    return find_scenarios([directory]) if directory.is_dir() else []
