"""Why an action is not legal now, naming the rule that forbids it."""

from __future__ import annotations

from collections.abc import Sequence
from typing import TYPE_CHECKING, Any

from rulekit.dsl.printer import print_expr
from rulekit.engine import priority
from rulekit.engine.action import Action
from rulekit.engine.slots import DECISION as _DECISION
from rulekit.engine.values import format_value
from rulekit.errors import Diagnostic

if TYPE_CHECKING:
    from rulekit.engine.game import State


def explain(state: State, action: Action) -> Diagnostic:
    """Why ``action`` is not legal now, naming the rule that forbids it."""
    game = state.game
    text = game.action_to_string(action)
    decision = state.fields[_DECISION]
    if decision is None:
        return Diagnostic(f"{text} is not legal: the game is over")
    me, names = decision
    compiled = game.program.actions.get(action.name)
    if compiled is None:
        return Diagnostic(f"unknown action '{action.name}'")
    if action.name not in names:
        return Diagnostic(
            f"{text} is not allowed now: P{me + 1} must choose one of {', '.join(names)}",
            hint=describe_decision(state),
        )
    if compiled.fallback is not None:  # first what a pass waits for: nothing else possible
        blocking = priority.blocking(compiled, state.legal_actions(), game.program.actions, state, me)
        if blocking:
            refusal = priority.refusal(compiled, [game.action_to_string(a) for a in blocking])
            return Diagnostic(f"{text} is not legal: {refusal}", compiled.decl.span)
    F, R = state.fields, game.runtime
    checks, cost_depth = game.enumeration_plan(compiled)
    requirements = {id(req.check): req for req in compiled.requires}
    try:
        # The same order as enumeration: the requirements that read only the parameters
        # chosen so far, then the next parameter's possible values.
        for i in range(len(compiled.params) + 1):
            for check in checks[i]:
                if not check(F, R, me, *action.args):
                    req = requirements[id(check)]
                    cite = f" [{req.decl.cite}]" if req.decl.cite else ""
                    return Diagnostic(f"{text} is not legal: {req.decl.message}{cite}", req.decl.span)
            if compiled.cost is not None and cost_depth == i:
                money = game.program.rules.money
                price = compiled.cost(F, R, me, *action.args)
                have = F[(me, money)]
                if have < price:
                    return Diagnostic(
                        f"{text} is not legal: it costs {price} and P{me + 1} has {have}",
                        compiled.decl.cost_span,
                    )
            if i == len(compiled.params):
                break
            param = compiled.params[i]
            values = compiled.domains[i](F, R, me, *action.args[:i])
            if action.args[i] not in values:
                refused = None
                if compiled.param_types[i].name == "entity":
                    refused = _refusing_requirement(state, compiled, checks[i + 1], action)
                if refused is not None:
                    return refused
                shown = ", ".join(format_value(v, compiled.param_types[i]) for v in values[:12])
                if len(values) > 12:
                    shown += ", ..."
                cite = f" [{compiled.decl.cite}]" if compiled.decl.cite else ""
                domain = print_expr(compiled.decl.params[i].domain)
                return Diagnostic(
                    f"{text} is not legal: {format_value(action.args[i], compiled.param_types[i])} "
                    f"is not a possible '{param}' now (possible: {shown or 'none'}); the rule: "
                    f"{action.name}'s '{param}' is one of {domain}{cite}",
                    compiled.decl.params[i].span,
                )
    except Exception as error:  # a rule that fails while explaining still gets a message
        return Diagnostic(f"{text} is not legal: {error}", compiled.decl.span)
    return Diagnostic(f"{text} is not legal now", compiled.decl.span)


def _refusing_requirement(
    state: State, compiled: Any, checks: Sequence[Any], action: Action
) -> Diagnostic | None:
    """For a component outside its parameter's domain: the first requirement tested right
    after choosing that parameter which refuses it too, as the reason.

    A domain may list exactly the components a requirement accepts, so that the planner
    visits only those (a card's destinations instead of every city, each tested by the
    requirement); the requirement's message says why in the rules' words, so it is named
    rather than the domain.  A requirement that fails on the value (it may assume the
    domain) is skipped.  Only for components (a value of a collection): a number or a text
    outside its domain is still told the possible values.
    """
    F, R = state.fields, state.game.runtime
    me = state.fields[_DECISION][0]
    requirements = {id(req.check): req for req in compiled.requires}
    for check in checks:
        try:
            accepted = check(F, R, me, *action.args)
        except Exception:  # outside the domain a rule may not apply
            continue
        if not accepted:
            req = requirements[id(check)]
            cite = f" [{req.decl.cite}]" if req.decl.cite else ""
            text = state.game.action_to_string(action)
            return Diagnostic(f"{text} is not legal: {req.decl.message}{cite}", req.decl.span)
    return None


def describe_decision(state: State) -> str | None:
    legal = state.legal_action_strings()
    if not legal:
        return None
    shown = ", ".join(legal[:8]) + (", ..." if len(legal) > 8 else "")
    return f"legal now: {shown}"
