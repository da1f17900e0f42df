"""The step budget and the memo of generated functions come from one run-time helper each
(``R.tick()``, ``P_memo``: rulekit/runtime/memo.py), never spelled out per function."""

from __future__ import annotations

from pathlib import Path

import pytest

from rulekit.load import load_program
from tests.rulesets import module_names, shipped_rulesets


def _functions(source: str) -> dict[str, str]:
    """Each generated function's source, by name (its lines up to the next blank line)."""
    found = {}
    for block in source.split("\n\n"):
        block = block.strip("\n")
        if block.startswith("def "):
            found[block[4 : block.index("(")]] = block
    return found


@pytest.mark.parametrize("ruleset", shipped_rulesets(), ids=lambda p: p.name)
def test_no_generated_function_spells_out_the_budget_or_the_memo(ruleset: Path) -> None:
    source = load_program(str(ruleset), module_names(ruleset)).source
    functions = _functions(source)
    assert functions
    for name, text in functions.items():
        assert "R.left -=" not in text and "R.over_budget" not in text, name
        assert "R.memo" not in text and "P_table" not in text, name
        assert text.count("R.tick()") <= 1, name
        for line in text.splitlines():
            if "P_memo(" in line:  # the helper wraps the body just written, under its name
                assert line.startswith(f"{name} = P_memo({name}, "), name


def test_a_memoized_function_is_its_body_handed_to_the_helper() -> None:
    source = load_program("el_capitan", ("porto", "lisboa", "islas_canarias")).source
    text = _functions(source)["fn_can_anchor"]
    body, helper = text.splitlines()[1:]
    assert body.startswith("    return ") and "#@" in body
    assert helper.startswith("fn_can_anchor = P_memo(fn_can_anchor, ")
