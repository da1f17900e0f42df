"""Explain a YAML syntax error where the author made it, with a hint.

PyYAML reports where its parser gave up, often lines later (an unclosed ``{`` is
found at the next key, an unclosed quote at the end of the file) and in parser
terms (``expected <block end>, but found '<scalar>'``).  :func:`describe` turns
such an error into a :class:`~rulekit.errors.Diagnostic` at the line and column
of the mistake: the opening bracket or quote, the tab, the second ``: `` of
``key: a: b``, the line that breaks a block scalar's indentation.  It only reads
the error's marks and the source lines, so any loader's error gets the same text.
"""

from __future__ import annotations

import re
from typing import Protocol

from attrs import frozen

from rulekit.errors import Diagnostic, Span

#: A line holding a block scalar header (``key: |``, ``- >-``, ``key: |2 # comment``).
_BLOCK_HEADER = re.compile(r"^(?P<lead>[ \-]*)(?P<key>[^#]*?:[ \t]+|)[|>][-+0-9]*[ \t]*(#.*)?$")
_KEY = re.compile(r"^(?P<lead>[ \-]*)(?P<key>[^\s#'\"][^#]*?):(\s|$)")
_TOKENS = {
    "<scalar>": "text",
    "<block mapping start>": "key",
    "<block sequence start>": "list",
    "-": "list item ('- ')",
    "?": "key",
    ":": "':'",
    "]": "']'",
    "}": "'}'",
    ",": "','",
}


class Mark(Protocol):
    """A position in the YAML text as the YAML library reports it (0-based)."""

    @property
    def line(self) -> int: ...
    @property
    def column(self) -> int: ...


class YamlError(Protocol):
    """What :func:`describe` reads of the YAML library's error (``yaml.MarkedYAMLError``)."""

    @property
    def problem(self) -> str | None: ...
    @property
    def context(self) -> str | None: ...
    @property
    def problem_mark(self) -> Mark | None: ...
    @property
    def context_mark(self) -> Mark | None: ...


def describe(error: YamlError, file: str, lines: list[str]) -> Diagnostic:
    """The diagnostic for a YAML syntax error in the text split into ``lines``."""
    problem = (error.problem or "").strip()
    context = (error.context or "").strip()
    mark = error.problem_mark
    start = error.context_mark
    if mark is None:
        return _fallback(error, file, lines)
    where = _Error(
        problem,
        context,
        mark.line,
        mark.column,
        (start.line, start.column) if start is not None else None,
        file,
        lines,
    )
    for explain in _EXPLAINERS:
        found = explain(where)
        if found is not None:
            return found
    return _fallback(error, file, lines)


@frozen
class _Error:
    """A YAML error's words and marks (0-based rows and columns) with the source lines."""

    problem: str
    context: str
    row: int
    column: int
    start: tuple[int, int] | None
    file: str
    lines: list[str]


def _indent(text: str) -> int:
    return len(text) - len(text.lstrip(" "))


def _line(lines: list[str], row: int) -> str:
    return lines[row] if 0 <= row < len(lines) else ""


def _blank(text: str) -> bool:
    stripped = text.strip()
    return not stripped or stripped.startswith("#")


def _previous(lines: list[str], row: int) -> int | None:
    """The row of the nearest non-blank, non-comment line above ``row``."""
    for r in range(min(row, len(lines)) - 1, -1, -1):
        if not _blank(lines[r]):
            return r
    return None


def _key_column(text: str) -> int:
    """0-based column of a line's first key or value (after indentation and '- ')."""
    match = re.match(r"[ \-]*", text)
    lead = match.group(0) if match else ""
    # "- " items: the key starts after the dash and its space.
    return len(lead) if lead.rstrip(" ") else _indent(text)


def _key_name(text: str) -> str:
    match = _KEY.match(text)
    return match.group("key").strip() if match else text.strip()


def _spaces(count: int) -> str:
    return f"{count} space" if count == 1 else f"{count} spaces"


def _at(file: str, row: int, column: int, width: int = 1) -> Span:
    return Span(file, row + 1, column + 1, row + 1, column + 1 + max(width, 1))


def _block_header(lines: list[str], row: int) -> tuple[int, int, int | None] | None:
    """The block scalar whose lines stop just above ``row``: (header row, key column, content indent).

    Only lines more indented than the header's key may lie between the header and ``row``.
    """
    for r in range(min(row, len(lines)) - 1, -1, -1):
        text = lines[r]
        if not text.strip():
            continue
        match = _BLOCK_HEADER.match(text)
        if match:
            key_column = len(match.group("lead"))
            content = [_indent(t) for t in lines[r + 1 : row] if t.strip()]
            if all(i > key_column for i in content):
                return r, key_column, (content[0] if content else None)
            return None
        if not text.strip().startswith("#") and _indent(text) <= _indent(_line(lines, row)):
            return None
    return None


# Each explainer returns a Diagnostic when it recognizes the error, else None.


def _tab(e: _Error) -> Diagnostic | None:
    if e.problem != "found character '\\t' that cannot start any token":
        return None
    before = _line(e.lines, e.row)[: e.column]
    where = "in the indentation" if not before.strip() else "here"
    return Diagnostic(
        f"a tab character {where}: YAML indents and separates with spaces only",
        _at(e.file, e.row, e.column),
        hint="replace the tab with spaces (set your editor to insert spaces for Tab in .yaml files)",
    )


def _reserved(e: _Error) -> Diagnostic | None:
    found = re.fullmatch(r"found character '(.)' that cannot start any token", e.problem)
    if found is None:
        return None
    char = found.group(1)
    value = _line(e.lines, e.row)[e.column :].split(" #")[0].strip()
    return Diagnostic(
        f"a YAML value cannot start with '{char}'",
        _at(e.file, e.row, e.column),
        hint=f"put the value in quotes: {_quoted(value)}",
    )


def _quoted(value: str) -> str:
    return "'" + value.replace("'", "''") + "'" if '"' in value else '"' + value + '"'


def _second_colon(e: _Error) -> Diagnostic | None:
    if e.problem != "mapping values are not allowed here":
        return None
    text = _line(e.lines, e.row)
    before = text[: e.column]
    if re.search(r":\s", before):
        # key: a: b -- the value itself contains ': '.
        key_end = re.search(r":\s", before)
        assert key_end is not None
        key = _key_name(text)
        value = text[key_end.end() :].split(" #")[0].strip()
        return Diagnostic(
            f"the value of '{key}' contains ': ', which YAML reads as another key",
            _at(e.file, e.row, e.column),
            hint=f"put the value in quotes: {key}: {_quoted(value)}",
        )
    # The line continues a plain value from the line above: it is indented more than that key.
    above = _previous(e.lines, e.row)
    first = _indent(text)
    if above is None:
        return Diagnostic("a ':' YAML cannot place here", _at(e.file, e.row, e.column))
    above_key = _key_column(e.lines[above])
    return Diagnostic(
        f"'{_key_name(text)}' is indented more than '{_key_name(e.lines[above])}' on line {above + 1}, "
        "so YAML reads it as the rest of that line's value",
        _at(e.file, e.row, first, len(_key_name(text))),
        hint=f"start '{_key_name(text)}' at column {above_key + 1}, like '{_key_name(e.lines[above])}'",
    )


def _unclosed_flow(e: _Error) -> Diagnostic | None:
    kinds = {"while parsing a flow mapping": ("{", "}"), "while parsing a flow sequence": ("[", "]")}
    if e.context not in kinds or not e.problem.startswith("expected ','") or e.start is None:
        return None
    opener, closer = kinds[e.context]
    open_row, open_column = e.start
    if e.row == open_row:
        return Diagnostic(
            f"expected ',' or '{closer}' here, inside the '{opener}' opened at column {open_column + 1}",
            _at(e.file, e.row, e.column),
            hint=f"separate the items with ', ' and close with '{closer}'",
        )
    return Diagnostic(
        f"this '{opener}' is never closed",
        _at(e.file, open_row, open_column),
        hint=f"add the missing '{closer}' (YAML read on into line {e.row + 1})",
    )


def _unclosed_quote(e: _Error) -> Diagnostic | None:
    if e.context != "while scanning a quoted scalar" or e.start is None:
        return None
    open_row, open_column = e.start
    quote = _line(e.lines, open_row)[open_column : open_column + 1] or '"'
    if e.problem == "found unexpected end of stream":
        return Diagnostic(
            f"this {quote} is never closed",
            _at(e.file, open_row, open_column),
            hint=f"add the closing {quote} (YAML read on to the end of the file)",
        )
    return Diagnostic(f"in this quoted value: {e.problem}", _at(e.file, e.row, e.column))


def _empty_block(e: _Error) -> Diagnostic | None:
    if e.context != "while scanning a simple key" or e.start is None:
        return None
    line_row, line_column = e.start
    text = _line(e.lines, line_row)
    header = _block_header(e.lines, line_row)
    above = _previous(e.lines, line_row)
    if header is not None and header[0] == above and _indent(text) <= header[1]:
        header_row, key_column, _ = header
        key = _key_name(e.lines[header_row]) if ":" in e.lines[header_row] else "-"
        return Diagnostic(
            f"the block scalar of '{key}' (line {header_row + 1}) is empty: its lines must be "
            f"indented more than '{key}'",
            _at(e.file, line_row, line_column, len(text.strip())),
            hint=f"indent this line and the rest of the block by at least {_spaces(key_column + 1)}",
        )
    return Diagnostic(
        "a line with no 'key:' inside a mapping",
        _at(e.file, line_row, line_column, len(text.strip())),
        hint="write 'key: value'; if the text continues the value above, indent it more than that key",
    )


def _block_end(e: _Error) -> Diagnostic | None:
    found = re.fullmatch(r"expected <block end>, but found '(.*)'", e.problem)
    if found is None or e.start is None:
        return None
    token = found.group(1)
    text = _line(e.lines, e.row)
    start_row = e.start[0]
    if token == "<scalar>":
        before = text[: e.column].rstrip()
        if before.endswith(('"', "'")) and before.strip() != before.strip()[0]:
            return Diagnostic(
                "text after the closing quote of a value",
                _at(e.file, e.row, e.column),
                hint="put the whole value inside the quotes",
            )
        header = _block_header(e.lines, e.row)
        header_row, key_column, content = header or (0, 0, None)
        if header is not None and content is not None and key_column < _indent(text) < content:
            first = (
                header_row + 1 + next(i for i, t in enumerate(e.lines[header_row + 1 : e.row]) if t.strip())
            )
            return Diagnostic(
                f"this line is indented less than the first line of its block (line {first + 1}), "
                "which ends the block",
                _at(e.file, e.row, _indent(text), len(text.strip())),
                hint=f"indent it by at least {_spaces(content)}, like line {first + 1}: a block's first "
                "line sets the indentation of all its lines",
            )
    if token == "<block mapping start>":
        above = _previous(e.lines, e.row)
        if above is not None:
            return Diagnostic(
                f"'{_key_name(text)}' is indented {_spaces(_indent(text))}, which matches no mapping "
                f"above it ('{_key_name(e.lines[above])}' on line {above + 1} is indented "
                f"{_spaces(_key_column(e.lines[above]))})",
                _at(e.file, e.row, e.column, len(_key_name(text))),
                hint="indent it exactly like the other keys of the mapping it belongs to",
            )
    if token == "-":
        return Diagnostic(
            "a list item ('- ') among the keys of a mapping",
            _at(e.file, e.row, e.column),
            hint=f"the mapping started on line {start_row + 1} holds 'key: value' lines; "
            "put the list under a key, indented more than that key",
        )
    if token in ("]", "}"):
        return Diagnostic(
            f"'{token}' closes nothing",
            _at(e.file, e.row, e.column),
            hint=f"remove it, or add the '{'[' if token == ']' else '{'}' it should close",
        )
    what = _TOKENS.get(token, f"'{token}'")
    return Diagnostic(
        f"unexpected {what} here: this line does not line up with the lines above it",
        _at(e.file, e.row, e.column),
        hint=f"check its indentation against the block that started on line {start_row + 1}",
    )


def _missing_key(e: _Error) -> Diagnostic | None:
    found = re.fullmatch(r"expected <block end>, but found '\?'", e.problem)
    if found is None or e.context != "while parsing a block collection" or e.start is None:
        return None
    return Diagnostic(
        "a 'key: value' line among the items of a list",
        _at(e.file, e.row, e.column),
        hint="every entry of a list starts with '- '",
    )


def _block_indicator(e: _Error) -> Diagnostic | None:
    if e.context != "while scanning a block scalar" or e.start is None:
        return None
    return Diagnostic(
        "after a block scalar's '|' or '>' only '-', '+', a digit or a comment may follow",
        _at(e.file, e.row, e.column),
        hint="start the block's text on the next line, indented more than its key",
    )


def _alias(e: _Error) -> Diagnostic | None:
    found = re.fullmatch(r"found undefined alias '(.*)'", e.problem)
    if found is None:
        return None
    value = _line(e.lines, e.row)[e.column :].split(" #")[0].strip()
    return Diagnostic(
        f"'*{found.group(1)}' refers to an anchor '&{found.group(1)}' that is not defined",
        _at(e.file, e.row, e.column, len(found.group(1)) + 1),
        hint=f"a value starting with '*' must be quoted: {_quoted(value)}",
    )


_EXPLAINERS = (
    _tab,
    _reserved,
    _second_colon,
    _unclosed_flow,
    _unclosed_quote,
    _empty_block,
    _missing_key,
    _block_end,
    _block_indicator,
    _alias,
)


def _fallback(error: YamlError, file: str, lines: list[str]) -> Diagnostic:
    """PyYAML's own words, at its mark (at the context's mark when the problem is the end of file)."""
    mark = error.problem_mark or error.context_mark
    if (
        error.context_mark is not None
        and error.problem_mark is not None
        and error.problem_mark.line >= len(lines) - 1
        and error.problem_mark.line > error.context_mark.line
    ):
        mark = error.context_mark
    span = Span(file, mark.line + 1, mark.column + 1) if mark else Span(file, 1, 1)
    message = (error.problem or "invalid YAML").strip()
    if error.context:
        where = ""
        if error.context_mark is not None and error.problem_mark is not None:
            where = f" started at line {error.context_mark.line + 1}, column {error.context_mark.column + 1}"
        message = f"{message} ({error.context.strip()}{where})"
    return Diagnostic(f"invalid YAML: {message}", span)
