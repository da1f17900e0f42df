"""The base of code generation: a ruleset's types, diagnostics, span markers and the
expression dispatch (see :mod:`rulekit.compiler.codegen`)."""

from __future__ import annotations

from collections.abc import Iterator
from contextlib import contextmanager
from typing import Any

from rulekit.compiler import emit
from rulekit.compiler.codegen_support import (
    MAX_NESTING,
    SPAN_MARK,
    article,
    holds_maps,
)
from rulekit.compiler.facts import Facts, Recorder
from rulekit.compiler.scope import Context
from rulekit.dsl import ast
from rulekit.dsl import types as t
from rulekit.dsl.types import Type
from rulekit.errors import DiagnosticBag, Span, did_you_mean
from rulekit.rules.model import RulesModel


class CodeGenBase:
    """The state of code generation for one ruleset: its types, spans, constants and
    diagnostics, and the dispatch of expressions (extended by the subclasses)."""

    def __init__(self, rules: RulesModel, bag: DiagnosticBag) -> None:
        self.rules = rules
        self.bag = bag
        self.spans: list[Span | None] = []
        self.depth = 0
        #: Inside a comprehension's iterable (where Python refuses ':='), and the count of the
        #: names bound by ``where`` and ``let ... in`` (see CodeGen.bound_value).
        self.in_iterable = 0
        self.bindings = 0
        #: Rules functions written out where they are called (rulekit.compiler.codegen_inline),
        #: and how deep such bodies are nested now.
        self.inline: dict[str, Any] = {}
        self.inlining = 0
        self.too_deep = False
        self.text_plus: set[int] = set()  # '+' nodes inside another '+' (text errors: once per chain)
        self.constants: dict[str, Any] = {}
        #: The facts of the expressions being generated, innermost last (see :meth:`recording`);
        #: the bottom one takes what is generated outside any recording.
        self.recorders: list[Recorder] = [Recorder()]
        #: Codes written as a text literal (a component id, an enumeration value): such an
        #: owner of a field read is that owner (facts.Read), any other is computed.
        self.text_literals: dict[str, str] = {}
        #: The type names of the ruleset: component kinds and declared records.
        self.kinds: dict[str, Type] = {k: t.entity(k) for k in rules.kinds} | rules.records | rules.enums
        self.collections = {k.collection: k for k in rules.kinds.values()}
        self.item_kind = {item.id: k.name for k in rules.kinds.values() for item in k.items}
        self.attr_types: dict[str, dict[str, Type]] = {}
        # Types were parsed (and unknown ones reported) once, by the loader.
        for kind in rules.kinds.values():
            self.attr_types[kind.name] = {attr: d.type for attr, d in kind.attributes.items()}
        self.field_types: dict[str, dict[str, Type]] = {}
        for scope, fields in rules.fields.items():
            for name, decl in fields.items():
                if scope in self.attr_types and name in self.attr_types[scope]:
                    self.bag.error(
                        f"field '{name}' of {scope} clashes with its attribute of that name", decl.span
                    )
            self.field_types[scope] = {name: decl.declared.type for name, decl in fields.items()}
        self.function_types: dict[str, Type] = {}
        #: Procedures (see rulekit.compiler.procedures): name -> parameter names and types.
        self.procedures: dict[str, tuple[tuple[str, Type], ...]] = {}
        self.const_types = {}
        for name, constant in rules.constants.items():
            declared = t.value_type(constant.value)
            if constant.declared is not None:
                declared = constant.declared.type
                self.check_ids(constant.value, declared, constant.span, f"constant '{name}'")
            self.const_types[name] = declared

    # ------------------------------------------------------------ helpers
    def check_ids(self, value: Any, type_: Type, span: Span | None, what: str) -> None:
        """Check that component ids in typed data name components of the right kind."""
        if type_.name == "entity":
            if not isinstance(value, str) or self.item_kind.get(value) != type_.kind:
                kind = self.rules.kinds[type_.kind or ""]
                self.bag.error(
                    f"{what}: '{value}' is not {article(type_.kind)}",
                    span,
                    hint=did_you_mean(str(value), [i.id for i in kind.items]),
                )
        elif type_.is_list and not isinstance(value, tuple):
            self.bag.error(f"{what}: must be a list ({type_}), not {value!r}", span)
        elif type_.is_list:
            for element in value:
                self.check_ids(element, t.element_type(type_), span, what)
        elif (type_.is_map or type_.is_record) and not isinstance(value, dict):
            self.bag.error(f"{what}: must be a map ({type_}), not {value!r}", span)
        elif type_.is_record:
            fields = dict(type_.fields or ())
            if set(value) != set(fields):
                self.bag.error(
                    f"{what}: a {type_} needs the fields {', '.join(fields)}, "
                    f"not {', '.join(map(str, value))}",
                    span,
                )
            for name, element in value.items():
                if name in fields:
                    self.check_ids(element, fields[name], span, what)
        elif type_.is_map:
            for key, element in value.items():
                self.check_ids(key, t.map_key(type_), span, what)
                self.check_ids(element, t.map_value(type_), span, what)

    def check_action_param(self, name: str, type_: Type, node: Any) -> None:
        """An action parameter is written in logs as action text (``build(north, 3)``), which
        has no notation for maps and records: those cannot be parameters."""
        if holds_maps(type_):
            self.error(
                f"action parameter '{name}' would hold {article(type_)}, which an action log cannot write",
                node,
                hint="offer a component, a number, a player, text, or a tuple of those "
                "(e.g. the cell (x, y) instead of the record on it)",
            )

    def span_ref(self, span: Span | None) -> str:
        self.spans.append(span)
        return f"SPANS[{len(self.spans) - 1}]"

    def mark(self, span: Span | None) -> str:
        """A comment that ties a generated line to the rule text it came from.

        When Python raises inside generated code (a bad index, a missing value),
        the engine reads the marker of the failing line to point at the rule.
        """
        if span is None:
            return ""
        self.spans.append(span)
        return f"  {SPAN_MARK}{len(self.spans) - 1}"

    def error(self, message: str, node: Any, hint: str | None = None) -> None:
        self.bag.error(message, getattr(node, "span", None), hint=hint)

    def expect(self, expected: Type, actual: Type, node: Any, what: str) -> None:
        if not t.compatible(expected, actual):
            self.error(f"{what} must be {expected}, not {actual}", node)

    # --------------------------------------------------------------- facts
    @property
    def note(self) -> Recorder:
        """Where the facts of the code being written now go."""
        return self.recorders[-1]

    @contextmanager
    def recording(self, merge: bool = True) -> Iterator[Recorder]:
        """Record the facts of the code generated inside (with ``merge``, they also go to
        the enclosing recording: else the caller adds them if it writes that code); read
        them with :meth:`Recorder.facts` after the block."""
        recorder = Recorder()
        self.recorders.append(recorder)
        try:
            yield recorder
        finally:
            self.recorders.pop()
            if merge:
                self.recorders[-1].add(recorder)

    def expr_facts(self, node: ast.Expr, ctx: Context) -> tuple[str, Type, Facts]:
        """:meth:`expr` with the facts of the code (:mod:`rulekit.compiler.facts`)."""
        with self.recording() as recorder:
            base = self.depth
            code, type_ = self.expr(node, ctx)
        whole = recorder.collection  # (depth, kind) of a collection written directly in it
        return code, type_, recorder.facts(whole[1] if whole and whole[0] == base + 1 else None)

    def text_literal(self, value: str) -> str:
        """``value`` written as a literal (known as that owner when a field read's owner)."""
        code = emit.literal(value)
        self.text_literals[code] = value
        return code

    def steps(self, code: str) -> str:
        """The iterable ``code`` charged to the step budget by its length (:func:`emit.step_iter`)."""
        self.note.uses("steps")
        return emit.step_iter(code)

    def number(self, code: str) -> str:
        """A number about to be stored (:func:`emit.checked_number`)."""
        self.note.uses("number")
        return emit.checked_number(code)

    def read_code(self, owner: str, field: str) -> str:
        """``F[(owner, 'field')]`` for the owner's code, noted as a read."""
        self.note.read(self.text_literals.get(owner), field)
        return f"F[({owner}, {emit.literal(field)})]"

    # --------------------------------------------------------- expressions
    def expr(self, node: ast.Expr, ctx: Context) -> tuple[str, Type]:
        with self.nesting(node) as deep:
            if deep:
                return "None", t.ANY
            method = getattr(self, f"_expr_{type(node).__name__}")
            return method(node, ctx)

    @contextmanager
    def nesting(self, node: Any) -> Iterator[bool]:
        """One level deeper; yields True (after reporting it once) past :data:`MAX_NESTING`."""
        self.depth += 1
        try:
            deep = self.depth > MAX_NESTING
            if deep and not self.too_deep:
                self.too_deep = True
                self.error(
                    f"nested more than {MAX_NESTING} levels deep",
                    node,
                    hint="split the expression: name parts with 'let', 'where' or a function",
                )
            yield deep
        finally:
            self.depth -= 1
