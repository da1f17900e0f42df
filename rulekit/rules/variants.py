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
from rulekit.rules.compose import (
    NAMED_SECTIONS,
    SINGLE_SECTIONS,
    ModuleSource,
    RulesetSource,
    _display,
    add_entries,
    check_player_count,
    compose,
    extend_entries,
    known_section,
    load_source,
    module_order,
    override_entries,
    plain_data,
    remove_entry,
)
from rulekit.rules.yaml_source import LocDict, LocStr, load_file, span_of

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
)
OPERATIONS = ("set", "replace", "remove", "add", "extend")
#: Keys a variant may add with ``set`` to an existing definition that lacks them.
_OPTIONAL_KEYS = {
    "actions": ("params", "require", "cost", "effect", "ends_turn", "prompt", "cite", "doc"),
    "triggers": ("when", "cite", "doc"),
    "invariants": ("message", "cite"),
    "properties": ("message", "cite", "over"),
    "functions": ("params", "doc"),
    "scoring": ("score", "tiebreak", "end_when"),
}
#: Sections whose values are DSL text, where an int literal and an expression are interchangeable.
_DSL_SECTIONS = ("actions", "triggers", "functions", "invariants", "properties", "scoring", "flow", "setup")
_COMPONENT_KEYS = ("collection", "attributes", "items", "doc")


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
    display = _display(path)
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
            _apply_set(data, value, variant.data, own)
        elif key == "replace":
            _apply_replace(data, value, variant.data, own)
        elif key == "remove":
            _apply_remove(data, value, variant.data, own)
        elif key == "add":
            _apply_add(data, value, variant.data, own)
        elif key == "extend":
            extend_entries(data, value, own)
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


def _apply_set(data: LocDict, ops: Any, owner: LocDict, bag: DiagnosticBag) -> None:
    if not isinstance(ops, LocDict):
        bag.error(
            "'set' must map paths to values, e.g. constants.START_MONEY: 30",
            span_of(ops) or owner.key_spans.get("set"),
        )
        return
    for path, value in ops.items():
        key_span = ops.key_spans.get(path)
        found = _resolve(data, str(path), key_span, bag, for_set=True)
        if found is None:
            continue
        parent, key, trail = found
        exists = _has(parent, key)
        if not exists:
            _put(parent, key, value, key_span)
            continue
        old = _get(parent, key)
        problem = _type_problem(data, trail, old, value)
        if problem is not None:
            bag.error(
                f"{path}: {problem}",
                span_of(value) or key_span,
                hint=_type_hint(old, value),
            )
            continue
        _put(parent, key, value, key_span)
        constants = data.get("constants")
        if trail[0] == "constants" and isinstance(constants, LocDict) and key_span is not None:
            # errors about the constant's value (e.g. unknown ids) then point at the variant
            constants.key_spans[trail[1]] = key_span


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
        found = _resolve(data, str(path), span_of(path), bag, for_set=False)
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


# ---------------------------------------------------------------- paths


def _segment_span(key_span: Span | None, path: str, index: int, origin_column: int | None) -> Span | None:
    """The span of the ``index``-th dotted segment of a path key written on one line."""
    if key_span is None:
        return None
    segments = path.split(".")
    offset = sum(len(s) + 1 for s in segments[:index])
    column = (origin_column if origin_column is not None else key_span.column) + offset
    return Span(key_span.file, key_span.line, column, key_span.line, column + len(segments[index]))


def _resolve(
    data: LocDict, path: str, key_span: Span | None, bag: DiagnosticBag, *, for_set: bool
) -> tuple[Any, Any, list[str]] | None:
    """Find the container and key a path names; report the first missing segment."""
    segments = path.split(".")
    origin_column = None
    if isinstance(path, LocStr) and key_span is not None and path.origin.line == key_span.line:
        origin_column = path.origin.column
    if len(segments) < 2 or not all(segments):
        bag.error(
            f"'{path}' is not a path: write SECTION.NAME[.KEY...], e.g. constants.START_MONEY",
            key_span,
            expected=(*NAMED_SECTIONS, *SINGLE_SECTIONS),
        )
        return None
    current: Any = data
    trail: list[str] = []
    for index, segment in enumerate(segments):
        last = index == len(segments) - 1
        here = ".".join(segments[:index]) or "the ruleset"
        container, key = _step(current, segment, trail)
        if key is _MISSING:
            if last and for_set and _may_add(trail, current, segment):
                return current, segment, [*trail, segment]
            bag.error(
                f"{path}: there is no '{segment}' in {here}",
                _segment_span(key_span, path, index, origin_column),
                hint=did_you_mean(segment, _choices(current, trail)) or _list_choices(current, trail),
            )
            return None
        trail.append(segment)
        if last:
            if (
                len(trail) == 2
                and trail[0] == "constants"
                and isinstance(container[key], LocDict)
                and set(container[key]) == {"type", "value"}
            ):
                return container[key], "value", [*trail, "value"]
            return container, key, trail
        current = container[key]
        if not isinstance(current, dict | list):
            bag.error(
                f"{path}: '{'.'.join(trail)}' is a value, not a mapping",
                _segment_span(key_span, path, index + 1, origin_column),
            )
            return None
    return None


class _Missing:
    pass


_MISSING: Any = _Missing()


def _step(current: Any, segment: str, trail: list[str]) -> tuple[Any, Any]:
    if isinstance(current, dict):
        if segment in current:
            return current, segment
        for key in current:
            if str(key) == segment:
                return current, key
        # constants.NAME.value for typed constants; components.KIND.ITEM_ID
        if len(trail) == 2 and trail[0] == "components" and isinstance(current.get("items"), list):
            return _step(current["items"], segment, [*trail, "items"])
        if len(trail) == 2 and trail[0] == "constants" and set(current) == {"type", "value"}:
            return _step(current["value"], segment, [*trail, "value"])
        return current, _MISSING
    if isinstance(current, list):
        if segment.isascii() and segment.isdigit() and len(segment) < 10 and int(segment) < len(current):
            return current, int(segment)
        for index, item in enumerate(current):
            if isinstance(item, dict) and str(item.get("id")) == segment:
                return current, index
        return current, _MISSING
    return current, _MISSING


def _choices(current: Any, trail: list[str]) -> list[str]:
    names: list[str] = []
    if isinstance(current, dict):
        names = [str(k) for k in current]
        if len(trail) == 2 and trail[0] == "components" and isinstance(current.get("items"), list):
            names += [str(i.get("id")) for i in current["items"] if isinstance(i, dict)]
    elif isinstance(current, list):
        names = [str(i.get("id")) for i in current if isinstance(i, dict) and "id" in i]
    return names


def _list_choices(current: Any, trail: list[str]) -> str | None:
    names = _choices(current, trail)
    if not names:
        if isinstance(current, list):
            return f"a list of {len(current)}: use an index 0..{len(current) - 1}" if current else None
        return None
    shown = ", ".join(names[:12]) + (f", ... ({len(names)} in all)" if len(names) > 12 else "")
    return f"existing names here: {shown}"


def _may_add(trail: list[str], current: Any, segment: str) -> bool:
    """May ``set`` create ``segment`` in ``current``?  Only optional keys of a definition."""
    if not isinstance(current, dict):
        return False
    if len(trail) == 2 and trail[0] in _OPTIONAL_KEYS:
        return segment in _OPTIONAL_KEYS[trail[0]]
    if len(trail) == 1 and trail[0] == "scoring":
        return segment in _OPTIONAL_KEYS["scoring"]
    return False


def _has(parent: Any, key: Any) -> bool:
    if isinstance(parent, dict):
        return key in parent
    return isinstance(key, int) and 0 <= key < len(parent)


def _get(parent: Any, key: Any) -> Any:
    return parent[key]


def _put(parent: Any, key: Any, value: Any, key_span: Span | None) -> None:
    parent[key] = value
    if isinstance(parent, LocDict) and key_span is not None:
        parent.key_spans[key] = key_span


# ---------------------------------------------------------------- types


def _kind(value: Any) -> str:
    if value is None:
        return "none"
    if isinstance(value, bool):
        return "bool"
    if isinstance(value, int):
        return "int"
    if isinstance(value, float):
        return "number"
    if isinstance(value, str):
        return "str"
    if isinstance(value, list):
        return "list"
    if isinstance(value, dict):
        return "mapping"
    return type(value).__name__


_ARTICLE = {
    "int": "an int",
    "bool": "a bool (true/false)",
    "str": "a string",
    "list": "a list",
    "mapping": "a mapping",
    "none": "none",
    "number": "a number",
}


def _describe(kind: str) -> str:
    return _ARTICLE.get(kind, kind)


def _type_problem(data: LocDict, trail: list[str], old: Any, new: Any) -> str | None:
    """Why ``new`` cannot replace ``old`` at ``trail``, or None when it can."""
    section = trail[0]
    if section in _DSL_SECTIONS or (section == "state" and trail[-1] == "initial"):
        scalar = ("int", "bool", "str", "none")
        if _kind(old) in scalar and _kind(new) in scalar:
            return None
        if _kind(old) == _kind(new) or old is None:
            return None
        return f"was {_describe(_kind(old))}, cannot become {_describe(_kind(new))}"
    declared = _declared_type(data, trail)
    if declared is not None:
        return _check_declared(declared, new)
    return _same_shape(old, new)


def _declared_type(data: LocDict, trail: list[str]) -> str | None:
    if trail[0] == "constants" and len(trail) == 3 and trail[2] == "value":
        spec = data.get("constants", {}).get(trail[1])
        if isinstance(spec, dict) and "type" in spec:
            return str(spec["type"])
    if trail[0] == "components" and len(trail) == 4 and trail[3] != "id":
        kind = data.get("components", {}).get(trail[1])
        if isinstance(kind, dict) and isinstance(kind.get("attributes"), dict):
            attr = kind["attributes"].get(trail[3])
            if attr is not None:
                return str(attr)
    return None


def _check_declared(type_text: str, value: Any) -> str | None:
    text = type_text.strip()
    if text.endswith("?"):
        if value is None:
            return None
        text = text[:-1]
    kind = _kind(value)
    if text.startswith("list[") and text.endswith("]"):
        if kind != "list":
            return f"must be {_describe('list')} ({type_text}), not {_describe(kind)}"
        for element in value:
            problem = _check_declared(text[5:-1], element)
            if problem is not None:
                return f"an element {problem}"
        return None
    expected = {"int": "int", "bool": "bool", "str": "str", "map": "mapping", "player": "str"}.get(text)
    if text == "any" or text.startswith(("tuple", "grid", "owner")):
        return None
    if expected is None:
        expected = "str"  # a component kind: the value is an id
    if kind != expected:
        declared = "" if text == expected else f" ({type_text})"
        return f"must be {_describe(expected)}{declared}, not {_describe(kind)} {_show(value)}"
    return None


def _same_shape(old: Any, new: Any) -> str | None:
    old_kind, new_kind = _kind(old), _kind(new)
    if old is None:
        return None
    if old_kind != new_kind:
        return f"was {_describe(old_kind)} ({_show(old)}), cannot become {_describe(new_kind)} {_show(new)}"
    if old_kind == "list" and old and new:
        kinds = {_kind(x) for x in old}
        if len(kinds) == 1:
            for element in new:
                problem = _same_shape(old[0], element)
                if problem is not None:
                    return f"the elements {problem.replace('was', 'were', 1)}"
    return None


def _show(value: Any) -> str:
    text = json.dumps(plain_data(value))
    return text if len(text) <= 40 else text[:37] + "..."


def _type_hint(old: Any, new: Any) -> str | None:
    if isinstance(new, str) and isinstance(old, int) and not isinstance(old, bool):
        try:
            int(new)
        except ValueError:
            return None
        return f"write {int(new)} without quotes"
    nested = isinstance(old, list) and any(isinstance(x, list | dict) for x in old)
    if isinstance(old, list) and not isinstance(new, list) and not nested:
        return f"write a list, e.g. [{new}]"
    return None


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
