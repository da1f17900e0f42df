"""``rulekit cache info|clear``: what the cache directory holds, and emptying it."""

from __future__ import annotations

import os
import time

from rulekit.cachedir import cache_dir, clear, entries, limits


def run(what: str) -> list[str]:
    """The lines ``rulekit cache WHAT`` prints (``info`` or ``clear``)."""
    directory = cache_dir()
    if directory is None:
        reason = (
            "RULEKIT_NO_CACHE is set" if os.environ.get("RULEKIT_NO_CACHE") else "no private cache directory"
        )
        return [f"the cache is off ({reason})"]
    if what == "clear":
        files, size = clear(directory)
        return [f"cleared {directory}: removed {files} files, {_size(size)}"]
    found = entries(directory)
    days, most = limits()
    lines = [
        f"directory: {directory}",
        f"entries: {len(found)}",
        f"total size: {_size(sum(e.size for e in found))}",
    ]
    if found:
        age = max(0.0, time.time() - found[0].mtime) / 86400
        lines.append(f"oldest: {age:.1f} days unused ({found[0].path.name})")
    lines.append(
        f"pruned: entries unused for {days} days, then the oldest beyond {_size(most)} "
        "(RULEKIT_CACHE_MAX_DAYS, RULEKIT_CACHE_MAX_MB)"
    )
    return lines


def _size(size: int) -> str:
    return f"{size / (1024 * 1024):.1f} MB" if size >= 1024 * 1024 else f"{size} bytes"
