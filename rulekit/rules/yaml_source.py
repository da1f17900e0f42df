"""Load YAML safely into plain values that remember where they came from.

Mappings become :class:`LocDict`, sequences :class:`LocList`, strings
:class:`LocStr`; each carries a :class:`~rulekit.errors.Span` (1-based).  DSL
embedded in a string scalar is given an :class:`~rulekit.dsl.Origin` that
accounts for quotes and block-scalar indentation, so DSL errors point into the
YAML file.  Only ``yaml.SafeLoader`` is ever used.
"""

from __future__ import annotations

import math
from collections.abc import Callable, Iterator, Mapping
from contextlib import contextmanager
from pathlib import Path
from typing import Any

import yaml

from rulekit.dsl import Origin
from rulekit.errors import Diagnostic, RulesetError, Span, remember_source
from rulekit.limits import LIMITS
from rulekit.rules.yaml_errors import describe


class LocStr(str):
    """A string scalar with its span and the origin of its first character."""

    span: Span
    origin: Origin

    def __new__(cls, value: str, span: Span, origin: Origin) -> LocStr:
        obj = super().__new__(cls, value)
        obj.span = span
        obj.origin = origin
        return obj

    def __reduce__(self) -> tuple[Any, ...]:  # pickled with its span (the program cache)
        return (LocStr, (str(self), self.span, self.origin))


class LocDict(dict[Any, Any]):
    """A mapping with its span and the span of each key."""

    span: Span
    key_spans: dict[Any, Span]


class LocList(list[Any]):
    """A sequence with its span (and, for items a variant or module set by index, where each
    was set: ``item_spans``)."""

    span: Span
    item_spans: dict[int, Span] = {}  # replaced, never mutated (see rules.paths.put)


def span_of(value: Any, default: Span | None = None) -> Span | None:
    """The span of a loaded value, if it has one."""
    return getattr(value, "span", default)


def _span(file: str, node: yaml.Node) -> Span:
    start, end = node.start_mark, node.end_mark
    return Span(file, start.line + 1, start.column + 1, end.line + 1, end.column + 1)


def _scalar_origin(file: str, node: yaml.ScalarNode, lines: list[str], flow: bool = False) -> Origin:
    mark, end = node.start_mark, node.end_mark
    line, column = mark.line + 1, mark.column + 1
    style = node.style
    if style in ("|", ">"):
        # The content starts on the next non-empty line, indented.
        row = mark.line + 1
        while row < len(lines) and not lines[row].strip():
            row += 1
        text = lines[row] if row < len(lines) else ""
        indent = len(text) - len(text.lstrip(" "))
        segments: tuple[tuple[int, int, int], ...] = ()
        points: tuple[tuple[int, int, int, int], ...] = ()
        if style == ">":
            last = min(end.line + (1 if end.column else 0), len(lines))
            chars = _folded_block_chars(lines, row, last, indent)
            if "".join(ch for ch, _, _ in chars) == str(node.value).rstrip("\n"):
                points = _points(chars)
            if not points:
                rows = [(r + 1, indent + 1, lines[r][indent:].rstrip()) for r in range(row, last)]
                while rows and not rows[-1][2]:
                    rows.pop()
                segments = _folded(str(node.value), rows)
        return Origin(file, row + 1, indent + 1, indent + 1, segments, points)
    if style in ("'", '"'):
        points = _quoted_points(str(node.value), lines, mark.line, mark.column, style)
        return Origin(file, line, column + 1, column + 1, points=points)
    if end.line > mark.line and end.line < len(lines):
        # A plain scalar over several lines: YAML joins the lines with single spaces.
        rows = [(line, column, lines[mark.line][mark.column :].rstrip())]
        for r in range(mark.line + 1, end.line + 1):
            raw = lines[r][: end.column] if r == end.line else lines[r]
            stripped = raw.lstrip()
            rows.append((r + 1, len(raw) - len(stripped) + 1, stripped.rstrip()))
        return Origin(file, line, column, column, _folded(str(node.value), rows), flow=flow)
    return Origin(file, line, column, column, flow=flow)


def _folded(value: str, rows: list[tuple[int, int, str]]) -> tuple[tuple[int, int, int], ...]:
    """Segments mapping a folded scalar back to its lines, or () if it did not fold simply."""
    if value.rstrip("\n") != " ".join(text for _, _, text in rows):
        return ()
    segments = []
    offset = 0
    for file_line, file_column, text in rows:
        segments.append((offset, file_line, file_column))
        offset += len(text) + 1
    return tuple(segments)


def _folded_block_chars(lines: list[str], row: int, last: int, indent: int) -> list[tuple[str, int, int]]:
    """The characters of a folded block scalar (``>``) whose content lines are ``row`` to
    ``last`` (0-based, ``last`` excluded), indented by ``indent``, with the (row, column) each
    was read at; PyYAML's folding: a break between two lines that start with no space
    becomes a space (or, followed by empty lines, one newline per empty line); a break next
    to a more-indented line is kept.  The trailing breaks (chomping) are left out."""
    out: list[tuple[str, int, int]] = []
    breaks: list[int] = []  # the empty lines since the last content line
    previous: tuple[int, str] | None = None  # the last content line: its row and text
    for r in range(row, last):
        text = lines[r].rstrip("\r\n")
        if len(text) <= indent and not text.strip(" "):
            breaks.append(r)
            continue
        content = text[indent:]
        if previous is not None:
            prev_row, prev_text = previous
            if prev_text[:1] not in " \t" and content[:1] not in " \t":
                if not breaks:
                    out.append((" ", prev_row, indent + len(prev_text)))
            else:
                out.append(("\n", prev_row, indent + len(prev_text)))
            out.extend(("\n", b, 0) for b in breaks)
        breaks = []
        out.extend((ch, r, indent + c) for c, ch in enumerate(content))
        previous = (r, content)
    return out


#: Double-quoted escapes of one character (YAML 1.1, as PyYAML reads them) and of a code.
_ESCAPES = {
    "0": "\0", "a": "\a", "b": "\b", "t": "\t", "\t": "\t", "n": "\n", "v": "\v", "f": "\f",
    "r": "\r", "e": "\x1b", " ": " ", '"': '"', "/": "/", "\\": "\\", "N": "\x85", "_": "\xa0",
    "L": "\u2028", "P": "\u2029",
}  # fmt: skip
_ESCAPE_CODES = {"x": 2, "u": 4, "U": 8}


def _quoted_points(
    value: str, lines: list[str], row: int, column: int, quote: str
) -> tuple[tuple[int, int, int, int], ...]:
    """:attr:`Origin.points` of a quoted scalar whose opening quote is at ``row``, ``column``
    (0-based): where each character of ``value`` was written, through escapes and folded
    lines. ``()`` when the scalar follows its source one character for one (or when reading
    it again does not give ``value``: the positions then fall back to a plain shift)."""
    try:
        chars = _quoted_chars(lines, row, column, quote)
    except (IndexError, ValueError):
        return ()
    if chars is None or "".join(ch for ch, _, _ in chars) != value:
        return ()
    return _points(chars)


def _points(chars: list[tuple[str, int, int]]) -> tuple[tuple[int, int, int, int], ...]:
    """:attr:`Origin.points` of a snippet whose characters were read at the (0-based) rows
    and columns given with them; ``()`` when the snippet follows one source line."""
    points: list[tuple[int, int, int, int]] = []
    snippet_line, snippet_column = 1, 1
    previous: tuple[int, int, int] | None = None
    for ch, file_row, file_column in chars:
        if previous != (snippet_line, file_row, file_column - 1):
            points.append((snippet_line, snippet_column, file_row + 1, file_column + 1))
        previous = (snippet_line, file_row, file_column)
        if ch == "\n":
            snippet_line, snippet_column = snippet_line + 1, 1
        else:
            snippet_column += 1
    if len(points) <= 1:
        return ()
    return tuple(points)


def _quoted_chars(lines: list[str], row: int, column: int, quote: str) -> list[tuple[str, int, int]] | None:
    """The characters of a quoted scalar with the (row, column) each was read at: PyYAML's
    reading of flow scalars (escapes, ``''``, whitespace before a line break dropped, a
    break folded to a space or, followed by empty lines, to one newline per empty line)."""
    out: list[tuple[str, int, int]] = []
    literal_spaces = 0  # spaces and tabs at the end of ``out`` written as such (dropped at a break)
    r, c = row, column + 1
    while r < len(lines):
        text = lines[r]
        while c < len(text):
            ch = text[c]
            if ch == quote:
                if quote == "'" and text[c + 1 : c + 2] == "'":
                    out.append(("'", r, c))
                    literal_spaces = 0
                    c += 2
                    continue
                return out
            if quote == '"' and ch == "\\":
                if c + 1 == len(text):  # an escaped line break: the lines join
                    r, c = _after_breaks(lines, r + 1, out)
                    literal_spaces = 0
                    break
                code = text[c + 1]
                if code in _ESCAPES:
                    out.append((_ESCAPES[code], r, c))
                    c += 2
                elif code in _ESCAPE_CODES:
                    width = _ESCAPE_CODES[code]
                    out.append((chr(int(text[c + 2 : c + 2 + width], 16)), r, c))
                    c += 2 + width
                else:
                    return None
                literal_spaces = 0
                continue
            out.append((ch, r, c))
            literal_spaces = literal_spaces + 1 if ch in " \t" else 0
            c += 1
        else:  # a line break inside the scalar
            if literal_spaces:
                del out[-literal_spaces:]
            end = (r, len(text.rstrip(" \t")))
            mark = len(out)
            r, c = _after_breaks(lines, r + 1, out)
            if len(out) == mark:
                out.append((" ", *end))
            literal_spaces = 0
    return None


def _after_breaks(lines: list[str], r: int, out: list[tuple[str, int, int]]) -> tuple[int, int]:
    """Skip empty lines (each one a newline in ``out``) and the next line's indentation."""
    while r < len(lines) and not lines[r].strip(" \t"):
        out.append(("\n", r, 0))
        r += 1
    text = lines[r] if r < len(lines) else ""
    return r, len(text) - len(text.lstrip(" \t"))


_STANDARD_TAGS = frozenset(
    "tag:yaml.org,2002:" + name for name in ("str", "int", "bool", "null", "float", "seq", "map")
)


def _convert(
    file: str,
    node: yaml.Node,
    lines: list[str],
    depth: int = 0,
    count: list[int] | None = None,
    flow: bool = False,
) -> Any:
    # ``flow``: the node is an entry of a flow collection ({...}, [...]), whose plain scalars a ',' ends
    # Limits: nesting (a self-referencing alias nests forever) and values made, counting an
    # alias each time it is used (a "billion laughs" file is small but expands hugely).
    count = count if count is not None else [0]
    count[0] += 1
    if count[0] > LIMITS.max_yaml_nodes:
        raise RulesetError(
            Diagnostic(
                f"the file expands to more than {LIMITS.max_yaml_nodes} values (aliases used too often?)",
                _span(file, node),
                hint="see docs/security.md for the limit and how to raise it",
            )
        )
    if depth > LIMITS.max_depth:
        raise RulesetError(
            Diagnostic(
                f"nested more than {LIMITS.max_depth} levels deep (or an alias refers to itself)",
                _span(file, node),
            )
        )
    if node.tag == "tag:yaml.org,2002:timestamp" and isinstance(node, yaml.ScalarNode):
        node.tag = "tag:yaml.org,2002:str"  # a bare date is just text here
    if node.tag not in _STANDARD_TAGS:
        tag = node.tag.replace("tag:yaml.org,2002:", "!!")
        hint = "write the value out instead of '<<'" if tag == "!!merge" else None
        raise RulesetError(
            Diagnostic(
                f"unsupported YAML tag '{tag}' (rules files use plain YAML values)",
                _span(file, node),
                hint=hint,
            )
        )
    if isinstance(node, yaml.MappingNode):
        result = LocDict()
        result.span = _span(file, node)
        result.key_spans = {}
        for key_node, value_node in node.value:
            key = _convert(file, key_node, lines, depth + 1, count, bool(node.flow_style))
            if isinstance(key, list | dict):
                raise RulesetError(Diagnostic("a mapping key must be a scalar", _span(file, key_node)))
            if key in result:
                first = result.key_spans[key]
                raise RulesetError(
                    Diagnostic(
                        f"duplicate key '{key}'",
                        _span(file, key_node),
                        hint=f"'{key}' is already set on line {first.line}; a mapping holds each key once",
                    )
                )
            result[key] = _convert(file, value_node, lines, depth + 1, count, bool(node.flow_style))
            result.key_spans[key] = _span(file, key_node)
        return result
    if isinstance(node, yaml.SequenceNode):
        seq = LocList(
            _convert(file, item, lines, depth + 1, count, bool(node.flow_style)) for item in node.value
        )
        seq.span = _span(file, node)
        return seq
    assert isinstance(node, yaml.ScalarNode)
    value = yaml.SafeLoader.construct_scalar(_CONSTRUCTOR, node)
    if node.style == '"' and any("\ud800" <= c <= "\udfff" for c in str(value)):
        # only a \u escape can make one; it is not a character and cannot be written as UTF-8
        raise RulesetError(Diagnostic("a lone surrogate (\\ud800-\\udfff) is not text", _span(file, node)))
    tag = node.tag
    if tag == "tag:yaml.org,2002:str" or node.style in ("'", '"', "|", ">"):
        return LocStr(str(value), _span(file, node), _scalar_origin(file, node, lines, flow))
    try:
        resolved = _CONSTRUCTOR.construct_object(node)
    except ValueError:  # e.g. more digits than Python converts (sys.get_int_max_str_digits)
        raise RulesetError(Diagnostic("this number is too large", _span(file, node))) from None
    if isinstance(resolved, float) and not math.isfinite(resolved):
        raise RulesetError(
            Diagnostic("numbers must be finite (.inf and .nan are not allowed)", _span(file, node))
        )
    if isinstance(resolved, str):
        return LocStr(resolved, _span(file, node), _scalar_origin(file, node, lines, flow))
    return resolved


_CONSTRUCTOR = yaml.SafeLoader("")
_FAILED = object()
#: libyaml's safe composer when PyYAML was built with it (about ten times faster); it gives
#: the same nodes, marks and styles.  Text it refuses is parsed again by the pure-Python
#: loader, so error messages and positions are always the pure loader's.
_FAST_LOADER: Any = getattr(yaml, "CSafeLoader", None)


def _compose_fast(text: str) -> Any:
    """The document's node from libyaml, or ``_FAILED`` (no libyaml, or an error)."""
    if _FAST_LOADER is None:
        return _FAILED
    try:
        return yaml.compose(text, Loader=_FAST_LOADER)
    except yaml.YAMLError:
        return _FAILED


def load_text(text: str, file: str) -> Any:
    """Parse YAML text safely into located values.

    Raises:
        RulesetError: the text is not valid YAML (with the position of the problem).
    """
    remember_source(file, text)
    lines = text.splitlines()
    node = _compose_fast(text)
    try:
        if node is _FAILED:
            node = yaml.compose(text, Loader=yaml.SafeLoader)
    except RecursionError:
        raise RulesetError(
            Diagnostic(f"nested more than {LIMITS.max_depth} levels deep", Span(file, 1, 1))
        ) from None
    except yaml.MarkedYAMLError as error:
        raise RulesetError(describe(error, file, text.split("\n"))) from None
    except yaml.YAMLError as error:
        raise RulesetError(Diagnostic(f"invalid YAML: {error}", Span(file, 1, 1))) from None
    if node is None:
        return None
    return _convert(file, node, lines)


#: Called with (path, shown name, bytes) for every file :func:`load_file` reads (the
#: program cache records what a load depended on); None: nobody is listening.
READS_HOOK: Callable[[Path, str, bytes], None] | None = None


#: Unsaved texts by resolved path (an editor's open documents, ``rulekit lsp``): while set by
#: :func:`overlaid`, :func:`load_file` reads them instead of the files on disk.
_OVERLAY: dict[Path, str] = {}


@contextmanager
def overlaid(texts: Mapping[Path, str]) -> Iterator[None]:
    """Within the block, :func:`load_file` reads ``texts[path]`` (keys are resolved paths)
    instead of the file at ``path``; the program cache is not consulted by such a load
    (:func:`rulekit.load.load_composed` never does)."""
    saved = dict(_OVERLAY)
    _OVERLAY.update(texts)
    try:
        yield
    finally:
        _OVERLAY.clear()
        _OVERLAY.update(saved)


def load_file(path: Path, display_name: str | None = None) -> Any:
    """Read and parse a YAML file; errors name ``display_name`` (default: the path)."""
    name = display_name or str(path)
    unsaved = _OVERLAY.get(path.resolve()) if _OVERLAY else None
    try:
        raw = unsaved.encode("utf-8", "surrogatepass") if unsaved is not None else None
        size = len(raw) if raw is not None else path.stat().st_size
        if size > LIMITS.max_file_bytes:
            raise RulesetError(
                Diagnostic(
                    f"the file is larger than {LIMITS.max_file_bytes} bytes ({size})",
                    Span(name, 1, 1),
                    hint="see docs/security.md for the limit and how to raise it",
                )
            )
        if raw is None:
            raw = path.read_bytes()
    except OSError as error:
        raise RulesetError(Diagnostic(f"cannot read file: {error.strerror}", Span(name, 1, 1))) from None
    if unsaved is not None:
        return load_text(unsaved, name)
    if READS_HOOK is not None:
        READS_HOOK(path, name, raw)
    try:
        text = raw.decode("utf-8")
    except UnicodeDecodeError as error:
        before = raw[: error.start]
        line = before.count(b"\n") + 1
        column = len(before) - (before.rfind(b"\n") + 1) + 1
        raise RulesetError(
            Diagnostic(
                f"not UTF-8 text: byte 0x{raw[error.start]:02x} cannot be decoded",
                Span(name, line, column),
                hint="save the file as UTF-8",
            )
        ) from None
    return load_text(text, name)


def dump_text(data: Any) -> str:
    """Write plain data (dicts, lists, strings, numbers) as block-style YAML, keys in their order.

    The one place besides :func:`load_text` that touches the YAML library, so tools that write
    rules or scenario files import this instead of ``yaml``.
    """
    return str(yaml.safe_dump(data, sort_keys=False, allow_unicode=True, width=100))


def plain_data(value: Any) -> Any:
    """Located YAML data as plain dicts, lists and strings (for hashing, JSON and diffs)."""
    if isinstance(value, dict):
        return {str(k): plain_data(v) for k, v in value.items()}
    if isinstance(value, list):
        return [plain_data(v) for v in value]
    if isinstance(value, LocStr):
        return str(value)
    return value
