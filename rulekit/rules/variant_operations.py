"""Applying variants' operations (set, replace, remove, add, extend, adjust) to composed rules data."""

from __future__ import annotations

from collections.abc import Sequence
from pathlib import Path
from typing import Any

import attrs

from rulekit.errors import DiagnosticBag, Span, did_you_mean
from rulekit.rules.adjust import apply_adjust
from rulekit.rules.compose import (
    NAMED_SECTIONS,
    SINGLE_SECTIONS,
    ModuleSource,
    RulesetSource,
)
from rulekit.rules.parameters import apply_setting
from rulekit.rules.patch import add_entries, extend_entries, known_section, override_entries, remove_entry
from rulekit.rules.paths import apply_set, resolve
from rulekit.rules.variant_constraints import check_constraints, data_players
from rulekit.rules.variant_files import VariantSource, load_variant
from rulekit.rules.yaml_source import LocDict, span_of


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
        if key == "parameter":  # a --param setting (rules/parameters.py), never in a file
            apply_setting(data, value, own)
        elif key == "set":
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
        override_entries(data, str(section), entries, bag, ops.key_spans.get(section))
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
        add_entries(data, str(section), entries, bag, ops.key_spans.get(section))
