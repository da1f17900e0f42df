"""The DSL parser: each construct becomes the right AST node, with spans in the right file position."""

from __future__ import annotations

import pytest

from rulekit.dsl import Origin, ast, parse_block, parse_expression
from rulekit.errors import DslSyntaxError, Span


def n(name: str) -> ast.Name:
    return ast.Name(name)


def lit(value: int | str | bool | None) -> ast.Literal:
    return ast.Literal(value)


@pytest.mark.parametrize(
    ("text", "tree"),
    [
        ("42", lit(42)),
        ('"hi"', lit("hi")),
        ("'hi'", lit("hi")),
        ('"a\\"b"', lit('a"b')),
        ("true", lit(True)),
        ("false", lit(False)),
        ("none", lit(None)),
        ("-3", lit(-3)),
        ("x", n("x")),
        ("game.round", ast.Attribute(n("game"), "round")),
        ("me.hand[0]", ast.Index(ast.Attribute(n("me"), "hand"), lit(0))),
        ("f()", ast.Call("f", ())),
        ("f(a, b=1)", ast.Call("f", (n("a"),), (ast.Keyword("b", lit(1)),))),
        ("[1, 2]", ast.ListExpr((lit(1), lit(2)))),
        ("[]", ast.ListExpr(())),
        ("(1, 2)", ast.TupleExpr((lit(1), lit(2)))),
        ("(1,)", ast.TupleExpr((lit(1),))),
        ("(x)", n("x")),
        ("-x", ast.Unary("-", n("x"))),
        ("not x", ast.Unary("not", n("x"))),
        ("a + b * c", ast.Binary("+", n("a"), ast.Binary("*", n("b"), n("c")))),
        ("a - b - c", ast.Binary("-", ast.Binary("-", n("a"), n("b")), n("c"))),
        ("a // 2 % 3", ast.Binary("%", ast.Binary("//", n("a"), lit(2)), lit(3))),
        ("a <= b", ast.Binary("<=", n("a"), n("b"))),
        ("a in b", ast.Binary("in", n("a"), n("b"))),
        ("a not in b", ast.Binary("not in", n("a"), n("b"))),
        ("a or b and not c", ast.Binary("or", n("a"), ast.Binary("and", n("b"), ast.Unary("not", n("c"))))),
        ("a if c else b", ast.Conditional(n("c"), n("a"), n("b"))),
        ("x + 1 where x = 2", ast.Where(ast.Binary("+", n("x"), lit(1)), "x", lit(2))),
        (
            "[c for c in cells if c.open by c.x]",
            ast.ListComprehension(
                ast.Comprehension(
                    n("c"),
                    (("c", n("cells")),),
                    ast.Attribute(n("c"), "open"),
                    ast.Attribute(n("c"), "x"),
                )
            ),
        ),
        (
            "count(p for p in players for q in players)",
            ast.Aggregate("count", ast.Comprehension(n("p"), (("p", n("players")), ("q", n("players"))))),
        ),
        ("a +\n  b", ast.Binary("+", n("a"), n("b"))),
        ("a + b  # comment", ast.Binary("+", n("a"), n("b"))),
    ],
)
def test_expression_parses_to_its_ast(text: str, tree: ast.Expr) -> None:
    """Each expression construct becomes the node documented in rulekit.dsl.ast."""
    assert parse_expression(text) == tree


def test_statements_parse_to_their_ast() -> None:
    """Assignments, let, emit, fail, pass, calls, if/elif/else and for become statement nodes."""
    text = (
        "game.n = 1\n"
        "me.money += 2\n"
        "me.money -= 3\n"
        "let x = 4\n"
        "emit built(city=c)\n"
        'fail "no"\n'
        "pass\n"
        "transfer(1, me, bank)\n"
        "if a:\n"
        "    pass\n"
        "elif b: pass\n"
        "else:\n"
        "    pass\n"
        "for p in players:\n"
        "    p.n = 0\n"
    )
    block = parse_block(text)
    game_n = ast.Attribute(n("game"), "n")
    money = ast.Attribute(n("me"), "money")
    assert block.statements == (
        ast.Assign(game_n, "=", lit(1)),
        ast.Assign(money, "+=", lit(2)),
        ast.Assign(money, "-=", lit(3)),
        ast.Let("x", lit(4)),
        ast.Emit("built", (ast.Keyword("city", n("c")),)),
        ast.Fail(lit("no")),
        ast.Pass(),
        ast.CallStatement(ast.Call("transfer", (lit(1), n("me"), n("bank")))),
        ast.If(((n("a"), (ast.Pass(),)), (n("b"), (ast.Pass(),))), (ast.Pass(),)),
        ast.For("p", n("players"), (ast.Assign(ast.Attribute(n("p"), "n"), "=", lit(0)),)),
    )


def test_expression_spans_are_one_based_lines_and_columns() -> None:
    """A node's span covers its text: start line/column and end line/column, 1-based."""
    tree = parse_expression("a +\n  foo")
    assert isinstance(tree, ast.Binary)
    assert tree.span == Span("<string>", 1, 1, 2, 6)
    assert tree.right.span == Span("<string>", 2, 3, 2, 6)


def test_origin_shifts_spans_into_the_enclosing_file() -> None:
    """A snippet from a YAML scalar reports positions in the YAML file (first line and continuation)."""
    origin = Origin("rules.yaml", line=10, column=13, continuation_column=7)
    tree = parse_block("x.a = 1\nif y:\n    x.b = z", origin)
    first, second = tree.statements
    assert first.span == Span("rules.yaml", 10, 13, 10, 20)
    assert isinstance(second, ast.If)
    inner = second.branches[0][1][0]
    assert isinstance(inner, ast.Assign)
    assert inner.value.span == Span("rules.yaml", 12, 17, 12, 18)


@pytest.mark.parametrize(
    ("text", "line", "column", "message"),
    [
        ("1 +", 1, 4, "unexpected end of text"),
        ("(1 + 2", 1, 7, "unexpected end of text"),
        ("a +\n  ", 1, 4, "unexpected end of text"),
        ("a = b", 1, 3, "unexpected '='"),
        ("a $ b", 1, 3, "unexpected character '$'"),
        ("a < b < c", 1, 7, "unexpected '<'"),
        ("a / b", 1, 3, "unexpected character '/'"),
    ],
)
def test_expression_syntax_errors_point_at_the_problem(
    text: str, line: int, column: int, message: str
) -> None:
    """A syntax error names what was found and where; at the end of text it points just past the end."""
    with pytest.raises(DslSyntaxError) as caught:
        parse_expression(text)
    diagnostic = caught.value.diagnostics[0]
    assert diagnostic.message == message
    assert diagnostic.span is not None
    assert (diagnostic.span.line, diagnostic.span.column) == (line, column)


@pytest.mark.parametrize(
    ("text", "line", "column", "message"),
    [
        ("if x:\n    a.b = 1\n  a.c = 2", 3, 3, "inconsistent indentation"),
        ("a.b = 1\n    a.c = 2", 2, 5, "unexpected indentation"),
        ("if x\n    a.b = 1", 1, 5, "unexpected end of line"),
        ("for x in y:", 1, 12, "unexpected end of text"),
        ("emit e(1)", 1, 8, "emit takes keyword arguments only, e.g. emit built(city=c)"),
        ("count(x for x in y)", 1, 1, "an aggregate cannot stand alone as a statement"),
    ],
)
def test_block_syntax_errors_point_at_the_problem(text: str, line: int, column: int, message: str) -> None:
    """Indentation and statement errors in blocks are located too."""
    with pytest.raises(DslSyntaxError) as caught:
        parse_block(text)
    diagnostic = caught.value.diagnostics[0]
    assert diagnostic.message == message
    assert diagnostic.span is not None
    assert (diagnostic.span.line, diagnostic.span.column) == (line, column)


def test_syntax_error_lists_expected_tokens_in_words() -> None:
    """The expected set uses human words, not terminal names."""
    with pytest.raises(DslSyntaxError) as caught:
        parse_expression("1 +")
    expected = caught.value.diagnostics[0].expected
    assert "a name" in expected
    assert "a number" in expected
    assert not any(word.isupper() for word in expected)


def test_single_equals_in_a_condition_gets_a_hint() -> None:
    """Writing '=' for '==' is the most common slip; the hint says so."""
    with pytest.raises(DslSyntaxError) as caught:
        parse_expression("game.n = 3")
    assert caught.value.diagnostics[0].hint == "to compare, write '=='; '=' only assigns in effects"


def test_malformed_string_escape_is_a_syntax_error() -> None:
    """A string with an invalid escape is reported at the string, not as a crash."""
    with pytest.raises(DslSyntaxError, match="malformed string literal"):
        parse_expression('"\\N"')


def test_an_error_keeps_quoting_its_own_text_after_other_snippets_are_parsed() -> None:
    """In-memory snippets share the name <string>; an error renders the line it was raised for."""
    with pytest.raises(DslSyntaxError) as caught:
        parse_expression("1 + * 2")
    parse_expression("something_else")
    assert "1 + * 2" in str(caught.value)
