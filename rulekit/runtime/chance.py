"""Chance steps: every random draw the rules make, as data.

A rule never touches the random generator directly: ``roll(sides)``, ``shuffle(field)``
and ``pick(outcomes, weights)`` each make one or more *chance steps*, a
:class:`ChanceStep` that names the event and lists its outcomes with their whole-number
weights (so their probabilities are exact: weight / total).  ``roll(6)`` is one step with
outcomes 1..6, each weight 1; a shuffle of n items is n - 1 uniform steps (Fisher-Yates:
the item for position i is picked among the first i + 1), so every permutation is equally
likely; ``pick`` draws from a distribution the rules declare.

Who picks the outcome:

* nobody outside (the default): the state's seeded generator, exactly as before chance
  steps existed, so a seed still determines the game;
* a :class:`ChanceControl` installed on the runtime (by :mod:`rulekit.engine.chance`):
  it hands out outcomes given from outside (an OpenSpiel chance node, a log, a person
  with real dice), and in *probe* mode stops the action at the first step it has no
  outcome for, raising :class:`ChancePending` with that step (the engine then discards
  the half-applied action: the state is unchanged).
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from fractions import Fraction
from typing import Any

import attrs

from rulekit.runtime.errors import RuleFailure


@attrs.frozen
class ChanceStep:
    """One random event: its name, its outcomes and their whole-number weights."""

    event: str
    outcomes: tuple[Any, ...]
    weights: tuple[int, ...]

    @property
    def total(self) -> int:
        return sum(self.weights)

    def probability(self, index: int) -> Fraction:
        """The exact probability of outcome ``index``."""
        return Fraction(self.weights[index], self.total)

    @property
    def probabilities(self) -> tuple[float, ...]:
        total = self.total
        return tuple(w / total for w in self.weights)

    def pairs(self) -> list[tuple[int, float]]:
        """``(outcome index, probability)`` for each outcome of positive weight (OpenSpiel's shape)."""
        total = self.total
        return [(i, w / total) for i, w in enumerate(self.weights) if w > 0]


def uniform(event: str, n: int, first: int = 0) -> ChanceStep:
    """``n`` equally likely outcomes ``first``, ``first + 1`` ... ``first + n - 1``."""
    return ChanceStep(event, tuple(range(first, first + n)), (1,) * n)


class ChancePending(BaseException):
    """Raised in probe mode at the first chance step without a given outcome.

    A BaseException so that no rule-failure handler converts it: the engine's
    ``apply_action`` restores the state and lets it through.
    """

    def __init__(self, step: ChanceStep) -> None:
        super().__init__(step.event)
        self.step = step


class ChanceControl:
    """Outcomes given from outside for the chance steps of one action, in order."""

    __slots__ = ("drawn", "given", "probe", "steps")

    def __init__(self, given: Sequence[int] = (), *, probe: bool = False) -> None:
        self.given = tuple(given)
        self.probe = probe
        self.drawn: list[int] = []  # the outcome index of every step so far
        self.steps: list[ChanceStep] = []

    def choose(self, step: ChanceStep, draw: Callable[[ChanceStep], int]) -> int:
        """The outcome index of ``step``: the next given one, else ``draw(step)`` (the RNG)."""
        position = len(self.drawn)
        if position < len(self.given):
            index = self.given[position]
            if not (type(index) is int and 0 <= index < len(step.outcomes) and step.weights[index] > 0):
                raise RuleFailure(
                    f"chance outcome #{position + 1} is {index!r}, but {step.event} has outcomes "
                    f"0 to {len(step.outcomes) - 1} (of positive weight)"
                )
            draw(step)  # the generator advances as if it had drawn: a replayed state is identical
        elif self.probe:
            raise ChancePending(step)
        else:
            index = draw(step)
        self.drawn.append(index)
        self.steps.append(step)
        return index


def check_distribution(event: str, outcomes: Sequence[Any], weights: Sequence[Any] | None) -> ChanceStep:
    """A declared distribution as a step; a rule failure when it is not one."""
    outcomes = tuple(outcomes)
    if not outcomes:
        raise RuleFailure(f"{event}: no outcomes to pick from")
    if weights is None:
        return ChanceStep(event, outcomes, (1,) * len(outcomes))
    weights = tuple(weights)
    if len(weights) != len(outcomes):
        raise RuleFailure(f"{event}: {len(outcomes)} outcomes but {len(weights)} weights")
    if any(type(w) is not int or w < 0 for w in weights):
        raise RuleFailure(f"{event}: weights are whole numbers of at least 0, not {list(weights)}")
    if sum(weights) == 0:
        raise RuleFailure(f"{event}: every weight is 0")
    return ChanceStep(event, outcomes, weights)
