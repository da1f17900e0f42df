"""Field reads of a generated enumerator, each read once into a local.

While legal actions are listed the state does not change, so within one enumerator
``F[(me, 'money')]`` or ``F[('game', 'round')]`` has the same value at every read.  A read
whose key names the acting player or a fixed owner (``'game'``, ``'turn'``, a component),
and a field every state holds (the caller says which: ``stable``), is made once, into a
local ``L<n>``, just before the first top-level statement of the enumerator that reads it,
when it is read more than once or inside a loop (a nested line or a comprehension).  Such
a read cannot fail (the key is in every state) and charges no step, so nothing observable
moves: the same values, the same errors, the same step count.  The local's line carries
the span marker of the statement it was taken from.

The planner hands over its lines as it wrote them (:class:`Line`: depth, code, span
marker), so nesting and markers are records, not indentation or comments found again; the
reads are found in the Python syntax tree of each line's code, never by text matching, so
a string literal that happens to spell a field read is left alone.
"""

from __future__ import annotations

import ast
from collections.abc import Callable, Sequence

from attrs import frozen

from rulekit.compiler import emit

#: (owner, field) -> whether every state holds that field: owner is None for ``me`` (the
#: acting player), else the literal owner ("game", "turn", a component id).
Stable = Callable[[str | None, str], bool]

_INDENT = "    "


@frozen
class Line:
    """One line of a function the planner writes, as it writes it: its nesting depth (0 for
    the ``def``, 1 for the body's top level), its code, and the span marker of the rule text
    it runs (``"  #@N"``, or none)."""

    depth: int
    code: str
    mark: str = ""

    @property
    def text(self) -> str:
        """The line as the generated module has it."""
        return _INDENT * self.depth + self.code + self.mark


def source(lines: Sequence[Line]) -> str:
    """The function ``lines`` write, as generated source."""
    return "\n".join(line.text for line in lines) + "\n"


def hoist_reads(lines: Sequence[Line], stable: Stable) -> list[Line]:
    """``lines`` (a generated ``def`` and its body) with every stable field read made once
    into a local, where that pays (read twice, or in a loop: a nested line or a
    comprehension)."""
    found: dict[tuple[str | None, str], list[tuple[int, int, int]]] = {}  # key -> (line, start, end)
    looping: set[int] = set()  # lines that hold a comprehension
    for index, line in enumerate(lines):
        if index == 0 or "F[(" not in line.code:  # (every read is written so)
            continue
        reads, comprehension = _reads(line.code)
        if comprehension:
            looping.add(index)
        for key, start, end in reads:
            if stable(*key):
                found.setdefault(key, []).append((index, start, end))
    hoisted: dict[tuple[str | None, str], str] = {}
    inserts: dict[int, list[Line]] = {}  # before line index -> new lines
    for key, places in found.items():
        first = places[0][0]
        nested = lines[first].depth > 1 or first in looping
        if len(places) < 2 and not nested:
            continue
        top = first
        while lines[top].depth > 1:  # the top-level statement around it
            top -= 1
        local = f"L{len(hoisted)}"
        hoisted[key] = local
        owner = "me" if key[0] is None else emit.literal(key[0])
        read = f"{local} = F[({owner}, {emit.literal(key[1])})]"
        inserts.setdefault(top, []).append(Line(1, read, lines[top].mark))
    if not hoisted:
        return list(lines)
    edits: dict[int, list[tuple[int, int, str]]] = {}
    for key, local in hoisted.items():
        for index, start, end in found[key]:
            edits.setdefault(index, []).append((start, end, local))
    out: list[Line] = []
    for index, line in enumerate(lines):
        out.extend(inserts.get(index, ()))
        code = line.code
        for start, end, local in sorted(edits.get(index, ()), reverse=True):
            code = code[:start] + local + code[end:]
        out.append(Line(line.depth, code, line.mark) if code != line.code else line)
    return out


_LOOPS = (ast.ListComp, ast.SetComp, ast.DictComp, ast.GeneratorExp)


def _reads(code: str) -> tuple[list[tuple[tuple[str | None, str], int, int]], bool]:
    """The reads ``F[(me|'owner', 'field')]`` in the code of one generated line (key, with
    owner None for ``me``, and start and end columns), and whether it holds a comprehension."""
    try:
        tree = ast.parse(code)
    except SyntaxError:  # a block header: give it a body
        try:
            tree = ast.parse(code + "\n" + _INDENT + "pass")
        except SyntaxError:  # (not planner output) leave it alone
            return [], False
    encoded = code.encode()
    found = []
    comprehension = False
    for node in ast.walk(tree):
        if isinstance(node, _LOOPS):
            comprehension = True
        if not isinstance(node, ast.Subscript):
            continue
        key = _read_key(node)
        if key is not None and node.lineno == 1 and node.end_lineno == 1 and node.end_col_offset is not None:
            start = len(encoded[: node.col_offset].decode())  # (offsets count UTF-8 bytes)
            end = len(encoded[: node.end_col_offset].decode())
            found.append((key, start, end))
    return found, comprehension


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
