"""Variant files: the keys they may use, finding shipped ones, loading and fingerprinting them."""

from __future__ import annotations

import hashlib
import json
from collections.abc import Sequence
from pathlib import Path
from typing import Any

from attrs import frozen

from rulekit.errors import Diagnostic, DiagnosticBag, RulesetError, Span, did_you_mean
from rulekit.rules.compose import (
    NAMED_SECTIONS,
    SINGLE_SECTIONS,
    RulesetSource,
    display_path,
    is_file,
    load_source,
    plain_data,
)
from rulekit.rules.parameters import PREFIX, is_setting, setting_value, setting_variant_data, value_text
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
    if is_file(path):
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
    if is_setting(ref):
        return _setting(str(ref), source)
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


def _setting(ref: str, source: RulesetSource | None) -> VariantSource:
    """A parameter setting (``param:NAME=VALUE``) as the one-line variant it stands for.

    Raises:
        RulesetError: no such parameter, or a value it does not allow.
    """
    if source is None:
        raise RulesetError(Diagnostic(f"{ref}: a parameter setting needs its ruleset"))
    name, value = setting_value(ref, source.data, source.name)
    display = f"{PREFIX}{name}={value_text(value)}"
    data = setting_variant_data(name, value, source.name, display)
    return VariantSource(
        name=f"--param {name}",
        path=Path(display),
        display=display,
        data=data,
        title=f"{name} = {value_text(value)}",
        description="",
        ruleset=source.name,
        requires=(),
        conflicts=(),
        players=None,
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
