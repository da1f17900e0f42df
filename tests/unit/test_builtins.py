"""Built-ins called directly: text built-ins write values the way the DSL writes them."""

from __future__ import annotations

from typing import Any

import pytest

from rulekit.runtime.builtins import BUILTINS
from rulekit.runtime.memory import Memory


@pytest.mark.parametrize(
    ("value", "text"),
    [(3, "3"), (True, "true"), (False, "false"), (None, "none"), ((1, 2), "[1, 2]"), ("b2", "b2")],
)
def test_str_writes_a_value_as_concat_does_in_dsl_notation(value: Any, text: str) -> None:
    """``str(true)`` is "true", not Python's "True"; lists are written with brackets."""
    assert BUILTINS["str"].bind(Memory())(value) == text
    assert BUILTINS["concat"].bind(Memory())(value) == text


@pytest.mark.parametrize(("name", "low", "high"), [("range", 0, 100_000), ("between", 1, 100_000)])
def test_integer_ranges_stop_at_100000_elements(name: str, low: int, high: int) -> None:
    """range and between give at most 100000 integers, as the DSL reference says."""
    from rulekit.runtime.errors import RuleFailure

    impl = BUILTINS[name].impl
    assert len(impl(low, high)) == 100_000
    with pytest.raises(RuleFailure, match="limited to 100000"):
        impl(low, high + 1)


def test_registering_a_built_in_under_a_taken_name_is_refused() -> None:
    """A second built-in with an existing name would silently replace the first."""
    from rulekit.dsl.types import INT
    from rulekit.runtime.registry import BUILTINS, register

    name = next(iter(BUILTINS))
    before = BUILTINS[name]
    with pytest.raises(ValueError, match="registered twice"):
        register(name, (("x", INT),), INT, "a duplicate")(lambda x: x)
    assert BUILTINS[name] is before
