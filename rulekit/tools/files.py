"""Writing files so that nothing is lost: whole files appear at once, logs grow line by line.

A final file (a rewritten log, a counterexample) is written to a temporary file in the same
directory, synced and renamed over the target, so a full disk or a crash leaves the previous
file intact.  A log being played is streamed to ``TARGET.partial``, flushed after every line
(a killed game leaves a replayable prefix there), and renamed to the target when it closes.
"""

from __future__ import annotations

import errno
import io
import os
import secrets
from pathlib import Path
from typing import Any, TextIO


def atomic_write_text(path: str | Path, text: str) -> None:
    """Replace ``path`` with ``text`` (UTF-8) all at once, or leave it as it was."""
    atomic_write_bytes(path, text.encode("utf-8"))


def atomic_write_bytes(path: str | Path, data: bytes) -> None:
    """Replace ``path`` with ``data`` all at once, or leave it as it was (a PNG, a text)."""
    target = Path(path)
    if target.is_dir():
        raise IsADirectoryError(errno.EISDIR, os.strerror(errno.EISDIR), str(target))
    try:
        handle, temporary = _new_temporary(target)
    except OSError as error:  # name the file the user asked for, not the temporary one
        raise OSError(error.errno, error.strerror, str(target)) from None
    try:
        with os.fdopen(handle, "wb") as stream:
            stream.write(data)
            stream.flush()
            os.fsync(stream.fileno())
        os.replace(temporary, target)
    except BaseException:
        Path(temporary).unlink(missing_ok=True)
        raise


def write_figure(fig: Any, path: str | Path) -> Path:
    """Write a matplotlib figure as PNG all at once, with the mode of any file the user
    writes (umask), like the reports beside it."""
    fig.tight_layout()
    buffer = io.BytesIO()
    fig.savefig(buffer, format="png", dpi=90)
    atomic_write_bytes(path, buffer.getvalue())
    return Path(path)


def _new_temporary(target: Path) -> tuple[int, str]:
    """A new file next to ``target``, created with the user's umask like any file she writes
    (``tempfile.mkstemp`` makes it 0600, and the renamed result would stay unreadable to others)."""
    for _ in range(100):
        name = target.parent / f".{target.name}.{secrets.token_hex(6)}.tmp"
        try:
            return os.open(name, os.O_WRONLY | os.O_CREAT | os.O_EXCL, 0o666), str(name)
        except FileExistsError:
            continue
    raise FileExistsError(f"no free temporary name next to {target}")


def write_output(path: str, text: str) -> None:
    """Write an output the user named: ``-`` prints it, a path gets it at once (as above)."""
    if path == "-":
        print(text, end="")
        return
    atomic_write_text(path, text)


class LineSink:
    """A log file written line by line to ``TARGET.partial`` and renamed to ``TARGET`` on close."""

    def __init__(self, path: str | Path) -> None:
        self.target = Path(path)
        self.partial = self.target.with_name(self.target.name + ".partial")
        try:
            self._stream: TextIO | None = open(self.partial, "w", encoding="utf-8", newline="\n")  # noqa: SIM115
        except OSError as error:  # name the file the user asked for
            raise OSError(error.errno, error.strerror, str(self.target)) from None

    def write_line(self, line: str) -> None:
        """Append one line and flush it to the operating system."""
        if self._stream is not None:
            self._stream.write(line + "\n")
            self._stream.flush()

    def close(self) -> None:
        """Sync, close and move the finished log to its target name."""
        stream, self._stream = self._stream, None
        if stream is None:
            return
        try:
            os.fsync(stream.fileno())
        finally:
            stream.close()
        os.replace(self.partial, self.target)
