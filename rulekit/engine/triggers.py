"""Running an action (:func:`action_runner`: its triggers, cost and effect, as one function
per action built once per game), and its triggers: the engine's direct path for
``before``/``after`` triggers of actions (events emitted by effects go through
``Runtime.emit``).

A trigger that listens to an action takes the action's parameters, in their order, after
``(F, R, me)`` (and ``**_``): the engine calls its condition and effect with the action's
arguments as they are, without building a keyword dict per action. Everything else is as
:meth:`rulekit.runtime.context.Runtime.emit` does it: nesting depth, the coverage hook, the
trigger's span on a failure without one.

:func:`watch` tells an observer of every firing (verify's trigger postconditions), at no cost
to games nobody watches.
"""

from __future__ import annotations

from collections.abc import Callable, Collection
from typing import TYPE_CHECKING, Any

from rulekit.runtime.context import BANK, MAX_TRIGGER_DEPTH, Runtime, Trigger
from rulekit.runtime.errors import RuleFailure

if TYPE_CHECKING:
    from rulekit.compiler.program import CompiledAction

#: Running an action: ``run(F, R, me, args)``, returning whether the action ends the turn.
Runner = Callable[[dict[Any, Any], Runtime, int, tuple[Any, ...]], bool]


def action_runner(
    compiled: CompiledAction, before: tuple[Trigger, ...], after: tuple[Trigger, ...], ends_turn: bool
) -> Runner:
    """How action ``compiled`` runs for a player (not the flow): the coverage hook, the
    ``before`` triggers, its cost paid to the bank, its effect (a failure without a span gets
    the action's), the ``after`` triggers; returns ``ends_turn``."""
    label = f"action:{compiled.name}"

    def run(F: dict[Any, Any], R: Runtime, me: int, args: tuple[Any, ...]) -> bool:
        if R.fired is not None:
            R.fired(label)
        if before:
            fire(F, R, me, before, args)
        cost = compiled.cost  # (read at each call, as the compiled action holds them now)
        if cost is not None:
            price = cost(F, R, me, *args)
            R.transfer(F, price, me, BANK, partial=False)
        effect = compiled.effect
        if effect is not None:
            try:
                effect(F, R, me, *args)
            except RuleFailure as failure:
                if failure.span is None:
                    failure.span = compiled.decl.span
                raise
        if after:
            fire(F, R, me, after, args)
        return ends_turn

    return run


def fire(
    F: dict[Any, Any], R: Runtime, me: int, triggers: tuple[Trigger, ...], args: tuple[Any, ...]
) -> None:
    """Run ``triggers`` (those of one action and timing) for the action's ``args``: each whose
    condition holds runs its effect one level deeper (a condition only reads the state, so
    it is asked at the action's level)."""
    if R.depth >= MAX_TRIGGER_DEPTH:  # as in emit (an action is applied at depth 0)
        raise RuleFailure(f"triggers nested more than {MAX_TRIGGER_DEPTH} deep")
    for trigger in triggers:
        condition = trigger.condition
        if condition is not None and not condition(F, R, me, *args):
            continue
        if R.fired is not None:
            R.fired(f"trigger:{trigger.name}")
        R.depth += 1
        try:
            trigger.effect(F, R, me, *args)
        except RuleFailure as failure:
            if failure.span is None:
                failure.span = trigger.span
            raise
        finally:
            R.depth -= 1


#: Told of a trigger's firing: ``(name, fields before its effect, fields after it (the live
#: state: copy what you keep), me, its parameters' values in their declared order)``.
Observer = Callable[[str, dict[Any, Any], dict[Any, Any], int, tuple[Any, ...]], None]


def watch(game: Any, observer: Observer | None, names: Collection[str] | None = None) -> None:
    """Have ``observer`` told of every firing of the triggers ``names`` (all if None) in
    ``game``'s states (``rulekit verify``'s trigger postconditions and ``--suggest``); None:
    stop. The engine's path is unchanged when nobody watches: the watched triggers' effects
    are wrapped, and only theirs (the fields are copied before each watched firing)."""
    rules = game.program.rules
    runtime = game.runtime
    runtime.triggers.clear()
    for trigger in game.program.triggers:
        decl = trigger.decl
        effect = trigger.effect
        if observer is not None and (names is None or decl.name in names):
            effect = _watched(decl.name, effect, observer, _param_names(rules, decl.event))
        runtime.triggers.setdefault((decl.timing, decl.event), []).append(
            Trigger(decl.name, decl.timing, trigger.condition, effect, decl.span)
        )
    game.forget_apply_plans()  # they hold the action triggers as they were


def _param_names(rules: Any, event: str) -> tuple[str, ...] | None:
    """The keywords an event's trigger is called with (None: an action's, called positionally)."""
    if event in rules.actions:
        return None
    return tuple(f"v_{name}" for name, _ in rules.events[event].fields)


def _watched(
    name: str, effect: Callable[..., Any], observer: Observer, keywords: tuple[str, ...] | None
) -> Callable[..., Any]:
    def run(F: dict[Any, Any], R: Runtime, me: int, *args: Any, **kw: Any) -> None:
        before = dict(F)
        effect(F, R, me, *args, **kw)
        observer(name, before, F, me, args if keywords is None else tuple(kw.get(k) for k in keywords))

    return run
