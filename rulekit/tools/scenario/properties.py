"""``expect_properties:``: the rules' transition properties a scenario checks, as ``rulekit verify``
does, over every action it plays and every turn that ends (``rulekit verify`` writes them into
the scenario of a property's counterexample, so it fails until the rules are fixed)."""

from __future__ import annotations

from typing import Any

from rulekit.engine.game import State
from rulekit.errors import Diagnostic, RulekitError, Span, did_you_mean
from rulekit.tools.scenario.context import ScenarioFailure, ScenarioRun, as_list


def chosen_properties(run: ScenarioRun) -> Any:
    """A verify checker of the named properties (``None`` without ``expect_properties``).

    Raises:
        RulesetError: a property does not compile, or a name is not a property of the rules.
    """
    given = run.data.get("expect_properties")
    names = [str(n) for n in as_list(given)]
    if not names:
        return None
    from rulekit.tools.verify.checker import Checker
    from rulekit.tools.verify.options import Stats
    from rulekit.tools.verify.properties import select

    checker = Checker(run.program, Stats())
    known = {p.decl.name for p in checker.properties.all()}
    for name in names:
        if name not in known:
            run.bag.error(
                f"expect_properties: no property '{name}'",
                run.span(given, "expect_properties"),
                hint=did_you_mean(name, known) or f"properties: {', '.join(sorted(known)) or 'none'}",
            )
    run.bag.raise_if_any()
    checker.properties = select(checker.properties, set(names))
    return checker


def begin(run: ScenarioRun, state: State) -> None:
    """The properties are checked from ``state`` on (after the set-up)."""
    if run.properties is not None:
        run.properties.follow(state)


def before_action(run: ScenarioRun, state: State, text: str) -> tuple[dict[Any, Any], Any, int] | None:
    """What an action's properties compare with: the fields before it, the action and who
    plays it (``None``: no property is checked, or the action is not playable)."""
    if run.properties is None or state.is_terminal():
        return None
    try:
        action = state.game.parse_action(text)
    except (RulekitError, ValueError):  # applying it says why
        return None
    return dict(state.fields), action, state.current_player()


def after_action(
    run: ScenarioRun, before: tuple[dict[Any, Any], Any, int], state: State, where: Span
) -> None:
    """Stop the scenario with a failure if a property over this action or the turn it ended fails."""
    from rulekit.tools.verify.failures import PropertyFailure

    fields, action, player = before
    try:
        run.properties.after_action(fields, state, action, player)
    except PropertyFailure as failure:
        text = run.properties.history[-1][1]
        details = "".join(f"\n  {line}" for line in failure.explained())
        declared = f"\n  (property at {failure.span})" if failure.span else ""
        raise ScenarioFailure(
            Diagnostic(
                f"property '{failure.key.removeprefix('property:')}' fails after {text}: {failure.message}",
                where,
            ).render()
            + details
            + declared
        ) from None
