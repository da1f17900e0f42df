"""The printer writes canonical DSL text that parses back to the same tree."""

from __future__ import annotations

import typing

import attrs
import pytest

from rulekit.dsl import ast, parse_block, parse_expression
from rulekit.dsl.printer import print_block, print_expr
from rulekit.load import load_program
from rulekit.rules.compose import available_rulesets, load_source


@pytest.mark.parametrize(
    ("text", "canonical"),
    [
        ("a+b*c", "a + b * c"),
        ("(a + b) * c", "(a + b) * c"),
        ("a - (b - c)", "a - (b - c)"),
        ("(a - b) - c", "a - b - c"),
        ("(a == b) == c", "(a == b) == c"),
        ("not (a and b) or c", "not (a and b) or c"),
        ("(a if b else c) if d else e", "(a if b else c) if d else e"),
        ("(x where x = 1) + 2", "(x where x = 1) + 2"),
        ("(-3).x", "(-3).x"),
        ("- (a + b)", "-(a + b)"),
        ("f( a , k = 1 )", "f(a, k=1)"),
        ("( 1 , )", "(1,)"),
        ("'it'", '"it"'),
        ('"say \\"hi\\""', '"say \\"hi\\""'),
        ("[ c for c in cells if c.open by -c.x ]", "[c for c in cells if c.open by -c.x]"),
        ("rank(p for p in players by (p.a, p.b))", "rank(p for p in players by (p.a, p.b))"),
        ("x   not  in  y", "x not in y"),
    ],
)
def test_expressions_print_canonically_and_round_trip(text: str, canonical: str) -> None:
    """Parentheses only where precedence needs them; double-quoted strings; single spaces."""
    tree = parse_expression(text)
    assert print_expr(tree) == canonical
    assert parse_expression(canonical) == tree


def test_blocks_print_with_four_space_indentation_and_round_trip() -> None:
    """Statement bodies are indented by four spaces, one statement per line."""
    text = (
        'if x: y.a = 1\nelif z:\n  pass\nelse:\n  for q in r:\n   emit e(a=1)\n   fail "no"\n'
        "let k = 3\nme.m += 2"
    )
    expected = (
        "if x:\n    y.a = 1\nelif z:\n    pass\nelse:\n    for q in r:\n        emit e(a=1)\n"
        '        fail "no"\nlet k = 3\nme.m += 2'
    )
    block = parse_block(text)
    assert print_block(block) == expected
    assert parse_block(expected) == block


def _snippets(value: object) -> list[object]:
    """Every expression and block in a rules model."""
    found: list[object] = []
    stack = [value]
    while stack:
        current = stack.pop()
        if isinstance(current, ast.Block) or type(current) in _EXPRESSIONS:
            found.append(current)
        elif isinstance(current, dict):
            stack.extend(current.values())
        elif isinstance(current, tuple | list):
            stack.extend(current)
        elif attrs.has(type(current)):
            stack.extend(getattr(current, a.name) for a in attrs.fields(type(current)) if a.name != "span")
    return found


_EXPRESSIONS = set(typing.get_args(ast.Expr))


@pytest.mark.parametrize("ruleset", available_rulesets())
def test_every_snippet_of_the_bundled_rulesets_round_trips(ruleset: str) -> None:
    """parse(print(snippet)) == snippet for every condition, formula and effect of the bundled games."""
    source = load_source(ruleset)
    combinable = not any(m.conflicts for m in source.modules.values())
    rules = load_program(ruleset, sorted(source.modules) if combinable else []).rules
    snippets = _snippets(rules)
    assert snippets
    for snippet in snippets:
        if isinstance(snippet, ast.Block):
            assert parse_block(print_block(snippet)) == snippet
        else:
            assert parse_expression(print_expr(snippet)) == snippet
