"""Field reads of a generated enumerator, each read once into a local.

While legal actions are listed the state does not change, so within one enumerator
``F[(me, 'money')]`` or ``F[('game', 'round')]`` has the same value at every read.  A read
whose key names the acting player or a fixed owner (``'game'``, ``'turn'``, a component),
and a field every state holds (the caller says which: ``stable``), is made once, into a
local ``L<n>``, just before the first top-level statement of the enumerator that reads it,
when it is read more than once or inside a loop.  Such a read cannot fail (the key is in
every state) and charges no step, so nothing observable moves: the same values, the same
errors, the same step count.  The local's line carries the span marker of the statement
it was taken from.

Reads are found in the Python syntax tree of each line, never by text matching, so a
string literal that happens to spell a field read is left alone.
"""

from __future__ import annotations

import ast
from collections.abc import Callable

from rulekit.compiler import emit

#: (owner, field) -> whether every state holds that field: owner is None for ``me`` (the
#: acting player), else the literal owner ("game", "turn", a component id).
Stable = Callable[[str | None, str], bool]

_INDENT = "    "


def hoist_reads(lines: list[str], stable: Stable) -> list[str]:
    """``lines`` (a generated ``def``: its header, then one statement or block header per
    line, four spaces per level, ``#@N`` markers at the ends) with every stable field read
    made once into a local, where that pays (read twice, or in a loop)."""
    found: dict[tuple[str | None, str], list[tuple[int, int, int]]] = {}  # key -> (line, start, end)
    for index, line in enumerate(lines):
        if index == 0 or "F[(" not in line:
            continue
        for key, start, end in _reads(line):
            if stable(*key):
                found.setdefault(key, []).append((index, start, end))
    hoisted: dict[tuple[str | None, str], str] = {}
    inserts: dict[int, list[str]] = {}  # before line index -> new lines
    for key, places in found.items():
        first = places[0][0]
        line = lines[first]  # in a loop: a nested line or a comprehension
        nested = line.startswith(_INDENT * 2) or " for " in line.lstrip()
        if len(places) < 2 and not nested:
            continue
        top = first
        while lines[top].startswith(_INDENT * 2):  # the top-level statement around it
            top -= 1
        local = f"L{len(hoisted)}"
        hoisted[key] = local
        owner = "me" if key[0] is None else emit.literal(key[0])
        mark = _marker(lines[top])
        inserts.setdefault(top, []).append(f"{_INDENT}{local} = F[({owner}, {emit.literal(key[1])})]{mark}")
    if not hoisted:
        return lines
    edits: dict[int, list[tuple[int, int, str]]] = {}
    for key, local in hoisted.items():
        for index, start, end in found[key]:
            edits.setdefault(index, []).append((start, end, local))
    out: list[str] = []
    for index, line in enumerate(lines):
        out.extend(inserts.get(index, ()))
        for start, end, local in sorted(edits.get(index, ()), reverse=True):
            line = line[:start] + local + line[end:]
        out.append(line)
    return out


def _marker(line: str) -> str:
    at = line.rfind("  #@")
    return line[at:] if at >= 0 else ""


def _reads(line: str) -> list[tuple[tuple[str | None, str], int, int]]:
    """The reads ``F[(me|'owner', 'field')]`` in one generated line: key (owner None for
    ``me``), start and end columns."""
    text = line.lstrip()
    indent = len(line) - len(text)
    try:
        tree = ast.parse(text)
    except SyntaxError:  # a block header: give it a body
        try:
            tree = ast.parse(text + "\n" + _INDENT + "pass")
        except SyntaxError:  # (not planner output) leave it alone
            return []
    encoded = text.encode()
    found = []
    for node in ast.walk(tree):
        if not isinstance(node, ast.Subscript):
            continue
        key = _read_key(node)
        if key is not None and node.lineno == 1 and node.end_lineno == 1 and node.end_col_offset is not None:
            start = len(encoded[: node.col_offset].decode())  # (offsets count UTF-8 bytes)
            end = len(encoded[: node.end_col_offset].decode())
            found.append((key, indent + start, indent + end))
    return found


def _read_key(node: ast.Subscript) -> tuple[str | None, str] | None:
    if not (isinstance(node.value, ast.Name) and node.value.id == "F"):
        return None
    index = node.slice
    if not (isinstance(index, ast.Tuple) and len(index.elts) == 2):
        return None
    owner, field = index.elts
    if not (isinstance(field, ast.Constant) and type(field.value) is str):
        return None
    if isinstance(owner, ast.Name) and owner.id == "me":
        return (None, field.value)
    if isinstance(owner, ast.Constant) and type(owner.value) is str:
        return (owner.value, field.value)
    return None
