"""Find a ruleset's files and compose base, modules and variants: the one composer.

Composition works on the located YAML data (before DSL parsing).  Modules and variants are
both patches (:mod:`rulekit.rules.patch_files`) of one language (:mod:`rulekit.rules.patch`):
:func:`compose` applies the chosen modules, then the variants, each file's operations in the
order written.  Every piece keeps the span of the file it came from, so later errors point
into the module or variant that wrote it.
"""

from __future__ import annotations

import hashlib
import json
import os
from collections.abc import Sequence
from pathlib import Path
from typing import Any

from attrs import field, frozen

from rulekit.errors import Diagnostic, DiagnosticBag, RulesetError, Span, did_you_mean
from rulekit.rules import schema
from rulekit.rules.constraints import check_constraints, narrow_players
from rulekit.rules.patch import apply_operations
from rulekit.rules.patch_files import Patch, display_path, includes, merge_sections, read_patch
from rulekit.rules.schema import check_keys
from rulekit.rules.yaml_source import LocDict, LocList, load_file, plain_data, span_of

#: The section lists, the keys of each kind of file and what ``extend:`` may append to
#: come from the one declaration of the format (rules/schema.py).
NAMED_SECTIONS = schema.NAMED_SECTIONS
SINGLE_SECTIONS = schema.SINGLE_SECTIONS
RULESET_KEYS = schema.RULESET.names
MODULE_KEYS = schema.MODULE.names
EXTENDABLE = schema.EXTENDABLE

#: A module file of a ruleset (a :class:`Patch` of kind ``"module"``).
ModuleSource = Patch


@frozen
class RulesetSource:
    """The located raw data of a ruleset directory and its modules."""

    name: str
    directory: Path
    data: LocDict
    modules: dict[str, Patch] = field(factory=dict)


class CompositionError(RulesetError):
    """A variant's constraints or operations failed; ``data`` is what was composed meanwhile."""

    def __init__(self, error: RulesetError, data: LocDict) -> None:
        super().__init__(error.diagnostics)
        self.data = data


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
    for included in includes(data, directory, bag):
        merge_sections(data, included, bag)
    modules: dict[str, Patch] = {}
    module_dir = directory / "modules"
    if module_dir.is_dir():
        for path in sorted(module_dir.glob("*.yaml")):
            module = read_patch("module", path, bag)
            if module is None:
                continue
            if module.name in modules:
                bag.error(f"duplicate module '{module.name}'", span_of(module.data.get("module")))
            modules[module.name] = module
    bag.raise_if_any()
    name = str(data.get("ruleset") or directory.name)
    return RulesetSource(name, directory, data, modules)


def module_order(
    source: RulesetSource, names: list[str], players: int | None, where: Span | None = None
) -> list[Patch]:
    """Check module names and constraints; return them in dependency order.

    Raises:
        RulesetError: an unknown module, a missing requirement, a conflict, or a
            player count the module does not allow.
    """
    bag = DiagnosticBag()
    chosen: list[Patch] = []
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
    bag.raise_if_any()
    check_constraints(source, chosen, (), players, where)
    return _dependency_order(chosen)


def _dependency_order(modules: list[Patch]) -> list[Patch]:
    """Modules by name, except that a required module comes before the modules requiring it."""
    by_name = {m.name: m for m in modules}
    ordered: list[Patch] = []
    visiting: set[str] = set()

    def visit(module: Patch) -> None:
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


def compose(
    source: RulesetSource,
    modules: Sequence[Patch],
    variants: Sequence[Patch] = (),
    players: int | None = None,
) -> LocDict:
    """The ruleset data with the modules (in dependency order, :func:`module_order`) and then
    the variants applied, in a fresh copy.

    Raises:
        RulesetError: a module's operation failed.
        CompositionError: a variant's constraint or operation failed (with the data so far).
    """
    data = _copy(source.data)
    bag = DiagnosticBag()
    for module in modules:
        apply_patch(data, module, bag)
    bag.raise_if_any()
    if not variants:
        return data
    try:
        check_constraints(source, modules, variants, players)
        for variant in variants:
            apply_patch(data, variant, bag)
        bag.raise_if_any()
    except RulesetError as error:
        raise CompositionError(error, data) from None
    return data


def apply_patch(data: LocDict, patch: Patch, bag: DiagnosticBag) -> None:
    """Run one module's or variant's operations on ``data`` and narrow the players it allows."""
    apply_operations(data, patch.data, bag)
    narrow_players(data, patch)


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
