"""How close the exploration came to the conditions it never made true (branch distance).

A requirement or trigger ``when`` that no game made true says nothing about *why*: was the
rule one step away, or nowhere near? The comparisons among the conjuncts of such a condition
(``proliferation_count(builder) >= BONUS_CITIES``) are compiled side by side as functions of
the state and, every few actions, evaluated for every binding of the players (``me`` and each
player-typed field of the trigger's event). Their *distance* (how far a comparison is from
true: ``9 - 7`` for ``7 >= 9``), summed over the comparisons, is kept at its smallest. The
exploration keeps the games that came closer than any before (they are resumed later: a hill
climb towards the rule), and the coverage report prints how close the best game came::

    never true:
      ruleset.yaml:832:3: 'when' of trigger 'nine_city_bonus' (false 16144x; closest:
        proliferation_count(builder) >= BONUS_CITIES came to 7 >= 9)

Comparisons whose sides read an action's parameters or a non-player event field, or are not
whole numbers, are left out.
"""

from __future__ import annotations

import itertools
from collections.abc import Callable
from typing import Any

from attrs import define, field

from rulekit.compiler.program import Program
from rulekit.dsl import ast
from rulekit.dsl import types as t
from rulekit.dsl.printer import print_expr
from rulekit.engine.game import State
from rulekit.errors import RulekitError
from rulekit.tools.verify.checker import coverage_off
from rulekit.tools.verify.coverage import Condition, Coverage

Fn = Callable[..., Any]

#: The comparisons a distance is measured for.
COMPARISONS = frozenset({">=", ">", "<=", "<", "=="})
#: At most this many bindings of the player parameters are tried per comparison.
MAX_BINDINGS = 64


@define
class Term:
    """One comparison of a condition never true, compiled side by side (``me`` and the
    player-typed parameters are bound)."""

    text: str
    op: str
    left: Fn
    right: Fn


def distance(op: str, left: int, right: int) -> int:
    """How far ``left op right`` is from being true (0: it is)."""
    if op == ">=":
        return max(0, right - left)
    if op == ">":
        return max(0, right - left + 1)
    if op == "<=":
        return max(0, left - right)
    if op == "<":
        return max(0, left - right + 1)
    return abs(left - right)


def comparisons(expr: ast.Expr) -> list[ast.Binary]:
    """The comparisons among the conjuncts of ``expr`` (``a and b and c``)."""
    if isinstance(expr, ast.Binary) and expr.op == "and":
        return comparisons(expr.left) + comparisons(expr.right)
    if isinstance(expr, ast.Binary) and expr.op in COMPARISONS:
        return [expr]
    return []


@define
class Closeness:
    """The smallest distance reached so far for each condition never true (kept in
    ``coverage.closest`` as ``(distance, text)`` for the report)."""

    program: Program
    coverage: Coverage
    _terms: dict[str, tuple[int, list[Term]]] = field(factory=dict)

    def sample(self, state: State) -> bool:
        """Measure the distances in ``state``; True if one came closer than ever before."""
        closer = False
        with coverage_off(state):
            for key, condition in self.coverage.conditions.items():
                if condition.true or condition.expr is None:
                    continue
                params, terms = self.terms(key, condition)
                if not terms:
                    continue
                found = self._measure(params, terms, state)
                if found is None:
                    continue
                best = self.coverage.closest.get(key)
                if best is None or found[0] < best[0]:
                    self.coverage.closest[key] = found
                    closer = True
        return closer

    def terms(self, key: str, condition: Condition) -> tuple[int, list[Term]]:
        """The comparisons of one condition, compiled (once), and its player parameters."""
        found = self._terms.get(key)
        if found is None:
            found = self._terms[key] = self._compile(key, condition)
        return found

    def _compile(self, key: str, condition: Condition) -> tuple[int, list[Term]]:
        assert condition.expr is not None
        names = self._player_params(key)
        params = [(name, t.PLAYER) for name in names]
        terms = []
        for node in comparisons(condition.expr):
            try:
                left, ltype = self.program.compile_function(node.left, params=params)
                right, rtype = self.program.compile_function(node.right, params=params)
            except RulekitError:
                continue  # reads an action parameter or another event field
            if ltype == t.INT and rtype == t.INT:
                terms.append(Term(print_expr(node), node.op, left, right))
        return len(params), terms

    def _player_params(self, key: str) -> list[str]:
        """The player-typed fields of the event a trigger's ``when`` sees (none for requirements)."""
        if not key.startswith("when:"):
            return []
        rules = self.program.rules
        trigger = rules.triggers.get(key[len("when:") :])
        event = rules.events.get(trigger.event) if trigger is not None else None
        if event is None:
            return []
        return [name for name, declared in event.fields if declared.type == t.PLAYER]

    def _measure(self, params: int, terms: list[Term], state: State) -> tuple[int, str] | None:
        """The smallest summed distance over the bindings of the players, and what was short."""
        F, R = state.fields, state.game.runtime
        players = range(state.game.num_players)
        best: tuple[int, str] | None = None
        for me, *args in itertools.islice(itertools.product(players, repeat=1 + params), MAX_BINDINGS):
            total, short = 0, []
            try:
                for term in terms:
                    left, right = term.left(F, R, me, *args), term.right(F, R, me, *args)
                    gap = distance(term.op, left, right)
                    if gap:
                        total += gap
                        short.append(f"{term.text} came to {left} {term.op} {right}")
            except Exception:  # a side that cannot be evaluated here (a none, a bad index)
                continue
            if best is None or total < best[0]:
                best = (total, ", ".join(short) or "its comparisons held (the rest of it did not)")
        return best


__all__ = ["Closeness", "comparisons", "distance"]
