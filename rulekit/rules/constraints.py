"""The constraints of modules and variants: ruleset, required and conflicting patches, player counts.

One check for both kinds of patch (:class:`rulekit.rules.patch_files.Patch`): a patch's
``requires`` names modules of the ruleset or chosen variants, its ``conflicts`` names chosen
modules or variants, its ``players`` must meet the ruleset's and the chosen count; each
broken constraint is reported naming the file:line:col where it is declared.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import TYPE_CHECKING, Any

from rulekit.errors import DiagnosticBag, Span, did_you_mean
from rulekit.rules.patch_files import Patch
from rulekit.rules.yaml_source import LocDict, span_of

if TYPE_CHECKING:
    from rulekit.rules.compose import RulesetSource


def check_constraints(
    source: RulesetSource,
    modules: Sequence[Patch],
    variants: Sequence[Patch] = (),
    players: int | None = None,
    where: Span | None = None,
) -> None:
    """Check that the chosen modules and variants fit the ruleset, each other and the player count.

    ``where`` locates a choice that has no position of its own (a command line's).

    Raises:
        RulesetError: each broken constraint, naming it and where it is declared.
    """
    bag = DiagnosticBag()
    chosen = {**{v.name: "variant" for v in variants}, **{m.name: "module" for m in modules}}
    base = data_players(source.data)
    for patch in (*modules, *variants):
        _check_patch(patch, source, chosen, base, players, where, bag)
    seen: dict[str, Patch] = {}
    for variant in variants:
        if variant.name in seen and seen[variant.name].path.resolve() != variant.path.resolve():
            bag.error(
                f"two different variants are named '{variant.name}' "
                f"({seen[variant.name].display} and {variant.display})",
                span_of(variant.data.get("variant")),
            )
        seen[variant.name] = variant
    bag.raise_if_any()


def _check_patch(
    patch: Patch,
    source: RulesetSource,
    chosen: dict[str, str],
    base: tuple[int, int] | None,
    players: int | None,
    where: Span | None,
    bag: DiagnosticBag,
) -> None:
    data, what = patch.data, f"{patch.kind} '{patch.name}'"
    if patch.ruleset is not None and patch.ruleset != source.name:
        bag.error(
            f"{what} is for ruleset '{patch.ruleset}', not '{source.name}'",
            span_of(data.get("ruleset")),
            hint=f"load it with ruleset '{patch.ruleset}', or change this line to 'ruleset: {source.name}'",
        )
    for index, required in enumerate(patch.requires):
        at = _list_span(data, "requires", index)
        if required not in source.modules and chosen.get(required) != "variant":
            bag.error(
                f"{what} requires '{required}', which is no module of '{source.name}'",
                at,
                hint=did_you_mean(required, source.modules)
                or f"modules of {source.name}: {', '.join(sorted(source.modules)) or 'none'}",
            )
        elif required not in chosen:
            bag.error(
                f"{what} requires module '{required}' (declared at {at})",
                where,
                hint=f"choose module '{required}' too",
            )
    for index, conflict in enumerate(patch.conflicts):
        if conflict in chosen and conflict != patch.name:
            bag.error(
                f"{what} conflicts with {chosen[conflict]} '{conflict}' "
                f"(declared at {_list_span(data, 'conflicts', index)})",
                where,
            )
    declared_at = span_of(data.get("players")) or data.key_spans.get("players")
    if patch.players is not None and base is not None:
        low, high = patch.players
        if high < base[0] or low > base[1]:
            bag.error(
                f"{what} allows {low}-{high} players, but {source.name} is for {base[0]}-{base[1]}",
                declared_at,
            )
    check_player_count(what, patch.players, players, declared_at, where, bag)


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


def narrow_players(data: LocDict, patch: Patch) -> None:
    """Intersect the composed rules' player range with the one a patch allows."""
    if patch.players is None:
        return
    current = data.get("players")
    low, high = patch.players
    base = data_players(data)
    if base is not None:
        low, high = max(low, base[0]), min(high, base[1])
    elif current is not None:
        return  # a malformed players entry: left for the loader to report
    narrowed = LocDict(min=low, max=high)
    narrowed.span = span_of(patch.data.get("players")) or Span(patch.display, 1, 1)
    narrowed.key_spans = {}
    data["players"] = narrowed
