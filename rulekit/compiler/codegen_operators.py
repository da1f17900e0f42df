"""Code generation for aggregates, list and tuple expressions, operators, conditionals,
'where'/'let' bindings and records."""

from __future__ import annotations

from rulekit.compiler import emit
from rulekit.compiler.codegen_names import NameGen
from rulekit.compiler.codegen_support import (
    AGGREGATES,
    ARITH,
    COMPARE,
    article,
    bound_names,
    concat_hint,
    is_plus,
)
from rulekit.compiler.scope import Context, Symbol
from rulekit.dsl import ast
from rulekit.dsl import types as t
from rulekit.dsl.types import Type
from rulekit.errors import did_you_mean


class ExpressionGen(NameGen):
    """Aggregates, collections, operators, conditionals, local bindings and records."""

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
            reverse = ", True" if name == "rank" else ""
            return f"_sorted_values(({gen}){reverse})", t.list_of(etype)
        if name == "distinct":
            return self.distinct(comp, ctx)
        gen, etype, _ = self.generator(comp, ctx)
        if name == "count":
            return f"_count({gen})", t.INT  # (a helper: gen may hold ':=', refused in an iterable)
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
            parts += [self.read_code("_e", f) for f in self.field_types.get(kind, {})]
            keys = f"tuple(({''.join(p + ', ' for p in parts)}) for _k, _e in _p)"
        else:
            keys = "tuple(_e for _k, _e in _p)"
        self.note.builtin("B_unique_by")
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
            return f"_sorted_values(({gen}))", t.list_of(etype)
        gen, etype, _ = self.generator(comp, ctx)
        return f"tuple([{gen}])", t.list_of(etype)  # a list comprehension: faster than a generator

    def _expr_Unary(self, node: ast.Unary, ctx: Context) -> tuple[str, Type]:
        code, type_ = self.expr(node.operand, ctx)
        if node.op == "not":
            self.expect(t.BOOL, type_, node.operand, "the operand of 'not'")
            return f"(not {code})", t.BOOL
        self.expect(t.INT, type_, node.operand, "the operand of '-'")
        return f"(-{code})", t.INT

    def joined_lists(self, node: ast.Binary, ltype: Type, rtype: Type) -> Type:
        """The type of ``a + b`` on lists: elements of one type (an empty or untyped list takes
        the other's); lists of two types that can never be equal are an error."""
        if not (ltype.is_list and rtype.is_list):
            return ltype if ltype.is_list else rtype
        lelem, relem = t.element_type(ltype), t.element_type(rtype)
        if lelem in (t.ANY, t.NONE):
            return rtype
        if relem in (t.ANY, t.NONE):
            return ltype
        if not t.comparable(lelem, relem):
            self.error(f"'+' joins lists of one type, not {ltype} and {rtype}", node)
            return t.ANY_LIST
        return t.list_of(t.join(lelem, relem))

    def _expr_Binary(self, node: ast.Binary, ctx: Context) -> tuple[str, Type]:
        if node.op == "+":
            self.text_plus.update(id(side) for side in (node.left, node.right) if is_plus(side))
        left, ltype = self.expr(node.left, ctx)
        right, rtype = self.expr(node.right, ctx)
        op = node.op
        if op in ("and", "or"):
            self.expect(t.BOOL, ltype, node.left, f"the left side of '{op}'")
            self.expect(t.BOOL, rtype, node.right, f"the right side of '{op}'")
            return f"({left} {op} {right})", t.BOOL
        if op in ARITH:
            if op == "+" and (ltype.is_list or rtype.is_list) and ltype != t.INT and rtype != t.INT:
                return self.steps(f"tuple({left}) + tuple({right})"), self.joined_lists(node, ltype, rtype)
            if op == "+" and t.STR in (ltype, rtype):
                if id(node) in self.text_plus:  # part of a chain a + b + c: reported on the whole
                    return "None", t.STR
                self.error(
                    "'+' adds numbers and joins lists, not text",
                    node,
                    hint=f"to join text, write {concat_hint(node)}",
                )
                return "None", t.STR
            self.expect(t.INT, ltype, node.left, f"the left side of '{op}'")
            self.expect(t.INT, rtype, node.right, f"the right side of '{op}'")
            if op == "*":  # the one operator that can grow a number exponentially in a loop
                self.note.uses("mul")
                return f"R.mul({left}, {right})", t.INT
            return f"({left} {op} {right})", t.INT
        if op in ("==", "!="):
            if not t.comparable(ltype, rtype):
                self.error(
                    f"comparing {article(ltype)} with {article(rtype)} "
                    f"is always {'false' if op == '==' else 'true'}",
                    node,
                )
            return f"({left} {op} {right})", t.BOOL
        if op in COMPARE:
            self.expect(t.INT, ltype, node.left, f"the left side of '{op}'")
            self.expect(t.INT, rtype, node.right, f"the right side of '{op}'")
            return f"({left} {op} {right})", t.BOOL
        # in / not in
        if not (rtype.is_list or rtype.is_map or rtype.is_record or rtype in (t.ANY, t.TUPLE, t.STR)):
            self.error(f"'{op}' needs a list on its right, not {article(rtype)}", node.right)
        elif (rtype.is_list or rtype.is_map) and not t.comparable(t.element_type(rtype), ltype):
            self.error(f"{article(ltype)} is never in {article(rtype)}", node)
        return f"({left} {op} {right})", t.BOOL

    def _expr_Conditional(self, node: ast.Conditional, ctx: Context) -> tuple[str, Type]:
        cond, ctype = self.expr(node.condition, ctx)
        self.expect(t.BOOL, ctype, node.condition, "a condition")
        then, ttype = self.expr(node.then, ctx)
        other, otype = self.expr(node.otherwise, ctx)
        # coverage: the outcome reports itself to R.branch when a tool sets it (else one test)
        where = self.span_ref(node.span)
        self.note.uses("branch")
        self.note.uses("taken")
        cond = f"({cond} if R.branch is None else R.taken({where}, {cond}))"
        return f"({then} if {cond} else {other})", t.join(ttype, otype)

    def _expr_Where(self, node: ast.Where, ctx: Context) -> tuple[str, Type]:
        value, vtype = self.expr(node.value, ctx)
        return self.bound_value(node.name, vtype, value, node.body, ctx)

    def bound_value(
        self, name: str, vtype: Type, value: str, body: ast.Expr, ctx: Context
    ) -> tuple[str, Type]:
        """``body`` with ``name`` bound to the value of the code ``value``: a local of the
        generated function, assigned (``:=``) before ``body`` runs, under a name used
        nowhere else (``w<n>_name``: an inner binding of the same name cannot overwrite it
        while the outer body still reads it).  In a comprehension's iterable, where Python
        refuses ``:=``, a call of a lambda instead (~4 times slower)."""
        with ctx.nested():
            if self.in_iterable:
                py = ctx.bind(name, vtype)
                code, btype = self.expr(body, ctx)
                return f"(lambda {py}: {code})({value})", btype
            self.bindings += 1
            py = emit.name(f"w{self.bindings}_", name)
            ctx.scopes[-1][name] = Symbol("local", vtype, py)
            code, btype = self.expr(body, ctx)
        return f"({code} if (({py} := {value}) is {py}) else None)", btype

    def _expr_LetIn(self, node: ast.LetIn, ctx: Context) -> tuple[str, Type]:
        with self.recording(merge=False) as value_facts:
            value, vtype = self.expr(node.value, ctx)
        if node.declared is not None:
            declared = t.parse_type(node.declared, self.kinds) or t.ANY
            self.expect(declared, vtype, node.value, f"'{node.name}'")
            vtype = declared
        with ctx.nested():
            if isinstance(node.value, ast.Literal) or (
                isinstance(node.value, ast.Name) and node.value.id not in bound_names(node.body)
            ):
                # a name or a constant costs nothing to repeat: no function call (requirement
                # groups bind their parameters this way, mostly to `me` or a parameter)
                ctx.scopes[-1][node.name] = Symbol("local", vtype, value)
                return self.expr(node.body, ctx)  # (the value's facts are those of its uses)
        self.note.add(value_facts)
        return self.bound_value(node.name, vtype, value, node.body, ctx)

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
            self.error(f"'with' needs a record on its left, not {article(stype)}", node.subject)
            result = t.ANY
        return f"{{**{subject}, **{changes}}}", result
