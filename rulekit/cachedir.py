"""Where rulekit keeps caches: safe to delete at any time, never needed for correctness.

``RULEKIT_CACHE_DIR`` chooses the directory; ``RULEKIT_NO_CACHE=1`` turns every cache
off.  Otherwise ``$XDG_CACHE_HOME/rulekit`` or ``~/.cache/rulekit``.  Files are written
atomically (a temporary file renamed into place), so a reader never sees half a file.
"""

from __future__ import annotations

import os
import tempfile
from pathlib import Path


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
