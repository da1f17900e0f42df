"""Expectations: ``expect`` (DSL conditions, or values with ``equals``), ``expect_legal``,
``expect_not_legal`` and the end of the game (``expect_terminal``, winners, standings, scores)."""

from __future__ import annotations

from typing import Any

from rulekit.dsl import Origin, parse_expression
from rulekit.dsl import types as t
from rulekit.engine.game import State
from rulekit.errors import Diagnostic, IllegalActionError, RulekitError, RulesetError, did_you_mean
from rulekit.rules.yaml_source import LocDict, LocStr, span_of
from rulekit.tools.render import show_value
from rulekit.tools.scenario import values
from rulekit.tools.scenario.context import ScenarioRun, as_list, error_text, messages
from rulekit.tools.scenario.files import EXPECT_KEYS
from rulekit.tools.verify.explain import explain_condition


def check(run: ScenarioRun, state: State, source: Any) -> None:
    """The ``expect``, ``expect_legal`` and ``expect_not_legal`` entries of ``source``."""
    expectations(run, state, as_list(source.get("expect")))
    legal_expectations(run, state, source)


def expectations(run: ScenarioRun, state: State, entries: list[Any]) -> None:
    failures = run.result.failures
    me = None if state.is_terminal() else state.current_player()
    for entry in entries:
        equals_given = False
        equals: Any = None
        text: Any = entry
        if isinstance(entry, dict):
            for key in entry:
                if key not in EXPECT_KEYS:
                    failures.append(
                        Diagnostic(
                            f"unknown expectation key '{key}'",
                            entry.key_spans.get(key) if isinstance(entry, LocDict) else run.span(entry),
                            hint=did_you_mean(str(key), EXPECT_KEYS),
                            expected=EXPECT_KEYS,
                        ).render()
                    )
            text = entry.get("expr")
            equals_given = "equals" in entry
            equals = entry.get("equals")
        if not isinstance(text, str):
            failures.append(
                Diagnostic(
                    "an expectation is a DSL expression or {expr: ..., equals: ...}", run.span(entry)
                ).render()
            )
            continue
        origin = text.origin if isinstance(text, LocStr) else Origin(str(run.path))
        where = run.span(text)
        try:
            fn, type_ = run.program.compile_expression(str(text), origin)
        except RulekitError as error:
            failures.append(error.render())
            continue
        if not equals_given and not t.compatible(t.BOOL, type_):
            failures.append(
                Diagnostic(
                    f"an expectation must be true or false, not {type_}",
                    where,
                    hint="use {expr: ..., equals: VALUE} to compare a value",
                ).render()
            )
            continue
        run.game.runtime.reset_steps()  # each expectation has a whole step budget
        try:
            actual = fn(state.fields, run.game.runtime, me)
        except Exception as error:  # a failing expression is a failed expectation
            failures.append(Diagnostic(f"cannot evaluate expectation: {error_text(error)}", where).render())
            continue
        if equals_given:
            expected = values.convert(run, equals, type_, span_of(equals) or where)
            if run.bag.items:
                failures.append(RulesetError(run.bag.items).render())
                run.bag.items.clear()
                continue
            if actual != expected:
                failures.append(
                    Diagnostic(f"expectation failed: {text}", where).render()
                    + f"\n  actual:   {show_value(actual, type_)}"
                    + f"\n  expected: {show_value(expected, type_)}"
                )
            continue
        if actual is not True:
            why = explain_condition(run.program, parse_expression(str(text), origin), state, me=me)
            failures.append(
                Diagnostic(f"expectation failed: {text}", where).render()
                + "".join(f"\n  {line}" for line in why)
            )


def end_expectations(run: ScenarioRun, state: State) -> None:
    """``expect_terminal``, ``expect_winners``, ``expect_standings`` and ``expect_scores``
    (with ``--coverage``, those on a finished game count as checking the scoring and its outcome)."""
    coverage = run.coverage
    finished = state.is_terminal()
    if coverage is None or not finished or not any(key in run.data for key in _FINAL):
        _end_expectations(run, state)
        return
    coverage.scoring = True
    try:
        _end_expectations(run, state)
        if "expect_winners" in run.data or "expect_standings" in run.data:
            coverage.outcome(state)
    finally:
        coverage.scoring = False


_FINAL = ("expect_winners", "expect_standings", "expect_scores")


def _end_expectations(run: ScenarioRun, state: State) -> None:
    failures = run.result.failures
    data = run.data
    if "expect_terminal" in data:
        wanted = run.flag("expect_terminal")
        if state.is_terminal() != wanted:
            now = "is over" if state.is_terminal() else f"goes on (P{state.current_player() + 1} decides)"
            failures.append(
                Diagnostic(
                    f"expected the game {'to be over' if wanted else 'to go on'}, but it {now}",
                    run.span(data.get("expect_terminal"), "expect_terminal"),
                ).render()
            )
    standings = state.standings()
    shown = ", ".join(f"P{p + 1} {list(key) if len(key) > 1 else key[0]}" for p, key in standings)
    for key, actual in (
        ("expect_winners", list(state.winners())),
        ("expect_standings", [p for p, _ in standings]),
    ):
        if key not in data:
            continue
        where = run.span(data.get(key), key)
        if not state.is_terminal():
            failures.append(Diagnostic(f"{key}: the game is not over", where).render())
            continue
        expected = [values.convert(run, v, t.PLAYER, span_of(v) or where) for v in as_list(data.get(key))]
        for v, p in zip(as_list(data.get(key)), expected, strict=True):
            if p is None and not run.bag.items:  # "none" reads as no player: no list holds it
                run.bag.error(f"{key} lists players (P1, P2, ...), not {v!r}", span_of(v) or where)
        if run.bag.items:
            failures.append(RulesetError(run.bag.items).render())
            run.bag.items.clear()
            continue
        if expected != actual:
            failures.append(
                Diagnostic(f"{key} failed", where).render()
                + f"\n  actual:   {', '.join(f'P{p + 1}' for p in actual)}"
                + f"\n  expected: {', '.join(f'P{p + 1}' for p in expected)}"
                + f"\n  standings (score, tie-breaks): {shown}"
            )
    scores = data.get("expect_scores")
    if scores is not None:
        where = run.span(scores, "expect_scores")
        if not isinstance(scores, LocDict):
            failures.append(Diagnostic("expect_scores is a mapping P1: SCORE", where).render())
            return
        actual_scores = state.scores()
        for key, value in scores.items():
            at = scores.key_spans.get(key) or where
            player = values.convert(run, key, t.PLAYER, at)
            score = values.convert(run, value, t.INT, span_of(value) or at)
            if run.bag.items:
                failures.append(RulesetError(run.bag.items).render())
                run.bag.items.clear()
                continue
            if actual_scores[player] != score:
                message = f"expected {key} to score {score}, not {actual_scores[player]}"
                failures.append(Diagnostic(message, at).render())


def legal_expectations(run: ScenarioRun, state: State, source: Any) -> None:
    failures = run.result.failures
    for key, wanted in (("expect_legal", True), ("expect_not_legal", False)):
        entries = as_list(source.get(key))
        if not entries:
            continue
        legal = state.legal_actions()
        for entry in entries:
            where = run.span(entry, key)
            try:
                action = run.game.parse_action(str(entry))
            except IllegalActionError as error:
                failures.append(Diagnostic(f"{key}: {messages(error)}", where).render())
                continue
            if (action in legal) != wanted:
                shown = ", ".join(state.legal_action_strings()[:12]) or "none"
                verdict = "legal" if wanted else "not legal"
                failures.append(
                    Diagnostic(f"expected {entry} to be {verdict} now", where).render()
                    + f"\n  legal now: {shown}"
                )
