"""The rules' invariants in a scenario: checked after the set-up and after every step."""

from __future__ import annotations

from rulekit.compiler.program import CompiledInvariant
from rulekit.engine.game import State
from rulekit.errors import Diagnostic, Span, did_you_mean
from rulekit.tools.scenario.context import InvariantFailure, ScenarioRun, as_list, error_text
from rulekit.tools.verify.coverage import coverage_off


def chosen_invariants(run: ScenarioRun) -> list[CompiledInvariant]:
    """The invariants checked after the set-up and after every step (all unless opted out; none
    in a file of format 1 unless it asks with ``check_invariants: true`` or ``skip_invariants:``)."""
    asked = "check_invariants" in run.data or "skip_invariants" in run.data
    if not run.flag("check_invariants", True) or (run.format < 2 and not asked):
        return []
    skip = run.data.get("skip_invariants")
    names = {str(n) for n in as_list(skip)}
    known = {inv.decl.name for inv in run.program.invariants}
    for name in sorted(names - known):
        run.bag.error(
            f"skip_invariants: no invariant '{name}'",
            run.span(skip, "skip_invariants"),
            hint=did_you_mean(name, known) or f"invariants: {', '.join(sorted(known)) or 'none'}",
        )
    run.bag.raise_if_any()
    return [inv for inv in run.program.invariants if inv.decl.name not in names]


def check_invariants(run: ScenarioRun, state: State, after: str, where: Span) -> None:
    """Stop the scenario with a failure if one of the checked invariants does not hold (what
    they evaluate is not coverage of the rules)."""
    with coverage_off(state):
        _check_invariants(run, state, after, where)


def _check_invariants(run: ScenarioRun, state: State, after: str, where: Span) -> None:
    for invariant in run.invariants:
        decl = invariant.decl
        run.game.runtime.reset_steps()  # one evaluation, with its own step budget
        try:
            holds = invariant.check(state.fields, run.game.runtime, -1)
        except Exception as error:  # an invariant that cannot be evaluated fails
            holds, detail = False, f" (cannot be evaluated: {error_text(error)})"
        else:
            detail = ""
        if holds is not True:
            cite = f" [{decl.cite}]" if decl.cite else ""
            raise InvariantFailure(
                Diagnostic(
                    f"invariant '{decl.name}' fails {after}: {decl.message}{cite}{detail}", where
                ).render()
                + (f"\n  (invariant at {decl.span})" if decl.span else "")
                + "\n  (a scenario whose set-up leaves the rules' world on purpose says"
                " skip_invariants: [NAME] or check_invariants: false)",
                decl.name,
            )
