"""Every name written in a ruleset's files, with its exact position (inside YAML strings too).

A file is read with the YAML loader, so a DSL snippet's positions come from its
:class:`~rulekit.dsl.Origin` (quoted and folded scalars map back to the line they were written
on).  Keys are names too: ``state: {player: {banked: ...}}`` declares ``banked``; a dotted key
(``actions.hold.effect``, ``P1.banked``) names each of its parts.
"""

from __future__ import annotations

import re
from collections.abc import Iterator, Mapping
from pathlib import Path
from typing import Any

from attrs import frozen

from rulekit.errors import RulekitError
from rulekit.limits import LIMITS
from rulekit.rules.yaml_source import LocDict, LocList, LocStr, load_text

#: Keys whose values are prose, never DSL: their words are not names.
PROSE = frozenset(
    {"doc", "description", "title", "else", "cite", "scenario", "message", "hint", "label", "reject"}
)
#: The sections whose keys declare a name, by the kind of name.
SECTIONS = {
    "constants": "constant",
    "actions": "action",
    "functions": "function",
    "procedures": "procedure",
    "events": "event",
    "triggers": "trigger",
    "invariants": "invariant",
    "properties": "property",
    "components": "kind",
    "enums": "enum",
    "records": "record",
}
#: The keys a module or a variant writes its sections under.
_WRAPPERS = frozenset({"add", "extend", "override", "replace"})
_NAME = re.compile(r"[A-Za-z_]\w*")
_QUALIFIER = re.compile(r"([A-Za-z_]\w*)\.$")
_SKIP = re.compile(r'"(?:[^"\\\n]|\\.)*"|\'(?:[^\'\\\n]|\\.)*\'|#[^\n]*')
#: At most this many files are read for one index (a hostile folder cannot make it slow).
MAX_FILES = 400


@frozen
class Occurrence:
    """A name written at ``file:line:column`` (1-based), ``length`` characters long.

    ``qualifier`` is the name before a dot (``me`` in ``me.banked``); ``declares`` the kind
    (``constant``, ``field:player``...) when it is a declaring key; ``key`` whether it is a key.
    """

    name: str
    file: Path
    line: int
    column: int
    qualifier: str | None
    declares: str | None = None
    key: bool = False

    @property
    def end(self) -> int:
        return self.column + len(self.name)


def ruleset_files(directory: Path) -> list[Path]:
    """The YAML files of a ruleset folder (ruleset, includes, modules, variants, scenarios)."""
    files = sorted(p for p in directory.rglob("*.yaml") if p.is_file())
    return files[:MAX_FILES]


def build(directory: Path, texts: Mapping[Path, str]) -> list[Occurrence]:
    """The names in every file of the ruleset at ``directory``; ``texts`` are unsaved texts."""
    out: list[Occurrence] = []
    for file in ruleset_files(directory):
        text = texts.get(file.resolve())
        if text is None:
            try:
                if file.stat().st_size > LIMITS.max_file_bytes:
                    continue  # the checker reports it
                text = file.read_text(encoding="utf-8")
            except (OSError, UnicodeDecodeError):
                continue
        if len(text) > LIMITS.max_file_bytes:
            continue
        resolved = file.resolve()
        known = _SCANS.get(resolved)
        if known is None or known[0] != text:
            found = scan(resolved, text)
            if found is None:  # not YAML (being typed): the last names found in it, else the file's
                found = known[1] if known is not None else scan(resolved, _saved(file)) or []
            known = (text, found)
            _SCANS[resolved] = known
        out.extend(known[1])
    return out


#: The last scan of each file with the text it read: an edit rescans only the edited file.
_SCANS: dict[Path, tuple[str, list[Occurrence]]] = {}


def _saved(file: Path) -> str:
    try:
        return file.read_text(encoding="utf-8") if file.stat().st_size <= LIMITS.max_file_bytes else ""
    except (OSError, UnicodeDecodeError):
        return ""


def scan(file: Path, text: str) -> list[Occurrence] | None:
    """The names written in one YAML file (None if it is not valid YAML)."""
    try:
        data = load_text(text, str(file))
    except RulekitError:
        return None
    except Exception:  # a value the loader refuses for another reason
        return None
    return list(_walk(data, (), file))


def _walk(value: Any, path: tuple[str, ...], file: Path) -> Iterator[Occurrence]:
    if isinstance(value, LocDict):
        for key, item in value.items():
            span = value.key_spans.get(key)
            if isinstance(key, str) and span is not None and span.line:
                yield from _key_names(key, span.line, span.column, path, file)
            yield from _walk(item, (*path, str(key)), file)
    elif isinstance(value, LocList):
        for item in value:
            yield from _walk(item, (*path, "[]"), file)
    elif isinstance(value, LocStr) and not (path and path[-1] in PROSE):
        yield from _snippet_names(value, file)


def _declares(path: tuple[str, ...]) -> str | None:
    """What a key under ``path`` declares (``constant``, ``field:game``...), if anything."""
    inner = path[1:] if path and path[0] in _WRAPPERS else path
    if len(inner) == 1 and inner[0] in SECTIONS:
        return SECTIONS[inner[0]]
    if len(inner) == 2 and inner[0] == "state":
        return f"field:{inner[1]}"
    return None


def _key_names(key: str, line: int, column: int, path: tuple[str, ...], file: Path) -> Iterator[Occurrence]:
    if "." not in key:
        if _NAME.fullmatch(key):
            yield Occurrence(key, file, line, column, None, _declares(path), key=True)
        return
    qualifier = None
    for match in _NAME.finditer(key):
        yield Occurrence(match.group(), file, line, column + match.start(), qualifier, key=True)
        qualifier = match.group()


def _snippet_names(value: LocStr, file: Path) -> Iterator[Occurrence]:
    text = str(value)
    origin = getattr(value, "origin", None)
    if origin is None:
        return
    skipped = [(m.start(), m.end()) for m in _SKIP.finditer(text)]
    hole = 0
    for match in _NAME.finditer(text):
        start = match.start()
        while hole < len(skipped) and skipped[hole][1] <= start:
            hole += 1
        if hole < len(skipped) and skipped[hole][0] <= start:
            continue
        if start and text[start - 1].isdigit():
            continue
        before = text[:start]
        qualifier = None
        if before.endswith("."):
            tail = _QUALIFIER.search(before[-80:])
            qualifier = tail.group(1) if tail else "?"  # after a call or an index: not known
        line = before.count("\n") + 1
        column = start - (before.rfind("\n") + 1) + 1
        file_line, file_column = origin.locate(line, column)
        yield Occurrence(match.group(), file, file_line, file_column, qualifier)
