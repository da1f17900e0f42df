"""The program cache reads only regular files of bounded size in its directory, is pruned,
and can be inspected and emptied (``rulekit cache info|clear``)."""

from __future__ import annotations

import os
import resource
import subprocess
import sys
import time
from collections.abc import Callable
from pathlib import Path

import pytest

from rulekit import cachedir
from rulekit.load import _LOADED
from tests.hostile.conftest import Run

_ROOT = Path(__file__).resolve().parents[2]


def _cache(tmp_path: Path) -> Path:
    return tmp_path / ".cache"


def _entries(tmp_path: Path) -> list[Path]:
    return sorted(_cache(tmp_path).glob("program-*.pickle"))


def _checked(run: Run, ruleset: Callable[[str], Path]) -> tuple[Path, Path]:
    """A ruleset checked once (so its cache entry exists): (ruleset, entry)."""
    rules = ruleset("")
    assert run("check", str(rules))[0] == 0
    _LOADED.clear()  # the next load in this process asks the disk cache again
    (entry,) = [p for p in _entries(rules.parent) if p.is_file()]
    return rules, entry


def _check_in_a_child(rules: Path, tmp_path: Path) -> subprocess.CompletedProcess[str]:
    """``rulekit check`` in another process, with at most 2 GB of memory and 60 seconds."""

    def cap_memory() -> None:
        resource.setrlimit(resource.RLIMIT_AS, (2 << 30, 2 << 30))

    env = dict(os.environ, PYTHONPATH=str(_ROOT), RULEKIT_CACHE_DIR=str(_cache(tmp_path)))
    return subprocess.run(
        [sys.executable, "-m", "rulekit", "check", str(rules)],
        env=env,
        cwd=tmp_path,
        capture_output=True,
        text=True,
        timeout=60,
        preexec_fn=cap_memory,
        check=False,
    )


def test_a_fifo_in_place_of_a_cache_entry_is_a_miss_not_a_hang(
    run: Run, ruleset: Callable[[str], Path], tmp_path: Path
) -> None:
    rules, entry = _checked(run, ruleset)
    entry.unlink()
    os.mkfifo(entry)
    done = _check_in_a_child(rules, tmp_path)  # today's code waits for a writer for ever
    assert done.returncode == 0, done.stderr
    assert entry.is_file() and not entry.is_symlink()  # the miss wrote a new entry over it


def test_a_symlink_to_dev_zero_in_place_of_a_cache_entry_is_a_miss_not_a_traceback(
    run: Run, ruleset: Callable[[str], Path], tmp_path: Path
) -> None:
    rules, entry = _checked(run, ruleset)
    entry.unlink()
    entry.symlink_to("/dev/zero")
    done = _check_in_a_child(rules, tmp_path)
    assert done.returncode == 0, done.stderr
    assert "Traceback" not in done.stderr
    assert entry.is_file() and not entry.is_symlink()


def test_a_valid_entry_reached_through_a_symlink_out_of_the_directory_is_not_read(
    run: Run, ruleset: Callable[[str], Path], tmp_path: Path
) -> None:
    rules, entry = _checked(run, ruleset)
    outside = tmp_path / "elsewhere.pickle"
    entry.rename(outside)
    entry.symlink_to(outside)
    assert run("check", str(rules))[0] == 0
    assert not entry.is_symlink()  # a miss: a new entry replaced the link
    assert outside.stat().st_size > 0  # and the file it pointed to is untouched


def test_an_entry_larger_than_the_cap_is_a_miss(run: Run, ruleset: Callable[[str], Path]) -> None:
    """A valid entry padded beyond the cap (pickle ignores what follows its end) is not read."""
    rules, entry = _checked(run, ruleset)
    with entry.open("r+b") as handle:
        handle.truncate(cachedir.MAX_ENTRY_BYTES + 1)  # sparse: no disk space used
    assert run("check", str(rules))[0] == 0
    assert entry.stat().st_size <= cachedir.MAX_ENTRY_BYTES  # rewritten, not used


def _fake(directory: Path, name: str, size: int, days_ago: float) -> Path:
    path = directory / name
    path.write_bytes(b"x" * size)
    moment = time.time() - days_ago * 86400
    os.utime(path, (moment, moment))
    return path


def test_entries_unused_for_longer_than_the_age_limit_are_pruned_when_an_entry_is_written(
    run: Run, ruleset: Callable[[str], Path], tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setattr(cachedir, "_PRUNED", [])
    monkeypatch.setenv("RULEKIT_CACHE_MAX_DAYS", "10")
    directory = _cache(tmp_path)
    directory.mkdir(mode=0o700)
    old = _fake(directory, "program-0000.pickle", 100, days_ago=11)
    old_grammar = _fake(directory, "grammar-0000.lark-cache", 100, days_ago=40)
    recent = _fake(directory, "program-1111.pickle", 100, days_ago=9)
    foreign = _fake(directory, "notes.txt", 100, days_ago=400)
    assert run("check", str(ruleset("")))[0] == 0
    assert not old.exists() and not old_grammar.exists()
    assert recent.exists() and foreign.exists()


def test_the_oldest_entries_beyond_the_size_limit_are_pruned_when_an_entry_is_written(
    run: Run, ruleset: Callable[[str], Path], tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setattr(cachedir, "_PRUNED", [])
    monkeypatch.setenv("RULEKIT_CACHE_MAX_MB", "1")
    directory = _cache(tmp_path)
    directory.mkdir(mode=0o700)
    size = 600 * 1024
    oldest, older, newer = (
        _fake(directory, f"program-{n}.pickle", size, days_ago=days) for n, days in ((1, 3), (2, 2), (3, 1))
    )
    assert run("check", str(ruleset("")))[0] == 0
    assert not oldest.exists() and not older.exists()
    assert newer.exists() and len(_entries(tmp_path)) == 2  # and the entry just written
    assert sum(p.stat().st_size for p in directory.iterdir()) <= 1024 * 1024


def test_cache_info_shows_the_directory_entries_total_size_and_oldest_entry(run: Run, tmp_path: Path) -> None:
    directory = _cache(tmp_path)
    directory.mkdir(mode=0o700)
    _fake(directory, "program-1.pickle", 1000, days_ago=5)
    _fake(directory, "program-2.pickle", 2000, days_ago=1)
    _fake(directory, "notes.txt", 5000, days_ago=50)  # not rulekit's: not counted
    status, out, _ = run("cache", "info")
    assert status == 0
    assert f"directory: {directory}" in out
    assert "entries: 2" in out
    assert "total size: 3000 bytes" in out
    assert "oldest: 5.0 days unused (program-1.pickle)" in out


def test_cache_clear_removes_rulekit_files_only_and_never_follows_a_link(run: Run, tmp_path: Path) -> None:
    directory = _cache(tmp_path)
    directory.mkdir(mode=0o700)
    _fake(directory, "program-1.pickle", 1000, days_ago=0)
    _fake(directory, "grammar-1.lark-cache", 10, days_ago=0)
    target = _fake(tmp_path, "precious.txt", 10, days_ago=0)
    (directory / "program-2.pickle").symlink_to(target)
    foreign = _fake(directory, "notes.txt", 10, days_ago=0)
    status, out, _ = run("cache", "clear")
    assert status == 0
    assert "removed 3 files, 1010 bytes" in out
    assert sorted(p.name for p in directory.iterdir()) == ["notes.txt"]
    assert target.exists() and foreign.exists()
    status, out, _ = run("cache", "info")
    assert "entries: 0" in out
