"""Parse DSL text into AST nodes (lark is imported only here and in :mod:`rulekit.dsl.transform`).

Positions are reported in the file the text came from: an :class:`Origin`
says where the snippet starts (for DSL embedded in a YAML scalar, the scalar's
position), and every span is shifted accordingly.
"""

from __future__ import annotations

import contextlib
import os
import re
from collections.abc import Iterator
from functools import cache
from importlib.resources import files
from operator import itemgetter
from pathlib import Path
from typing import Any

from lark import Lark, Token
from lark.exceptions import (
    LarkError,
    UnexpectedCharacters,
    UnexpectedEOF,
    UnexpectedInput,
    UnexpectedToken,
    VisitError,
)
from lark.indenter import DedentError, Indenter

from rulekit.cachedir import cache_dir, is_plain_file
from rulekit.dsl import ast, habits
from rulekit.dsl.transform import Origin as Origin
from rulekit.dsl.transform import ToAst
from rulekit.errors import Diagnostic, DslSyntaxError, RulekitError, Span, remember_source


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
    return skip_unit_reductions(_lark_parser(start))


def _lark_parser(start: str) -> Lark:
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
            if is_plain_file(cached):  # never a symlink, FIFO, device or huge file
                return Lark(grammar, cache=str(cached), **options)
            # lark writes its cache file in place: write a private one, then rename it, so
            # that other processes never read half a file
            private = cached.with_name(f"{cached.name}.{os.getpid()}.tmp")
            parser = Lark(grammar, cache=str(private), **options)
            os.replace(private, cached)
            return parser
        except Exception:  # an unreadable or stale cache file: build from the grammar
            with contextlib.suppress(OSError):
                cached.unlink(missing_ok=True)
    return Lark(grammar, **options)


def skip_unit_reductions(parser: Lark) -> Lark:
    """``parser`` with the reductions of inlined one-symbol rules made free.

    Every operand climbs the whole precedence chain (``?expr: where_expr``, ``?where_expr:
    cond_expr``, … ``?postfix: atom``): a dozen reductions per atom, each of which lark runs
    through ``ExpandSingleChild`` and ``PropagatePositions`` only to return the child
    unchanged (the positions it copies are the child's own).  Those callbacks take a third
    of the parse; for exactly those rules (``?`` rules, no alias, one symbol that is kept,
    so no child is filtered out and no position comes from a dropped token) the callback
    becomes "the child".  Trees, positions and errors are lark's
    (``tests/property/test_dsl_properties.py`` compares them with an unchanged parser).
    """
    callbacks = parser.parser.parser.parser.callbacks
    for rule in list(callbacks):
        options = rule.options
        if not options.expand1 or options.keep_all_tokens or rule.alias is not None:
            continue
        if len(rule.expansion) == 1:
            symbol = rule.expansion[0]
            if not (symbol.is_term and symbol.filter_out) and not symbol.name.startswith("_"):
                callbacks[rule] = _FIRST
    return parser


_FIRST = itemgetter(0)


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
        return ToAst(origin).transform(tree)
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
    habit = _habit(error, text, line, column)
    if habit is not None:  # the hint says what to write: the parser's alternatives are noise
        hint, column, width = habit
        expected = set()
    else:
        width = 1
    if origin.flow and _unbalanced(text):
        # YAML ended a plain scalar in a flow collection at a ',': the rest is another entry
        line, column = _end_of_text(text)
        message = "this value was cut at a ',' by YAML"
        expected = set()
        hint = (
            "in a YAML flow collection ({...} or [...]) a ',' ends the value: "
            "quote this value, or use a block mapping"
        )
        width = 1
    if (
        hint is None
        and isinstance(error, UnexpectedToken)
        and str(error.token) in _LOOSE
        and "'in'" in expected
        and re.search(r"\blet\b", text)
    ):
        hint = "in 'let name = value in body', put a value with a comparison, and/or or if/else in (...)"
    file_line, file_column = origin.locate(line, column)
    span = Span(origin.file, file_line, file_column, file_line, file_column + width)
    return DslSyntaxError(Diagnostic(message, span, tuple(sorted(expected)), hint))


def _habit(error: UnexpectedInput, text: str, line: int, column: int) -> tuple[str, int, int] | None:
    """A Python habit's hint, and the column and width to point at (the method's name for
    ``x.append(y)``)."""
    lines = text.split("\n")
    before = lines[line - 1][: column - 1] if 1 <= line <= len(lines) else ""
    if isinstance(error, UnexpectedCharacters):
        hint = habits.operator_hint(error.char)
        return None if hint is None else (hint, column, 1)
    if not isinstance(error, UnexpectedToken):
        return None
    token = str(error.token)
    if token == "(":
        method = habits.method_hint(before)
        if method is not None:
            hint, back = method
            return hint, column - back, len(before.rstrip()) - (len(before) - back)
    if token == "if":
        hint = habits.else_if_hint(before)
        if hint is not None:
            start = before.rstrip().rfind("else")
            return hint, start + 1, column + 2 - (start + 1)
    if token == "is":
        return "write '==' or '!=' (the DSL has no 'is')", column, 2
    return None


def _unbalanced(text: str) -> bool:
    """Whether a bracket opened in ``text`` is never closed (outside strings)."""
    depth = 0
    for char in re.sub(r'"(?:[^"\\\n]|\\.)*"|\'(?:[^\'\\\n]|\\.)*\'', "", text):
        if char in "([{":
            depth += 1
        elif char in ")]}":
            depth -= 1
    return depth > 0


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
    if message == "unexpected indentation":
        return "only the body of an if, elif, else or for is indented"
    return None
