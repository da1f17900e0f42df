"""``actions:``: the steps of a scenario (actions, maybe rejected; events; effects; checkpoints)."""

from __future__ import annotations

from typing import Any

from rulekit.engine.game import State
from rulekit.errors import (
    Diagnostic,
    IllegalActionError,
    RuleEvaluationError,
    RulesetError,
    Span,
    did_you_mean,
)
from rulekit.rules.yaml_source import LocDict, LocStr, span_of
from rulekit.tools.scenario import expect, invariants, properties
from rulekit.tools.scenario.context import (
    ScenarioFailure,
    ScenarioRun,
    Stopped,
    error_text,
    locations,
    messages,
)
from rulekit.tools.scenario.files import ACTION_KEYS, CHECK_KEYS


def actions(run: ScenarioRun, state: State) -> None:
    """Run ``actions:``: actions (maybe rejected), events, effects and checkpoints, in order."""
    entries = run.data.get("actions") or []
    if not isinstance(entries, list):
        raise RulesetError(Diagnostic("actions is a list", run.span(entries, "actions")))
    for entry in entries:
        if isinstance(entry, str):
            where = run.span(entry)
            apply(run, state, str(entry), where, None, None)
            invariants.check_invariants(run, state, f"after {entry}", where)
            continue
        if not isinstance(entry, dict):
            raise RulesetError(Diagnostic("an action is text such as place(b2)", run.span(entry)))
        for key in entry:
            if key not in ACTION_KEYS:
                raise RulesetError(
                    Diagnostic(
                        f"unknown step key '{key}'",
                        entry.key_spans.get(key) if isinstance(entry, LocDict) else run.span(entry),
                        hint=did_you_mean(str(key), ACTION_KEYS),
                        expected=ACTION_KEYS,
                    )
                )
        kinds = [k for k in ("action", "event", "effect") if k in entry]
        if len(kinds) > 1 or (not kinds and not any(k in entry for k in CHECK_KEYS)):
            raise RulesetError(
                Diagnostic(
                    "a step is one of action:, event: or effect:, or a checkpoint of expect:, "
                    "expect_legal:, expect_not_legal:",
                    run.span(entry),
                )
            )
        if kinds:
            text = entry.get(kinds[0])
            if not isinstance(text, str):
                raise RulesetError(Diagnostic(f"{kinds[0]}: takes text", run.span(text, None)))
            where = run.span(text)
            if kinds[0] == "action":
                reject, by = entry.get("reject"), entry.get("by")
                if entry.get("may_reject") is True and reject is None:
                    # may_reject: true -- played if legal, else skipped (the state stays unchanged)
                    if not state.is_terminal() and text in state.legal_action_strings():
                        apply(run, state, str(text), where, None, by)
                else:
                    apply(run, state, str(text), where, None if reject is None else str(reject), by)
            else:
                run_effect(run, state, text, kinds[0], where)
            invariants.check_invariants(run, state, f"after {text}", where)
        elif "reject" in entry or "by" in entry:
            raise RulesetError(Diagnostic("reject: and by: belong to an action: step", run.span(entry)))
        before = len(run.result.failures)
        expect.check(run, state, entry)
        if len(run.result.failures) > before:  # a failed checkpoint: later steps would only add noise
            raise Stopped


def run_effect(run: ScenarioRun, state: State, text: Any, kind: str, where: Span) -> None:
    """Fire an event (``event: payday()``) or run DSL statements (``effect: ...``) between actions."""
    source = str(text)
    origin = text.origin if isinstance(text, LocStr) else None
    if kind == "event":
        source = source.strip()
        if "(" not in source:
            source += "()"
        source = "emit " + source
        if origin is not None:
            origin = origin.prefixed(len("emit "))
    fn = run.program.compile_effect(source, origin)
    me = -1 if state.is_terminal() else state.current_player()
    F = state.fields
    run.game.runtime.reset_steps()
    try:
        fn(F, run.game.runtime, me)
        end_when = run.program.end_when
        if end_when is not None and end_when(F, run.game.runtime, -1):
            F[("_", "over")] = True
        state.refresh()
    except Exception as error:  # the rules' own failure or a bad value
        raise ScenarioFailure(
            Diagnostic(f"{kind} {text} failed: {error_text(error)}", where).render()
        ) from None


def apply(run: ScenarioRun, state: State, text: str, where: Span, reject: str | None, by: Any) -> None:
    if state.is_terminal() and reject is None:
        raise ScenarioFailure(Diagnostic(f"the game is over; cannot play {text}", where).render())
    deciding = "nobody (the game is over)" if state.is_terminal() else f"P{state.current_player() + 1}"
    if by is not None and str(by) != deciding:
        raise ScenarioFailure(
            Diagnostic(
                f"expected {by} to play {text}, but {deciding} decides now", span_of(by) or where
            ).render()
        )
    if reject is None:
        watched = properties.before_action(run, state, text)
        try:
            state.apply_action(text)
        except (IllegalActionError, RuleEvaluationError) as error:
            raise ScenarioFailure(
                Diagnostic(f"{deciding} cannot play {text}: {messages(error)}", where).render()
                + locations(error)
            ) from None
        if watched is not None:
            properties.after_action(run, watched, state, where)
        return
    before = state.state_hash()
    try:
        state.apply_action(text)
    except IllegalActionError as error:
        message = messages(error)
        if reject not in message:
            raise ScenarioFailure(
                Diagnostic(
                    f"{text} was rejected, but the message does not contain '{reject}': {message}", where
                ).render()
            ) from None
        if state.state_hash() != before:  # pragma: no cover - apply_action is atomic
            raise ScenarioFailure(
                Diagnostic(f"{text} was rejected but changed the state", where).render()
            ) from None
        return
    except RuleEvaluationError as error:
        raise ScenarioFailure(
            Diagnostic(
                f"expected {text} to be rejected ('{reject}'), but a rule failed: {messages(error)}",
                where,
            ).render()
        ) from None
    raise ScenarioFailure(
        Diagnostic(
            f"expected {text} to be rejected ('{reject}'), but {deciding} could play it", where
        ).render()
    )
