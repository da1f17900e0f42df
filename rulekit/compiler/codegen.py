"""Check DSL trees against the ruleset's names and types, and translate them
to Python source.

One walk does both: every expression is resolved (names, fields, built-ins),
type-checked, and turned into a Python expression over the field dict ``F``
and the runtime ``R``.  Problems are collected, not raised one by one.  The
generated code can only name what this module emits: mangled DSL variables
(``v_x``), field lookups, and the run-time helpers; DSL text never becomes
Python code.
"""

from __future__ import annotations

from collections.abc import Iterator
from contextlib import contextmanager
from typing import Any

from attrs import frozen

from rulekit.compiler import emit
from rulekit.dsl import ast
from rulekit.dsl import types as t
from rulekit.dsl.printer import print_expr
from rulekit.dsl.types import Type
from rulekit.errors import DiagnosticBag, Span, did_you_mean
from rulekit.rules.model import RulesModel
from rulekit.runtime.builtins import BUILTINS, PLAYER_BUILTINS, VALUE_EFFECTS

AGGREGATES = {
    "count": "number of elements: count(c for c in cities if c.open)",
    "sum": "sum of the elements: sum(c.value for c in cities)",
    "min": "smallest element, or none if there is none",
    "max": "largest element, or none if there is none",
    "any": "true if some element is true",
    "all": "true if every element is true",
    "list": "the elements as a list (same as [...])",
    "first": "the first element, or none",
    "rank": "elements sorted by the 'by' key, highest first; ties keep collection order",
    "sorted": "elements sorted by the 'by' key, lowest first; ties keep collection order",
    "distinct": "the first element of each group of identical ones (by the 'by' key, or else "
    "components of the same kind with equal attributes and fields), in collection order",
}

_ARITH = {"+", "-", "*", "//", "%"}
_COMPARE = {"==", "!=", "<", "<=", ">", ">="}


@frozen
class Symbol:
    """What a name means where it is used, its type and its Python spelling."""

    kind: str  # local, const, collection, special
    type: Type
    code: str


class Context:
    """Names visible to a snippet: locals in nested scopes, plus what the rule allows."""

    def __init__(self, *, me: bool = True, effects: bool = False) -> None:
        self.scopes: list[dict[str, Symbol]] = [{}]
        self.me = me
        self.effects = effects

    def lookup(self, name: str) -> Symbol | None:
        for scope in reversed(self.scopes):
            if name in scope:
                return scope[name]
        return None

    def bind(self, name: str, type_: Type) -> str:
        code = emit.name("v_", name)
        self.scopes[-1][name] = Symbol("local", type_, code)
        return code

    @contextmanager
    def nested(self) -> Iterator[None]:
        self.scopes.append({})
        try:
            yield
        finally:
            self.scopes.pop()

    def local_names(self) -> list[str]:
        return [n for scope in self.scopes for n in scope]


class CodeGen:
    """Translates checked DSL to Python source for one ruleset."""

    def __init__(self, rules: RulesModel, bag: DiagnosticBag) -> None:
        self.rules = rules
        self.bag = bag
        self.spans: list[Span | None] = []
        self.depth = 0
        self.too_deep = False
        self.text_plus: set[int] = set()  # '+' nodes inside another '+' (text errors: once per chain)
        self.constants: dict[str, Any] = {}
        #: The type names of the ruleset: component kinds and declared records.
        self.kinds: dict[str, Type] = {k: t.entity(k) for k in rules.kinds} | rules.records | rules.enums
        self.collections = {k.collection: k for k in rules.kinds.values()}
        self.item_kind = {item.id: k.name for k in rules.kinds.values() for item in k.items}
        self.attr_types: dict[str, dict[str, Type]] = {}
        for kind in rules.kinds.values():
            types = {}
            for attr, text in kind.attributes.items():
                parsed = t.parse_type(text, self.kinds)
                if parsed is None:
                    self.bag.error(
                        f"unknown type '{text}' for attribute '{attr}'",
                        kind.span,
                        hint=did_you_mean(text, ["int", "bool", "str", "player", "list[int]", *self.kinds]),
                    )
                    parsed = t.ANY
                types[attr] = parsed
            self.attr_types[kind.name] = types
        self.field_types: dict[str, dict[str, Type]] = {}
        for scope, fields in rules.fields.items():
            types = {}
            for name, decl in fields.items():
                parsed = t.parse_type(decl.type_text, self.kinds)
                if parsed is None:
                    self.bag.error(
                        f"unknown type '{decl.type_text}' for field '{scope}.{name}'",
                        decl.span,
                        hint=did_you_mean(
                            decl.type_text, ["int", "bool", "str", "player", "map", "list[int]", *self.kinds]
                        ),
                    )
                    parsed = t.ANY
                if scope in self.attr_types and name in self.attr_types[scope]:
                    self.bag.error(
                        f"field '{name}' of {scope} clashes with its attribute of that name", decl.span
                    )
                types[name] = parsed
            self.field_types[scope] = types
        self.function_types: dict[str, Type] = {}
        #: Procedures (see rulekit.compiler.procedures): name -> parameter names and types.
        self.procedures: dict[str, tuple[tuple[str, Type], ...]] = {}
        self.const_types = {}
        for name, constant in rules.constants.items():
            declared = t.value_type(constant.value)
            if constant.type_text is not None:
                parsed = t.parse_type(constant.type_text, self.kinds)
                if parsed is None:
                    self.bag.error(
                        f"unknown type '{constant.type_text}' for constant '{name}'", constant.span
                    )
                else:
                    declared = parsed
                    self.check_ids(constant.value, parsed, constant.span, f"constant '{name}'")
            self.const_types[name] = declared

    # ------------------------------------------------------------ helpers
    def check_ids(self, value: Any, type_: Type, span: Span | None, what: str) -> None:
        """Check that component ids in typed data name components of the right kind."""
        if type_.name == "entity":
            if not isinstance(value, str) or self.item_kind.get(value) != type_.kind:
                kind = self.rules.kinds[type_.kind or ""]
                self.bag.error(
                    f"{what}: '{value}' is not {_a(type_.kind)}",
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
        """An action parameter is written in logs as action text (``build(marseille, 3)``), which
        has no notation for maps and records: those cannot be parameters."""
        if _holds_maps(type_):
            self.error(
                f"action parameter '{name}' would hold {_a(type_)}, which an action log cannot write",
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

    def _expr_Literal(self, node: ast.Literal, ctx: Context) -> tuple[str, Type]:
        value = node.value
        if value is None:
            return "None", t.NONE
        if isinstance(value, bool):
            return emit.literal(value), t.BOOL
        if isinstance(value, int):
            return emit.literal(value), t.INT
        return emit.literal(value), t.STR

    def _expr_Name(self, node: ast.Name, ctx: Context) -> tuple[str, Type]:
        name = node.id
        symbol = ctx.lookup(name)
        if symbol is not None:
            return symbol.code, symbol.type
        if name == "me":
            if not ctx.me:
                self.error("'me' means the acting player and is not defined here", node)
            return "me", t.PLAYER
        if name == "players":
            return "R.players", t.list_of(t.PLAYER)
        if name == "num_players":
            return "R.num_players", t.INT
        if name == "bank":
            return "-1", t.OWNER
        if name in self.rules.constants:
            return self.constant(name), self.const_types[name]
        if name in self.collections:
            kind = self.collections[name].name
            return emit.name("C_", kind), t.list_of(t.entity(kind))
        if name in self.rules.enums:  # every value of an enumeration, in declared order
            enum = self.rules.enums[name]
            return emit.literal(tuple(enum.members or ())), t.list_of(enum)
        if name in ("game", "turn"):
            self.error(f"'{name}' needs a field: {name}.FIELD", node)
            return "None", t.ANY
        candidates = [
            *ctx.local_names(),
            *self.rules.constants,
            *self.collections,
            "me",
            "players",
            "num_players",
            "bank",
        ]
        if name in self.item_kind:
            decl = self.rules.kinds[self.item_kind[name]]
            self.error(
                f"unknown name '{name}'", node, hint=f"a {decl.name} is written {decl.collection}.{name}"
            )
        else:
            self.error(f"unknown name '{name}'", node, hint=did_you_mean(name, candidates))
        return "None", t.ANY

    def constant(self, name: str) -> str:
        value = self.rules.constants[name].value
        if isinstance(value, bool | int | str) or value is None:
            return emit.literal(value)
        self.constants[name] = value
        return emit.name("K_", name)

    def _expr_Attribute(self, node: ast.Attribute, ctx: Context) -> tuple[str, Type]:
        code, type_, _ = self.attribute(node, ctx)
        return code, type_

    def attribute(self, node: ast.Attribute, ctx: Context) -> tuple[str, Type, str | None]:
        """Code, type and (for state fields) the key expression of ``subject.name``."""
        subject, name = node.subject, node.name
        if isinstance(subject, ast.Name) and ctx.lookup(subject.id) is None:
            sid = subject.id
            if sid in ("game", "turn"):
                fields = self.field_types[sid]
                if name not in fields:
                    self.error(
                        f"unknown {sid} field '{name}'",
                        node,
                        hint=did_you_mean(name, fields) or f"declare it under state.{sid}",
                    )
                    return "None", t.ANY, None
                key = f"({emit.literal(sid)}, {emit.literal(name)})"
                return f"F[{key}]", fields[name], key
            if sid == "bank":
                if name in ("paid_out", "taken_in"):
                    key = f"('_', {emit.literal(name)})"
                    return f"F[{key}]", t.INT, None
                self.error(f"the bank has 'paid_out' and 'taken_in', not '{name}'", node)
                return "None", t.ANY, None
            if sid in self.rules.enums and sid not in self.rules.constants:
                enum = self.rules.enums[sid]
                if name in (enum.members or ()):
                    return emit.literal(name), enum, None
                self.error(
                    f"{sid} has no value '{name}'",
                    node,
                    hint=did_you_mean(name, enum.members or ())
                    or f"its values: {', '.join(enum.members or ())}",
                )
                return "None", t.ANY, None
            if sid in self.collections and sid not in self.rules.constants:
                collection = self.collections[sid]
                if name in self.item_kind and self.item_kind[name] == collection.name:
                    return emit.literal(name), t.entity(collection.name), None
                self.error(
                    f"no {collection.name} '{name}'",
                    node,
                    hint=did_you_mean(name, [i.id for i in collection.items]),
                )
                return "None", t.ANY, None
        subject_code, subject_type = self.expr(subject, ctx)
        if subject_type == t.PLAYER:
            fields = self.field_types["player"]
            if name not in fields:
                self.error(
                    f"unknown player field '{name}'",
                    node,
                    hint=did_you_mean(name, fields) or "declare it under state.player",
                )
                return "None", t.ANY, None
            key = f"({subject_code}, {emit.literal(name)})"
            return f"F[{key}]", fields[name], key
        if subject_type.name == "entity":
            kind = subject_type.kind or ""
            if name == "id":
                return subject_code, t.STR, None
            if name in self.attr_types.get(kind, {}):
                return f"A[({subject_code}, {emit.literal(name)})]", self.attr_types[kind][name], None
            if name in self.field_types.get(kind, {}):
                key = f"({subject_code}, {emit.literal(name)})"
                return f"F[{key}]", self.field_types[kind][name], key
            known = [*self.attr_types.get(kind, {}), *self.field_types.get(kind, {}), "id"]
            self.error(f"{kind} has no attribute or field '{name}'", node, hint=did_you_mean(name, known))
            return "None", t.ANY, None
        if subject_type.is_record:
            field_type = subject_type.field(name)
            if field_type is None:
                known = [n for n, _ in subject_type.fields or ()]
                self.error(
                    f"the record has no field '{name}'",
                    node,
                    hint=did_you_mean(name, known) or f"its fields: {', '.join(known)}",
                )
                return "None", t.ANY, None
            return f"B_get({subject_code}, {emit.literal(name)})", field_type, None
        if subject_type.is_map or subject_type == t.ANY:
            return f"B_get({subject_code}, {emit.literal(name)})", t.ANY, None
        self.error(f"{_a(subject_type)} has no attribute '{name}'", node)
        return "None", t.ANY, None

    def _expr_Index(self, node: ast.Index, ctx: Context) -> tuple[str, Type]:
        subject, subject_type = self.expr(node.subject, ctx)
        key, key_type = self.expr(node.key, ctx)
        if subject_type.is_list:
            self.expect(t.INT, key_type, node.key, "a list index")
            return f"{subject}[{key}]", t.element_type(subject_type)
        if subject_type.is_map or subject_type.is_record:
            if not t.comparable(t.map_key(subject_type), key_type):
                self.error(f"a key of {_a(subject_type)} is never {_a(key_type)}", node.key)
            return f"{subject}[{key}]", t.map_value(subject_type)
        if subject_type not in (t.ANY, t.TUPLE):
            self.error(f"cannot index {_a(subject_type)}", node)
        return f"{subject}[{key}]", t.ANY

    def _expr_Call(self, node: ast.Call, ctx: Context) -> tuple[str, Type]:
        name = node.function
        if name in self.rules.functions:
            decl = self.rules.functions[name]
            if node.keywords:
                self.error(f"function '{name}' takes no keyword arguments", node)
            if len(node.args) != len(decl.params):
                self.error(
                    f"function '{name}' takes {len(decl.params)} argument(s), not {len(node.args)}",
                    node,
                )
            args = []
            for arg, (pname, ptext) in zip(node.args, decl.params, strict=False):
                code, type_ = self.expr(arg, ctx)
                expected = t.parse_type(ptext, self.kinds) or t.ANY
                self.expect(expected, type_, arg, f"argument '{pname}' of {name}")
                args.append(code)
            me = "me" if ctx.me else "-1"
            return (
                f"{emit.name('fn_', name)}(F, R, {me}{''.join(', ' + a for a in args)})",
                self.function_types.get(name, t.ANY),
            )
        if name in self.procedures:
            self.error(
                f"'{name}' is a procedure: it changes the game, so it stands on a line of its own",
                node,
                hint="only effects (actions, triggers, setup, flow do:) call procedures",
            )
            return "None", t.ANY
        builtin = BUILTINS.get(name)
        if builtin is None:
            if name in AGGREGATES:
                self.error(f"{name}(...) takes a generator: {name}(x for x in xs)", node)
            else:
                self.error(
                    f"unknown function '{name}'",
                    node,
                    hint=did_you_mean(name, [*BUILTINS, *self.rules.functions, *AGGREGATES]),
                )
            return "None", t.ANY
        if builtin.effect and not (ctx.effects and name in VALUE_EFFECTS):
            if not ctx.effects:
                self.error(f"'{name}' changes the game and can only be used in effects", node)
            else:
                self.error(f"'{name}' is a statement, not a value", node)
            return "None", t.ANY
        code, type_ = self.call_args(builtin, node, ctx)
        return code, type_

    def procedure_call(self, call: ast.Call, ctx: Context) -> str:
        """``name(args)`` as a statement: the procedure's function with the caller's ``me``."""
        params = self.procedures[call.function]
        if call.keywords:
            self.error(f"procedure '{call.function}' takes no keyword arguments", call)
        if len(call.args) != len(params):
            self.error(
                f"procedure '{call.function}' takes {len(params)} argument(s), not {len(call.args)}", call
            )
        args = []
        for arg, (pname, expected) in zip(call.args, params, strict=False):
            code, type_ = self.expr(arg, ctx)
            self.expect(expected, type_, arg, f"argument '{pname}' of {call.function}")
            args.append(code)
        me = "me" if ctx.me else "-1"
        return f"{emit.name('pr_', call.function)}(F, R, {me}{''.join(', ' + a for a in args)})"

    def call_args(self, builtin: Any, node: ast.Call, ctx: Context) -> tuple[str, Type]:
        if node.keywords:
            self.error(f"'{builtin.name}' takes no keyword arguments", node)
        count = len(node.args)
        required = len(builtin.params) - builtin.optional
        if count < required or (count > len(builtin.params) and not builtin.variadic):
            shown = f"{required}" if not builtin.optional else f"{required} to {len(builtin.params)}"
            if builtin.variadic:
                shown = f"at least {required}"
            self.error(f"'{builtin.name}' takes {shown} argument(s), not {count}", node)
        codes, types = [], []
        for i, arg in enumerate(node.args):
            if i in builtin.fields:
                if not isinstance(arg, ast.Attribute):
                    self.error(
                        f"argument {i + 1} of '{builtin.name}' must be a state field, e.g. game.deck", arg
                    )
                    codes.append("None")
                    types.append(t.ANY)
                    continue
                _, ftype, key = self.attribute(arg, ctx)
                if key is None:
                    self.error(f"argument {i + 1} of '{builtin.name}' must be a state field", arg)
                    key = "None"
                codes.append(key)
                types.append(ftype)
                expected = builtin.params[i][1]
                self.expect(expected, ftype, arg, f"argument '{builtin.params[i][0]}' of {builtin.name}")
                continue
            code, type_ = self.expr(arg, ctx)
            if i in builtin.choices:
                self.check_choice(builtin, i, arg)
            index = min(i, len(builtin.params) - 1)
            if builtin.params:
                pname, expected = builtin.params[index]
                self.expect(expected, type_, arg, f"argument '{pname}' of {builtin.name}")
            if builtin.name in _TEXT_BUILTINS:
                code = _as_text(code, type_)
            codes.append(code)
            types.append(type_)
        problem = builtin.check(types) if builtin.check is not None else None
        if problem is not None:
            self.error(problem[1], node.args[problem[0]])
        result = builtin.result_type(types)
        if builtin.effect:
            return f"{emit.name('E_', builtin.name)}(R, F{''.join(', ' + c for c in codes)})", result
        if builtin.name in PLAYER_BUILTINS:
            return f"{emit.name('B_', builtin.name)}(R.num_players{''.join(', ' + c for c in codes)})", result
        return f"{emit.name('B_', builtin.name)}({', '.join(codes)})", result

    def check_choice(self, builtin: Any, index: int, arg: ast.Expr) -> None:
        """A literal text argument that must name one of a built-in's fixed set."""
        choices = builtin.choices[index]
        if isinstance(arg, ast.Literal) and isinstance(arg.value, str) and arg.value not in choices:
            self.error(
                f"'{builtin.name}' knows no {builtin.params[index][0]} {arg.value!r}",
                arg,
                hint=did_you_mean(arg.value, choices) or "one of " + ", ".join(map(repr, choices)),
            )

    def generator(
        self, comp: ast.Comprehension, ctx: Context, with_key: bool = False
    ) -> tuple[str, Type, Type]:
        """Python generator text for a comprehension, its element type and key type."""
        parts = []
        key_type = t.ANY
        with ctx.nested():
            for var, iterable in comp.loops:
                code, type_ = self.expr(iterable, ctx)
                if not (type_.is_list or type_.is_map or type_ in (t.ANY, t.TUPLE)):
                    self.error(f"cannot loop over {_a(type_)}", iterable)
                py = ctx.bind(var, t.element_type(type_))
                parts.append(f"for {py} in {emit.step_iter(code)}")
            if comp.condition is not None:
                cond, ctype = self.expr(comp.condition, ctx)
                self.expect(t.BOOL, ctype, comp.condition, "a condition")
                parts.append(f"if {cond}")
            element, etype = self.expr(comp.element, ctx)
            key = None
            if comp.key is not None:
                key, key_type = self.expr(comp.key, ctx)
        if with_key:
            head = f"(({key if key is not None else 0}), {element})"
        else:
            head = element
            if key is not None:
                self.error(
                    "'by' is only allowed in rank(...), sorted(...), distinct(...) and [...]", comp.key
                )
        return f"{head} {' '.join(parts)}", etype, key_type

    def _expr_Aggregate(self, node: ast.Aggregate, ctx: Context) -> tuple[str, Type]:
        name = node.function
        comp = node.comprehension
        if name not in AGGREGATES:
            self.error(
                f"'{name}' is not an aggregate",
                node,
                hint=did_you_mean(name, AGGREGATES) or "aggregates: " + ", ".join(AGGREGATES),
            )
            return "None", t.ANY
        if name in ("rank", "sorted"):
            if comp.key is None:
                self.error(f"{name}(...) needs a key: {name}(x for x in xs by key)", node)
            gen, etype, _ = self.generator(comp, ctx, with_key=True)
            reverse = ", reverse=True" if name == "rank" else ""
            return f"tuple(_e for _k, _e in sorted(({gen}), key=_key0{reverse}))", t.list_of(etype)
        if name == "distinct":
            return self.distinct(comp, ctx)
        gen, etype, _ = self.generator(comp, ctx)
        if name == "count":
            return f"sum(1 for _ in ({gen}))", t.INT
        if name == "sum":
            self.expect(t.INT, etype, comp.element, "what sum adds up")
            return f"sum({gen})", t.INT
        if name in ("min", "max"):
            return f"{name}(({gen}), default=None)", etype
        if name in ("any", "all"):
            self.expect(t.BOOL, etype, comp.element, f"what {name} tests")
            return f"{name}({gen})", t.BOOL
        if name == "first":
            return f"next(({gen}), None)", etype
        return f"tuple([{gen}])", t.list_of(etype)  # a list comprehension: faster than a generator

    def distinct(self, comp: ast.Comprehension, ctx: Context) -> tuple[str, Type]:
        """``distinct(c for c in me.hand [by key])``: identical elements offered once, the first
        in collection order (so a log names the same one on every replay)."""
        gen, etype, _ = self.generator(comp, ctx, with_key=True)
        if comp.key is not None:
            keys = "tuple(_k for _k, _e in _p)"
        elif etype.name == "entity":
            kind = etype.kind or ""
            parts = [f"A[(_e, {emit.literal(a)})]" for a in self.attr_types.get(kind, {})]
            parts += [f"F[(_e, {emit.literal(f)})]" for f in self.field_types.get(kind, {})]
            keys = f"tuple(({''.join(p + ', ' for p in parts)}) for _k, _e in _p)"
        else:
            keys = "tuple(_e for _k, _e in _p)"
        code = f"(lambda _p: B_unique_by(tuple(_e for _k, _e in _p), {keys}))(tuple({gen}))"
        return code, t.list_of(etype)

    def _expr_ListExpr(self, node: ast.ListExpr, ctx: Context) -> tuple[str, Type]:
        items = [self.expr(item, ctx) for item in node.items]
        element = t.NONE
        for _, type_ in items:
            element = t.join(element, type_)
        if element == t.NONE:
            element = t.ANY
        return "(" + "".join(code + ", " for code, _ in items) + ")", t.list_of(element)

    def _expr_TupleExpr(self, node: ast.TupleExpr, ctx: Context) -> tuple[str, Type]:
        items = [self.expr(item, ctx)[0] for item in node.items]
        return "(" + "".join(code + ", " for code in items) + ")", t.TUPLE

    def _expr_ListComprehension(self, node: ast.ListComprehension, ctx: Context) -> tuple[str, Type]:
        comp = node.comprehension
        if comp.key is not None:
            gen, etype, _ = self.generator(comp, ctx, with_key=True)
            return f"tuple(_e for _k, _e in sorted(({gen}), key=_key0))", t.list_of(etype)
        gen, etype, _ = self.generator(comp, ctx)
        return f"tuple([{gen}])", t.list_of(etype)  # a list comprehension: faster than a generator

    def _expr_Unary(self, node: ast.Unary, ctx: Context) -> tuple[str, Type]:
        code, type_ = self.expr(node.operand, ctx)
        if node.op == "not":
            self.expect(t.BOOL, type_, node.operand, "the operand of 'not'")
            return f"(not {code})", t.BOOL
        self.expect(t.INT, type_, node.operand, "the operand of '-'")
        return f"(-{code})", t.INT

    def _expr_Binary(self, node: ast.Binary, ctx: Context) -> tuple[str, Type]:
        if node.op == "+":
            self.text_plus.update(id(side) for side in (node.left, node.right) if _is_plus(side))
        left, ltype = self.expr(node.left, ctx)
        right, rtype = self.expr(node.right, ctx)
        op = node.op
        if op in ("and", "or"):
            self.expect(t.BOOL, ltype, node.left, f"the left side of '{op}'")
            self.expect(t.BOOL, rtype, node.right, f"the right side of '{op}'")
            return f"({left} {op} {right})", t.BOOL
        if op in _ARITH:
            if op == "+" and (ltype.is_list or rtype.is_list) and ltype != t.INT and rtype != t.INT:
                return emit.step_iter(f"tuple({left}) + tuple({right})"), ltype if ltype.is_list else rtype
            if op == "+" and t.STR in (ltype, rtype):
                if id(node) in self.text_plus:  # part of a chain a + b + c: reported on the whole
                    return "None", t.STR
                self.error(
                    "'+' adds numbers and joins lists, not text",
                    node,
                    hint=f"to join text, write {_concat_hint(node)}",
                )
                return "None", t.STR
            self.expect(t.INT, ltype, node.left, f"the left side of '{op}'")
            self.expect(t.INT, rtype, node.right, f"the right side of '{op}'")
            if op == "*":  # the one operator that can grow a number exponentially in a loop
                return f"R.mul({left}, {right})", t.INT
            return f"({left} {op} {right})", t.INT
        if op in ("==", "!="):
            if not t.comparable(ltype, rtype):
                self.error(
                    f"comparing {_a(ltype)} with {_a(rtype)} is always {'false' if op == '==' else 'true'}",
                    node,
                )
            return f"({left} {op} {right})", t.BOOL
        if op in _COMPARE:
            self.expect(t.INT, ltype, node.left, f"the left side of '{op}'")
            self.expect(t.INT, rtype, node.right, f"the right side of '{op}'")
            return f"({left} {op} {right})", t.BOOL
        # in / not in
        if not (rtype.is_list or rtype.is_map or rtype.is_record or rtype in (t.ANY, t.TUPLE, t.STR)):
            self.error(f"'{op}' needs a list on its right, not {_a(rtype)}", node.right)
        elif (rtype.is_list or rtype.is_map) and not t.comparable(t.element_type(rtype), ltype):
            self.error(f"{_a(ltype)} is never in {_a(rtype)}", node)
        return f"({left} {op} {right})", t.BOOL

    def _expr_Conditional(self, node: ast.Conditional, ctx: Context) -> tuple[str, Type]:
        cond, ctype = self.expr(node.condition, ctx)
        self.expect(t.BOOL, ctype, node.condition, "a condition")
        then, ttype = self.expr(node.then, ctx)
        other, otype = self.expr(node.otherwise, ctx)
        return f"({then} if {cond} else {other})", t.join(ttype, otype)

    def _expr_Where(self, node: ast.Where, ctx: Context) -> tuple[str, Type]:
        value, vtype = self.expr(node.value, ctx)
        with ctx.nested():
            py = ctx.bind(node.name, vtype)
            body, btype = self.expr(node.body, ctx)
        return f"(lambda {py}: {body})({value})", btype

    def _expr_LetIn(self, node: ast.LetIn, ctx: Context) -> tuple[str, Type]:
        value, vtype = self.expr(node.value, ctx)
        if node.declared is not None:
            declared = t.parse_type(node.declared, self.kinds) or t.ANY
            self.expect(declared, vtype, node.value, f"'{node.name}'")
            vtype = declared
        with ctx.nested():
            if isinstance(node.value, ast.Literal) or (
                isinstance(node.value, ast.Name) and node.value.id not in _bound_names(node.body)
            ):
                # a name or a constant costs nothing to repeat: no function call (requirement
                # groups bind their parameters this way, mostly to `me` or a parameter)
                ctx.scopes[-1][node.name] = Symbol("local", vtype, value)
                return self.expr(node.body, ctx)
            py = ctx.bind(node.name, vtype)
            body, btype = self.expr(node.body, ctx)
        return f"(lambda {py}: {body})({value})", btype

    def _expr_Record(self, node: ast.Record, ctx: Context) -> tuple[str, Type]:
        parts, types = [], {}
        for field in node.fields:
            code, type_ = self.expr(field.value, ctx)
            parts.append(f"{emit.literal(field.name)}: {code}")
            types[field.name] = type_
        # {} is the empty map as well as the empty record
        return "{" + ", ".join(parts) + "}", t.record_of(types) if types else t.MAP

    def _expr_With(self, node: ast.With, ctx: Context) -> tuple[str, Type]:
        subject, stype = self.expr(node.subject, ctx)
        changes, ctype = self._expr_Record(node.changes, ctx)
        if stype.is_record:
            for change in node.changes.fields:
                name, value = change.name, change.value
                declared = stype.field(name)
                if declared is None:
                    self.error(
                        f"the record has no field '{name}' to replace",
                        change,
                        hint=did_you_mean(name, [n for n, _ in stype.fields or ()])
                        or f"its fields: {', '.join(n for n, _ in stype.fields or ())}",
                    )
                else:
                    self.expect(declared, ctype.field(name) or t.ANY, value, f"field '{name}'")
            result = stype
        elif stype.is_map or stype == t.ANY:
            result = stype
        else:
            self.error(f"'with' needs a record on its left, not {_a(stype)}", node.subject)
            result = t.ANY
        return f"{{**{subject}, **{changes}}}", result

    # ----------------------------------------------------------- statements
    def block(self, block: ast.Block | tuple[ast.Stmt, ...], ctx: Context, indent: int) -> list[str]:
        statements = block.statements if isinstance(block, ast.Block) else block
        lines: list[str] = []
        for stmt in statements:
            lines.extend(self.stmt(stmt, ctx, indent))
        if not lines:
            lines.append("    " * indent + "pass")
        return lines

    def stmt(self, node: ast.Stmt, ctx: Context, indent: int) -> list[str]:
        with self.nesting(node) as deep:
            lines = [] if deep else self._stmt(node, ctx, indent)
        if lines:
            lines[0] += self.mark(node.span)
        return lines

    def _stmt(self, node: ast.Stmt, ctx: Context, indent: int) -> list[str]:
        pad = "    " * indent
        if isinstance(node, ast.Assign):
            reported = len(self.bag.items)
            _, ftype, key = self.attribute(node.target, ctx)
            value, vtype = self.expr(node.value, ctx)
            if key is None:
                if len(self.bag.items) > reported:
                    return []  # the target was already reported (unknown field, ...)
                self.error(
                    f"cannot assign to '{_describe(node.target)}': only state fields change",
                    node.target,
                    hint="component attributes are fixed; declare a field under state:",
                )
                return []
            if node.op == "=":
                self.expect(ftype, vtype, node.value, f"the value of {_describe(node.target)}")
                if t.INT in (ftype, vtype):  # numbers kept in the state stay writable (logs, hashes)
                    value = emit.checked_number(value)
                return [f"{pad}F[{key}] = {value}"]
            if not (ftype.is_list and node.op == "+="):
                self.expect(t.INT, ftype, node.target, f"'{node.op}' target")
                self.expect(t.INT, vtype, node.value, f"the value added to {_describe(node.target)}")
            elif node.op == "+=":
                return [f"{pad}F[{key}] = {emit.step_iter(f'tuple(F[{key}]) + tuple({value})')}"]
            return [f"{pad}F[{key}] = {emit.checked_number(f'F[{key}] {node.op[0]} {value}')}"]
        if isinstance(node, ast.Let):
            value, vtype = self.expr(node.value, ctx)
            py = ctx.bind(node.name, vtype)
            return [f"{pad}{py} = {value}"]
        if isinstance(node, ast.Emit):
            event = self.rules.events.get(node.event)
            if event is None:
                self.error(
                    f"unknown event '{node.event}'",
                    node,
                    hint=did_you_mean(node.event, self.rules.events) or "declare it under events:",
                )
                return []
            declared = dict(event.fields)
            parts = []
            for kw in node.args:
                code, type_ = self.expr(kw.value, ctx)
                if kw.name not in declared:
                    self.error(
                        f"event '{node.event}' has no field '{kw.name}'",
                        kw,
                        hint=did_you_mean(kw.name, declared),
                    )
                    continue
                expected = t.parse_type(declared[kw.name], self.kinds) or t.ANY
                self.expect(expected, type_, kw.value, f"field '{kw.name}' of event {node.event}")
                parts.append(f"{emit.literal(emit.name('v_', kw.name))}: {code}")
            missing = set(declared) - {kw.name for kw in node.args}
            if missing:
                self.error(f"emit {node.event} is missing {', '.join(sorted(missing))}", node)
            me = "me" if ctx.me else "-1"
            return [f"{pad}R.emit(F, {me}, {emit.literal(node.event)}, {{{', '.join(parts)}}})"]
        if isinstance(node, ast.Fail):
            message, _ = self.expr(node.message, ctx)
            return [f"{pad}raise RuleFailure(str({message}), {self.span_ref(node.span)})"]
        if isinstance(node, ast.Pass):
            return [f"{pad}pass"]
        if isinstance(node, ast.CallStatement):
            call = node.call
            if call.function in self.procedures:
                return [f"{pad}{self.procedure_call(call, ctx)}"]
            builtin = BUILTINS.get(call.function)
            if builtin is None or not builtin.effect:
                if builtin is not None or call.function in self.rules.functions:
                    self.error(
                        f"'{call.function}(...)' computes a value; as a statement it does nothing", call
                    )
                else:
                    self.error(
                        f"unknown effect '{call.function}'",
                        call,
                        hint=did_you_mean(call.function, [n for n, b in BUILTINS.items() if b.effect]),
                    )
                return []
            code, _ = self.call_args(builtin, call, ctx)
            return [f"{pad}{code}"]
        if isinstance(node, ast.If):
            lines = []
            # coverage: each branch reports itself to R.branch when a tool sets it (else a no-op test)
            where = self.span_ref(node.span)
            taken = "    " * (indent + 1) + f"if R.branch is not None: R.branch({where}, {{}})"
            for i, (cond, body) in enumerate(node.branches):
                code, ctype = self.expr(cond, ctx)
                self.expect(t.BOOL, ctype, cond, "an if condition")
                lines.append(f"{pad}{'if' if i == 0 else 'elif'} {code}:")
                lines.append(taken.format(i))
                with ctx.nested():
                    lines.extend(self.block(body, ctx, indent + 1))
            lines.append(f"{pad}else:")
            lines.append(taken.format(len(node.branches)))
            if node.otherwise:
                with ctx.nested():
                    lines.extend(self.block(node.otherwise, ctx, indent + 1))
            return lines
        assert isinstance(node, ast.For)
        code, type_ = self.expr(node.iterable, ctx)
        if not (type_.is_list or type_.is_map or type_ in (t.ANY, t.TUPLE)):
            self.error(f"cannot loop over {_a(type_)}", node.iterable)
        with ctx.nested():
            py = ctx.bind(node.var, t.element_type(type_))
            loop_body = self.block(node.body, ctx, indent + 1)
        return [f"{pad}for {py} in {emit.step_iter(f'tuple({code})')}:", *loop_body]


def _a(thing: object) -> str:
    """``thing`` with its indefinite article: 'an int', 'a player'."""
    text = str(thing)
    return ("an " if text[:1] in "aeiou" else "a ") + text


#: How deeply expressions and statements may nest (Python's own parser stops near 200
#: parentheses, and each level may add up to three).
MAX_NESTING = 50

#: Marks a generated line with the index (in SPANS) of the rule text it came from.
SPAN_MARK = "#@"

#: Built-ins that write values as text: players in them are written P1, P2... (the
#: checker knows which values are players; at run time they are plain seat numbers).
_TEXT_BUILTINS = frozenset({"str", "concat"})


def _as_text(code: str, type_: Type, depth: int = 0) -> str:
    """Code for the value with its players replaced by their names (P1, P2), also inside lists,
    maps and records (the checker knows where players are; at run time they are seat numbers)."""
    if not _holds_players(type_):
        return code
    if type_ in (t.PLAYER, t.OWNER):
        return f"B_player_name({code})"
    var = f"_p{depth}"
    if type_.is_list:
        return f"tuple({_as_text(var, t.element_type(type_), depth + 1)} for {var} in {code})"
    if type_.is_map:
        key, value = f"_k{depth}", f"_v{depth}"
        key_text = _as_text(key, t.map_key(type_), depth + 1)
        value_text = _as_text(value, t.map_value(type_), depth + 1)
        return f"{{{key_text}: {value_text} for {key}, {value} in {code}.items()}}"
    assert type_.is_record
    fields = dict(type_.fields or ())
    converted = ", ".join(
        f"{emit.literal(name)}: {_as_text(f'B_get({var}, {emit.literal(name)})', ft, depth + 1)}"
        for name, ft in fields.items()
    )
    return f"(lambda {var}: {{**{var}, {converted}}})({code})"


def _holds_maps(type_: Type) -> bool:
    if type_.is_map or type_.is_record:
        return True
    return type_.is_list and _holds_maps(t.element_type(type_))


def _holds_players(type_: Type) -> bool:
    if type_ in (t.PLAYER, t.OWNER):
        return True
    if type_.is_list:
        return _holds_players(t.element_type(type_))
    if type_.is_map:
        return _holds_players(t.map_key(type_)) or _holds_players(t.map_value(type_))
    if type_.is_record:
        return any(_holds_players(ft) for _, ft in type_.fields or ())
    return False


def _bound_names(node: Any) -> set[str]:
    """Every name bound inside ``node`` (loop, let and where variables), which could capture
    a name substituted into it."""
    found: set[str] = set()
    stack = [node]
    while stack:
        current = stack.pop()
        if isinstance(current, ast.Comprehension):
            found.update(var for var, _ in current.loops)
        elif isinstance(current, ast.LetIn | ast.Where | ast.Let):
            found.add(current.name)
        elif isinstance(current, ast.For):
            found.add(current.var)
        if isinstance(current, tuple):
            stack.extend(current)
        elif hasattr(current, "__attrs_attrs__"):
            stack.extend(getattr(current, a.name) for a in current.__attrs_attrs__ if a.name != "span")
    return found


def _is_plus(node: ast.Expr) -> bool:
    return isinstance(node, ast.Binary) and node.op == "+"


def _concat_hint(node: ast.Binary) -> str:
    """``concat(a, b)`` for ``a + b`` (a chain ``a + b + c`` becomes one concat)."""
    parts: list[ast.Expr] = []

    def flatten(e: ast.Expr) -> None:
        if isinstance(e, ast.Binary) and e.op == "+":
            flatten(e.left)
            flatten(e.right)
        else:
            parts.append(e)

    flatten(node)
    text = f"concat({', '.join(print_expr(p) for p in parts)})"
    return text if len(text) <= 80 else "concat(a, b, ...)"


def _describe(node: ast.Expr) -> str:
    if isinstance(node, ast.Name):
        return node.id
    if isinstance(node, ast.Attribute):
        return f"{_describe(node.subject)}.{node.name}"
    return "expression"
