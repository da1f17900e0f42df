"""Fuzzing: mutated shipped files and generated DSL never make rulekit fail internally.

For ``check``, ``play``, ``replay``, ``scenario`` and ``simulate --resume`` over a damaged
results database, every input ends in exit 0, 1 or 2
(never exit 3 or an exception escaping ``main``).  The CI profile runs a few dozen inputs
of each kind in seconds; the ``slow`` versions run thousands; ``python -m
tests.hostile.campaign`` runs as many as you like (see docs/security.md).
"""

from __future__ import annotations

import random
from pathlib import Path

import pytest
import yaml
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from tests.hostile.fuzzing import CASES, TIC_TAC_TOE, Outcome, _live, _slot, fuzz_one, mutate, run
from tests.strategies import dsl_expressions

_FAST = settings(
    max_examples=25, suppress_health_check=[HealthCheck.function_scoped_fixture, HealthCheck.too_slow]
)
_LONG = settings(
    max_examples=1500, suppress_health_check=[HealthCheck.function_scoped_fixture, HealthCheck.too_slow]
)


def _assert_no_internal_error(outcomes: list[Outcome]) -> None:
    for outcome in outcomes:
        assert not outcome.internal, f"{' '.join(outcome.argv)}\n{outcome.err}"
        assert not outcome.live, f"{' '.join(outcome.argv)}\n{outcome.live}"


@pytest.mark.parametrize("kind", sorted(CASES))
@_FAST
@given(seed=st.integers(0, 10**9))
def test_mutated_inputs_never_cause_an_internal_error(tmp_path: Path, kind: str, seed: int) -> None:
    """Mutated rulesets, logs, scenarios and variants: exit 0, 1 or 2 only."""
    _assert_no_internal_error(fuzz_one(kind, seed, tmp_path))


@_FAST
@given(snippet=dsl_expressions(), seed=st.integers(0, 1000))
def test_generated_dsl_in_any_rule_slot_never_causes_an_internal_error(
    tmp_path: Path, snippet: str, seed: int
) -> None:
    """Expressions from the grammar, placed in setup, scores, requirements, domains, functions, weights."""
    _assert_no_internal_error(fuzz_one("dsl", seed, tmp_path, snippet))


@pytest.mark.slow
@pytest.mark.parametrize("kind", sorted(CASES))
@_LONG
@given(seed=st.integers(0, 10**9))
def test_many_mutated_inputs_never_cause_an_internal_error(tmp_path: Path, kind: str, seed: int) -> None:
    """The long version of the mutation fuzzer."""
    _assert_no_internal_error(fuzz_one(kind, seed, tmp_path))


@pytest.mark.slow
@_LONG
@given(snippet=dsl_expressions(), seed=st.integers(0, 1000))
def test_much_generated_dsl_never_causes_an_internal_error(tmp_path: Path, snippet: str, seed: int) -> None:
    """The long version of the grammar fuzzer."""
    _assert_no_internal_error(fuzz_one("dsl", seed, tmp_path, snippet))


@pytest.mark.parametrize(
    ("slot", "snippet"),
    [
        ("setup", "1"),
        ("score", "1"),
        ("require", "true"),
        ("domain", "[1, 2]"),
        ("function", "1"),
        ("weight", "1"),
        ("when", "true"),
    ],
)
def test_the_dsl_fuzzer_template_accepts_a_benign_snippet_in_every_slot(
    tmp_path: Path, slot: str, snippet: str
) -> None:
    """The template around a fuzzed snippet is itself a valid game, so a snippet is what gets
    tested (a broken template would make every input a YAML error and test nothing)."""
    target = tmp_path / "dsl"
    target.mkdir()
    (target / "ruleset.yaml").write_text(_slot(snippet, slot), encoding="utf-8")
    for outcome in (run(["check", str(target)]), run(["play", str(target), "--quiet"])):
        assert outcome.status == 0, outcome.out + outcome.err


def test_most_mutations_of_a_shipped_file_keep_it_readable_yaml() -> None:
    """The mutator is not a parse-error generator: structure-preserving edits leave most
    mutated rulesets readable, so that they reach the checker and the engine."""
    text = (TIC_TAC_TOE / "ruleset.yaml").read_text(encoding="utf-8")
    readable = 0
    for seed in range(200):
        try:
            yaml.safe_load(mutate(text, random.Random(seed)))
        except yaml.YAMLError:
            continue
        readable += 1
    assert readable >= 80, readable


def test_the_html_case_reports_a_page_or_picture_that_is_not_inert(tmp_path: Path) -> None:
    """A live script counts: an event handler in a written page or picture, or a page without a policy."""
    page, picture = tmp_path / "p.html", tmp_path / "p.svg"
    page.write_text("<html><body><img src=x onerror=alert(1)></body></html>", encoding="utf-8")
    picture.write_text('<svg xmlns="http://www.w3.org/2000/svg" onload="alert(1)"/>', encoding="utf-8")
    written = Outcome(("replay",), 0, "", "")
    assert "no Content-Security-Policy" in _live(["replay", "g", "--html", str(page)], written).live
    assert _live(["render", "g", "-o", str(picture)], written).live == (
        "event handler <svg onload='alert(1)'>",
    )
    assert _live(["replay", "g"], written).live == ()
