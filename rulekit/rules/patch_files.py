"""Module and variant files: one reader for both kinds of patch.

A module (``modules/NAME.yaml``) and a variant (``variants/NAME.yaml``, or anywhere) are both
read here, once: the header (name, title, description, ``requires``, ``conflicts``,
``players``; a variant's ``ruleset``), the keys the file may use (from the one declaration of
the format, :mod:`rulekit.rules.schema`), a module's ``include:`` files, and a fingerprint of
what the file does.  What the operations do is :mod:`rulekit.rules.patch`.
"""

from __future__ import annotations

import hashlib
import json
from pathlib import Path
from typing import Any

from attrs import frozen

from rulekit.errors import DiagnosticBag, Span, did_you_mean
from rulekit.rules import schema
from rulekit.rules.patch import ALIASES, OPERATIONS, add_entries
from rulekit.rules.schema import check_keys
from rulekit.rules.yaml_source import LocDict, load_file, plain_data, span_of

NAMED_SECTIONS = schema.NAMED_SECTIONS
SINGLE_SECTIONS = schema.SINGLE_SECTIONS
#: The keys each kind of patch file may use.
KEYS = {"module": schema.MODULE.names, "variant": schema.VARIANT.names}


@frozen
class Patch:
    """A module or variant file: what it is, its constraints and its located content."""

    #: ``"module"`` or ``"variant"``.
    kind: str
    name: str
    path: Path
    display: str
    data: LocDict
    title: str
    description: str
    #: The ruleset a variant names (a module belongs to its directory's: None).
    ruleset: str | None
    requires: tuple[str, ...]
    conflicts: tuple[str, ...]
    players: tuple[int, int] | None
    fingerprint: str
    #: The file and the files it includes, as spans name them.
    files: tuple[str, ...] = ()

    def info(self) -> dict[str, Any]:
        """Metadata for logs and reports (JSON-ready)."""
        return {
            "variant": self.name,
            "title": self.title,
            "description": self.description,
            "path": self.display,
            "fingerprint": self.fingerprint,
        }


def display_path(path: Path) -> str:
    try:
        return str(path.resolve().relative_to(Path.cwd()))
    except ValueError:
        return str(path)


def read_patch(kind: str, path: Path, bag: DiagnosticBag, ruleset: str | None = None) -> Patch | None:
    """Read one module or variant file (its operations are checked when applied).

    Every problem goes to ``bag`` at its position; None when the file is not a mapping.
    ``ruleset`` (the name of the ruleset it is read for) only improves a hint.
    """
    display = display_path(path)
    data = load_file(path, display)
    if not isinstance(data, LocDict):
        bag.error(f"a {kind} file must be a mapping", span_of(data, Span(display, 1, 1)))
        return None
    return patch_of(kind, data, path, display, bag, ruleset)


def patch_of(
    kind: str, data: LocDict, path: Path, display: str, bag: DiagnosticBag, ruleset: str | None = None
) -> Patch:
    """The :class:`Patch` of a module's or variant's located ``data`` (problems into ``bag``)."""
    _check_keys(kind, data, bag)
    files = [display]
    if kind == "module":
        for included in includes(data, path.parent, bag, root=path.parent.parent):
            merge_sections(data, included, bag)
            span = span_of(included)
            if span is not None:
                files.append(span.file)
    else:
        _check_variant_header(data, display, bag, ruleset)
    name = str(data.get(kind) or path.stem)
    named = data.get("ruleset")
    return Patch(
        kind=kind,
        name=name,
        path=path,
        display=display,
        data=data,
        title=str(data.get("title") or name),
        description=" ".join(str(data.get("description") or "").split()),
        ruleset=str(named) if isinstance(named, str) and kind == "variant" else None,
        requires=_names(data, "requires", bag),
        conflicts=_names(data, "conflicts", bag),
        players=_players(kind, data, bag),
        fingerprint=patch_fingerprint(data),
        files=tuple(files),
    )


def _check_keys(kind: str, data: LocDict, bag: DiagnosticBag) -> None:
    """Report every key the kind of file does not use, at its position, with the nearest names."""
    allowed = KEYS[kind]
    for key in data:
        if key not in allowed:
            hint = did_you_mean(str(key), allowed)
            if kind == "variant" and (key in NAMED_SECTIONS or key in SINGLE_SECTIONS):
                hint = f"a variant changes sections through its operations, e.g. 'add: {{{key}: ...}}'"
            bag.error(f"unknown {kind} key '{key}'", data.key_spans.get(key), hint=hint, expected=allowed)


def _check_variant_header(data: LocDict, display: str, bag: DiagnosticBag, ruleset: str | None) -> None:
    if "variant" not in data:
        bag.error("a variant file needs 'variant: NAME'", Span(display, 1, 1))
    named = data.get("ruleset")
    if named is None:
        bag.error(
            "a variant file needs 'ruleset: NAME', the game it changes",
            data.key_spans.get("variant") or Span(display, 1, 1),
            hint=f"add 'ruleset: {ruleset}'" if ruleset is not None else None,
        )
    elif not isinstance(named, str):
        bag.error("ruleset must be the name of a ruleset", span_of(named) or data.key_spans.get("ruleset"))
    if not any(op in data for op in (*OPERATIONS, *ALIASES)):
        bag.error(
            "a variant changes nothing: give at least one of " + ", ".join(OPERATIONS),
            data.key_spans.get("variant") or Span(display, 1, 1),
        )


def includes(data: LocDict, directory: Path, bag: DiagnosticBag, root: Path | None = None) -> list[LocDict]:
    """The files named by ``include:`` (relative to ``directory``, inside ``root``: the ruleset)."""
    inside = (root or directory).resolve()
    result = []
    named = data.pop("include", None) or []
    if isinstance(named, str):
        named = [named]
    for entry in named:
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


def merge_sections(base: LocDict, extra: LocDict, bag: DiagnosticBag) -> None:
    """Add the sections of an included file to ``base``; a name or single section given twice is an error."""
    for section, value in extra.items():
        if section in NAMED_SECTIONS:
            add_entries(base, section, value, bag, extra.key_spans.get(section))
        elif section in SINGLE_SECTIONS:
            if section in base:
                bag.error(
                    f"section '{section}' is already defined at {span_of(base[section])}",
                    extra.key_spans.get(section),
                )
                continue
            base[section] = value
            base.key_spans[section] = extra.key_spans.get(section)  # type: ignore[assignment]


def patch_fingerprint(data: Any) -> str:
    """A stable hash of what a patch does (comments, layout, title and description excluded)."""
    plain = plain_data(data)
    if isinstance(plain, dict):
        plain = {k: v for k, v in plain.items() if k not in ("title", "description", "cite")}
    text = json.dumps(plain, sort_keys=True, separators=(",", ":"))
    return hashlib.sha256(text.encode("utf-8")).hexdigest()[:16]


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


def is_count(value: Any) -> bool:
    """A player count: an int of at least 1 (YAML's true and false are not numbers here)."""
    return isinstance(value, int) and not isinstance(value, bool) and value >= 1


def _players(kind: str, data: LocDict, bag: DiagnosticBag) -> tuple[int, int] | None:
    value = data.get("players")
    if value is None:
        return None
    if is_count(value):
        return (value, value)
    if isinstance(value, LocDict):
        low, high = value.get("min", 1), value.get("max", 99)
        if is_count(low) and is_count(high) and low <= high:
            return (low, high)
    bag.error(
        f"a {kind}'s players needs {{min: N, max: M}} with 1 <= min <= max",
        span_of(value) or data.key_spans.get("players"),
    )
    return None
