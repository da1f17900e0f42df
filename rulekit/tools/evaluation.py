"""How bots rate states and choose at random: the ruleset's ``bots.evaluate`` and ``bots.weights``.

Shared by the heuristic bot (:mod:`rulekit.tools.bots`) and the MCTS bot (:mod:`rulekit.tools.mcts`).
"""

from __future__ import annotations

import random
from collections.abc import Sequence

from rulekit.engine.game import Action, Game, State
from rulekit.engine.outcome import teams
from rulekit.errors import Diagnostic, IllegalActionError, RuleEvaluationError
from rulekit.runtime.errors import RuleFailure


def weighted_choice(
    state: State, legal: Sequence[Action], rng: random.Random, weighted: bool = True
) -> Action:
    """One of ``legal`` at random: with ``weighted``, as likely as the ruleset's
    ``bots.weights`` say (uniform when it has none, or when every one weighs 0)."""
    if weighted and state.has_bot_weights():
        weights = [state.action_weight(a) for a in legal]
        if any(weights):
            return rng.choices(legal, weights=weights)[0]
    return rng.choice(legal)


def has_evaluation(game: Game) -> bool:
    """Whether the ruleset declares ``bots.evaluate``."""
    return game.program.evaluate is not None


def evaluate(state: State, player: int) -> int:
    """The ruleset's ``bots.evaluate`` for ``player`` in ``state``.

    Raises:
        RuleEvaluationError: the expression failed (named with its position), or the
            ruleset declares none.
    """
    program = state.game.program
    fn = program.evaluate
    if fn is None:
        raise RuleEvaluationError(
            Diagnostic(
                f"{program.name} declares no bots.evaluate expression",
                hint="add bots: {evaluate: EXPR} to the ruleset (docs/bots.md)",
            )
        )
    state.game.runtime.reset_steps()  # an evaluation of its own, with a whole step budget
    try:
        return int(fn(state.fields, state.game.runtime, player))
    except RuleFailure as failure:
        raise RuleEvaluationError(
            Diagnostic(f"bots.evaluate failed: {failure.message}", failure.span)
        ) from None
    except (ArithmeticError, LookupError, TypeError, ValueError) as error:
        raise RuleEvaluationError(
            Diagnostic(f"bots.evaluate failed: {type(error).__name__}: {error}", program.rule_span(error))
        ) from None


def outcome_value(state: State, player: int) -> tuple[int, int]:
    """How good ``state`` is for ``player``: a won end beats any game in progress, which
    beats a lost end; a win alone (or by its team alone, or a cooperative success) beats a
    shared one; then the evaluation (the score at the end: the shared one in a cooperative game)."""
    if state.is_terminal():
        winners = state.winners()
        team = teams(state)
        alone = all(team[p] == team[player] for p in winners)
        rank = (2 if alone else 1) if player in winners else -1
        return rank, state.scores()[player]
    return 0, evaluate(state, player)


def after(state: State, action: Action) -> State | None:
    """The state after ``action``, or None when a rule refuses it there."""
    # listed on ``state`` itself, so that its clones share the listing (the one a bot tries
    # every legal action of is listed once, not once per action)
    state.legal_actions()
    child = state.clone()
    try:
        child.apply_action(action)
    except IllegalActionError:
        return None
    return child
