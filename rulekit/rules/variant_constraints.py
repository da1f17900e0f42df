"""Variant constraints: ruleset, required and conflicting modules or variants, player counts."""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

from rulekit.errors import DiagnosticBag, Span, did_you_mean
from rulekit.rules.compose import (
    ModuleSource,
    RulesetSource,
    check_player_count,
)
from rulekit.rules.variant_files import VariantSource
from rulekit.rules.yaml_source import LocDict, span_of


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
