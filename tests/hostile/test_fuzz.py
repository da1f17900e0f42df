"""Fuzzing: mutated shipped files and generated DSL never make rulekit fail internally.

For ``check``, ``play``, ``replay`` and ``scenario``, every input ends in exit 0, 1 or 2
(never exit 3 or an exception escaping ``main``).  The CI profile runs a few dozen inputs
of each kind in seconds; the ``slow`` versions run thousands; ``python -m
tests.hostile.campaign`` runs as many as you like (see docs/security.md).
"""

from __future__ import annotations

from pathlib import Path

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from tests.hostile.fuzzing import CASES, Outcome, fuzz_one
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
