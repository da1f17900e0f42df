"""The base of the whole-ruleset compiler (:mod:`rulekit.compiler.build`): the generated
module's lines and one generated function per expression or effect block."""

from __future__ import annotations

from typing import Any

from rulekit.compiler import emit, loops
from rulekit.compiler.codegen import CodeGen, Context
from rulekit.compiler.facts import Facts
from rulekit.compiler.planner import Enumerator
from rulekit.compiler.program import FlowNode
from rulekit.dsl import ast
from rulekit.dsl.types import Type
from rulekit.errors import DiagnosticBag
from rulekit.rules import model as m


class BuildBase:
    """The generated module being written: fresh names, and one generated function per
    expression or effect block (checked by :class:`~rulekit.compiler.codegen.CodeGen`)."""

    def __init__(self, rules: m.RulesModel) -> None:
        self.rules = rules
        self.bag = DiagnosticBag()
        self.gen = CodeGen(rules, self.bag)
        self.lines: list[str] = []
        self.flow: list[FlowNode] = []
        self._counter = 0
        #: The code and span marker of each generated expression function, for the planner,
        #: and what the code does (rulekit.compiler.facts).
        self.codes: dict[str, tuple[str, str]] = {}
        self.facts: dict[str, Facts] = {}
        #: The facts of each generated function that is a statement block (an effect, a
        #: trigger, a flow block, a procedure: the fields it writes, its exits), an
        #: enumerator or a decision's listing (its exits).
        self.block_facts: dict[str, Facts] = {}
        #: Per generated rules function: the fields it reads (None: unknown) and whether it
        #: depends on the acting player (rulekit.compiler.planner.field_reads, reads_me).
        self.fn_reads: dict[str, frozenset[tuple[str | None, str]] | None] = {}
        self.fn_mine: dict[str, bool] = {}
        self.fn_cheap: set[str] = set()  # computed again rather than memoized (planner.cheap)
        #: Per action with a planned enumerator: the enumerator before field reads are made
        #: once, and which fields every state holds (for planner_decisions.fuse).
        self.enumerators: dict[str, tuple[Enumerator, Any]] = {}

    def fresh(self, prefix: str) -> str:
        self._counter += 1
        return emit.name(f"{prefix}_", f"n{self._counter}")

    def define_expr(
        self,
        prefix: str,
        expr: ast.Expr,
        params: list[tuple[str, Type]],
        *,
        me: bool = True,
        expected: Type | None = None,
        what: str = "expression",
        extra: list[str] | None = None,
    ) -> str:
        ctx = Context(me=me)
        names = [ctx.bind(n, ty) for n, ty in params]
        for name in extra or ():
            names.append(name)
        code, type_, found = self.gen.expr_facts(expr, ctx)
        if expected is not None:
            self.gen.expect(expected, type_, expr, what)
        fname = self.fresh(prefix)
        args = ", ".join(["F", "R", "me", *names])
        mark = self.gen.mark(expr.span)
        self.codes[fname] = (code, mark)
        self.facts[fname] = found
        body = "".join(line + "\n" for line in loops.return_lines(code, mark, ["F", "R", "me", *names]))
        self.lines.append(f"def {fname}({args}):\n{body}")
        return fname

    def define_block(
        self,
        prefix: str,
        block: ast.Block,
        params: list[tuple[str, Type]],
        *,
        me: bool = True,
        kwargs: bool = False,
    ) -> str:
        ctx = Context(me=me, effects=True)
        names = [ctx.bind(n, ty) for n, ty in params]
        body, found = self.gen.block_facts(block, ctx, 1)
        fname = self.fresh(prefix)
        self.block_facts[fname] = found
        args = ["F", "R", "me", *names]
        if kwargs:
            args.append("**_")
        self.lines.append(
            f"def {fname}({', '.join(args)}):\n    {emit.step_entry()}\n" + "\n".join(body) + "\n"
        )
        return fname

    # ------------------------------------------------------------- sections
