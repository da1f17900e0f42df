"""Listing the legal actions of a state: the planned enumerators, or the reference one."""

from __future__ import annotations

from collections.abc import Iterator
from typing import TYPE_CHECKING, Any

from rulekit.compiler.program import CompiledAction
from rulekit.engine import priority
from rulekit.engine.action import Action, make_action
from rulekit.engine.slots import DECISION as _DECISION
from rulekit.errors import Diagnostic, RuleEvaluationError
from rulekit.limits import LIMITS
from rulekit.runtime.errors import RuleFailure

if TYPE_CHECKING:
    from rulekit.engine.game import State


def list_legal(state: State) -> list[Action]:
    """The legal actions of ``state``'s pending decision, in a fixed order (none at the end).

    Each action with a planned enumerator is listed by calling it as
    ``enumerate(F, R, me, make_action, found)`` with ``R.memo`` a fresh table for the listing
    (see docs/architecture.md), or all of a turn's at once by its fused listing function
    (:mod:`rulekit.compiler.planner_decisions`); the others by :func:`reference_listing`.
    """
    F = state.fields
    decision = F[_DECISION]
    if decision is None:
        return []
    me, names = decision
    game = state.game
    R = game.runtime
    reference = game.reference_enumeration
    if reference:
        planned = fused = None
    else:
        try:
            planned, fused = game.listings[names]
        except (KeyError, TypeError):  # not seen yet (or not a tuple of names)
            planned, fused = game.listing(names)
    found: list[Action] = []
    compiled = None
    off = R.off
    R.memo = off.copy() if off else {}
    kept = R.persist
    if reference:  # the reference keeps nothing from earlier listings
        R.persist = None
    try:
        if fused is not None:  # the decision's enumerators as one function
            left = R.left
            try:
                fused(F, R, me, make_action, found)
            except Exception:  # list them one by one again: the error names its action
                found.clear()
                R.memo = off.copy() if off else {}
                R.left = left
            else:
                if planned is not None:
                    return found
                actions = game.program.actions
                compiled = actions[names[-1]]  # (where listing them one by one leaves it)
                return priority.keep(found, names, actions, state, me)
        if planned is not None:
            limit = LIMITS.max_candidates
            for compiled, enumerate_ in planned:  # noqa: B007 - compiled names the failing action below
                enumerate_(F, R, me, make_action, found)
                if len(found) > limit:
                    raise RuleFailure(f"more than {limit} legal actions at once (limit max_candidates)")
            return found
        actions = game.program.actions
        for name in names:
            compiled = actions[name]
            if compiled.enumerate is None or reference:
                found.extend(reference_listing(state, compiled, me))
            else:
                compiled.enumerate(F, R, me, make_action, found)
            if len(found) > LIMITS.max_candidates:
                raise RuleFailure(
                    f"more than {LIMITS.max_candidates} legal actions at once (limit max_candidates)"
                )
        # a fallback's "ignoring ... when" conditions run here, inside the same error handling
        return priority.keep(found, names, actions, state, me)
    except RuleFailure as failure:
        assert compiled is not None
        raise RuleEvaluationError(
            Diagnostic(
                f"cannot list the legal actions: {failure.message}",
                failure.span or compiled.decl.span,
            )
        ) from None
    except Exception as error:  # any mistake in a domain, requirement or cost
        assert compiled is not None
        raise RuleEvaluationError(
            Diagnostic(
                f"cannot list the legal actions: {type(error).__name__}: {error}",
                game.program.rule_span(error) or compiled.decl.span,
                hint=f"a parameter domain, requirement or cost of '{compiled.name}' failed",
            )
        ) from None
    finally:
        R.memo = None
        R.persist = kept


def reference_listing(state: State, compiled: CompiledAction, me: int) -> Iterator[Action]:
    """The legal instances of one action, in domain order: the reference enumerator,
    which tests every candidate with the compiled requirement functions.  Play uses the
    planned enumerator the compiler generates; tests check that both agree.

    Each requirement (and the cost) is tested as soon as the parameters it reads
    are chosen, so a failing requirement prunes every choice of the later ones.
    """
    F, R = state.fields, state.game.runtime
    money = state.game.program.rules.money
    name = compiled.name
    domains = compiled.domains
    depth_count = len(domains)
    checks, cost_depth = state.game.enumeration_plan(compiled)
    cost = compiled.cost
    padding = (None,) * depth_count

    def passes(prefix: tuple[Any, ...]) -> bool:
        depth = len(prefix)
        args = prefix + padding[depth:] if depth < depth_count else prefix
        for check in checks[depth]:
            if not check(F, R, me, *args):
                return False
        return not (cost is not None and cost_depth == depth and F[(me, money)] < cost(F, R, me, *args))

    if (checks[0] or cost_depth == 0) and not passes(()):
        return
    if depth_count == 0:
        yield Action(name, ())
        return
    if depth_count == 1:
        test = bool(checks[1]) or cost_depth == 1
        for value in domains[0](F, R, me):
            if not test or passes((value,)):
                yield Action(name, (value,))
        return

    def expand(prefix: tuple[Any, ...]) -> Iterator[tuple[Any, ...]]:
        depth = len(prefix)
        last = depth + 1 == depth_count
        test = bool(checks[depth + 1]) or cost_depth == depth + 1
        for value in domains[depth](F, R, me, *prefix):
            chosen = (*prefix, value)
            if test and not passes(chosen):
                continue
            if last:
                yield chosen
            else:
                yield from expand(chosen)

    for args in expand(()):
        yield Action(name, args)
