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

from collections.abc import Sequence
from pathlib import Path

from rulekit.rules.compose import (
    RulesetSource,
)
from rulekit.rules.parameters import is_setting
from rulekit.rules.variant_constraints import check_constraints, data_players
from rulekit.rules.variant_files import (
    OPERATIONS,
    VARIANT_KEYS,
    VariantSource,
    find_variant,
    load_variant,
    shipped_variants,
    variant_fingerprint,
    variant_fingerprints,
)
from rulekit.rules.variant_operations import apply_variant, apply_variants

# ---------------------------------------------------------------- composition front door


__all__ = [
    "OPERATIONS",
    "VARIANT_KEYS",
    "VariantSource",
    "apply_variant",
    "apply_variants",
    "check_constraints",
    "data_players",
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
        where = variant.display if is_setting(ref) else variant.path.resolve()
        key.append(f"{where}@{variant.fingerprint}")
    return tuple(key)
