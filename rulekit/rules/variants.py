"""House-rule variants: one YAML file of checked operations on the composed rules.

A variant file names the ruleset it extends and says what it changes::

    variant: rich_start
    title: A richer start
    description: Everybody starts with 30 instead of 20.
    ruleset: my_game
    requires: [harbor_tiles]        # modules (or other variants) it needs
    conflicts: [short_game]         # modules or variants it cannot be combined with
    players: {min: 3, max: 4}       # player counts it allows
    set:                            # any value by path
      constants.START_MONEY: 30
      components.city.north_port.harbor_costs: [3, 4]
      actions.buy_card.cost: "card.cost - 1"
    replace: {actions: {take_loan: {...}}, scoring: {...}}   # by name, like a module's override
    remove: [triggers.instant_payment]                        # SECTION.NAME or any path
    add: {actions: {...}, triggers: {...}}                    # new entries, like a module
    extend: {actions: {buy: {require: [...]}}}                # append to lists, like a module

Operations run in the order they are written, after the modules.  Every path
and name is checked against the composed rules and every value against the
type of what it replaces; problems are reported at the variant file's
line:column with the nearest existing names.  Values keep their spans, so DSL
errors inside a variant point into the variant file too.
"""

from __future__ import annotations

import hashlib
import json
from collections.abc import Sequence
from pathlib import Path
from typing import Any

import attrs
from attrs import frozen

from rulekit.errors import Diagnostic, DiagnosticBag, RulesetError, Span, did_you_mean
from rulekit.rules.adjust import apply_adjust
from rulekit.rules.compose import (
    NAMED_SECTIONS,
    SINGLE_SECTIONS,
    ModuleSource,
    RulesetSource,
    check_player_count,
    compose,
    display_path,
    load_source,
    module_order,
    plain_data,
)
from rulekit.rules.patch import add_entries, extend_entries, known_section, override_entries, remove_entry
from rulekit.rules.paths import apply_set, resolve
from rulekit.rules.yaml_source import LocDict, load_file, span_of

VARIANT_KEYS = (
    "variant",
    "title",
    "description",
    "ruleset",
    "requires",
    "conflicts",
    "players",
    "cite",
    "set",
    "replace",
    "remove",
    "add",
    "extend",
    "adjust",
)
OPERATIONS = ("set", "replace", "remove", "add", "extend", "adjust")


@frozen
class VariantSource:
    """A loaded variant file: its metadata, constraints and operations."""

    name: str
    path: Path
    display: str
    data: LocDict
    title: str
    description: str
    ruleset: str | None
    requires: tuple[str, ...]
    conflicts: tuple[str, ...]
    players: tuple[int, int] | None
    fingerprint: str

    def info(self) -> dict[str, Any]:
        """Metadata for logs and reports (JSON-ready)."""
        return {
            "variant": self.name,
            "title": self.title,
            "description": self.description,
            "path": self.display,
            "fingerprint": self.fingerprint,
        }


# ---------------------------------------------------------------- finding and loading


def shipped_variants(source: RulesetSource) -> dict[str, Path]:
    """The variant files shipped in the ruleset's ``variants/`` directory, by file stem."""
    directory = source.directory / "variants"
    if not directory.is_dir():
        return {}
    return {p.stem: p for p in sorted(directory.glob("*.yaml"))}


def find_variant(ref: str, source: RulesetSource | None = None) -> Path:
    """Resolve a variant reference: a file path, or the name of a variant shipped with the ruleset.

    Raises:
        RulesetError: no such file or shipped variant (with the nearest names).
    """
    path = Path(ref)
    if path.is_file():
        return path
    shipped = shipped_variants(source) if source is not None else {}
    stem = path.name[: -len(path.suffix)] if path.suffix in (".yaml", ".yml") else path.name
    if stem in shipped and ("/" not in ref or path.parent.name == "variants"):
        # a bare name, or a shipped variant's path recorded elsewhere (e.g. in a log)
        return shipped[stem]
    hint = did_you_mean(stem, shipped)
    if hint is None and shipped:
        hint = f"variants shipped with {source.name if source else 'the ruleset'}: {', '.join(shipped)}"
    raise RulesetError(
        Diagnostic(
            f"no variant file '{ref}'",
            hint=hint or "give the path of a variant YAML file",
        )
    )


def load_variant(ref: str | Path, source: RulesetSource | None = None) -> VariantSource:
    """Read and shape-check one variant file (operations are checked when applied).

    Raises:
        RulesetError: not a variant file, unknown keys, malformed constraints.
    """
    path = find_variant(str(ref), source)
    display = display_path(path)
    data = load_file(path, display)
    bag = DiagnosticBag()
    if not isinstance(data, LocDict):
        raise RulesetError(Diagnostic("a variant file must be a mapping", span_of(data, Span(display, 1, 1))))
    for key in data:
        if key not in VARIANT_KEYS:
            hint = did_you_mean(str(key), VARIANT_KEYS)
            if key in NAMED_SECTIONS or key in SINGLE_SECTIONS:
                hint = f"a variant changes sections through its operations, e.g. 'add: {{{key}: ...}}'"
            bag.error(
                f"unknown variant key '{key}'", data.key_spans.get(key), hint=hint, expected=VARIANT_KEYS
            )
    if "variant" not in data:
        bag.error("a variant file needs 'variant: NAME'", Span(display, 1, 1))
    name = str(data.get("variant") or path.stem)
    requires = _names(data, "requires", bag)
    conflicts = _names(data, "conflicts", bag)
    players = _players(data, bag)
    ruleset = data.get("ruleset")
    if ruleset is None:
        bag.error(
            "a variant file needs 'ruleset: NAME', the game it changes",
            data.key_spans.get("variant") or Span(display, 1, 1),
            hint=f"add 'ruleset: {source.name}'" if source is not None else None,
        )
    elif not isinstance(ruleset, str):
        bag.error("ruleset must be the name of a ruleset", span_of(ruleset) or data.key_spans.get("ruleset"))
        ruleset = None
    if not any(op in data for op in OPERATIONS):
        bag.error(
            "a variant changes nothing: give at least one of set, replace, remove, add, extend",
            data.key_spans.get("variant") or Span(display, 1, 1),
        )
    bag.raise_if_any()
    return VariantSource(
        name=name,
        path=path,
        display=display,
        data=data,
        title=str(data.get("title") or name),
        description=" ".join(str(data.get("description") or "").split()),
        ruleset=str(ruleset) if ruleset is not None else None,
        requires=requires,
        conflicts=conflicts,
        players=players,
        fingerprint=variant_fingerprint(data),
    )


def variant_fingerprint(data: Any) -> str:
    """A stable hash of what a variant does (comments, layout, title and description excluded)."""
    plain = plain_data(data)
    if isinstance(plain, dict):
        plain = {k: v for k, v in plain.items() if k not in ("title", "description", "cite")}
    text = json.dumps(plain, sort_keys=True, separators=(",", ":"))
    return hashlib.sha256(text.encode("utf-8")).hexdigest()[:16]


def variant_fingerprints(paths: Sequence[str | Path], ruleset: str | None = None) -> list[dict[str, Any]]:
    """Name, title, description, path and fingerprint of each variant, for a game log header.

    ``ruleset`` (a name or directory) lets bare names find shipped variants.
    """
    source = load_source(ruleset) if ruleset is not None else None
    return [load_variant(p, source).info() for p in paths]


def _names(data: LocDict, key: str, bag: DiagnosticBag) -> tuple[str, ...]:
    value = data.get(key)
    if value is None:
        return ()
    if isinstance(value, str):
        return (str(value),)
    if not isinstance(value, list) or not all(isinstance(v, str) for v in value):
        bag.error(
            f"{key} must be a list of module or variant names", span_of(value) or data.key_spans.get(key)
        )
        return ()
    return tuple(str(v) for v in value)


def _players(data: LocDict, bag: DiagnosticBag) -> tuple[int, int] | None:
    value = data.get("players")
    if value is None:
        return None
    if isinstance(value, int) and not isinstance(value, bool):
        return (value, value)
    if isinstance(value, LocDict):
        low, high = value.get("min", 1), value.get("max", 99)
        if isinstance(low, int) and isinstance(high, int) and 1 <= low <= high:
            return (low, high)
    bag.error(
        "players needs {min: N, max: M} with 1 <= min <= max",
        span_of(value) or data.key_spans.get("players"),
    )
    return None


# ---------------------------------------------------------------- constraints


def check_constraints(
    source: RulesetSource,
    modules: Sequence[ModuleSource],
    variants: Sequence[VariantSource],
    players: int | None = None,
    where: Span | None = None,
) -> None:
    """Check that the variants fit the ruleset, the chosen modules, each other and the player count.

    Raises:
        RulesetError: each broken constraint, naming it and where it is declared.
    """
    bag = DiagnosticBag()
    module_names = {m.name for m in modules}
    variant_names = {v.name for v in variants}
    for variant in variants:
        data = variant.data
        if variant.ruleset is not None and variant.ruleset != source.name:
            bag.error(
                f"variant '{variant.name}' is for ruleset '{variant.ruleset}', not '{source.name}'",
                span_of(data.get("ruleset")),
                hint=f"load it with ruleset '{variant.ruleset}', "
                f"or change this line to 'ruleset: {source.name}'",
            )
        for index, required in enumerate(variant.requires):
            at = _list_span(data, "requires", index)
            if required not in source.modules and required not in variant_names:
                bag.error(
                    f"variant '{variant.name}' requires '{required}', which is no module of '{source.name}'",
                    at,
                    hint=did_you_mean(required, source.modules)
                    or f"modules of {source.name}: {', '.join(sorted(source.modules)) or 'none'}",
                )
            elif required not in module_names and required not in variant_names:
                kind = "module" if required in source.modules else "variant"
                bag.error(
                    f"variant '{variant.name}' requires {kind} '{required}' (declared at {at})",
                    where,
                    hint=f"choose {kind} '{required}' too",
                )
        for index, conflict in enumerate(variant.conflicts):
            if conflict in module_names or (conflict in variant_names and conflict != variant.name):
                kind = "module" if conflict in module_names else "variant"
                bag.error(
                    f"variant '{variant.name}' conflicts with {kind} '{conflict}' "
                    f"(declared at {_list_span(data, 'conflicts', index)})",
                    where,
                )
        base = data_players(source.data)
        if variant.players is not None and base is not None:
            low, high = variant.players
            if high < base[0] or low > base[1]:
                bag.error(
                    f"variant '{variant.name}' allows {low}-{high} players, "
                    f"but {source.name} is for {base[0]}-{base[1]}",
                    span_of(data.get("players")) or data.key_spans.get("players"),
                )
        check_player_count(
            f"variant '{variant.name}'",
            variant.players,
            players,
            span_of(data.get("players")) or data.key_spans.get("players"),
            where,
            bag,
        )
    for module in modules:
        for conflict in module.conflicts:
            if conflict in variant_names:
                bag.error(
                    f"module '{module.name}' conflicts with variant '{conflict}' "
                    f"(declared at {span_of(module.data.get('conflicts'))})",
                    where,
                )
    seen: dict[str, VariantSource] = {}
    for variant in variants:
        if variant.name in seen and seen[variant.name].path.resolve() != variant.path.resolve():
            bag.error(
                f"two different variants are named '{variant.name}' "
                f"({seen[variant.name].display} and {variant.display})",
                span_of(variant.data.get("variant")),
            )
        seen[variant.name] = variant
    bag.raise_if_any()


def data_players(data: Any) -> tuple[int, int] | None:
    """The (min, max) players of rules data, if it says."""
    players = data.get("players") if isinstance(data, dict) else None
    if not isinstance(players, dict):
        return None
    low, high = players.get("min"), players.get("max", players.get("min"))
    if isinstance(low, int) and isinstance(high, int):
        return (low, high)
    return None


def _list_span(data: LocDict, key: str, index: int) -> Span | None:
    value = data.get(key)
    if isinstance(value, list) and index < len(value):
        return span_of(value[index]) or span_of(value)
    return span_of(value) or data.key_spans.get(key)


# ---------------------------------------------------------------- applying


def apply_variants(
    data: LocDict,
    source: RulesetSource,
    paths: Sequence[str | Path],
    modules: Sequence[ModuleSource],
    *,
    players: int | None = None,
) -> tuple[LocDict, list[tuple[str, str]]]:
    """Apply variant files in order to composed rules data.

    Returns the changed data (the same object) and ``(path, fingerprint)`` for
    each variant, for the model and game logs.

    Raises:
        RulesetError: a broken constraint or any failing operation, with positions.
    """
    variants = [load_variant(p, source) for p in paths]
    check_constraints(source, modules, variants, players)
    bag = DiagnosticBag()
    for variant in variants:
        apply_variant(data, variant, bag)
    bag.raise_if_any()
    return data, [(v.display, v.fingerprint) for v in variants]


def apply_variant(data: LocDict, variant: VariantSource, bag: DiagnosticBag) -> None:
    """Run one variant's operations, in the order written, collecting problems in ``bag``."""
    own = DiagnosticBag()
    for key, value in variant.data.items():
        if key == "set":
            apply_set(data, value, variant.data, own)
        elif key == "replace":
            _apply_replace(data, value, variant.data, own)
        elif key == "remove":
            _apply_remove(data, value, variant.data, own)
        elif key == "add":
            _apply_add(data, value, variant.data, own)
        elif key == "extend":
            extend_entries(data, value, own)
        elif key == "adjust":
            apply_adjust(data, value, variant.data, own)
    # the shared composition helpers speak of modules' 'override:'; a variant says 'replace:'
    bag.extend(
        attrs.evolve(d, hint=d.hint.replace("'override:'", "'replace:'")) if d.hint else d for d in own.items
    )
    if variant.players is not None:
        _narrow_players(data, variant)


def _narrow_players(data: LocDict, variant: VariantSource) -> None:
    """Intersect the ruleset's player range with the variant's."""
    assert variant.players is not None
    current = data.get("players")
    low, high = variant.players
    base = data_players(data)
    if base is not None:
        low, high = max(low, base[0]), min(high, base[1])
    elif current is not None:
        return  # a malformed players entry: left for the loader to report
    narrowed = LocDict(min=low, max=high)
    narrowed.span = span_of(variant.data.get("players")) or Span(variant.display, 1, 1)
    narrowed.key_spans = {}
    data["players"] = narrowed


def _apply_replace(data: LocDict, ops: Any, owner: LocDict, bag: DiagnosticBag) -> None:
    if not isinstance(ops, LocDict):
        bag.error("'replace' must be a mapping of sections", span_of(ops) or owner.key_spans.get("replace"))
        return
    for section, entries in ops.items():
        if not known_section(section, ops, bag):
            continue
        if section in SINGLE_SECTIONS and section not in data:
            bag.error(
                f"cannot replace '{section}': the ruleset has none",
                ops.key_spans.get(section),
                hint=f"use 'add' for new entries; '{section}' can only be replaced",
            )
            continue
        override_entries(data, str(section), entries, bag)
        if section in SINGLE_SECTIONS:
            data.key_spans[section] = ops.key_spans.get(section)  # type: ignore[assignment]


def _apply_remove(data: LocDict, ops: Any, owner: LocDict, bag: DiagnosticBag) -> None:
    if isinstance(ops, str):
        ops = [ops]
    if not isinstance(ops, list):
        bag.error(
            "'remove' must be a list of paths, e.g. [triggers.NAME]",
            span_of(ops) or owner.key_spans.get("remove"),
        )
        return
    for path in ops:
        if not isinstance(path, str):
            bag.error("each entry of 'remove' must be a path (actions.NAME)", span_of(path) or span_of(ops))
            continue
        parts = str(path).split(".")
        if len(parts) == 2 and parts[0] in NAMED_SECTIONS:
            remove_entry(data, path, bag)
            continue
        found = resolve(data, str(path), span_of(path), bag, for_set=False)
        if found is None:
            continue
        parent, key, _trail = found
        if isinstance(parent, dict):
            del parent[key]
            if isinstance(parent, LocDict):
                parent.key_spans.pop(key, None)
        else:
            del parent[key]


def _apply_add(data: LocDict, ops: Any, owner: LocDict, bag: DiagnosticBag) -> None:
    if not isinstance(ops, LocDict):
        bag.error("'add' must be a mapping of sections", span_of(ops) or owner.key_spans.get("add"))
        return
    for section, entries in ops.items():
        if section in SINGLE_SECTIONS:
            bag.error(
                f"'{section}' holds one value and cannot be added to",
                ops.key_spans.get(section),
                hint=f"use 'replace: {{{section}: ...}}'",
            )
            continue
        if section not in NAMED_SECTIONS:
            bag.error(
                f"unknown section '{section}'",
                ops.key_spans.get(section),
                hint=did_you_mean(str(section), NAMED_SECTIONS),
                expected=NAMED_SECTIONS,
            )
            continue
        add_entries(data, str(section), entries, bag)


# ---------------------------------------------------------------- composition front door


def composed_data(
    ruleset: str,
    modules: Sequence[str] = (),
    variants: Sequence[str] = (),
    *,
    players: int | None = None,
) -> tuple[LocDict, RulesetSource, list[ModuleSource], list[VariantSource]]:
    """The composed rules data (before DSL parsing) with modules and variants applied.

    Raises:
        RulesetError: unknown modules, broken constraints, failing operations.
    """
    source = load_source(ruleset)
    chosen = module_order(source, list(modules), players)
    data = compose(source, chosen)
    loaded = [load_variant(v, source) for v in variants]
    if loaded:
        check_constraints(source, chosen, loaded, players)
        bag = DiagnosticBag()
        for variant in loaded:
            apply_variant(data, variant, bag)
        bag.raise_if_any()
    return data, source, chosen, loaded


__all__ = [
    "OPERATIONS",
    "VARIANT_KEYS",
    "VariantSource",
    "apply_variant",
    "apply_variants",
    "check_constraints",
    "composed_data",
    "find_variant",
    "load_variant",
    "shipped_variants",
    "variant_fingerprint",
    "variant_fingerprints",
]


def variant_cache_key(
    source: RulesetSource, refs: Sequence[str | Path], players: int | None
) -> tuple[str, ...]:
    """A cache key for loaded programs: each variant's resolved path and fingerprint, and the player count.

    Raises:
        RulesetError: a variant file cannot be read.
    """
    key = [f"players={players}"]
    for ref in refs:
        variant = load_variant(ref, source)
        key.append(f"{variant.path.resolve()}@{variant.fingerprint}")
    return tuple(key)
