"""Turn lark's parse tree into :mod:`rulekit.dsl.ast` nodes, with spans in the source file.

An :class:`Origin` says where a snippet starts in its file; :class:`ToAst` shifts every
node's span by it.
"""

from __future__ import annotations

import ast as pyast
from typing import Any

from attrs import frozen
from lark import Token, Transformer, v_args

from rulekit.dsl import ast
from rulekit.errors import Diagnostic, DslSyntaxError, Span


@frozen
class Origin:
    """Where a snippet's first character sits in its file (1-based).

    Lines after the first start at ``continuation_column`` (the indentation of
    a YAML block scalar).  A snippet that YAML folded from several lines into
    one (a ``>`` scalar, a plain scalar over several lines) has ``segments``:
    ``(offset in the snippet's first line, file line, file column)`` of each
    source line, so positions map back to the line they were written on.  A quoted
    scalar, whose escapes (``\\n``, ``\\"``, ``''``) and folded lines make the snippet
    differ from its source, has ``points``: ``(snippet line, snippet column, file line,
    file column)`` wherever the text stops following its source one character for one.
    ``flow``: a plain scalar inside a YAML flow collection (``{...}``, ``[...]``), which a
    ``,`` ends.
    """

    file: str = "<string>"
    line: int = 1
    column: int = 1
    continuation_column: int = 1
    segments: tuple[tuple[int, int, int], ...] = ()
    points: tuple[tuple[int, int, int, int], ...] = ()
    flow: bool = False

    def locate(self, line: int, column: int) -> tuple[int, int]:
        if self.points:
            found = self.points[0]
            for point in self.points:
                if (point[0], point[1]) > (line, column):
                    break
                found = point
            return found[2], found[3] + column - found[1] if found[0] == line else found[3]
        if line <= 1:
            for offset, file_line, file_column in reversed(self.segments):
                if column - 1 >= offset:
                    return file_line, file_column + column - 1 - offset
            return self.line, self.column + column - 1
        return self.line + line - 1, self.continuation_column + column - 1

    def prefixed(self, width: int) -> Origin:
        """The origin of the snippet with ``width`` characters put before its first line."""
        return Origin(
            self.file,
            self.line,
            self.column - width,
            self.continuation_column,
            tuple((offset + width, line, column) for offset, line, column in self.segments),
            tuple((sl, sc + width if sl == 1 else sc, fl, fc) for sl, sc, fl, fc in self.points),
            self.flow,
        )


@v_args(meta=True)
class ToAst(Transformer[Token, Any]):
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
        positional, keywords = split_args(c[1])
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
        positional, keywords = split_args(c[1])
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
        bindings = []
        condition = key = None
        for part in rest:
            if part is None:
                continue
            if part[0] == "for":
                loops.append((part[1], part[2]))
            elif part[0] == "where":
                bindings.append((part[1], part[2]))
            elif part[0] == "if":
                condition = part[1]
                bindings.extend(part[2])
            else:
                key = part[1]
        return ast.Comprehension(
            element, tuple(loops), condition, key, tuple(bindings), span=self._span(meta)
        )

    def for_clause(self, meta: Any, c: list[Any]) -> tuple[str, str | tuple[str, ...], Any]:
        *names, iterable = c
        if len(names) == 1:
            return ("for", str(names[0]), iterable)
        return ("for", tuple(str(n) for n in names), iterable)  # for (cell, part) in region

    def where_clause(self, meta: Any, c: list[Any]) -> tuple[str, str, Any]:
        return ("where", str(c[0]), c[1])

    def if_clause(self, meta: Any, c: list[Any]) -> tuple[str, Any, list[tuple[str, Any]]]:
        return ("if", c[0], [(w[1], w[2]) for w in c[1:]])

    def by_clause(self, meta: Any, c: list[Any]) -> tuple[str, Any]:
        return ("by", c[0])


def split_args(args: list[Any] | None) -> tuple[tuple[Any, ...], tuple[ast.Keyword, ...]]:
    if not args:
        return (), ()
    positional = tuple(a for a in args if not isinstance(a, ast.Keyword))
    keywords = tuple(a for a in args if isinstance(a, ast.Keyword))
    return positional, keywords
