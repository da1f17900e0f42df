"""``rulekit check --watch``: check again whenever a file of the ruleset is saved.

Changes are seen with the ``watchfiles`` package (the ``watch`` extra) when it is installed,
else by comparing the YAML files' modification times every :data:`POLL` seconds.
"""

from __future__ import annotations

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
    out: Callable[[str], None] = print,
    *,
    polling: bool = False,
) -> int:
    """Run ``check`` now and after every change to a YAML file under ``paths``, each time under
    a header with the time; Ctrl-C stops (status 0)."""
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
    return 0


def _rounds(paths: Sequence[Path], polling: bool) -> Iterator[None]:
    """Yield now, then once after each batch of changes to the YAML files."""
    yield
    try:
        if polling:
            raise ImportError
        import watchfiles
    except ImportError:
        yield from _polled(paths)
        return
    for _changes in watchfiles.watch(
        *paths, watch_filter=lambda _change, name: name.endswith((".yaml", ".yml")), debounce=300, step=50
    ):
        yield


def _polled(paths: Sequence[Path]) -> Iterator[None]:
    seen = _stamps(paths)
    while True:
        time.sleep(POLL)
        now = _stamps(paths)
        if now != seen:
            seen = now
            yield


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
