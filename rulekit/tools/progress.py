"""Progress of a long run on stderr: a live bar on a terminal, plain lines otherwise.

On a terminal, with the ``rich`` extra installed, a bar shows the games done, games per
second and the time left; without rich a one-line counter is redrawn in place.  When
stderr is not a terminal (a log file, CI) a plain line is written at most every
``interval`` seconds, so short runs print nothing and long ones leave a readable trail.

The speed and the time left count only the work done in this run: games read back from a
results file (``--resume``) are done, but took no time.
"""

from __future__ import annotations

import sys
import time
from typing import Any, TextIO


class Progress:
    """Call with (done, total, resumed) after each unit of work; :meth:`close` at the end."""

    def __init__(self, label: str, stream: TextIO | None = None, *, interval: float = 10.0) -> None:
        self.stream = stream if stream is not None else sys.stderr
        self.label = label
        self.interval = interval
        self.start = time.monotonic()
        self.last = 0.0 if self.terminal else self.start
        self._resumed = 0  # units read back, not done now; the speed is timed from the last of them
        self._since = self.start
        self._rich: Any = None
        self._task: Any = None

    @property
    def terminal(self) -> bool:
        isatty = getattr(self.stream, "isatty", None)
        return bool(isatty and isatty())

    def __call__(self, done: int, total: int, resumed: int = 0) -> None:
        now = time.monotonic()
        if resumed != self._resumed:
            self._resumed, self._since = resumed, now
        if not self.terminal:
            if now - self.last >= self.interval or (done == total and self.last != self.start):
                self.last = now
                self.stream.write(f"simulating {self.label}{done}/{total} games{self._speed(done, total)}\n")
                self.stream.flush()
            return
        if self._rich is None:
            self._start_rich(total)
        if self._rich:
            self._rich.update(
                self._task,
                completed=done,
                description=f"simulating {self.label}{done}/{total} games",
                rate=self._speed(done, total).lstrip(", "),
            )
            self._rich.refresh()
            return
        if done < total and now - self.last < 0.1:
            return
        self.last = now
        self.stream.write(f"\r\x1b[Ksimulating {self.label}{done}/{total} games{self._speed(done, total)}")
        self.stream.flush()

    def _speed(self, done: int, total: int) -> str:
        """``, 0.85 games/s, ETA 4:05`` (empty until a game of this run is done)."""
        elapsed = time.monotonic() - self._since
        played = done - self._resumed
        if played <= 0 or elapsed <= 0:
            return ""
        rate = played / elapsed
        return f", {rate:.2f} games/s, ETA {_clock((total - done) / rate)}"

    def _start_rich(self, total: int) -> None:
        try:
            from rich.console import Console
            from rich.progress import BarColumn, Progress, TextColumn
        except ImportError:
            self._rich = False
            return
        self._rich = Progress(
            TextColumn("{task.description}"),
            BarColumn(),
            TextColumn("{task.fields[rate]}"),
            console=Console(file=self.stream, force_terminal=True),
            transient=True,
        )
        self._task = self._rich.add_task(f"simulating {self.label}0/{total} games", total=total, rate="")
        self._rich.start()

    def close(self) -> None:
        if self._rich:
            self._rich.stop()
            self._rich = None
        elif self.terminal:
            self.stream.write("\r\x1b[K")
            self.stream.flush()


def _clock(seconds: float) -> str:
    """``59s``, ``4:05`` or ``1:02:05``.

    >>> _clock(3725.4)
    '1:02:05'
    """
    whole = round(seconds)
    if whole < 60:
        return f"{whole}s"
    minutes, secs = divmod(whole, 60)
    if minutes < 60:
        return f"{minutes}:{secs:02d}"
    hours, minutes = divmod(minutes, 60)
    return f"{hours}:{minutes:02d}:{secs:02d}"
