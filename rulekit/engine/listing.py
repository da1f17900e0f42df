"""Listing the legal actions of a state: the planned enumerators, or the reference one."""

from __future__ import annotations

import contextlib
from collections.abc import Callable, Iterator
from typing import TYPE_CHECKING, Any

from rulekit.compiler.program import CompiledAction
from rulekit.engine import priority
from rulekit.engine.action import Action, make_action
from rulekit.engine.slots import DECISION as _DECISION
from rulekit.errors import Diagnostic, RuleEvaluationError
from rulekit.limits import LIMITS
from rulekit.runtime.errors import RuleFailure

if TYPE_CHECKING:
    from rulekit.engine.game import Game, State


def list_legal(state: State) -> list[Action]:
    """The legal actions of ``state``'s pending decision, in a fixed order (none at the end).

    Each action with a planned enumerator is listed by calling it as
    ``enumerate(F, R, me, make_action, found)`` with ``R.memo`` a fresh table for the listing
    (see docs/architecture.md), or all of a turn's at once by its fused listing function
    (:mod:`rulekit.compiler.planner_decisions`); the others by :func:`reference_listing`.
    The way to list a decision is chosen once per game and tuple of action names
    (:func:`lister`).
    """
    F = state.fields
    decision = F[_DECISION]
    if decision is None:
        return []
    names = decision[1]
    try:
        listed = state.game.listers[names]
    except (KeyError, TypeError):  # not seen yet (or not a tuple of names)
        listed = lister(state.game, names)
    return listed(state, F, decision[0])


#: Listing one decision: ``list_(state, F, me)``, the legal actions of ``me``.
Lister = Callable[["State", dict[Any, Any], int], list[Action]]


def lister(game: Game, names: Any) -> Lister:
    """How to list the decision of the actions ``names``: by its fused listing function, by
    the planned enumerators one after another, or action by action (with the reference
    enumerator where one has no planned enumerator, and the fallback filter); kept per
    tuple of names in ``game.listers``. Each asks ``game.reference_enumeration`` first (tests
    set it after the game is made) and then lists action by action with the reference."""
    planned, fused = game.listing(names)
    R = game.runtime
    actions = game.program.actions

    def by_names(state: State, F: dict[Any, Any], me: int) -> list[Action]:
        return _by_names(state, F, R, me, names)

    if fused is not None:
        last = actions[names[-1]]  # (where listing them one by one leaves it)
        keeper = None if planned is not None else priority.filtering(names, actions)

        def fused_listing(state: State, F: dict[Any, Any], me: int) -> list[Action]:
            if game.reference_enumeration:
                return _by_names(state, F, R, me, names)
            found: list[Action] = []
            off = R.off
            R.memo = off.copy() if off else {}
            kept = R.persist
            left = R.left
            try:
                fused(F, R, me, make_action, found)
            except Exception:  # list them one by one again: the error names its action
                R.memo = off.copy() if off else {}
                R.left = left
                R.persist = kept
                return _by_names(state, F, R, me, names, fresh=False)
            if keeper is None:
                R.memo = None
                R.persist = kept
                return found
            try:
                return keeper(found, state, me)
            except Exception as error:
                raise _failed(game, last, error) from None
            finally:
                R.memo = None
                R.persist = kept

        listed: Lister = fused_listing
    elif planned is not None:
        steps = planned

        def planned_listing(state: State, F: dict[Any, Any], me: int) -> list[Action]:
            if game.reference_enumeration:
                return _by_names(state, F, R, me, names)
            found: list[Action] = []
            off = R.off
            R.memo = off.copy() if off else {}
            kept = R.persist
            compiled = None
            try:
                limit = LIMITS.max_candidates
                for compiled, enumerate_ in steps:  # noqa: B007 - compiled names the failing action
                    enumerate_(F, R, me, make_action, found)
                    if len(found) > limit:
                        raise RuleFailure(f"more than {limit} legal actions at once (limit max_candidates)")
                return found
            except Exception as error:
                assert compiled is not None
                raise _failed(game, compiled, error) from None
            finally:
                R.memo = None
                R.persist = kept

        listed = planned_listing
    else:
        listed = by_names
    with contextlib.suppress(TypeError):  # (not a tuple of names: not kept)
        game.listers[names] = listed
    return listed


def _by_names(
    state: State, F: dict[Any, Any], R: Any, me: int, names: Any, fresh: bool = True
) -> list[Action]:
    """The decision listed action by action (each by its planned enumerator, or by the
    reference one where it has none or ``game.reference_enumeration`` is set), then the
    fallback filter; ``fresh``: start the listing's memo (else the caller did)."""
    game = state.game
    reference = game.reference_enumeration
    found: list[Action] = []
    compiled = None
    if fresh:
        off = R.off
        R.memo = off.copy() if off else {}
    kept = R.persist
    if reference:  # the reference keeps nothing from earlier listings
        R.persist = None
    try:
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
    except Exception as error:
        assert compiled is not None
        raise _failed(game, compiled, error) from None
    finally:
        R.memo = None
        R.persist = kept


def _failed(game: Game, compiled: CompiledAction, error: Exception) -> RuleEvaluationError:
    """The error for a listing that failed while listing ``compiled``."""
    if isinstance(error, RuleFailure):
        return RuleEvaluationError(
            Diagnostic(
                f"cannot list the legal actions: {error.message}",
                error.span or compiled.decl.span,
            )
        )
    return RuleEvaluationError(  # any mistake in a domain, requirement or cost
        Diagnostic(
            f"cannot list the legal actions: {type(error).__name__}: {error}",
            game.program.rule_span(error) or compiled.decl.span,
            hint=f"a parameter domain, requirement or cost of '{compiled.name}' failed",
        )
    )


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
