"""The corpus of planted bugs (``tests/verify/corpus/``): default ``verify`` catches each one,
with the check its header names and a counterexample of at most 30 actions.

``make test`` runs a few quick ones; the whole corpus is ``@pytest.mark.slow`` (CI's second
step). ``python -m tests.verify.corpus_run`` prints the figures (caught/total, time per bug,
counterexample lengths)."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pytest

from rulekit.load import load_program
from tests.verify.corpus_run import Bug, corpus, run_bug, run_scenario_of

BUGS = corpus()
#: Quick to catch (in the first games): run by ``make test``.
QUICK = {
    "tic_tac_toe/marked_cell_can_be_marked_again",
    "tic_tac_toe/wrong_player_wins",
    "el_capitan/card_bought_for_free",
    "el_caballero/castillo_stays_in_the_pool",
    "el_caballero/caballero_card_increased_for_free",
}


def test_the_corpus_has_25_bugs_across_the_three_rulesets() -> None:
    seen = [bug for bug in BUGS if not bug.unseen]
    assert len(seen) >= 25
    assert {bug.ruleset for bug in seen} == {"el_capitan", "el_caballero", "tic_tac_toe"}
    assert all(bug.expected for bug in seen), "every bug names the check that should catch it"
    only = [bug for bug in BUGS if bug.scenario_only]
    assert all(bug.scenario for bug in only), "a scenario-only bug names the scenario that catches it"
    assert len(only) <= 2, "scenario-only is the exception: say why in the bug's header"


UNSEEN = [bug for bug in BUGS if bug.unseen]


def test_issue_27s_bugs_are_at_least_30_across_six_rulesets_and_three_variants() -> None:
    """The bugs written before the checks meant to find them (``# unseen:``) name no expected
    check; each says its kind."""
    assert len(UNSEEN) >= 30
    assert {"el_capitan", "el_caballero", "royal_letter", "tic_tac_toe", "connect_four", "pig"} <= {
        bug.ruleset for bug in UNSEEN
    }
    assert len({bug.on_variant for bug in UNSEEN if bug.on_variant}) >= 2
    assert {bug.modules for bug in UNSEEN if bug.ruleset == "el_capitan"} >= {
        ("lisboa",),
        ("porto",),
        ("islas_canarias",),
    }
    assert all(not bug.expected for bug in UNSEEN)


SCENARIO_ONLY = [bug for bug in BUGS if bug.scenario_only]


@pytest.mark.parametrize("bug", SCENARIO_ONLY, ids=[b.name for b in SCENARIO_ONLY])
def test_a_scenario_only_bug_is_caught_by_its_shipped_scenario(bug: Bug) -> None:
    outcome = run_scenario_of(bug)
    assert outcome.caught_by == f"scenario:{Path(bug.scenario).stem}"


@pytest.mark.parametrize("bug", BUGS, ids=[b.name for b in BUGS])
def test_every_planted_bug_loads(bug: Bug) -> None:
    clean = load_program(bug.ruleset, bug.modules, bug.variants[:-1])
    planted = load_program(bug.ruleset, bug.modules, bug.variants)
    assert planted.rules.fingerprint != clean.rules.fingerprint


def _params() -> list[Any]:
    params = []
    for bug in BUGS:
        if bug.scenario_only or bug.unseen:
            continue
        marks: list[pytest.MarkDecorator] = [] if bug.name in QUICK else [pytest.mark.slow]
        if bug.weakness:
            marks.append(pytest.mark.xfail(reason=bug.weakness, strict=False))
        params.append(pytest.param(bug, id=bug.name, marks=marks))
    return params


@pytest.mark.parametrize("bug", _params())
def test_planted_bug_is_caught_by_default_verify(bug: Bug, tmp_path: Path) -> None:
    outcome = run_bug(bug, tmp_path)
    assert outcome.caught_by == bug.expected, f"{bug.name}: caught by {outcome.caught_by}"
    assert outcome.actions <= bug.longest
    # a shipped scenario run from the start fails before any explored action (its steps are the
    # counterexample); every other check needs at least one action
    assert outcome.actions > 0 or bug.expected == "engine:scenarios-generalised"
