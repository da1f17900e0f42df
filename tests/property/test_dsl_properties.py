"""Properties of the DSL front end: generated text parses, printing round-trips, bad text fails cleanly."""

from __future__ import annotations

from typing import Any

import pytest
from hypothesis import given, reject
from hypothesis import strategies as st

from rulekit.dsl import parse_block, parse_expression
from rulekit.dsl.printer import print_block, print_expr
from rulekit.errors import DslSyntaxError
from tests.strategies import DSL_ALPHABET, dsl_expressions

#: What the parser refuses although the grammar derives it: a record naming a field twice.
_REFUSED_BEYOND_THE_GRAMMAR = "is given twice"


def _parse_derived(text: str) -> Any:
    """Parse grammar-derived text; a refusal is allowed only for the one check beyond the grammar."""
    try:
        return parse_expression(text)
    except DslSyntaxError as error:
        assert _REFUSED_BEYOND_THE_GRAMMAR in str(error), (text, str(error))
        reject()


@given(dsl_expressions())
def test_expression_text_generated_from_the_grammar_parses(text: str) -> None:
    """Every expression the grammar derives is accepted by the parser (but a record with a
    field given twice, which the grammar cannot rule out)."""
    _parse_derived(text)


def test_a_derived_record_with_a_field_given_twice_is_the_only_refusal() -> None:
    """The grammar derives `{a: 0, a: 0}`; the parser refuses it, located at the second field."""
    with pytest.raises(DslSyntaxError, match="field 'a' is given twice"):
        parse_expression("{ a : 0 , a : 0 }")


@given(dsl_expressions())
def test_printing_an_expression_and_parsing_it_again_gives_the_same_tree(text: str) -> None:
    """parse(print(tree)) == tree for every parsed expression (spans take no part in equality)."""
    tree = _parse_derived(text)
    assert parse_expression(print_expr(tree)) == tree


def _assert_span_inside(error: DslSyntaxError, text: str) -> None:
    lines = text.split("\n")
    for diagnostic in error.diagnostics:
        span = diagnostic.span
        assert span is not None
        assert 1 <= span.line <= len(lines), (span, text)
        assert 1 <= span.column <= len(lines[span.line - 1]) + 1, (span, text)


@given(st.text(alphabet=DSL_ALPHABET, max_size=40) | st.text(max_size=20))
def test_arbitrary_text_parses_or_fails_with_a_located_syntax_error(text: str) -> None:
    """Any text is an expression or a DslSyntaxError pointing inside the text, never another exception."""
    try:
        parse_expression(text)
    except DslSyntaxError as error:
        _assert_span_inside(error, text)


@given(st.text(alphabet=DSL_ALPHABET + "    ", max_size=60))
def test_arbitrary_text_parses_as_a_block_or_fails_with_a_located_syntax_error(text: str) -> None:
    """Any text is a block or a DslSyntaxError pointing inside the text, never another exception."""
    try:
        block = parse_block(text)
    except DslSyntaxError as error:
        _assert_span_inside(error, text)
    else:
        assert parse_block(print_block(block)) == block
