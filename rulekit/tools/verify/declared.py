"""Declared symmetries (``engine:declared-symmetry``): the author's claim, checked by play.

A ruleset may declare relabellings its rules cannot tell apart (``symmetries:``, see
:mod:`rulekit.rules.symmetries`): a mirror of the board, a rotation.  Before an action (sampled
like seat symmetry), the state and the action are relabelled by one declared symmetry (in turn):
every value the field types say holds a component of a mapped kind goes to its image, the
components' own fields move with them, and every tuple where a type says ``tuple`` (a board's
keys) goes to its image position.  The legal actions, every field after and the final standings
must be the real game's relabelled.  A state where a mapped id or position lies where no type
says (an untyped value, a text) is skipped.  Unlike the symmetries verify finds by itself, a
declared one is not limited to equal data: the rules' constants and attributes are not
relabelled, so a table of lines that is not itself symmetric (a diagonal missing) is found.
"""

from __future__ import annotations

from typing import Any

from rulekit.compiler.program import Program
from rulekit.rules.evaluate import Unevaluable
from rulekit.rules.model import SymmetryDecl
from rulekit.rules.symmetries import point_image
from rulekit.tools.verify.components import ComponentRelabeller, Unknown

__all__ = ["SymmetryRelabeller", "summary"]


class SymmetryRelabeller(ComponentRelabeller):
    """Relabels states and actions by one declared symmetry."""

    def __init__(self, program: Program, symmetry: SymmetryDecl) -> None:
        self.program = program
        self.symmetry = symmetry
        self.mapping = dict(symmetry.mapping)
        self.ids = frozenset(a for a, b in symmetry.mapping.items() if a != b)
        self.kinds = frozenset(symmetry.kinds)
        self.kind_of = {item.id: kind.name for kind in program.rules.kinds.values() for item in kind.items}

    def describe(self) -> str:
        return f"symmetry '{self.symmetry.name}'"

    def permutation(self) -> str:
        pairs = [f"{a} as {b}" for a, b in self.mapping.items() if a != b]
        if self.symmetry.points:
            names = ", ".join(c for c, _ in self.symmetry.points)
            pairs.append(f"positions ({names}) moved")
        return ", ".join(pairs[:4]) + (", ..." if len(pairs) > 4 else "")

    def point(self, value: tuple[Any, ...]) -> tuple[Any, ...] | None:
        if not self.symmetry.points:
            return None
        try:
            return point_image(self.symmetry, value)
        except Unevaluable:
            raise Unknown from None

    def engine_holds(self, value: Any) -> bool:
        """The engine's bookkeeping (flow counters) is made of small tuples of numbers that are
        no positions: only a mapped id there makes the state unmappable."""
        return _holds_id(self.ids, value)

    def holds(self, value: Any) -> bool:
        """Whether ``value`` holds a mapped id, or (with positions) a tuple that may be one."""
        if super().holds(value):
            return True
        if self.symmetry.points and isinstance(value, tuple):
            if len(value) == len(self.symmetry.points) and all(type(v) is int for v in value):
                return True
            return any(self.holds(v) for v in value)
        if self.symmetry.points and isinstance(value, dict):
            return any(self.holds(k) or self.holds(v) for k, v in value.items())
        return False


def _holds_id(ids: frozenset[str], value: Any) -> bool:
    if isinstance(value, str):
        return value in ids or any(i in value for i in ids)
    if isinstance(value, tuple):
        return any(_holds_id(ids, v) for v in value)
    if isinstance(value, dict):
        return any(_holds_id(ids, k) or _holds_id(ids, v) for k, v in value.items())
    return False


def summary(program: Program, checks: int, skipped: int) -> str | None:
    """The report's line on declared symmetries (None: the rules declare none)."""
    declared = program.rules.symmetries
    if not declared:
        return None
    names = ", ".join(declared)
    text = f"declared symmetries: {len(declared)} ({names}), {checks} check(s)"
    if skipped:
        text += f", {skipped} state(s) skipped (a mapped id or position where no type says)"
    if not checks:
        text += ": not checked in these games"
    return text
