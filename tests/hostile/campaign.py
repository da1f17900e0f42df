"""A long fuzzing campaign: ``python -m tests.hostile.campaign --inputs 100000``.

Runs consecutive seeds of every case kind of :mod:`tests.hostile.fuzzing` (mutated shipped
rulesets, generated DSL, damaged logs, scenarios and variants, hostile HTTP requests to
``serve``'s application), each command in-process
under a wall-clock alarm, and prints the counts: inputs, commands, exit statuses, exit 1
without a position, internal errors (exit 3 or an exception escaping ``main``) and hangs,
with the command line and message of each internal error or hang, and live scripts: a page
(``replay --html``) or picture (``render``) that is not inert.

``--kinds`` runs only the kinds named (in turn), so a costly kind (``html`` compiles a new
ruleset per input) can run in a process of its own beside the others; the summary counts the
inputs of each kind.

``--seconds`` stops it (after the input under way) when the time is up, and so does
SIGTERM or Ctrl-C; the summary then counts the inputs actually run.
"""

from __future__ import annotations

import argparse
import signal
import sys
import tempfile
import time
from collections import Counter
from pathlib import Path
from types import FrameType

from rulekit import cli
from tests.hostile.fuzzing import CASES, fuzz_one


class Hang(BaseException):
    """An input ran longer than the alarm."""


def _alarm(signum: int, frame: FrameType | None) -> None:
    raise Hang


_stop: list[int] = []


def _stop_soon(signum: int, frame: FrameType | None) -> None:
    _stop.append(signum)


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__)
    parser.add_argument("--inputs", type=int, default=1000, help="how many inputs (default 1000)")
    parser.add_argument("--start", type=int, default=0, help="first seed (default 0)")
    parser.add_argument("--alarm", type=int, default=60, help="seconds before an input counts as a hang")
    parser.add_argument(
        "--dir", help="where to write the inputs (e.g. /dev/shm; default: the temp directory)"
    )
    parser.add_argument("--seconds", type=float, help="stop starting new inputs after this many seconds")
    parser.add_argument("--every", type=int, default=1000, help="print the counts every N inputs")
    parser.add_argument(
        "--kinds",
        help=f"comma-separated case kinds to run in turn (default all: {', '.join(sorted(CASES))}); "
        "two processes may run cheap and costly kinds side by side",
    )
    args = parser.parse_args(argv)
    # Building rulekit's argument parser is a quarter of a short command's time (argparse
    # looks up translations for every option); a parser can parse many command lines.
    built = cli.build_parser()
    cli.build_parser = lambda **_: built
    signal.signal(signal.SIGALRM, _alarm)
    signal.signal(signal.SIGTERM, _stop_soon)
    signal.signal(signal.SIGINT, _stop_soon)
    kinds = sorted(CASES) if not args.kinds else [k.strip() for k in args.kinds.split(",") if k.strip()]
    unknown = [k for k in kinds if k not in CASES]
    if unknown or not kinds:
        parser.error(f"unknown case kinds {unknown}; kinds: {', '.join(sorted(CASES))}")
    per_kind: Counter[str] = Counter()
    statuses: Counter[int] = Counter()
    unlocated = 0
    problems: list[str] = []
    commands = 0
    started = time.monotonic()
    done = 0
    with tempfile.TemporaryDirectory(prefix="rulekit-campaign-", dir=args.dir) as directory:
        work = Path(directory)
        for number in range(args.start, args.start + args.inputs):
            if _stop or (args.seconds is not None and time.monotonic() - started > args.seconds):
                print("stopped early", flush=True)
                break
            done += 1
            kind = kinds[number % len(kinds)]
            per_kind[kind] += 1
            signal.alarm(args.alarm)
            try:
                outcomes = fuzz_one(kind, number // len(kinds), work)
            except Hang:
                print(f"hang: {kind} seed {number // len(kinds)}", flush=True)
                problems.append(f"hang: {kind} seed {number // len(kinds)}")
                continue
            finally:
                signal.alarm(0)
            for outcome in outcomes:
                commands += 1
                statuses[outcome.status] += 1
                if not outcome.located:
                    unlocated += 1
                    first = (outcome.err.strip().splitlines() or [""])[0][:200]
                    print(f"without a position: {kind} seed {number // len(kinds)}: {first}", flush=True)
                if outcome.live:
                    print(f"live script: {kind} seed {number // len(kinds)}", flush=True)
                    problems.append(
                        f"live script: {kind} seed {number // len(kinds)}: {' '.join(outcome.argv)}\n"
                        + "\n".join(outcome.live[:10])
                    )
                if outcome.internal:
                    print(f"internal error: {kind} seed {number // len(kinds)}", flush=True)
                    problems.append(
                        f"internal error: {kind} seed {number // len(kinds)}: {' '.join(outcome.argv)}\n"
                        f"{outcome.err[-2000:]}"
                    )
            if (number - args.start + 1) % args.every == 0:
                elapsed = time.monotonic() - started
                print(
                    f"{number - args.start + 1} inputs, {commands} commands, {len(problems)} problems, "
                    f"{elapsed:.0f}s",
                    flush=True,
                )
    for problem in problems:
        print(problem)
    print("inputs per kind: " + ", ".join(f"{k} {n}" for k, n in sorted(per_kind.items())))
    shown = ", ".join(f"exit {s}: {n}" for s, n in sorted(statuses.items()))
    print(
        f"campaign: {done} inputs (numbers {args.start}..{args.start + done - 1}), "
        f"{commands} commands ({shown}); exit 1 without a position: {unlocated}; "
        f"internal errors, hangs and live scripts: {len(problems)}; "
        f"{time.monotonic() - started:.0f}s"
    )
    return 1 if problems else 0


if __name__ == "__main__":
    sys.exit(main())
