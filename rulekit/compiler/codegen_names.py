"""Code generation for literals, names, attributes, indexing and calls (built-ins,
functions and procedures)."""

from __future__ import annotations

from typing import Any

from rulekit.compiler import emit
from rulekit.compiler.codegen_base import CodeGenBase
from rulekit.compiler.codegen_inline import inline_call
from rulekit.compiler.codegen_support import (
    AGGREGATES,
    TEXT_BUILTINS,
    article,
    as_text,
)
from rulekit.compiler.scope import Context
from rulekit.dsl import ast, habits
from rulekit.dsl import types as t
from rulekit.dsl.names import is_name
from rulekit.dsl.printer import loop_target, print_expr
from rulekit.dsl.types import Type
from rulekit.errors import did_you_mean
from rulekit.rules.evaluate import whole_number
from rulekit.runtime.builtins import BUILTINS, PLAYER_BUILTINS, VALUE_EFFECTS

#: ``between``/``range`` of constant numbers (arithmetic on literals and constants) up to this
#: many numbers are written as their tuple.
INLINED_RANGE = 64


class NameGen(CodeGenBase):
    """Expressions that name things: literals, names, attributes, indexing and calls."""

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
            if symbol.code == "me":  # an inlined function's parameter given the acting player
                self.note.me = True
            return symbol.code, symbol.type
        if name == "me":
            if not ctx.me:
                self.error("'me' means the acting player and is not defined here", node)
            self.note.me = True
            return "me", t.PLAYER
        if name == "players":
            self.note.uses("players")
            return "R.players", t.list_of(t.PLAYER)
        if name == "num_players":
            self.note.uses("num_players")
            return "R.num_players", t.INT
        if name == "bank":
            return "-1", t.OWNER
        if name in self.rules.constants:
            return self.constant(name), self.const_types[name]
        if name in self.collections:
            kind = self.collections[name].name
            self.note.collection = (self.depth, kind)
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
            self.error(
                f"unknown name '{name}'",
                node,
                hint=habits.literal_hint(name)
                or self.field_hint(name, ctx)
                or did_you_mean(name, candidates),
            )
        return "None", t.ANY

    def field_hint(self, name: str, ctx: Context) -> str | None:
        """``add 'me.'`` for a player field written bare (``money`` for ``me.money``), and so
        for a game or turn field."""
        if ctx.me and name in self.field_types["player"]:
            return f"add 'me.': me.{name} is the acting player's field"
        for owner in ("game", "turn"):
            if name in self.field_types[owner]:
                return f"add '{owner}.': {owner}.{name} is a {owner} field"
        return None

    def constant(self, name: str) -> str:
        value = self.rules.constants[name].value
        if isinstance(value, bool | int | str) or value is None:
            return self.text_literal(value) if isinstance(value, str) else emit.literal(value)
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
                self.note.read(sid, name)
                return f"F[{key}]", fields[name], key
            if sid == "bank":
                if name in ("paid_out", "taken_in"):
                    key = f"('_', {emit.literal(name)})"
                    self.note.read("_", name)
                    return f"F[{key}]", t.INT, None
                self.error(f"the bank has 'paid_out' and 'taken_in', not '{name}'", node)
                return "None", t.ANY, None
            if sid in self.rules.enums and sid not in self.rules.constants:
                enum = self.rules.enums[sid]
                if name in (enum.members or ()):
                    return self.text_literal(name), enum, None
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
                    return self.text_literal(name), t.entity(collection.name), None
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
            self.note.read(self.text_literals.get(subject_code), name)
            return f"F[{key}]", fields[name], key
        if subject_type.name == "entity":
            kind = subject_type.kind or ""
            if name == "id":
                return subject_code, t.STR, None
            if name in self.attr_types.get(kind, {}):
                # one table per attribute (namespace.attribute_tables): a look-up by the item's id,
                # whose hash the string keeps, instead of hashing a new (id, name) tuple
                table = emit.name("A_", name) if is_name(name) else None
                code = f"{table}[{subject_code}]" if table else f"A[({subject_code}, {emit.literal(name)})]"
                return code, self.attr_types[kind][name], None
            if name in self.field_types.get(kind, {}):
                key = f"({subject_code}, {emit.literal(name)})"
                self.note.read(self.text_literals.get(subject_code), name)
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
            self.note.builtin("B_get")
            return f"B_get({subject_code}, {emit.literal(name)})", field_type, None
        if subject_type.is_map or subject_type == t.ANY:
            self.note.builtin("B_get")
            return f"B_get({subject_code}, {emit.literal(name)})", t.ANY, None
        self.error(
            f"{article(subject_type)} has no attribute '{name}'",
            node,
            hint=habits.attribute_hint(name, print_expr(subject)) if subject_type.is_list else None,
        )
        return "None", t.ANY, None

    def _expr_Index(self, node: ast.Index, ctx: Context) -> tuple[str, Type]:
        subject, subject_type = self.expr(node.subject, ctx)
        key, key_type = self.expr(node.key, ctx)
        if subject_type.is_list:
            self.expect(t.INT, key_type, node.key, "a list index")
            return f"{subject}[{key}]", t.element_type(subject_type)
        if subject_type.is_map or subject_type.is_record:
            if not t.comparable(t.map_key(subject_type), key_type):
                self.error(f"a key of {article(subject_type)} is never {article(key_type)}", node.key)
            return f"{subject}[{key}]", t.map_value(subject_type)
        if subject_type not in (t.ANY, t.TUPLE):
            self.error(f"cannot index {article(subject_type)}", node)
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
            for arg, (pname, pdeclared) in zip(node.args, decl.params, strict=False):
                code, type_ = self.expr(arg, ctx)
                self.expect(pdeclared.type, type_, arg, f"argument '{pname}' of {name}")
                args.append(code)
            if name in self.inline:
                inlined = inline_call(self, self.inline[name], args, ctx)
                if inlined is not None:
                    return inlined, self.function_types.get(name, t.ANY)
            me = "me" if ctx.me else "-1"
            self.note.call(emit.name("fn_", name))
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
                self.error(
                    f"{name}(...) takes a generator: {name}(x for x in xs)",
                    node,
                    hint=habits.function_hint(name),
                )
            else:
                self.error(
                    f"unknown function '{name}'",
                    node,
                    hint=habits.function_hint(name)
                    or did_you_mean(name, [*BUILTINS, *self.rules.functions, *AGGREGATES]),
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
        self.note.opaque = True  # (a statement: the state changes)
        self.note.uses()
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
        codes: list[str] = []
        types: list[Type] = []
        with self.recording(merge=False) as written:  # (the facts of the arguments' code)
            self.arguments(builtin, node, ctx, codes, types)
        problem = builtin.check(types) if builtin.check is not None else None
        if problem is not None:
            self.error(problem[1], node.args[problem[0]])
        result = builtin.result_type(types)
        if builtin.effect:
            self.note.add(written)
            self.note.builtin(emit.name("E_", builtin.name), counted=False)
            self.note.opaque = True  # it is handed the whole state
            self.note.uses()
            return f"{emit.name('E_', builtin.name)}(R, F{''.join(', ' + c for c in codes)})", result
        inlined = self.inlined_builtin(builtin.name, node.args, codes, ctx)
        if inlined is not None and builtin.name in ("between", "range"):
            return inlined, result  # a tuple of numbers: the arguments' code is not written
        self.note.add(written)
        if inlined is not None:
            return inlined, result
        self.note.builtin(emit.name("B_", builtin.name))
        if builtin.name in PLAYER_BUILTINS:
            self.note.uses("num_players")
            return f"{emit.name('B_', builtin.name)}(R.num_players{''.join(', ' + c for c in codes)})", result
        return f"{emit.name('B_', builtin.name)}({', '.join(codes)})", result

    def arguments(
        self, builtin: Any, node: ast.Call, ctx: Context, codes: list[str], types: list[Type]
    ) -> None:
        """The code and type of each argument of a call of ``builtin``, appended to ``codes``
        and ``types`` (checked against its parameters)."""
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
            if builtin.name in TEXT_BUILTINS:
                code = as_text(code, type_, self.note)
            codes.append(code)
            types.append(type_)

    def inlined_builtin(self, name: str, args: Any, codes: list[str], ctx: Context) -> str | None:
        """A built-in call written out as what it computes, where that is the same value and
        the same error without a call: ``len(x)`` as Python's ``len``, ``between``/``range``
        of whole-number literals (or constants) as their tuple, checked here against the
        limit; None when the call stays."""
        if name == "len" and len(codes) == 1:
            return f"len({codes[0]})"
        if name in ("between", "range") and len(args) == 2:
            low, high = (self.int_value(a, ctx) for a in args)
            if low is not None and high is not None:
                stop = high + 1 if name == "between" else high
                if 0 <= stop - low <= INLINED_RANGE:
                    return emit.literal(tuple(range(low, stop)))
        return None

    def int_value(self, node: ast.Expr, ctx: Context) -> int | None:
        """The whole number ``node`` always is (arithmetic on literals and constants), as the
        one evaluator of DSL expressions computes it when the rules load
        (:func:`rulekit.rules.evaluate.whole_number`), else None."""
        constants = {
            name: decl.value
            for name, decl in self.rules.constants.items()
            if type(decl.value) is int and ctx.lookup(name) is None
        }
        return whole_number(node, constants)

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
                self.in_iterable += 1  # Python refuses ':=' in a comprehension's iterable
                try:
                    code, type_ = self.expr(iterable, ctx)
                finally:
                    self.in_iterable -= 1
                if not (type_.is_list or type_.is_map or type_ in (t.ANY, t.TUPLE)):
                    self.error(f"cannot loop over {article(type_)}", iterable)
                if isinstance(var, str):
                    py = ctx.bind(var, t.element_type(type_))
                else:  # for (a, b) in pairs: each element taken apart (a tuple's parts are untyped)
                    each = t.element_type(type_)
                    if each not in (t.ANY, t.TUPLE):
                        self.error(f"cannot take {article(each)} apart into {loop_target(var)}", iterable)
                    py = "(" + "".join(ctx.bind(name, t.ANY) + ", " for name in var) + ")"
                parts.append(f"for {py} in {self.steps(code)}")
            for name, value in comp.bindings:  # where n = v: a loop over the one value
                self.in_iterable += 1
                try:
                    code, type_ = self.expr(value, ctx)
                finally:
                    self.in_iterable -= 1
                parts.append(f"for {ctx.bind(name, type_)} in ({code},)")
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
