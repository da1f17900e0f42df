"""The on-disk cache of compiled programs: load a ruleset without reading YAML or DSL.

An entry holds the checked :class:`~rulekit.compiler.program.Program` (pickled, with each
generated function replaced by its name), the bytecode of the generated module
(``marshal``) and the list of files the load read, each with the SHA-256 of its bytes.

* The entry's name hashes the ruleset directory, the modules, variants and player
  count asked for, the cache format, Python's bytecode tag and rulekit itself (its
  version and the size and modification time of every one of its source files): an
  entry is never used by another rulekit or Python.
* On a hit every recorded file is read again and must hash the same (an edited rules
  file is a miss), and the modules directory must list the same files; the file texts
  are registered for error messages exactly as a normal load does.
* Anything unexpected while reading an entry is a miss (and the entry is removed); only a
  regular file is read (not a symlink, FIFO or device), and only up to a size cap;
  entries are written atomically; the whole directory is safe to delete, and old entries
  are pruned (:func:`rulekit.cachedir.prune`).

The cache directory is the user's (see :mod:`rulekit.cachedir`); like any cache of code it
trusts the files there as much as the user's own account does.
"""

from __future__ import annotations

import hashlib
import io
import marshal
import os
import pickle
import sys
from collections.abc import Callable, Iterator, Sequence
from contextlib import contextmanager
from functools import lru_cache
from pathlib import Path
from typing import Any

import attrs

from rulekit.cachedir import MAX_ENTRY_BYTES, cache_dir, prune_once, read_entry, write_atomically
from rulekit.compiler.program import Program, runtime_namespace
from rulekit.errors import remember_source
from rulekit.rules import yaml_source

FORMAT = 8  # 8: scoring.team (7: fused decision listings; 6: actions' fallback_when conditions)
_PACKAGE = Path(__file__).resolve().parent.parent


@lru_cache(maxsize=1)  # (rulekit's own files: measured once per process)
def _rulekit_stamp() -> str:
    """rulekit itself: the size and mtime of each of its source files (installing another
    version writes new files; so does any edit), and of the ``pyproject.toml`` that declares
    the version in a source checkout.  (Not ``importlib.metadata.version``: importing
    ``importlib.metadata`` alone costs more than the rest of a cache hit.)"""
    digest = hashlib.sha256(f"{sys.implementation.cache_tag}\0{FORMAT}".encode())
    project = _PACKAGE.parent / "pyproject.toml"
    for path in [*sorted(_PACKAGE.rglob("*")), project]:
        if path.suffix in (".py", ".lark", ".json", ".toml") and path.is_file():
            stat = path.stat()
            digest.update(
                f"{path.relative_to(_PACKAGE.parent)}\0{stat.st_size}\0{stat.st_mtime_ns}\n".encode()
            )
    return digest.hexdigest()


def entry_path(
    directory: Path, modules: Sequence[str], variants: Sequence[str], players: int | None
) -> Path | None:
    """Where the entry for this load lives (None: caching is off)."""
    root = cache_dir()
    if root is None:
        return None
    key = "\0".join(
        [
            _rulekit_stamp(),
            str(directory.resolve()),
            ",".join(modules),
            ",".join(variants),
            os.getcwd() if variants else "",  # variant files may be named relative to it
            str(players),
        ]
    )
    return root / f"program-{hashlib.sha256(key.encode('utf-8', 'surrogatepass')).hexdigest()[:32]}.pickle"


def _listing(directory: Path) -> list[str]:
    modules = directory / "modules"
    return sorted(p.name for p in modules.glob("*.y*ml")) if modules.is_dir() else []


@contextmanager
def recording() -> Iterator[list[tuple[str, str, str]]]:
    """Record every rules file read meanwhile as (path, shown name, SHA-256)."""
    reads: list[tuple[str, str, str]] = []
    previous = yaml_source.READS_HOOK
    yaml_source.READS_HOOK = lambda path, shown, raw: reads.append(
        (str(Path(path).resolve()), shown, hashlib.sha256(raw).hexdigest())
    )
    try:
        yield reads
    finally:
        yaml_source.READS_HOOK = previous


class _Pickler(pickle.Pickler):
    def __init__(self, file: io.BytesIO, generated: str) -> None:
        super().__init__(file, protocol=pickle.HIGHEST_PROTOCOL)
        self.generated = generated

    def reducer_override(self, obj: Any) -> Any:
        # Called only for objects of classes (not for str, tuple, dict...: a persistent_id
        # would be called for every object, which made storing a program twice as slow).
        code = getattr(obj, "__code__", None)
        if code is not None and code.co_filename == self.generated:
            return (_Placeholder, (obj.__name__,))  # a generated function, by name
        return NotImplemented


def store(path: Path, program: Program, reads: list[tuple[str, str, str]], directory: Path) -> None:
    """Write the entry for ``program`` (quietly nothing if it cannot be written)."""
    generated = f"<rulekit:{program.name}>"
    constants = {k: v for k, v in program.namespace.items() if k.startswith("K_")}
    buffer = io.BytesIO()
    try:
        _Pickler(buffer, generated).dump(attrs.evolve(program, namespace={}, code=None))
        code = marshal.dumps(program.code or compile(program.source, generated, "exec"))
        entry = pickle.dumps(
            {
                "format": FORMAT,
                "files": reads,
                "listing": _listing(directory),
                "constants": constants,
                "code": code,
                "program": buffer.getvalue(),
            },
            protocol=pickle.HIGHEST_PROTOCOL,
        )
    except (pickle.PicklingError, TypeError, AttributeError, ValueError):
        return
    if len(entry) <= MAX_ENTRY_BYTES:
        write_atomically(path, entry)
    prune_once(path.parent)


Reads = list[tuple[str, str, str]]


def fetch(path: Path, directory: Path) -> tuple[Program, Reads] | None:
    """The cached program and the files it was made from, or None (a miss: no entry, a
    changed file, a damaged entry, anything but a regular file of at most
    :data:`~rulekit.cachedir.MAX_ENTRY_BYTES` in the cache directory: a symlink, a FIFO, a device)."""
    raw = read_entry(path)
    if raw is None:
        return None  # the next store replaces whatever is there
    try:
        return _restore(raw, directory)
    except Exception:  # a damaged or foreign entry is just a miss
        path.unlink(missing_ok=True)
        return None


def unchanged(reads: Reads, listing: list[str], directory: Path) -> list[tuple[str, bytes]] | None:
    """The (shown name, bytes) of each recorded file if none changed (and the modules
    directory lists the same files), else None."""
    if listing != _listing(directory):
        return None
    texts = []
    for file, shown, digest in reads:
        try:
            data = Path(file).read_bytes()
        except OSError:
            return None
        if hashlib.sha256(data).hexdigest() != digest:
            return None
        texts.append((shown, data))
    return texts


def _restore(raw: bytes, directory: Path) -> tuple[Program, Reads] | None:
    entry = pickle.loads(raw)
    if entry.get("format") != FORMAT:
        return None
    texts = unchanged(entry["files"], entry["listing"], directory)
    if texts is None:
        return None
    # The bytecode runs only once every file it was compiled from is verified.
    # Generated functions come back as placeholders, resolved once the module runs.
    program: Program = pickle.loads(entry["program"])
    namespace = runtime_namespace(program.rules, program.spans, entry["constants"])
    code = marshal.loads(entry["code"])
    exec(code, namespace)
    program.code = code
    _resolve(program, lambda p: namespace[p.name])
    program.namespace = namespace
    for shown, data in texts:
        remember_source(shown, data.decode("utf-8"))
    return program, entry["files"]


def listing(directory: Path) -> list[str]:
    """The module files of a ruleset directory (a new or removed module is a miss)."""
    return _listing(directory)


class _Placeholder:
    __slots__ = ("name",)

    def __init__(self, name: str) -> None:
        self.name = name


def _resolve(program: Program, fn: Callable[[_Placeholder], Any]) -> None:
    """Replace every placeholder in the program's compiled parts by the real function."""

    def fix(value: Any) -> Any:
        return fn(value) if isinstance(value, _Placeholder) else value

    for action in program.actions.values():
        action.domains = tuple(fix(d) for d in action.domains)
        for req in action.requires:
            req.check = fix(req.check)
        action.cost = fix(action.cost)
        action.effect = fix(action.effect)
        action.weight = fix(action.weight)
        action.enumerate = fix(action.enumerate)
        action.fallback_when = {name: fix(f) for name, f in action.fallback_when.items()}
    for trigger in program.triggers:
        trigger.condition = fix(trigger.condition)
        trigger.effect = fix(trigger.effect)
    for invariant in program.invariants:
        invariant.check = fix(invariant.check)
    program.field_inits = [(s, n, fix(f)) for s, n, f in program.field_inits]
    program.setup = fix(program.setup)
    for node in program.flow:
        node.fns = {k: fix(v) for k, v in node.fns.items()}
    program.score = fix(program.score)
    program.tiebreaks = tuple(fix(f) for f in program.tiebreaks)
    program.end_when = fix(program.end_when)
    program.evaluate = fix(program.evaluate)
    program.team = fix(program.team)
    program.visible_to = {key: fix(f) for key, f in program.visible_to.items()}
    program.sample = {key: fix(f) for key, f in program.sample.items()}
    program.decisions = {names: fix(f) for names, f in program.decisions.items()}
