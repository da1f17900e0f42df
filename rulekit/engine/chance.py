"""Chance with known probabilities, for engines, bots, logs and adapters.

Every random draw of the rules is a chance step (:mod:`rulekit.runtime.chance`).  By
default the state's seeded generator picks each outcome, so a seed still determines the
game.  This module lets a caller see and choose them instead:

* :func:`chance_step` — the chance step that applying ``action`` reaches after the
  outcomes ``given`` (its event, outcomes and probabilities), or ``None`` when the
  action makes no further random draw.  The state is unchanged.
* :func:`apply_with_chance` — apply ``action`` with the outcomes ``given`` for its first
  chance steps (the generator picks any later ones) and return every outcome index the
  action drew: what a log records so that the game replays whoever rolled the dice.
* :func:`sample` — pick an outcome of a step with the caller's own random generator (a
  search bot that must not peek at the state's seed).

So an action with chance is a decision followed by a sequence of chance nodes, one per
step, exactly OpenSpiel's model (:mod:`rulekit.openspiel`): the player's move, then
``chance_outcomes()`` of each step until the action is complete.
"""

from __future__ import annotations

import random
from collections.abc import Sequence

from rulekit.engine.game import Action, State
from rulekit.runtime.chance import ChanceControl, ChancePending, ChanceStep

__all__ = ["ChanceStep", "apply_with_chance", "chance_step", "sample"]


def chance_step(state: State, action: Action | str, given: Sequence[int] = ()) -> ChanceStep | None:
    """The chance step ``action`` reaches after the outcomes ``given``, or None (no more).

    Raises:
        IllegalActionError, RuleEvaluationError: as :meth:`State.apply_action`.
    """
    probe = state.clone()
    runtime = state.game.runtime
    saved = runtime.chance
    runtime.chance = ChanceControl(given, probe=True)
    try:
        probe.apply_action(action)
    except ChancePending as pending:
        return pending.step
    finally:
        runtime.chance = saved
    return None


def apply_with_chance(state: State, action: Action | str, given: Sequence[int] = ()) -> tuple[int, ...]:
    """Apply ``action`` with the outcomes ``given`` first; the outcome index of every step drawn.

    Raises:
        IllegalActionError: the action is not legal, or a given outcome is not one of its
            step's outcomes (the state is unchanged).
        RuleEvaluationError: as :meth:`State.apply_action`.
    """
    runtime = state.game.runtime
    saved = runtime.chance
    control = ChanceControl(given)
    runtime.chance = control
    try:
        state.apply_action(action)
    finally:
        runtime.chance = saved
    return tuple(control.drawn)


def sample(step: ChanceStep, rng: random.Random) -> int:
    """An outcome index of ``step`` drawn with ``rng`` by the step's probabilities."""
    return rng.choices(range(len(step.outcomes)), weights=step.weights)[0]
