"""Parse DSL text into AST nodes; the only module that imports lark.

Positions are reported in the file the text came from: an :class:`Origin`
says where the snippet starts (for DSL embedded in a YAML scalar, the scalar's
position), and every span is shifted accordingly.
"""

from __future__ import annotations

import ast as pyast
import os
import re
from collections.abc import Iterator
from functools import cache
from importlib.resources import files
from pathlib import Path
from typing import Any

from attrs import frozen
from lark import Lark, Token, Transformer, v_args
from lark.exceptions import (
    LarkError,
    UnexpectedCharacters,
    UnexpectedEOF,
    UnexpectedInput,
    UnexpectedToken,
    VisitError,
)
from lark.indenter import DedentError, Indenter

from rulekit.cachedir import cache_dir
from rulekit.dsl import ast
from rulekit.errors import Diagnostic, DslSyntaxError, RulekitError, Span, remember_source


@frozen
class Origin:
    """Where a snippet's first character sits in its file (1-based).

    Lines after the first start at ``continuation_column`` (the indentation of
    a YAML block scalar).  A snippet that YAML folded from several lines into
    one (a ``>`` scalar, a plain scalar over several lines) has ``segments``:
    ``(offset in the snippet's first line, file line, file column)`` of each
    source line, so positions map back to the line they were written on.
    """

    file: str = "<string>"
    line: int = 1
    column: int = 1
    continuation_column: int = 1
    segments: tuple[tuple[int, int, int], ...] = ()

    def locate(self, line: int, column: int) -> tuple[int, int]:
        if line <= 1:
            for offset, file_line, file_column in reversed(self.segments):
                if column - 1 >= offset:
                    return file_line, file_column + column - 1 - offset
            return self.line, self.column + column - 1
        return self.line + line - 1, self.continuation_column + column - 1


class _DslIndenter(Indenter):
    """Python-style INDENT/DEDENT tokens for effect blocks.

    Expressions are parsed as if inside parentheses: line breaks are white space.
    """

    NL_type = "_NL"
    OPEN_PAREN_types = ["LPAR", "LSQB", "LBRACE"]
    CLOSE_PAREN_types = ["RPAR", "RSQB", "RBRACE"]
    INDENT_type = "_INDENT"
    DEDENT_type = "_DEDENT"
    tab_len = 4

    def __init__(self, base_level: int) -> None:
        super().__init__()
        self._base_level = base_level

    def process(self, stream: Iterator[Token]) -> Iterator[Token]:
        # Unlike lark's Indenter, an unbalanced ')' is left to the parser to
        # report as a syntax error rather than failing an assertion.
        self.paren_level = self._base_level
        self.indent_level = [0]
        token = None
        for token in stream:
            if token.type == self.NL_type:
                try:
                    yield from self.handle_NL(token)
                except DedentError:
                    raise _BadDedent(token.end_line or 1, token.end_column or 1) from None
            else:
                yield token
            if token.type in self.OPEN_PAREN_types:
                self.paren_level += 1
            elif token.type in self.CLOSE_PAREN_types:
                self.paren_level = max(self._base_level, self.paren_level - 1)
        while len(self.indent_level) > 1:
            self.indent_level.pop()
            if token is not None:
                yield Token.new_borrow_pos(self.DEDENT_type, "", token)
            else:
                yield Token(self.DEDENT_type, "", 0, 1, 1, 1, 1, 0)


class _BadDedent(Exception):
    """A line is indented less than its block but more than the enclosing one."""

    def __init__(self, line: int, column: int) -> None:
        super().__init__(line, column)
        self.line = line
        self.column = column


_HUMAN_TERMINALS = {
    "NAME": "a name",
    "INT": "a number",
    "STRING": "a string",
    "_NL": "end of line",
    "_INDENT": "an indented block",
    "_DEDENT": "end of block",
    "LPAR": "'('",
    "RPAR": "')'",
    "LSQB": "'['",
    "RSQB": "']'",
    "LBRACE": "'{'",
    "RBRACE": "'}'",
    "COMMA": "','",
    "COLON": "':'",
    "DOT": "'.'",
    "EQUAL": "'='",
    "COMP_OP": "a comparison",
    "ADD_OP": "'+' or '-'",
    "MUL_OP": "'*', '//' or '%'",
    "MINUS": "'-'",
    "$END": "end of text",
}


def _human(terminal: str) -> str:
    if terminal in _HUMAN_TERMINALS:
        return _HUMAN_TERMINALS[terminal]
    pattern = _parser().get_terminal(terminal).pattern
    value = getattr(pattern, "value", None)
    if isinstance(value, str) and pattern.type == "str":
        return f"'{value}'"
    return terminal.lower()


@cache
def _parser(start: str = "block") -> Lark:
    grammar = grammar_text()
    options: dict[str, Any] = {
        "parser": "lalr",
        "postlex": _DslIndenter(1 if start == "expression" else 0),
        "start": start,
        "propagate_positions": True,
        "maybe_placeholders": True,
    }
    cached = _grammar_cache_file(grammar, start)
    if cached is not None:
        try:
            if cached.is_file():
                return Lark(grammar, cache=str(cached), **options)
            # lark writes its cache file in place: write a private one, then rename it, so
            # that other processes never read half a file
            private = cached.with_name(f"{cached.name}.{os.getpid()}.tmp")
            parser = Lark(grammar, cache=str(private), **options)
            os.replace(private, cached)
            return parser
        except Exception:  # an unreadable or stale cache file: build from the grammar
            cached.unlink(missing_ok=True)
    return Lark(grammar, **options)


def _grammar_cache_file(grammar: str, start: str) -> Path | None:
    """Lark's cache of the analysed grammar (about 3x faster to load than to build), in the
    user's cache directory; its name hashes the grammar, the start rule and the versions of
    lark and Python, so it is never used for anything else."""
    import hashlib
    import sys

    import lark

    directory = cache_dir()
    if directory is None:
        return None
    key = f"{grammar}\0{start}\0{lark.__version__}\0{sys.version}".encode()
    return directory / f"grammar-{hashlib.sha256(key).hexdigest()[:24]}.lark-cache"


def grammar_text() -> str:
    """The grammar, as shipped (for docs and for hypothesis' ``from_lark``)."""
    return files("rulekit.dsl").joinpath("grammar.lark").read_text(encoding="utf-8")


def parse_expression(text: str, origin: Origin | None = None) -> ast.Expr:
    """Parse an expression or condition.

    Raises:
        DslSyntaxError: the text is not a valid expression.
    """
    node = _parse(text, "expression", origin or Origin())
    assert not isinstance(node, ast.Block)
    return node


def parse_block(text: str, origin: Origin | None = None) -> ast.Block:
    """Parse a block of effect statements.

    Raises:
        DslSyntaxError: the text is not a valid block.
    """
    node = _parse(text, "block", origin or Origin())
    assert isinstance(node, ast.Block)
    return node


def _parse(text: str, start: str, origin: Origin) -> Any:
    if origin.file == "<string>":
        remember_source("<string>", text)
    source = text if text.endswith("\n") else text + "\n"
    try:
        tree = _parser(start).parse(source)
    except RecursionError:
        raise _too_deep(origin) from None
    except UnexpectedInput as error:
        raise _syntax_error(error, text, origin) from None
    except _BadDedent as error:
        line, column = origin.locate(error.line, error.column)
        raise DslSyntaxError(
            Diagnostic(
                "inconsistent indentation",
                Span(origin.file, line, column, line, column + 1),
                hint="indent this line like the statements of the block it belongs to",
            )
        ) from None
    except LarkError as error:  # pragma: no cover - defensive
        raise DslSyntaxError(
            Diagnostic(f"cannot parse: {error}", Span(origin.file, origin.line, origin.column))
        ) from None
    try:
        return _ToAst(origin).transform(tree)
    except VisitError as error:
        if isinstance(error.orig_exc, RulekitError):
            raise error.orig_exc from None
        if isinstance(error.orig_exc, RecursionError):
            raise _too_deep(origin) from None
        raise
    except RecursionError:
        raise _too_deep(origin) from None


def _too_deep(origin: Origin) -> DslSyntaxError:
    return DslSyntaxError(
        Diagnostic("expression nested too deeply", Span(origin.file, origin.line, origin.column))
    )


def _syntax_error(error: UnexpectedInput, text: str, origin: Origin) -> DslSyntaxError:
    line = getattr(error, "line", 1)
    column = getattr(error, "column", 1)
    if not isinstance(line, int) or line < 1:
        line, column = _end_of_text(text)
    expected: set[str] = set()
    if isinstance(error, UnexpectedToken):
        token = error.token
        found = "end of text" if token.type == "$END" else f"'{token}'"
        if token.type == "_NL":
            found = "end of line"
        elif token.type in ("_INDENT", "_DEDENT"):
            found = "indentation"
        message = f"unexpected {found}"
        expected = {_human(t) for t in error.accepts or error.expected}
        if token.type == "$END":
            line, column = _end_of_text(text)
        elif token.type in ("_INDENT", "_DEDENT"):
            # These borrow the position of the line break; point at the line's start instead.
            line, column = token.end_line or line, token.end_column or column
            expected = set()  # every statement would do; the hint says what is wrong
        if (line, column) > _end_of_text(text):
            line, column = _end_of_text(text)
    elif isinstance(error, UnexpectedCharacters):
        message = f"unexpected character {error.char!r}"
        expected = {_human(t) for t in error.allowed or ()}
    elif isinstance(error, UnexpectedEOF):
        message = "unexpected end of text"
        expected = {_human(t) for t in error.expected}
        line, column = _end_of_text(text)
    else:  # pragma: no cover - lark has no other subclasses
        message = "syntax error"
    hint = _hint(text, message)
    if (
        hint is None
        and isinstance(error, UnexpectedToken)
        and str(error.token) in _LOOSE
        and "'in'" in expected
        and re.search(r"\blet\b", text)
    ):
        hint = "in 'let name = value in body', put a value with a comparison, and/or or if/else in (...)"
    file_line, file_column = origin.locate(line, column)
    span = Span(origin.file, file_line, file_column, file_line, file_column + 1)
    return DslSyntaxError(Diagnostic(message, span, tuple(sorted(expected)), hint))


#: Words that bind more loosely than a let value may (it is an arithmetic expression).
_LOOSE = frozenset({"and", "or", "if", "not", "in", "==", "!=", "<", "<=", ">", ">="})


def _end_of_text(text: str) -> tuple[int, int]:
    """The position just after the last character that is not white space."""
    lines = text.rstrip().split("\n")
    return len(lines), len(lines[-1]) + 1


def _hint(text: str, message: str) -> str | None:
    if "'='" in message and "==" not in text:
        return "to compare, write '=='; '=' only assigns in effects"
    if text.count("(") > text.count(")"):
        return "a '(' is never closed"
    if text.count("[") > text.count("]"):
        return "a '[' is never closed"
    if "'/'" in message:
        return "use '//' for division rounded down, or half(x)"
    if message == "unexpected indentation":
        return "only the body of an if, elif, else or for is indented"
    return None


@v_args(meta=True)
class _ToAst(Transformer[Token, Any]):
    """Builds :mod:`rulekit.dsl.ast` nodes from lark's parse tree."""

    def __init__(self, origin: Origin) -> None:
        super().__init__()
        self._origin = origin

    def _span(self, meta: Any) -> Span:
        if getattr(meta, "empty", True):
            return Span(self._origin.file, self._origin.line, self._origin.column)
        line, column = self._origin.locate(meta.line, meta.column)
        end_line, end_column = self._origin.locate(meta.end_line, meta.end_column)
        return Span(self._origin.file, line, column, end_line, end_column)

    def _tok_span(self, token: Token) -> Span:
        line, column = self._origin.locate(token.line or 1, token.column or 1)
        end_line, end_column = self._origin.locate(token.end_line or 1, token.end_column or 1)
        return Span(self._origin.file, line, column, end_line, end_column)

    # -- entry points
    def expression(self, meta: Any, children: list[Any]) -> ast.Expr:
        return children[0]

    def block(self, meta: Any, children: list[Any]) -> ast.Block:
        return ast.Block(tuple(children), span=self._span(meta))

    # -- statements
    def assign(self, meta: Any, c: list[Any]) -> ast.Assign:
        return ast.Assign(c[0], "=", c[1], span=self._span(meta))

    def add_assign(self, meta: Any, c: list[Any]) -> ast.Assign:
        return ast.Assign(c[0], "+=", c[1], span=self._span(meta))

    def sub_assign(self, meta: Any, c: list[Any]) -> ast.Assign:
        return ast.Assign(c[0], "-=", c[1], span=self._span(meta))

    def target(self, meta: Any, c: list[Any]) -> ast.Attribute:
        return ast.Attribute(c[0], str(c[1]), span=self._span(meta))

    def let_stmt(self, meta: Any, c: list[Any]) -> ast.Let:
        return ast.Let(str(c[0]), c[1], span=self._span(meta))

    def emit_stmt(self, meta: Any, c: list[Any]) -> ast.Emit:
        positional, keywords = _split_args(c[1])
        if positional:
            raise DslSyntaxError(
                Diagnostic(
                    "emit takes keyword arguments only, e.g. emit built(city=c)",
                    positional[0].span,
                )
            )
        return ast.Emit(str(c[0]), keywords, span=self._span(meta))

    def fail_stmt(self, meta: Any, c: list[Any]) -> ast.Fail:
        return ast.Fail(c[0], span=self._span(meta))

    def pass_stmt(self, meta: Any, c: list[Any]) -> ast.Pass:
        return ast.Pass(span=self._span(meta))

    def call_stmt(self, meta: Any, c: list[Any]) -> ast.CallStatement:
        call = c[0]
        if not isinstance(call, ast.Call):
            raise DslSyntaxError(Diagnostic("an aggregate cannot stand alone as a statement", call.span))
        return ast.CallStatement(call, span=self._span(meta))

    def if_stmt(self, meta: Any, c: list[Any]) -> ast.If:
        branches = [(c[0], c[1])]
        otherwise: tuple[ast.Stmt, ...] = ()
        for extra in c[2:]:
            if extra is None:
                continue
            if extra[0] == "elif":
                branches.append((extra[1], extra[2]))
            else:
                otherwise = extra[1]
        return ast.If(tuple(branches), otherwise, span=self._span(meta))

    def elif_clause(self, meta: Any, c: list[Any]) -> tuple[str, Any, Any]:
        return ("elif", c[0], c[1])

    def else_clause(self, meta: Any, c: list[Any]) -> tuple[str, Any]:
        return ("else", c[0])

    def for_stmt(self, meta: Any, c: list[Any]) -> ast.For:
        return ast.For(str(c[0]), c[1], c[2], span=self._span(meta))

    def suite(self, meta: Any, c: list[Any]) -> tuple[ast.Stmt, ...]:
        return tuple(c)

    # -- expressions
    def let_in(self, meta: Any, c: list[Any]) -> ast.LetIn:
        return ast.LetIn(str(c[0]), c[1], c[2], span=self._span(meta))

    def record(self, meta: Any, c: list[Any]) -> ast.Record:
        fields = tuple(x for x in c if x is not None)
        seen: set[str] = set()
        for field in fields:
            if field.name in seen:
                raise DslSyntaxError(Diagnostic(f"field '{field.name}' is given twice", field.span))
            seen.add(field.name)
        return ast.Record(fields, span=self._span(meta))

    def field_value(self, meta: Any, c: list[Any]) -> ast.Keyword:
        return ast.Keyword(str(c[0]), c[1], span=self._span(meta))

    def with_update(self, meta: Any, c: list[Any]) -> ast.With:
        return ast.With(c[0], c[1], span=self._span(meta))

    def where(self, meta: Any, c: list[Any]) -> ast.Where:
        return ast.Where(c[0], str(c[1]), c[2], span=self._span(meta))

    def conditional(self, meta: Any, c: list[Any]) -> ast.Conditional:
        return ast.Conditional(c[1], c[0], c[2], span=self._span(meta))

    def or_op(self, meta: Any, c: list[Any]) -> ast.Binary:
        return ast.Binary("or", c[0], c[1], span=self._span(meta))

    def and_op(self, meta: Any, c: list[Any]) -> ast.Binary:
        return ast.Binary("and", c[0], c[1], span=self._span(meta))

    def not_op(self, meta: Any, c: list[Any]) -> ast.Unary:
        return ast.Unary("not", c[0], span=self._span(meta))

    def compare(self, meta: Any, c: list[Any]) -> ast.Binary:
        return ast.Binary(str(c[1]), c[0], c[2], span=self._span(meta))

    def contains(self, meta: Any, c: list[Any]) -> ast.Binary:
        return ast.Binary("in", c[0], c[1], span=self._span(meta))

    def not_contains(self, meta: Any, c: list[Any]) -> ast.Binary:
        return ast.Binary("not in", c[0], c[1], span=self._span(meta))

    def binary(self, meta: Any, c: list[Any]) -> ast.Binary:
        return ast.Binary(str(c[1]), c[0], c[2], span=self._span(meta))

    def negate(self, meta: Any, c: list[Any]) -> ast.Expr:
        operand = c[0]
        if isinstance(operand, ast.Literal) and type(operand.value) is int:
            return ast.Literal(-operand.value, span=self._span(meta))
        return ast.Unary("-", operand, span=self._span(meta))

    def attribute(self, meta: Any, c: list[Any]) -> ast.Attribute:
        return ast.Attribute(c[0], str(c[1]), span=self._span(meta))

    def index(self, meta: Any, c: list[Any]) -> ast.Index:
        return ast.Index(c[0], c[1], span=self._span(meta))

    def call(self, meta: Any, c: list[Any]) -> ast.Call:
        positional, keywords = _split_args(c[1])
        return ast.Call(str(c[0]), positional, keywords, span=self._span(meta))

    def aggregate(self, meta: Any, c: list[Any]) -> ast.Aggregate:
        return ast.Aggregate(str(c[0]), c[1], span=self._span(meta))

    def args(self, meta: Any, c: list[Any]) -> list[Any]:
        return c

    def keyword(self, meta: Any, c: list[Any]) -> ast.Keyword:
        return ast.Keyword(str(c[0]), c[1], span=self._span(meta))

    def int_literal(self, meta: Any, c: list[Any]) -> ast.Literal:
        if len(c[0]) > 100:
            raise DslSyntaxError(Diagnostic("number too long (at most 100 digits)", self._tok_span(c[0])))
        return ast.Literal(int(c[0]), span=self._span(meta))

    def string_literal(self, meta: Any, c: list[Any]) -> ast.Literal:
        raw = str(c[0])
        try:
            value = pyast.literal_eval(raw)
        except (ValueError, SyntaxError):
            raise DslSyntaxError(Diagnostic("malformed string literal", self._tok_span(c[0]))) from None
        return ast.Literal(value, span=self._span(meta))

    def true_literal(self, meta: Any, c: list[Any]) -> ast.Literal:
        return ast.Literal(True, span=self._span(meta))

    def false_literal(self, meta: Any, c: list[Any]) -> ast.Literal:
        return ast.Literal(False, span=self._span(meta))

    def none_literal(self, meta: Any, c: list[Any]) -> ast.Literal:
        return ast.Literal(None, span=self._span(meta))

    def name(self, meta: Any, c: list[Any]) -> ast.Name:
        return ast.Name(str(c[0]), span=self._span(meta))

    def tuple_literal(self, meta: Any, c: list[Any]) -> ast.TupleExpr:
        return ast.TupleExpr(tuple(x for x in c if x is not None), span=self._span(meta))

    def list_literal(self, meta: Any, c: list[Any]) -> ast.ListExpr:
        return ast.ListExpr(tuple(x for x in c if x is not None), span=self._span(meta))

    def list_comprehension(self, meta: Any, c: list[Any]) -> ast.ListComprehension:
        return ast.ListComprehension(c[0], span=self._span(meta))

    def comprehension(self, meta: Any, c: list[Any]) -> ast.Comprehension:
        element, *rest = c
        loops = []
        condition = key = None
        for part in rest:
            if part is None:
                continue
            if part[0] == "for":
                loops.append((part[1], part[2]))
            elif part[0] == "if":
                condition = part[1]
            else:
                key = part[1]
        return ast.Comprehension(element, tuple(loops), condition, key, span=self._span(meta))

    def for_clause(self, meta: Any, c: list[Any]) -> tuple[str, str, Any]:
        return ("for", str(c[0]), c[1])

    def if_clause(self, meta: Any, c: list[Any]) -> tuple[str, Any]:
        return ("if", c[0])

    def by_clause(self, meta: Any, c: list[Any]) -> tuple[str, Any]:
        return ("by", c[0])


def _split_args(args: list[Any] | None) -> tuple[tuple[Any, ...], tuple[ast.Keyword, ...]]:
    if not args:
        return (), ()
    positional = tuple(a for a in args if not isinstance(a, ast.Keyword))
    keywords = tuple(a for a in args if isinstance(a, ast.Keyword))
    return positional, keywords
