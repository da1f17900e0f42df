"""``rulekit check --watch``: check again whenever a file of the ruleset is saved.

Changes are seen with the ``watchfiles`` package (the ``watch`` extra) when it is installed,
else by comparing the YAML files' modification times every :data:`POLL` seconds.
"""

from __future__ import annotations

import signal
import threading
import time
from collections.abc import Callable, Iterator, Sequence
from datetime import datetime
from pathlib import Path

from rulekit.errors import RulekitError, printable

#: Seconds between two looks at the files when watchfiles is not installed.
POLL = 0.5


def watch(
    paths: Sequence[Path],
    check: Callable[[], int],
    out: Callable[[str], None] | None = None,
    *,
    polling: bool = False,
) -> int:
    """Run ``check`` now and after every change to a YAML file under ``paths``, each time under
    a header with the time; Ctrl-C stops (status 0).  ``out`` defaults to printing with a
    flush, so a report shows at once through a pipe (``| tee``)."""
    if out is None:
        out = _print
    restore = _ctrl_c_stops()
    try:
        for _ in _rounds(paths, polling):
            out(f"--- rulekit check at {datetime.now():%H:%M:%S} ---")
            try:
                status = check()
            except RulekitError as error:
                out(printable(error.render()))
                status = 1
            out(f"--- {'ok' if status == 0 else 'problems found'}; watching for changes (Ctrl-C stops) ---")
    except KeyboardInterrupt:
        out("stopped")
    finally:
        restore()
    return 0


def _ctrl_c_stops() -> Callable[[], None]:
    """Make Ctrl-C raise KeyboardInterrupt while watching, even in a process started with SIGINT
    ignored (seen under pytest-xdist: SIGINT and SIGQUIT ignored, as a parent's ``system()`` leaves
    them while it runs), since Ctrl-C is the only way to stop; returns what puts the old handling
    back."""
    if threading.current_thread() is not threading.main_thread():
        return lambda: None
    previous = signal.getsignal(signal.SIGINT)
    if previous != signal.SIG_IGN:
        return lambda: None
    signal.signal(signal.SIGINT, signal.default_int_handler)

    def restore() -> None:
        signal.signal(signal.SIGINT, previous)

    return restore


def _print(text: str) -> None:
    print(text, flush=True)


def _rounds(paths: Sequence[Path], polling: bool) -> Iterator[None]:
    """Yield now, then once after each batch of changes to the YAML files (a file saved while
    the last check ran counts: the files' times and sizes are compared with those before it)."""
    try:
        if polling:
            raise ImportError
        import watchfiles
    except ImportError:
        watchfiles = None  # type: ignore[assignment]
    while True:
        before = _stamps(paths)
        yield
        if watchfiles is None:
            while _stamps(paths) == before:
                time.sleep(POLL)
            continue
        for changes in watchfiles.watch(
            *paths,
            watch_filter=lambda _change, name: name.endswith((".yaml", ".yml")),
            debounce=300,
            step=50,
            rust_timeout=1000,
            yield_on_timeout=True,
        ):
            if changes or _stamps(paths) != before:
                break


def _stamps(paths: Sequence[Path]) -> dict[Path, tuple[int, int]]:
    stamps = {}
    for root in paths:
        files = [root] if root.is_file() else [*root.rglob("*.yaml"), *root.rglob("*.yml")]
        for file in files:
            try:
                stat = file.stat()
            except OSError:
                continue
            stamps[file] = (stat.st_mtime_ns, stat.st_size)
    return stamps
