"""Find a ruleset's files and compose base, modules and variants by name.

Composition works on the located YAML data (before DSL parsing): a module adds
entries to named sections, overrides entries by name, or removes them.  Every
piece keeps the span of the file it came from, so later errors point into the
module or variant that wrote it.
"""

from __future__ import annotations

import hashlib
import json
import os
from pathlib import Path
from typing import Any

from attrs import field, frozen

from rulekit.errors import Diagnostic, DiagnosticBag, RulesetError, Span, did_you_mean
from rulekit.rules import schema
from rulekit.rules.patch import (
    add_entries,
    check_keys,
    extend_entries,
    known_section,
    override_entries,
    remove_entry,
)
from rulekit.rules.yaml_source import LocDict, LocList, LocStr, load_file, span_of

#: The section lists, the keys of each kind of file and what ``extend:`` may append to
#: come from the one declaration of the format (rules/schema.py).
NAMED_SECTIONS = schema.NAMED_SECTIONS
SINGLE_SECTIONS = schema.SINGLE_SECTIONS
RULESET_KEYS = schema.RULESET.names
MODULE_KEYS = schema.MODULE.names
EXTENDABLE = schema.EXTENDABLE


@frozen
class ModuleSource:
    """A module file of a ruleset: its name, constraints and raw content."""

    name: str
    path: Path
    data: LocDict
    requires: tuple[str, ...]
    conflicts: tuple[str, ...]
    players: tuple[int, int] | None
    #: The module's file and the files it includes, as spans name them.
    files: tuple[str, ...] = ()


@frozen
class RulesetSource:
    """The located raw data of a ruleset directory and its modules."""

    name: str
    directory: Path
    data: LocDict
    modules: dict[str, ModuleSource] = field(factory=dict)


def bundled_ruleset_dirs() -> list[Path]:
    """Directories searched for rulesets by name, in order."""
    dirs = [Path.cwd() / "rulesets"]
    env = os.environ.get("RULEKIT_PATH")
    if env:
        dirs.extend(Path(p) for p in env.split(os.pathsep) if p)
    dirs.append(Path(__file__).resolve().parent.parent.parent / "rulesets")
    return dirs


def available_rulesets() -> list[str]:
    names: set[str] = set()
    for directory in bundled_ruleset_dirs():
        if directory.is_dir():
            names.update(p.parent.name for p in directory.glob("*/ruleset.yaml"))
    return sorted(names)


def is_file(path: Path) -> bool:
    """``path.is_file()``, false also when the name cannot be a file here (too long, ...)."""
    try:
        return path.is_file()
    except (OSError, ValueError):  # ENAMETOOLONG, ELOOP; ValueError: a NUL in the name
        return False


def find_ruleset(name_or_path: str) -> Path:
    """Resolve a ruleset name or directory path to its directory.

    Raises:
        RulesetError: nothing by that name or path.
    """
    candidate = Path(name_or_path)
    if is_file(candidate) and candidate.name.endswith((".yaml", ".yml")):
        return candidate.parent
    if is_file(candidate / "ruleset.yaml"):
        return candidate
    if "/" not in name_or_path:
        for directory in bundled_ruleset_dirs():
            if is_file(directory / name_or_path / "ruleset.yaml"):
                return directory / name_or_path
    hint = did_you_mean(name_or_path, available_rulesets())
    known = ", ".join(available_rulesets()) or "none"
    raise RulesetError(
        Diagnostic(
            f"no ruleset '{name_or_path}' (bundled rulesets: {known})",
            hint=hint or "give a ruleset name or a directory containing ruleset.yaml",
        )
    )


def display_path(path: Path) -> str:
    try:
        return str(path.resolve().relative_to(Path.cwd()))
    except ValueError:
        return str(path)


def _expect_mapping(value: Any, what: str, fallback: Span | None) -> LocDict:
    if not isinstance(value, LocDict):
        raise RulesetError(Diagnostic(f"{what} must be a mapping", span_of(value, fallback)))
    return value


def load_source(name_or_path: str) -> RulesetSource:
    """Read a ruleset directory: ruleset.yaml, its includes and modules/*.yaml.

    Raises:
        RulesetError: the files are missing, not YAML, or not shaped like a ruleset.
    """
    directory = find_ruleset(name_or_path)
    main_path = directory / "ruleset.yaml"
    bag = DiagnosticBag()
    shown = display_path(main_path)
    data = _expect_mapping(load_file(main_path, shown), "a ruleset file", Span(shown, 1, 1))
    check_keys(data, RULESET_KEYS, "ruleset", bag)
    for included in _includes(data, directory, bag):
        _merge_into(data, included, bag, allow_override=False)
    modules: dict[str, ModuleSource] = {}
    module_dir = directory / "modules"
    if module_dir.is_dir():
        for path in sorted(module_dir.glob("*.yaml")):
            module = load_module_file(path, bag)
            if module is None:
                continue
            if module.name in modules:
                bag.error(f"duplicate module '{module.name}'", span_of(module.data.get("module")))
            modules[module.name] = module
    bag.raise_if_any()
    name = str(data.get("ruleset") or directory.name)
    return RulesetSource(name, directory, data, modules)


def _includes(data: LocDict, directory: Path, bag: DiagnosticBag, root: Path | None = None) -> list[LocDict]:
    """The files named by ``include:`` (relative to ``directory``, inside ``root``: the ruleset)."""
    inside = (root or directory).resolve()
    result = []
    includes = data.pop("include", None) or []
    if isinstance(includes, str):
        includes = [includes]
    for entry in includes:
        path = directory / str(entry)
        if not path.resolve().is_relative_to(inside):
            # a rules file names only files of its own ruleset (never /etc/passwd, ../../secret)
            bag.error(f"included file '{entry}' is outside the ruleset's directory", span_of(entry))
            continue
        if not path.is_file():
            bag.error(f"included file '{entry}' does not exist", span_of(entry))
            continue
        included = load_file(path, display_path(path))
        if not isinstance(included, LocDict):
            what = "empty" if included is None else "not a mapping"
            bag.error(
                f"an included file must be a mapping of sections ('{entry}' is {what})",
                span_of(included) or span_of(entry),
            )
            continue
        check_keys(included, (*NAMED_SECTIONS, *SINGLE_SECTIONS), "section", bag)
        result.append(included)
    return result


def _is_count(value: Any) -> bool:
    """A player count: an int of at least 1 (YAML's true and false are not numbers here)."""
    return isinstance(value, int) and not isinstance(value, bool) and value >= 1


def load_module_file(path: Path, bag: DiagnosticBag) -> ModuleSource | None:
    data = load_file(path, display_path(path))
    if not isinstance(data, LocDict):
        bag.error("a module file must be a mapping", span_of(data, Span(display_path(path), 1, 1)))
        return None
    check_keys(data, MODULE_KEYS, "module", bag)
    files = [display_path(path)]
    for included in _includes(data, path.parent, bag, root=path.parent.parent):
        _merge_into(data, included, bag, allow_override=False)
        span = span_of(included)
        if span is not None:
            files.append(span.file)
    name = str(data.get("module") or path.stem)
    players = data.get("players")
    bounds = None
    if players is not None:
        low, high = (players.get("min", 1), players.get("max", 99)) if isinstance(players, dict) else (0, 0)
        if _is_count(low) and _is_count(high) and low <= high:
            bounds = (low, high)
        else:
            bag.error(
                "a module's players needs {min: N, max: M} with 1 <= min <= max",
                span_of(players) or data.key_spans.get("players"),
            )
    return ModuleSource(
        name,
        path,
        data,
        tuple(str(x) for x in data.get("requires") or ()),
        tuple(str(x) for x in data.get("conflicts") or ()),
        bounds,
        tuple(files),
    )


def _merge_into(base: LocDict, extra: LocDict, bag: DiagnosticBag, *, allow_override: bool) -> None:
    """Add the named sections of ``extra`` to ``base``; duplicates are errors."""
    for section, value in extra.items():
        if section in NAMED_SECTIONS:
            add_entries(base, section, value, bag, extra.key_spans.get(section))
        elif section in SINGLE_SECTIONS:
            if section in base and not allow_override:
                bag.error(
                    f"section '{section}' is already defined at {span_of(base[section])}",
                    extra.key_spans.get(section),
                )
                continue
            base[section] = value
            base.key_spans[section] = extra.key_spans.get(section)  # type: ignore[assignment]


def apply_module(base: LocDict, module: ModuleSource, bag: DiagnosticBag) -> None:
    data = module.data
    for section in NAMED_SECTIONS:
        if section in data:
            add_entries(base, section, data[section], bag, data.key_spans.get(section))
    override = data.get("override")
    if override is not None:
        if not isinstance(override, LocDict):
            bag.error("'override' must be a mapping of sections", span_of(override))
        else:
            for section, entries in override.items():
                if not known_section(section, override, bag):
                    continue
                override_entries(base, section, entries, bag, override.key_spans.get(section))
    extend = data.get("extend")
    if extend is not None:
        extend_entries(base, extend, bag)
    for path in data.get("remove") or ():
        remove_entry(base, path, bag)


def module_order(
    source: RulesetSource, names: list[str], players: int | None, where: Span | None = None
) -> list[ModuleSource]:
    """Check module names and constraints; return them in dependency order.

    Raises:
        RulesetError: an unknown module, a missing requirement, a conflict, or a
            player count the module does not allow.
    """
    bag = DiagnosticBag()
    chosen: list[ModuleSource] = []
    for name in names:
        if name not in source.modules:
            bag.error(
                f"unknown module '{name}' for ruleset '{source.name}'",
                where,
                hint=did_you_mean(name, source.modules)
                or f"available modules: {', '.join(sorted(source.modules)) or 'none'}",
            )
            continue
        if source.modules[name] not in chosen:
            chosen.append(source.modules[name])
    names_set = {m.name for m in chosen}
    for module in chosen:
        for required in module.requires:
            if required not in names_set:
                bag.error(
                    f"module '{module.name}' requires module '{required}' "
                    f"(declared at {span_of(module.data.get('requires'))})",
                    where,
                )
        for conflict in module.conflicts:
            if conflict in names_set:
                bag.error(
                    f"module '{module.name}' conflicts with module '{conflict}' "
                    f"(declared at {span_of(module.data.get('conflicts'))})",
                    where,
                )
        declared_at = span_of(module.data.get("players"))
        check_player_count(f"module '{module.name}'", module.players, players, declared_at, where, bag)
    bag.raise_if_any()
    return _dependency_order(chosen)


def check_player_count(
    what: str,
    allowed: tuple[int, int] | None,
    players: int | None,
    declared_at: Span | None,
    where: Span | None,
    bag: DiagnosticBag,
) -> None:
    """Report (at ``where``) a player count outside what a module or variant allows."""
    if players is None or allowed is None:
        return
    low, high = allowed
    if not low <= players <= high:
        bag.error(f"{what} allows {low}-{high} players, not {players} (declared at {declared_at})", where)


def _dependency_order(modules: list[ModuleSource]) -> list[ModuleSource]:
    """Modules by name, except that a required module comes before the modules requiring it."""
    by_name = {m.name: m for m in modules}
    ordered: list[ModuleSource] = []
    visiting: set[str] = set()

    def visit(module: ModuleSource) -> None:
        if module in ordered or module.name in visiting:  # done, or a requires-cycle
            return
        visiting.add(module.name)
        for required in sorted(module.requires):
            if required in by_name:
                visit(by_name[required])
        ordered.append(module)

    for module in sorted(modules, key=lambda m: m.name):
        visit(module)
    return ordered


def compose(source: RulesetSource, modules: list[ModuleSource]) -> LocDict:
    """The ruleset data with the modules applied, in a fresh copy."""
    bag = DiagnosticBag()
    data = _copy(source.data)
    for module in modules:
        apply_module(data, module, bag)
    bag.raise_if_any()
    return data


def entry_origins(data: LocDict, sources: dict[str, str]) -> dict[str, dict[str, str]]:
    """Who wrote each named entry of composed data, by section and name.

    ``sources`` maps a file (as spans name it) to what it is, e.g. ``"module harbor"``;
    an entry is credited to the file of its key, else to the first of those files that
    wrote any value inside it (a variant's ``set`` of one key); otherwise ``"ruleset"``.
    """
    origins: dict[str, dict[str, str]] = {}
    for section in NAMED_SECTIONS:
        part = data.get(section)
        if not isinstance(part, LocDict):
            continue
        for name, entry in part.items():
            files = [span.file for span in (part.key_spans.get(name), *_spans_within(entry)) if span]
            origins.setdefault(section, {})[str(name)] = next(
                (sources[f] for f in files if f in sources), "ruleset"
            )
    return origins


def _spans_within(value: Any) -> list[Span]:
    """The spans of a loaded value, of everything inside it and of its keys, outermost first."""
    found: list[Span] = []
    stack = [value]
    while stack:
        current = stack.pop(0)
        span = span_of(current)
        if span is not None:
            found.append(span)
        if isinstance(current, LocDict):
            found.extend(span for span in current.key_spans.values() if span is not None)
        if isinstance(current, dict):
            stack.extend(current.values())
        elif isinstance(current, list):
            stack.extend(current)
    return found


def _copy(value: Any) -> Any:
    if isinstance(value, LocDict):
        result = LocDict((k, _copy(v)) for k, v in value.items())
        result.span = value.span
        result.key_spans = dict(value.key_spans)
        return result
    if isinstance(value, LocList):
        seq = LocList(_copy(v) for v in value)
        seq.span = value.span
        return seq
    return value


def fingerprint(data: Any) -> str:
    """A stable hash of composed rules data (spans and file names excluded)."""
    text = json.dumps(plain_data(data), sort_keys=True, separators=(",", ":"))
    return hashlib.sha256(text.encode("utf-8")).hexdigest()[:16]


def plain_data(value: Any) -> Any:
    """Located YAML data as plain dicts, lists and strings (for hashing, JSON and diffs)."""
    if isinstance(value, dict):
        return {str(k): plain_data(v) for k, v in value.items()}
    if isinstance(value, list):
        return [plain_data(v) for v in value]
    if isinstance(value, LocStr):
        return str(value)
    return value
