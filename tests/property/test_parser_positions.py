"""The DSL parser's shortcut for one-symbol rules (``skip_unit_reductions``) changes nothing:
the same trees, the same spans and the same errors as lark's own callbacks."""

from __future__ import annotations

from collections.abc import Iterator
from functools import cache
from typing import Any
from unittest import mock

import attrs
import pytest
from hypothesis import given
from hypothesis import strategies as st
from lark import Lark

from rulekit.dsl import parser
from rulekit.dsl.transform import Origin
from rulekit.errors import DslSyntaxError
from rulekit.rules.compose import compose, load_source, module_order
from rulekit.rules.loader import build_model
from tests.strategies import DSL_ALPHABET, dsl_expressions

#: A snippet placed inside a file, as YAML scalars are: positions shift by line and column.
ORIGIN = Origin("rules.yaml", 7, 12, 9)


@cache
def _plain_parser(start: str = "block") -> Lark:
    return parser._lark_parser(start)  # lark's callbacks for every rule


def _outcome(text: str, start: str, *, plain: bool) -> Any:
    """The parsed tree with every node's type and span, or the error's diagnostics."""
    try:
        if plain:
            with mock.patch.object(parser, "_parser", _plain_parser):
                tree = parser._parse(text, start, ORIGIN)
        else:
            tree = parser._parse(text, start, ORIGIN)
    except DslSyntaxError as error:
        return ("error", error.diagnostics)
    return ("tree", list(_nodes(tree)))


def _nodes(value: Any) -> Iterator[Any]:
    if attrs.has(type(value)):
        yield type(value).__name__, getattr(value, "span", None)
        for field in attrs.fields(type(value)):
            if field.name != "span":
                yield from _nodes(getattr(value, field.name))
    elif isinstance(value, (tuple, list)):
        yield len(value)
        for item in value:
            yield from _nodes(item)
    else:
        yield value


def _assert_same(text: str, start: str) -> None:
    fast = _outcome(text, start, plain=False)
    assert fast == _outcome(text, start, plain=True), text


@given(dsl_expressions())
def test_generated_expressions_get_the_spans_of_lark_s_own_callbacks(text: str) -> None:
    _assert_same(text, "expression")


@given(st.text(alphabet=DSL_ALPHABET, max_size=40))
def test_arbitrary_expressions_parse_or_fail_as_with_lark_s_own_callbacks(text: str) -> None:
    _assert_same(text, "expression")


@given(st.text(alphabet=DSL_ALPHABET + "    ", max_size=60))
def test_arbitrary_blocks_parse_or_fail_as_with_lark_s_own_callbacks(text: str) -> None:
    _assert_same(text, "block")


def _snippets(ruleset: str, modules: list[str]) -> list[tuple[str, str]]:
    seen: list[tuple[str, str]] = []
    real = parser._parse

    def record(text: str, start: str, origin: Origin) -> Any:
        seen.append((text, start))
        return real(text, start, origin)

    source = load_source(ruleset)
    data = compose(source, module_order(source, modules, None))
    with mock.patch.object(parser, "_parse", record):
        build_model(data, "", tuple(modules))
    return seen


@pytest.mark.parametrize(
    ("ruleset", "modules"),
    [("el_capitan", ["porto", "lisboa", "islas_canarias"]), ("el_caballero", []), ("tic_tac_toe", [])],
)
def test_every_bundled_snippet_gets_the_spans_of_lark_s_own_callbacks(
    ruleset: str, modules: list[str]
) -> None:
    snippets = _snippets(ruleset, modules)
    assert len(snippets) > 10
    for text, start in snippets:
        _assert_same(text, start)


def test_the_shortcut_is_taken_for_the_precedence_chain() -> None:
    """The test above compares something: the parsers differ in the one-symbol rules."""
    skipped = [
        rule
        for rule, callback in parser._parser("expression").parser.parser.parser.callbacks.items()
        if callback is parser._FIRST
    ]
    assert {"expr", "or_expr", "sum", "postfix"} <= {rule.origin.name for rule in skipped}
