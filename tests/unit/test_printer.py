"""The printer writes canonical DSL text that parses back to the same tree."""

from __future__ import annotations

import pytest

from rulekit.dsl import parse_block, parse_expression
from rulekit.dsl.printer import print_block, print_expr


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
