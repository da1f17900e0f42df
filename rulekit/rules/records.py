"""Declared record types (``records: {knight: {kind: str, owner: player, strength: int}}``)
and enumerations (``enums: {colour: [red, green, blue]}``).

A declared record type is a name for a record type (see :mod:`rulekit.dsl.types`), usable
wherever a type is written (fields, parameters, constants, events, ``returns:``).  The names
are read from the raw rules data before the rest is structured, because every type text of
the file may use them; a record may use the records declared before it.
"""

from __future__ import annotations

from typing import Any

from rulekit.dsl import types as t
from rulekit.dsl.names import is_name


def type_names(raw_records: Any, kinds: frozenset[str], raw_enums: Any = None) -> dict[str, t.Type]:
    """The types a rules file may name: its component kinds, enumerations and declared records."""
    names: dict[str, t.Type] = {kind: t.entity(kind) for kind in kinds}
    if isinstance(raw_enums, dict):
        for name, members in raw_enums.items():
            valid = isinstance(members, list) and members and all(isinstance(v, str) for v in members)
            if valid and is_name(str(name)) and str(name) not in names:
                names[str(name)] = t.enum_of(str(name), tuple(str(v) for v in members))
    if not isinstance(raw_records, dict):
        return names
    for name, fields in raw_records.items():
        if not is_name(str(name)) or str(name) in names or not isinstance(fields, dict):
            continue  # reported when the section is structured and checked
        parsed = {
            str(f): t.parse_type(str(text), names) for f, text in fields.items() if isinstance(text, str)
        }
        if len(parsed) == len(fields) and all(v is not None for v in parsed.values()):
            names[str(name)] = t.record_of({f: v for f, v in parsed.items() if v is not None})
    return names
