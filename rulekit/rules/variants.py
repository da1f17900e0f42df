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
    replace: {actions: {take_loan: {...}}, scoring: {...}}   # by name
    remove: [triggers.instant_payment]                        # SECTION.NAME or any path
    add: {actions: {...}, triggers: {...}}                    # new entries
    extend: {actions: {buy: {require: [...]}}}                # append to lists
    adjust: {constants.START_MONEY: "old + 5"}                # relative to the old value

A variant is a patch like a module: the same operations (:mod:`rulekit.rules.patch`), the
same reader (:mod:`rulekit.rules.patch_files`), the same constraints
(:mod:`rulekit.rules.constraints`) and the one composer (:func:`rulekit.rules.compose.compose`),
applied after the modules.  This module is the variants' front door: finding and loading them
(:mod:`rulekit.rules.variant_files`) and the program cache's key.
"""

from __future__ import annotations

from collections.abc import Sequence

from rulekit.rules.constraints import check_constraints, data_players
from rulekit.rules.parameters import is_setting
from rulekit.rules.variant_files import (
    VARIANT_KEYS,
    VariantSource,
    find_variant,
    load_variant,
    shipped_variants,
    variant_fingerprint,
    variant_fingerprints,
)

__all__ = [
    "VARIANT_KEYS",
    "VariantSource",
    "check_constraints",
    "data_players",
    "find_variant",
    "load_variant",
    "shipped_variants",
    "variant_cache_key",
    "variant_fingerprint",
    "variant_fingerprints",
]


def variant_cache_key(variants: Sequence[VariantSource], players: int | None) -> tuple[str, ...]:
    """A cache key for loaded programs: each variant's resolved path and fingerprint, and the player count."""
    key = [f"players={players}"]
    for variant in variants:
        where = variant.display if is_setting(variant.display) else variant.path.resolve()
        key.append(f"{where}@{variant.fingerprint}")
    return tuple(key)
