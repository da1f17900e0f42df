"""Where rulekit keeps caches: safe to delete at any time, never needed for correctness.

``RULEKIT_CACHE_DIR`` chooses the directory; ``RULEKIT_NO_CACHE=1`` turns every cache
off.  Otherwise ``$XDG_CACHE_HOME/rulekit`` or ``~/.cache/rulekit``.  Files are written
atomically (a temporary file renamed into place), so a reader never sees half a file.
Only regular files of at most :data:`MAX_ENTRY_BYTES` are read (never through a symlink,
never a FIFO or device); the first write of a process prunes the directory (entries
unused for ``RULEKIT_CACHE_MAX_DAYS``, then the oldest beyond ``RULEKIT_CACHE_MAX_MB``).
"""

from __future__ import annotations

import os
import stat
import tempfile
import time
from pathlib import Path

from attrs import define


def cache_dir() -> Path | None:
    """The cache directory (created, private to the user), or None when caching is off or
    the directory cannot be made."""
    if os.environ.get("RULEKIT_NO_CACHE"):
        return None
    chosen = os.environ.get("RULEKIT_CACHE_DIR")
    if chosen:
        path = Path(chosen)
    else:
        base = os.environ.get("XDG_CACHE_HOME") or str(Path.home() / ".cache")
        path = Path(base) / "rulekit"
    try:
        path.mkdir(mode=0o700, parents=True, exist_ok=True)
    except OSError:
        return None
    return path if _private(path) else None


def _private(path: Path) -> bool:
    """Whether only this user can write to ``path``: cached programs are loaded with pickle,
    so a directory that someone else can write to (or owns) is never used."""
    if not hasattr(os, "getuid"):
        return True  # no POSIX ownership to check
    try:
        info = path.stat()
    except OSError:
        return False
    return info.st_uid == os.getuid() and not info.st_mode & 0o022


def write_atomically(path: Path, data: bytes) -> bool:
    """Write ``data`` to ``path`` through a temporary file in the same directory; False if
    that failed (a cache that cannot be written is simply not used)."""
    try:
        fd, tmp = tempfile.mkstemp(dir=path.parent, prefix=path.name + ".", suffix=".tmp")
        try:
            with os.fdopen(fd, "wb") as handle:
                handle.write(data)
            os.replace(tmp, path)
        except BaseException:
            Path(tmp).unlink(missing_ok=True)
            raise
    except OSError:
        return False
    return True


# ------------------------------------------------------------- reading, pruning

#: The files rulekit keeps in the cache directory (nothing else there is read, listed or removed).
PATTERNS = ("program-*.pickle", "grammar-*.lark-cache", "*.tmp")
#: The most bytes one cache file may hold: a larger one is never read (a miss) nor written.
MAX_ENTRY_BYTES = 64 * 1024 * 1024
#: Defaults of ``RULEKIT_CACHE_MAX_DAYS`` and ``RULEKIT_CACHE_MAX_MB``.
MAX_DAYS = 30
MAX_MB = 200
#: A temporary file older than this (seconds) was left by a process that died while writing.
_STALE_TMP = 3600


def read_entry(path: Path, cap: int = MAX_ENTRY_BYTES) -> bytes | None:
    """The bytes of the cache file ``path``, or None when it is not a regular file in its
    directory (a symlink, FIFO, device or directory), is larger than ``cap`` bytes, or
    cannot be read.  Never blocks: the file is opened without following a symlink and
    without waiting for a FIFO's writer, and checked before anything is read."""
    flags = os.O_RDONLY | getattr(os, "O_NOFOLLOW", 0) | getattr(os, "O_NONBLOCK", 0)
    try:
        fd = os.open(path, flags | getattr(os, "O_CLOEXEC", 0))
    except OSError:
        return None
    try:
        info = os.fstat(fd)
        if not stat.S_ISREG(info.st_mode) or info.st_size > cap:
            return None
        chunks = []
        left = cap + 1  # one byte more than allowed: a file that grew meanwhile is refused too
        while left > 0:
            chunk = os.read(fd, min(left, 1 << 20))
            if not chunk:
                break
            chunks.append(chunk)
            left -= len(chunk)
        data = b"".join(chunks)
        if len(data) > cap:
            return None
        if os.utime in os.supports_fd:
            os.utime(fd)  # last used now: pruning removes the entries unused longest first
        return data
    except OSError:
        return None
    finally:
        os.close(fd)


def is_plain_file(path: Path, cap: int = MAX_ENTRY_BYTES) -> bool:
    """Whether ``path`` is a regular file (not a symlink, FIFO or device) of at most ``cap`` bytes."""
    try:
        info = path.lstat()
    except OSError:
        return False
    return stat.S_ISREG(info.st_mode) and info.st_size <= cap


@define
class Entry:
    """One of rulekit's files in the cache directory."""

    path: Path
    size: int
    mtime: float


def entries(directory: Path) -> list[Entry]:
    """rulekit's files in ``directory`` (:data:`PATTERNS`; symlinks and other odd files
    included, as themselves, never followed), oldest first."""
    found: dict[Path, Entry] = {}
    for pattern in PATTERNS:
        for path in directory.glob(pattern):
            try:
                info = path.lstat()
            except OSError:
                continue
            if not stat.S_ISDIR(info.st_mode):
                size = info.st_size if stat.S_ISREG(info.st_mode) else 0
                found[path] = Entry(path, size, info.st_mtime)
    return sorted(found.values(), key=lambda e: (e.mtime, e.path.name))


def limits() -> tuple[int, int]:
    """(days, bytes): entries unused for more days are pruned, then the oldest until the
    rest is at most that many bytes (``RULEKIT_CACHE_MAX_DAYS``, ``RULEKIT_CACHE_MAX_MB``;
    a value that is not a positive whole number means the default)."""
    return _setting("RULEKIT_CACHE_MAX_DAYS", MAX_DAYS), _setting(
        "RULEKIT_CACHE_MAX_MB", MAX_MB
    ) * 1024 * 1024


def _setting(name: str, default: int) -> int:
    text = os.environ.get(name, "").strip()
    if text.isascii() and text.isdigit() and 0 < len(text) < 10 and int(text) > 0:
        return int(text)
    return default


def prune(directory: Path, now: float | None = None) -> int:
    """Remove the entries unused for longer than the age limit, temporary files left by
    dead writers, then the oldest entries until the rest fit the size limit; returns how
    many files were removed."""
    days, most = limits()
    now = time.time() if now is None else now
    kept: list[Entry] = []
    removed = 0
    for entry in entries(directory):
        stale = _STALE_TMP if entry.path.name.endswith(".tmp") else days * 86400
        if now - entry.mtime > stale:
            removed += _remove(entry.path)
        else:
            kept.append(entry)
    total = sum(e.size for e in kept)
    for entry in kept:
        if total <= most:
            break
        if not entry.path.name.endswith(".tmp"):  # another process is writing it
            removed += _remove(entry.path)
            total -= entry.size
    return removed


_PRUNED: list[bool] = []


def prune_once(directory: Path) -> None:
    """:func:`prune`, the first time this process calls it (a cache write calls it)."""
    if not _PRUNED:
        _PRUNED.append(True)
        prune(directory)


def clear(directory: Path) -> tuple[int, int]:
    """Remove all of rulekit's files from ``directory``: (files, bytes) removed."""
    files = size = 0
    for entry in entries(directory):
        if _remove(entry.path):
            files += 1
            size += entry.size
    return files, size


def _remove(path: Path) -> int:
    try:
        path.unlink()
    except OSError:
        return 0
    return 1
