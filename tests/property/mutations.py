"""Mutations of the shipped rulesets for the soundness property (test_soundness.py).

A :class:`Site` is a literal data value of a ruleset file whose declared type is known: a
number in ``constants:``, a component attribute of an item, a field's ``initial:`` value.
:func:`mutated` copies a ruleset directory and rewrites one file with some values replaced or
a constant added, so that ``check`` and play can be tried on it.
"""

from __future__ import annotations

import shutil
import tempfile
from collections.abc import Iterator, Sequence
from contextlib import contextmanager
from pathlib import Path
from typing import Any

import yaml
from attrs import frozen

#: Where an added constant goes: a name no shipped ruleset uses.
ADDED = "SOUNDNESS_PROBE"


@frozen
class Site:
    """A literal value in a ruleset file: where it is, its declared type, its value."""

    file: str
    path: tuple[Any, ...]
    declared: str
    value: Any

    def __str__(self) -> str:
        return f"{self.file}:{'.'.join(str(p) for p in self.path)} ({self.declared} {self.value!r})"


def rules_files(ruleset: Path) -> list[Path]:
    """The ruleset's own YAML files: ruleset.yaml, its included files and its modules."""
    return sorted([*ruleset.glob("*.yaml"), *ruleset.glob("modules/*.yaml")])


def _load(path: Path) -> Any:
    return yaml.safe_load(path.read_text(encoding="utf-8"))


def _declared(text: Any) -> str | None:
    if isinstance(text, dict):
        text = text.get("type")
    return str(text).strip() if isinstance(text, str) else None


def _is_int(value: Any) -> bool:
    return isinstance(value, int) and not isinstance(value, bool)


def sites(ruleset: Path) -> list[Site]:
    """Every literal value of the ruleset whose declared (or evident) type is known."""
    found: list[Site] = []
    for path in rules_files(ruleset):
        data = _load(path)
        if not isinstance(data, dict):
            continue
        name = str(path.relative_to(ruleset))
        for constant, value in (data.get("constants") or {}).items():
            if _is_int(value):
                found.append(Site(name, ("constants", constant), "int", value))
            elif isinstance(value, list):
                found += [
                    Site(name, ("constants", constant, i), "int", v)
                    for i, v in enumerate(value)
                    if _is_int(v)
                ]
            elif isinstance(value, dict) and _declared(value) and "value" in value:
                found.append(
                    Site(name, ("constants", constant, "value"), str(_declared(value)), value["value"])
                )
        for kind, component in (data.get("components") or {}).items():
            if not isinstance(component, dict):
                continue
            attributes = {a: _declared(t) for a, t in (component.get("attributes") or {}).items()}
            for index, item in enumerate(component.get("items") or ()):
                for attribute, declared in attributes.items():
                    if isinstance(item, dict) and attribute in item and declared is not None:
                        where = ("components", kind, "items", index, attribute)
                        found.append(Site(name, where, declared, item[attribute]))
        for scope, fields in (data.get("state") or {}).items():
            for field, declaration in (fields or {}).items():
                if isinstance(declaration, dict) and _declared(declaration):
                    where = ("state", scope, field, "initial")
                    found.append(Site(name, where, str(_declared(declaration)), declaration.get("initial")))
    return found


def component_ids(ruleset: Path) -> dict[str, list[str]]:
    """The ids of each component kind the ruleset's files declare, by kind."""
    ids: dict[str, list[str]] = {}
    for path in rules_files(ruleset):
        data = _load(path)
        for kind, component in ((data or {}).get("components") or {}).items():
            for item in (component or {}).get("items") or ():
                # an entry with copies stands for several ids (``guard_{copy_number}``): not one
                if isinstance(item, dict) and "id" in item and "copies" not in item:
                    ids.setdefault(str(kind), []).append(str(item["id"]))
    return ids


def _set(data: Any, path: Sequence[Any], value: Any) -> None:
    for key in path[:-1]:
        data = data.setdefault(key, {}) if isinstance(data, dict) else data[key]
    data[path[-1]] = value


@contextmanager
def mutated(ruleset: Path, file: str, changes: Sequence[tuple[tuple[Any, ...], Any]]) -> Iterator[Path]:
    """A temporary copy of ``ruleset`` with the values at ``changes``' paths of ``file`` replaced
    (a path that does not exist yet is added, e.g. a new constant)."""
    with tempfile.TemporaryDirectory(prefix="rulekit-mutant-") as tmp:
        copy = Path(tmp) / ruleset.name
        shutil.copytree(ruleset, copy, ignore=shutil.ignore_patterns("scenarios", "__pycache__"))
        target = copy / file
        data = _load(target)
        for path, value in changes:
            _set(data, path, value)
        target.write_text(
            yaml.safe_dump(data, sort_keys=False, allow_unicode=True, width=1000), encoding="utf-8"
        )
        yield copy
