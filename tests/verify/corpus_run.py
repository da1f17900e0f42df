"""Run ``rulekit verify`` (default settings) on every planted bug of ``tests/verify/corpus/``.

Each corpus file is a variant that plants one realistic mistake in a shipped ruleset; its
first lines say what the bug is and which check should catch it (``# caught by: KEY``).
A bug that only a scenario can catch says so and why (``# scenario only: REASON``) and names
the shipped scenario that catches it (``# caught by scenario: PATH``): that scenario is run
with the bug planted (it must fail) instead of ``verify``. Prints, per bug, whether it was
caught, by what, in how long and with how many actions, then the totals::

    .venv/bin/python -m tests.verify.corpus_run               # every bug
    .venv/bin/python -m tests.verify.corpus_run -k lisboa     # those whose name has 'lisboa'
    .venv/bin/python -m tests.verify.corpus_run -k loan_repaid --shrink-seconds 600   # more time to shrink
"""

from __future__ import annotations

import argparse
import re
import statistics
import sys
import tempfile
import time
from collections.abc import Sequence
from pathlib import Path

import attrs
import yaml
from attrs import define

from rulekit.tools.scenario import run_scenario
from rulekit.tools.verify import VerifyOptions, verify

CORPUS = Path(__file__).resolve().parent / "corpus"
ROOT = CORPUS.parents[2]
#: What "caught" must mean for the corpus to pass.
MAX_SECONDS = 120.0
MAX_ACTIONS = 30


@define
class Bug:
    """One planted bug: its variant file, the ruleset, needed modules and the expected catch."""

    path: Path
    ruleset: str
    modules: tuple[str, ...]
    expected: str
    #: The longest acceptable counterexample: MAX_ACTIONS, unless the header says why a
    #: shorter game cannot reach the bug (``# at most: N actions (reason)``).
    longest: int = MAX_ACTIONS
    #: Why this bug is not yet caught as the corpus asks (``# known weakness: ...``), if it is not.
    weakness: str = ""
    #: Why only a scenario can catch it (``# scenario only: ...``), and that scenario.
    scenario_only: str = ""
    scenario: str = ""
    #: A shipped variant the bug is planted on (``# on variant: PATH``), applied before it.
    on_variant: str = ""
    #: The kind of an issue-27 bug (``# unseen: issue 27 (kind: ...)``): a bug written before
    #: the checks that should find it, so it names no expected check.
    unseen: str = ""

    @property
    def variants(self) -> tuple[str, ...]:
        """The variant files to load, the shipped one first."""
        return ((str(ROOT / self.on_variant),) if self.on_variant else ()) + (str(self.path),)

    @property
    def name(self) -> str:
        return f"{self.ruleset}/{self.path.stem}"


@define
class Outcome:
    bug: Bug
    caught_by: str | None
    seconds: float
    cpu: float  # this process's CPU time: the machine may be shared
    actions: int
    original: int
    #: The shipped scenarios that fail with the bug planted (``--scenarios``).
    scenarios: list[str] = attrs.Factory(list)

    @property
    def ok(self) -> bool:
        """Caught within ``MAX_SECONDS`` of CPU (the bar is CPU time: on a shared machine the
        wall clock counts other processes' work) and ``MAX_ACTIONS`` actions."""
        return self.caught_by is not None and self.cpu <= MAX_SECONDS and self.actions <= self.bug.longest


def corpus(*patterns: str) -> list[Bug]:
    """The corpus's bugs (those whose name contains one of ``patterns``; all without any)."""
    bugs = []
    for path in sorted(CORPUS.glob("*/*.yaml")):
        text = path.read_text(encoding="utf-8")
        found = re.search(r"^# caught by: (\S+)", text, re.MULTILINE)
        data = yaml.safe_load(text)
        declared = re.search(r"^# at most: (\d+) actions", text, re.MULTILINE)
        only = re.search(r"^# scenario only: (.*)$", text, re.MULTILINE)
        scenario = re.search(r"^# caught by scenario: (\S+)", text, re.MULTILINE)
        bug = Bug(
            path,
            str(data["ruleset"]),
            tuple(data.get("requires") or ()),
            found.group(1) if found else "",
            int(declared.group(1)) if declared else MAX_ACTIONS,
            weak.group(1) if (weak := re.search(r"^# known weakness: (.*)$", text, re.MULTILINE)) else "",
            only.group(1) if only else "",
            scenario.group(1) if scenario else "",
            base.group(1) if (base := re.search(r"^# on variant: (\S+)", text, re.MULTILINE)) else "",
            kind.group(1) if (kind := re.search(r"^# unseen: .*\(kind: (.*)\)$", text, re.MULTILINE)) else "",
        )
        if not patterns or any(pattern in bug.name for pattern in patterns):
            bugs.append(bug)
    return bugs


def run_bug(bug: Bug, out: Path, shrink_seconds: float | None = None, seed: int = 0) -> Outcome:
    """Default ``verify`` on the ruleset with the bug planted (``shrink_seconds``: another
    shrinking budget than the default; ``seed``: verify's ``--seed``)."""
    started, cpu = time.perf_counter(), time.process_time()
    options = VerifyOptions(
        bug.ruleset, modules=bug.modules, variants=bug.variants, out=out / bug.path.stem, seed=seed
    )
    if shrink_seconds is not None:
        options = attrs.evolve(options, shrink_seconds=shrink_seconds)
    result = verify(options)
    seconds, cpu = time.perf_counter() - started, time.process_time() - cpu
    example = result.counterexample
    if example is None:
        return Outcome(bug, None, seconds, cpu, 0, 0)
    return Outcome(bug, example.key, seconds, cpu, len(example.actions), example.original_length)


class CpuLimit(BaseException):
    """The CPU limit of :func:`run_bug_limited` was reached (a BaseException: verify turns an
    ``Exception`` raised in a rule's evaluation into a failure of that rule)."""


def run_bug_limited(bug: Bug, out: Path, cpu_limit: float, seed: int = 0) -> Outcome:
    """:func:`run_bug` in a child process that may use ``cpu_limit`` seconds of CPU; a bug not
    reported by then counts as missed (``caught_by`` is ``None``, ``cpu`` the limit)."""
    import multiprocessing
    import resource
    import signal

    context = multiprocessing.get_context("fork")
    reader, writer = context.Pipe(duplex=False)

    def child() -> None:
        def stop(signum: int, frame: object) -> None:
            raise CpuLimit

        signal.signal(signal.SIGXCPU, stop)
        used = time.process_time()
        resource.setrlimit(resource.RLIMIT_CPU, (int(used + cpu_limit) + 1, int(used + cpu_limit) + 30))
        try:
            outcome = run_bug(bug, out, seed=seed)
            writer.send((outcome.caught_by, outcome.seconds, outcome.cpu, outcome.actions, outcome.original))
        except CpuLimit:
            writer.send(None)

    started = time.perf_counter()
    process = context.Process(target=child)
    process.start()
    process.join()
    found = reader.recv() if reader.poll() else None
    if found is None:
        return Outcome(bug, None, time.perf_counter() - started, cpu_limit, 0, 0)
    return Outcome(bug, *found)


def run_scenario_of(bug: Bug) -> Outcome:
    """A scenario-only bug: its shipped scenario, run with the bug planted, must fail on the
    check the bug's header names."""
    started, cpu = time.perf_counter(), time.process_time()
    failures = run_scenario(ROOT / bug.scenario, variants=list(bug.variants)).failures
    seconds, cpu = time.perf_counter() - started, time.process_time() - cpu
    check = bug.expected.partition(":")[2]
    caught = any(check in failure for failure in failures)
    return Outcome(bug, f"scenario:{Path(bug.scenario).stem}" if caught else None, seconds, cpu, 0, 0)


def shipped_scenarios(bug: Bug) -> list[Path]:
    """The shipped scenarios of the bug's ruleset (its variants' too)."""
    home = ROOT / "rulesets" / bug.ruleset
    return sorted(home.glob("scenarios/**/*.yaml")) + sorted(home.glob("variants/scenarios/*.yaml"))


_CLEAN: dict[tuple[str, tuple[str, ...], tuple[str, ...]], bool] = {}


def _passes(path: Path, variants: tuple[str, ...], modules: tuple[str, ...]) -> bool:
    key = (str(path), variants, modules)
    if key not in _CLEAN:
        _CLEAN[key] = not run_scenario(path, variants=list(variants), modules=list(modules)).failures
    return _CLEAN[key]


def _added_variants(bug: Bug, path: Path) -> tuple[str, ...]:
    """The variants a shipped scenario runs with on top of its own: the bug's, without the
    shipped variant it is planted on when the scenario applies that one itself (by its name
    or its file; applied twice, its additions would clash)."""
    if not bug.on_variant:
        return bug.variants
    try:
        own = yaml.safe_load(path.read_text(encoding="utf-8")) or {}
    except (OSError, yaml.YAMLError):
        return bug.variants
    named = own.get("variants") if isinstance(own, dict) else None
    shipped = ROOT / bug.on_variant
    for entry in named if isinstance(named, list) else [named] if named else []:
        text = str(entry)
        if text == shipped.stem or (path.parent / text).resolve() == shipped.resolve():
            return (str(bug.path),)
    return bug.variants


def scenarios_catching(bug: Bug, *, first_only: bool = False) -> tuple[list[str], float]:
    """The shipped scenarios that pass on the rules without the bug and fail with it planted
    (``first_only``: the first of them), and the CPU seconds it took (the clean runs are
    remembered across bugs)."""
    cpu = time.process_time()
    caught = []
    for path in shipped_scenarios(bug):
        variants = _added_variants(bug, path)
        if not _passes(path, variants[:-1], bug.modules):
            continue  # not a scenario of these rules (another module, or failing already)
        if run_scenario(path, variants=list(variants), modules=list(bug.modules)).failures:
            caught.append(str(path.relative_to(ROOT / "rulesets" / bug.ruleset)))
            if first_only:
                break
    return caught, time.process_time() - cpu


def main(argv: Sequence[str] | None = None) -> int:
    parser = argparse.ArgumentParser(
        prog="python -m tests.verify.corpus_run", description=__doc__.splitlines()[0]
    )
    parser.add_argument(
        "-k",
        action="append",
        default=[],
        metavar="TEXT",
        help="only the bugs whose name contains TEXT (repeatable: any of them)",
    )
    parser.add_argument(
        "--shrink-seconds",
        type=float,
        default=None,
        metavar="S",
        help="shrink for S seconds instead of verify's default (how short the search gets with more time)",
    )
    parser.add_argument(
        "--verify-scenario-only",
        action="store_true",
        help="run default verify on the scenario-only bugs too (they are then reported like the others)",
    )
    parser.add_argument(
        "--seed", type=int, default=0, help="verify's --seed (another seed explores other games)"
    )
    parser.add_argument(
        "--scenarios",
        action="store_true",
        help="also run the ruleset's shipped scenarios with each bug planted (verify + scenarios)",
    )
    parser.add_argument(
        "--cpu-limit",
        type=float,
        default=None,
        metavar="S",
        help="run each bug's verify in a child process stopped after S seconds of CPU (a missed bug)",
    )
    parser.add_argument(
        "--unseen", action="store_true", help="only the bugs of issue 27 (written before their checks)"
    )
    args = parser.parse_args(argv)
    outcomes = []
    scenario_only = []
    with tempfile.TemporaryDirectory() as directory:
        for bug in corpus(*args.k):
            if args.unseen and not bug.unseen:
                continue
            if bug.scenario_only and not args.verify_scenario_only:
                outcome = run_scenario_of(bug)
                scenario_only.append(outcome)
                verdict = "caught" if outcome.caught_by else "MISSED"
                print(
                    f"{verdict:6}  {bug.name:58} {outcome.seconds:6.1f}s ({outcome.cpu:5.1f}s CPU)  "
                    f"scenario only: {outcome.caught_by or '-'}",
                    flush=True,
                )
                continue
            if args.cpu_limit is not None:
                outcome = run_bug_limited(bug, Path(directory), args.cpu_limit, args.seed)
            else:
                outcome = run_bug(bug, Path(directory), args.shrink_seconds, args.seed)
            outcomes.append(outcome)
            verdict = "caught" if outcome.caught_by else "MISSED"
            expected = (
                ""
                if outcome.caught_by in (None, bug.expected) or bug.unseen
                else f" (expected {bug.expected})"
            )
            line = (
                f"{verdict:6}  {bug.name:58} {outcome.seconds:6.1f}s ({outcome.cpu:5.1f}s CPU)  "
                f"{outcome.actions:3} action(s) (from {outcome.original:4})  "
                f"{outcome.caught_by or '-'}{expected}"
            )
            if args.scenarios:
                caught_by_scenarios, cpu = scenarios_catching(bug, first_only=True)
                outcome.scenarios = caught_by_scenarios
                line += f"  | scenarios ({cpu:.1f}s CPU): {', '.join(caught_by_scenarios) or '-'}"
            print(line, flush=True)
    caught = [o for o in outcomes if o.caught_by]
    ok = [o for o in outcomes if o.ok]
    times = [o.seconds for o in caught]
    cpus = [o.cpu for o in caught]
    lengths = [o.actions for o in caught]
    print(
        f"\n{len(caught)}/{len(outcomes)} caught by default verify; {len(ok)}/{len(outcomes)} within "
        f"{MAX_SECONDS:.0f}s of CPU with at most {MAX_ACTIONS} actions (or the minimum a bug declares)"
    )
    if args.scenarios:
        either = sum(1 for o in outcomes if o.caught_by or o.scenarios)
        print(f"{either}/{len(outcomes)} caught by default verify or a shipped scenario")
    if scenario_only:
        by_scenario = sum(1 for o in scenario_only if o.caught_by)
        print(f"scenario only: {by_scenario}/{len(scenario_only)} caught by their shipped scenario")
    if caught:
        print(
            f"time to report: median {statistics.median(times):.1f}s, max {max(times):.1f}s "
            f"(CPU: median {statistics.median(cpus):.1f}s, max {max(cpus):.1f}s); "
            f"counterexample length: median {statistics.median(lengths):g}, max {max(lengths)}"
        )
    return 0 if len(ok) == len(outcomes) and all(o.caught_by for o in scenario_only) else 1


if __name__ == "__main__":
    sys.exit(main())
