"""One pass over the located YAML tree against :mod:`rulekit.rules.schema`.

:class:`Structurer` checks every key and value shape, parses every DSL snippet and
type, and collects every problem at its ``file:line:col`` in one bag.  A value that
failed is left out of the result (never replaced by a guess), and checks that
depend on it are skipped, so one mistake gives one message: a ``repeat`` whose
``until:`` does not parse is not also told it lacks ``until``.

Results: a table becomes a :class:`Node`, a map of names an :class:`Entries`, a
list a ``list``; an expression an ``ast.Expr``, a block an ``ast.Block``, a type a
:class:`~rulekit.rules.values.Declared`; data stays located YAML.
"""

from __future__ import annotations

from typing import Any

from attrs import define, field

from rulekit.dsl import ast, parse_block, parse_expression
from rulekit.dsl.names import is_name
from rulekit.dsl.types import Type
from rulekit.errors import DiagnosticBag, DslSyntaxError, Span, did_you_mean
from rulekit.rules import schema as s
from rulekit.rules.values import TypeProblem, parse_declared
from rulekit.rules.yaml_source import LocDict, LocStr, span_of

#: Names a ruleset may not give to its own definitions.
RESERVED_NAMES = frozenset(
    {"me", "players", "bank", "game", "turn", "player", "num_players", "true", "false", "none", "_"}
)
_NOWHERE = Span("<rules>", 1, 1)


class _Failed:
    def __repr__(self) -> str:
        return "FAILED"


#: What a value that was reported as wrong structures to.
FAILED: Any = _Failed()


@define
class Node:
    """A structured table: the values of the keys written (those that were valid), with spans."""

    table: s.Table
    span: Span
    values: dict[str, Any] = field(factory=dict)
    written: set[str] = field(factory=set)
    key_spans: dict[str, Span | None] = field(factory=dict)
    value_spans: dict[str, Span | None] = field(factory=dict)
    raw: Any = None

    def get(self, name: str, default: Any = None) -> Any:
        """The value of a key: as written, else the schema's default, else ``default``."""
        if name in self.values:
            return self.values[name]
        key = self.table.key(name)
        return key.default if key is not None and key.default is not None else default

    def where(self, name: str) -> Span:
        """The position of a key's value (or of the key, or of the table)."""
        return self.value_spans.get(name) or self.key_spans.get(name) or self.span


class Entries(dict[str, Any]):
    """A structured map of names: name -> structured value; ``spans``: name -> key position."""

    spans: dict[str, Span | None]
    span: Span


def _empty(span: Span) -> Entries:
    entries = Entries()
    entries.spans = {}
    entries.span = span
    return entries


class Structurer:
    """Walks located YAML against the schema; problems go to ``bag``."""

    def __init__(self, bag: DiagnosticBag, kinds: frozenset[str] | dict[str, Type] = frozenset()) -> None:
        self.bag = bag
        self.kinds = kinds

    def error(
        self, message: str, span: Span | None, hint: str | None = None, expected: tuple[str, ...] = ()
    ) -> None:
        self.bag.error(message, span, hint=hint, expected=expected)

    def value(self, shape: s.Shape, raw: Any, where: Span | None, path: str) -> Any:
        """Structure ``raw`` as ``shape``; ``where`` is the fallback position, ``path`` names it."""
        shape = s.resolve(shape)
        at = span_of(raw) or where or _NOWHERE
        method = getattr(self, f"_{type(shape).__name__.lower()}")
        return method(shape, raw, at, path)

    # -- scalars
    def _expr(self, shape: s.Expr, raw: Any, at: Span, path: str) -> Any:
        if isinstance(raw, bool | int) or raw is None:
            return ast.Literal(raw, span=at)
        if not isinstance(raw, str):
            self.error(f"{path} must be a DSL expression (a string)", at)
            return FAILED
        try:
            return parse_expression(str(raw), raw.origin if isinstance(raw, LocStr) else None)
        except DslSyntaxError as error:
            self.bag.extend(error.diagnostics)
            return FAILED

    def _block(self, shape: s.Block, raw: Any, at: Span, path: str) -> Any:
        if not isinstance(raw, str):
            self.error(f"{path} must be DSL statements (a string)", at)
            return FAILED
        try:
            return parse_block(str(raw), raw.origin if isinstance(raw, LocStr) else None)
        except DslSyntaxError as error:
            self.bag.extend(error.diagnostics)
            return FAILED

    def _text(self, shape: s.Text, raw: Any, at: Span, path: str) -> Any:
        if isinstance(raw, int | float) and not isinstance(raw, bool):
            raw = str(raw)  # `cite: 4.3`, `version: 2`
        if not isinstance(raw, str):
            self.error(f"{path} must be text", at)
            return FAILED
        if shape.max_length is not None and (not raw.isprintable() or len(raw) > shape.max_length):
            self.error(
                f"the {_last(path)} must be printable text of at most {shape.max_length} characters", at
            )
            return FAILED
        return str(raw)

    def _name(self, shape: s.Name, raw: Any, at: Span, path: str) -> Any:
        if not is_name(raw):
            self.error(f"{path} must be a name (letters, digits, _), not {raw!r}", at)
            return FAILED
        return str(raw)

    def _flag(self, shape: s.Flag, raw: Any, at: Span, path: str) -> Any:
        if not isinstance(raw, bool):
            hint = None
            if isinstance(raw, str) and raw.strip().lower() in ("true", "false"):
                hint = f"write {raw.strip().lower()} without quotes: quoted, it is text"
            self.error(f"{path} must be true or false, not {_shown(raw)}", at, hint)
            return FAILED
        return raw

    def _int(self, shape: s.Int, raw: Any, at: Span, path: str) -> Any:
        low, high = shape.low, shape.high
        if (
            isinstance(raw, bool)
            or not isinstance(raw, int)
            or (low is not None and raw < low)
            or (high is not None and raw > high)
        ):
            if low is not None and high is not None:
                wanted = f" from {low} to {high}"
            elif low is not None:
                wanted = f" of at least {low}"
            else:
                wanted = ""
            self.error(f"{path} must be a whole number{wanted} (got {_plain_repr(raw)})", at)
            return FAILED
        return raw

    def _enum(self, shape: s.Enum, raw: Any, at: Span, path: str) -> Any:
        if raw not in shape.choices:
            words = ", ".join(shape.choices[:-1]) + f" or {shape.choices[-1]}"
            self.error(
                f"{_last(path)} must be {words} (got '{raw}')",
                at,
                did_you_mean(str(raw), shape.choices),
                shape.choices,
            )
            return FAILED
        return str(raw)

    def _typetext(self, shape: s.TypeText, raw: Any, at: Span, path: str) -> Any:
        try:
            return parse_declared(raw, self.kinds)
        except TypeProblem as problem:
            self.error(f"{path}: {problem}", at, problem.hint)
            return FAILED

    def _data(self, shape: s.Data, raw: Any, at: Span, path: str) -> Any:
        return raw

    def _custom(self, shape: s.Custom, raw: Any, at: Span, path: str) -> Any:
        return raw

    def _names(self, shape: s.Names, raw: Any, at: Span, path: str) -> Any:
        if isinstance(raw, str) and shape.one_ok:
            return (str(raw),)
        if not isinstance(raw, list) or not all(isinstance(v, str) for v in raw):
            self.error(f"{path} must be a list of names", at)
            return FAILED
        return tuple(str(v) for v in raw)

    # -- containers
    def _listof(self, shape: s.ListOf, raw: Any, at: Span, path: str) -> Any:
        if not isinstance(raw, list):
            if not shape.one_ok:
                self.error(f"{path} must be a list", at)
                return FAILED
            raw = [raw]
        found = []
        for item in raw:
            value = self.value(shape.item, item, at, path)
            if value is not FAILED:
                found.append(value)
        return found

    def _mapof(self, shape: s.MapOf, raw: Any, at: Span, path: str) -> Any:
        entries = _empty(at)
        if raw is None:
            return entries
        if not isinstance(raw, LocDict):
            self.error(f"{path} must be a mapping", at)
            return FAILED
        for name, item in raw.items():
            key_span = raw.key_spans.get(name)
            if not shape.free and not self.ident(name, shape.what, key_span, reserved_ok=shape.reserved_ok):
                continue
            value = self.value(shape.value, item, key_span, f"{path}.{name}")
            if value is not FAILED:
                entries[str(name)] = value
                entries.spans[str(name)] = key_span
        return entries

    def ident(self, name: Any, what: str, span: Span | None, *, reserved_ok: bool = False) -> bool:
        """Whether ``name`` may name a ``what``; if not, say so at ``span``."""
        if not is_name(name):
            self.error(f"{what} '{name}' is not a valid name (letters, digits, _)", span)
            return False
        if name in RESERVED_NAMES and not reserved_ok:
            self.error(
                f"'{name}' is reserved and cannot name {'an' if what[:1] in 'aeiou' else 'a'} {what}", span
            )
            return False
        return True

    def _either(self, shape: s.Either, raw: Any, at: Span, path: str) -> Any:
        if isinstance(raw, dict):
            return self._table(shape.table, raw, at, path)
        short = shape.table.short
        assert short is not None, "an Either's table names its short key"
        key = shape.table.key(short)
        if key is not None and raw is not None and self.value(key.shape, raw, at, path) is FAILED:
            return FAILED  # reported under the outer key's name ("visibility must be ...")
        wrapped = LocDict({short: raw})
        wrapped.span = at
        wrapped.key_spans = {short: at}
        return self._table(shape.table, wrapped, at, path)

    def _table(self, shape: s.Table, raw: Any, at: Span, path: str) -> Any:
        if not isinstance(raw, LocDict):
            if raw is not None:
                self.error(f"{path} must be a mapping", at)
                return FAILED
            raw = LocDict()
            raw.span = at
            raw.key_spans = {}
        node = Node(shape, raw.span, raw=raw)
        for name, item in raw.items():
            key = shape.key(name) if isinstance(name, str) else None
            key_span = raw.key_spans.get(name)
            if key is None:
                self.error(
                    f"unknown {shape.what} key '{name}'",
                    key_span,
                    _cut_at_comma(name) or did_you_mean(str(name), shape.names),
                    shape.names,
                )
                continue
            node.written.add(key.name)
            node.key_spans[key.name] = key_span
            node.value_spans[key.name] = span_of(item) or key_span
            if item is None and not isinstance(key.shape, s.Data | s.Custom):
                continue  # `cost:` with nothing after it: as if not written
            value = self.value(key.shape, item, key_span, f"{path}.{name}" if path else str(name))
            if value is not FAILED:
                node.values[key.name] = value
        for key in shape.keys:
            if key.required and key.name not in node.written:
                self.error(key.missing or f"{shape.what} needs '{key.name}'", raw.span)
        for names, message in shape.one_of:
            if not node.written.intersection(names):
                self.error(message, raw.span)
        return node

    def _tagged(self, shape: s.Tagged, raw: Any, at: Span, path: str) -> Any:
        if not isinstance(raw, LocDict):
            self.error(f"a {shape.what} must be a mapping", at)
            return FAILED
        tags = [k for k in raw if k in shape.tags]
        if len(tags) != 1:
            self.error(
                f"a {shape.what} needs exactly one of: " + ", ".join(shape.tags),
                raw.span,
                did_you_mean(str(next(iter(raw), "")), shape.tags),
            )
            return FAILED
        node = self._table(shape.table(tags[0]), raw, at, path)
        return FAILED if node is FAILED else (tags[0], node)


def _last(path: str) -> str:
    return path.rsplit(".", 1)[-1]


def _shown(raw: Any) -> str:
    if isinstance(raw, str):
        return f'the text "{raw}"'
    return _plain_repr(raw)


def _plain_repr(raw: Any) -> str:
    if isinstance(raw, LocStr):
        return repr(str(raw))
    if isinstance(raw, dict):
        return "a mapping"
    if isinstance(raw, list):
        return "a list"
    return repr(raw)


def _cut_at_comma(key: Any) -> str | None:
    """The hint for a key that is the rest of a value YAML cut at a ',' in a flow mapping
    (``{if: max(a, b) > 0}`` reads as ``if: max(a`` and a key ``b) > 0``)."""
    origin = getattr(key, "origin", None)
    if origin is None or not origin.flow:
        return None
    text = str(key)
    if sum(text.count(c) for c in ")]}") <= sum(text.count(c) for c in "([{"):
        return None
    return "this is the rest of a value YAML cut at a ',': quote that value, or use a block mapping"
