"""The outcome of a finished game recomputed from what the scoring declares (``engine:outcome``).

At the end of every game ``verify`` compiles the scoring's expressions afresh (``score``,
``tiebreak``, ``team``: not the program's compiled scoring) and evaluates them on the final
state, then works out each seat's return by the rule docs/rules-format.md states for the
declared outcome, independently of ``rulekit.engine.outcome``:

* competitive: the best (score, tie-breaks...) get +1, the others -1, all 0 when all tie (a draw
  only when the tie-breaks leave everybody tied); one player: the sign of her score;
* ``returns: {min, max, sum}`` (chips): the scores themselves;
* cooperative: the shared score over ``success``, clamped to [-1, 1];
* teams: the same as competitive on each team's summed key.

A disagreement with the engine's ``scores()`` or ``returns()`` names the seats and both values.
It finds a scoring the engine computes otherwise than declared (a stale compiled expression, an
outcome rule applied wrongly); a score formula that is itself wrong agrees with itself and is
not found here.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

from rulekit.compiler.program import Program
from rulekit.dsl import ast
from rulekit.dsl import types as t
from rulekit.engine.game import State
from rulekit.errors import RulesetError

Fn = Callable[..., Any]


class Recomputed:
    """The scoring's expressions of one program, compiled afresh (once)."""

    def __init__(self, program: Program) -> None:
        self.program = program
        scoring = program.rules.scoring
        self.score = self._compile(scoring.score)
        self.tiebreaks = [self._compile(e) for e in scoring.tiebreak]
        self.team = self._compile(scoring.team)
        #: False when an expression cannot be compiled alone (``original()`` of a wrapped
        #: scoring): then nothing is recomputed.
        self.usable = (scoring.score is None or self.score is not None) and None not in self.tiebreaks
        if scoring.outcome == "teams" and scoring.team is not None and self.team is None:
            self.usable = False

    def _compile(self, expr: ast.Expr | None) -> Fn | None:
        if expr is None:
            return None
        try:
            fn, _ = self.program.compile_function(expr, params=[("player", t.PLAYER)], me=False)
        except RulesetError:
            return None
        return fn

    def disagreement(self, state: State) -> str | None:
        """What the engine's scores or returns get wrong, or ``None``."""
        if not self.usable:
            return None
        scoring = self.program.rules.scoring
        n = state.game.num_players
        F, R = state.fields, state.game.runtime

        def value(fn: Fn | None, p: int) -> int:
            R.reset_steps()
            return int(fn(F, R, -1, p)) if fn is not None else 0

        cooperative = scoring.outcome == "cooperative"
        scores = [value(self.score, 0 if cooperative else p) for p in range(n)]
        engine_scores = list(state.scores())
        if scores != engine_scores:
            return f"the declared score gives {_seats(scores)}, the engine {_seats(engine_scores)}"
        expected = self._returns(
            scores, [tuple(value(fn, p) for fn in self.tiebreaks) for p in range(n)], value
        )
        returns = [float(r) for r in state.returns()]
        if expected != returns:
            return (
                f"the declared {scoring.outcome} outcome gives returns {_seats(expected)} for scores "
                f"{_seats(scores)}, the engine {_seats(returns)}"
            )
        return None

    def _returns(
        self, scores: list[int], tiebreaks: list[tuple[int, ...]], value: Callable[[Fn | None, int], int]
    ) -> list[float]:
        scoring = self.program.rules.scoring
        n = len(scores)
        if scoring.returns is not None:
            return [float(s) for s in scores]
        if scoring.outcome == "cooperative":
            return [max(-1.0, min(1.0, scores[0] / (scoring.success or 1)))] * n
        if n == 1:
            return [float((scores[0] > 0) - (scores[0] < 0))]
        keys: list[tuple[int, ...]] = [(scores[p], *tiebreaks[p]) for p in range(n)]
        if scoring.outcome == "teams" and self.team is not None:
            members = [value(self.team, p) for p in range(n)]
            summed: dict[int, tuple[int, ...]] = {}
            for p, team in enumerate(members):
                old = summed.get(team)
                summed[team] = (
                    keys[p] if old is None else tuple(a + b for a, b in zip(old, keys[p], strict=True))
                )
            keys = [summed[members[p]] for p in range(n)]
        best = max(keys)
        if all(k == best for k in keys):
            return [0.0] * n
        return [1.0 if k == best else -1.0 for k in keys]


def _seats(values: list[Any]) -> str:
    return ", ".join(
        f"P{p + 1} {v:g}" if isinstance(v, float) else f"P{p + 1} {v}" for p, v in enumerate(values)
    )
