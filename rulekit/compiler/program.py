"""A compiled ruleset (:class:`Program`) and its parts; compiling extra snippets against it.

:func:`rulekit.compiler.build.compile_rules` turns a :class:`RulesModel` into a
:class:`Program`: every DSL snippet is checked and translated by
:mod:`rulekit.compiler.codegen`, the whole ruleset becomes one generated Python module,
executed once in a namespace that holds only rulekit's run-time helpers
(:mod:`rulekit.compiler.namespace`).  Nothing is parsed or looked up by name during play.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from typing import Any

from attrs import define, field

from rulekit.compiler.codegen import CodeGen, Context
from rulekit.compiler.namespace import compiled_code, marked_span, runtime_namespace
from rulekit.dsl import Origin, ast, parse_block, parse_expression
from rulekit.dsl import types as t
from rulekit.dsl.types import Type
from rulekit.errors import DiagnosticBag, Span
from rulekit.rules import model as m
from rulekit.runtime.memory import Memory

Fn = Callable[..., Any]


@define
class CompiledRequirement:
    """A requirement's compiled condition and what to say when it fails.

    ``check`` takes all the action's parameters, but reads only the first ``arity``
    of them, so legal-action enumeration can test it as soon as those are chosen.
    """

    check: Fn
    decl: m.Requirement
    arity: int = 0


@define
class CompiledAction:
    """An action ready to enumerate and apply."""

    name: str
    decl: m.ActionDecl
    params: tuple[str, ...]
    param_types: tuple[Type, ...]
    domains: tuple[Fn, ...]
    requires: tuple[CompiledRequirement, ...]
    cost: Fn | None
    effect: Fn | None
    weight: Fn | None = None
    cost_arity: int = 0
    #: The planned enumerator ``fn(F, R, me, mk, out)``: appends ``mk((name, args))`` for each
    #: legal instance (see :mod:`rulekit.compiler.planner`).
    enumerate: Fn | None = None
    #: Offered only if no other action is legal: the message when it is refused (see
    #: :mod:`rulekit.engine.priority`); None for every other action.
    fallback: str | None = None
    #: Actions that do not keep a fallback action from being offered.
    fallback_ignoring: frozenset[str] = frozenset()
    #: Of those, the ones ignored only when a condition holds: ``fn(F, R, me, *args)``.
    fallback_when: dict[str, Fn] = field(factory=dict)


@define
class CompiledTrigger:
    """A trigger's compiled condition and effect."""

    decl: m.TriggerDecl
    condition: Fn | None
    effect: Fn


@define
class CompiledInvariant:
    """An invariant's compiled condition."""

    decl: m.InvariantDecl
    check: Fn


@define
class FlowNode:
    """One compiled flow step; ``kind`` is seq, do, repeat, for_each, turn, simultaneous or if."""

    kind: str
    span: Span | None
    children: tuple[int, ...] = ()
    fns: dict[str, Fn] = field(factory=dict)  # only the functions the step has
    data: dict[str, Any] = field(factory=dict)


@define
class Program:
    """A checked and compiled ruleset: everything the engine needs to run games."""

    rules: m.RulesModel
    actions: dict[str, CompiledAction]
    triggers: list[CompiledTrigger]
    invariants: list[CompiledInvariant]
    field_inits: list[tuple[str, str, Fn]]
    setup: Fn | None
    flow: list[FlowNode]
    score: Fn | None
    tiebreaks: tuple[Fn, ...]
    end_when: Fn | None
    attributes: dict[tuple[str, str], Any]
    collections: dict[str, tuple[str, ...]]
    field_types: dict[str, dict[str, Type]]
    source: str
    spans: list[Span | None]
    namespace: dict[str, Any] = field(factory=dict, repr=False)
    function_types: dict[str, Type] = field(factory=dict, repr=False)
    #: The generated module's code object (the program cache stores its bytecode).
    code: Any = field(default=None, repr=False)
    #: ``bots.evaluate``, called as ``evaluate(F, R, me)`` (None: the ruleset declares none).
    evaluate: Fn | None = None
    #: ``scoring.team`` (``outcome: teams``), called as ``team(F, R, -1, player)``.
    team: Fn | None = None
    #: Per (scope, field) with a ``visibility: {to: ...}`` condition: ``fn(F, R, None, viewer, owner)``.
    visible_to: dict[tuple[str, str], Fn] = field(factory=dict, repr=False)
    #: Per (scope, field) with a ``sample:`` condition: ``fn(F, R, None, owner, index, item)``.
    sample: dict[tuple[str, str], Fn] = field(factory=dict, repr=False)
    #: Per turn's tuple of action names: the fused listing ``fn(F, R, me, mk, out)`` of its
    #: enumerators (:mod:`rulekit.compiler.planner_decisions`), where there is one.
    decisions: dict[tuple[str, ...], Fn] = field(factory=dict, repr=False)

    def compile_expression(
        self, text: str, origin: Origin | None = None, *, params: Sequence[tuple[str, Type]] = ()
    ) -> tuple[Fn, Type]:
        """Check and compile an extra expression against this ruleset.

        The result is called as ``fn(F, R, me, *params)``.

        Raises:
            DslSyntaxError, RulesetError: with the position inside ``origin``'s file.
        """
        return self.compile_function(parse_expression(text, origin), params=params)

    def compile_function(
        self,
        expr: ast.Expr,
        *,
        params: Sequence[tuple[str, Type]] = (),
        me: bool = True,
        generator: type[CodeGen] = CodeGen,
        extra_args: Sequence[str] = (),
    ) -> tuple[Fn, Type]:
        """Check and compile a parsed expression against this ruleset's names; its value's type.

        The result is called as ``fn(F, R, me, *extra_args, *params)``: ``params`` are DSL names
        bound by position, ``me`` says whether the expression may use ``me``. A tool that
        extends the language passes its ``CodeGen`` subclass as ``generator``; ``extra_args``
        are the Python names its generated code reads (values the tool passes in).

        Raises:
            RulesetError: every problem of the expression, located in its rules file.
        """
        bag = DiagnosticBag()
        gen, ctx, names = self._snippet_codegen(bag, generator, me=me, params=params)
        code, type_ = gen.expr(expr, ctx)
        bag.raise_if_any()
        return self._define([*extra_args, *names], [f"    return {code}"], gen), type_

    def compile_predicate(
        self,
        expr: ast.Expr,
        what: str,
        *,
        params: Sequence[tuple[str, Type]] = (),
        me: bool = True,
        generator: type[CodeGen] = CodeGen,
        extra_args: Sequence[str] = (),
    ) -> Fn:
        """Like :meth:`compile_function` for a condition: ``what`` (``"a property"``) must be a bool.

        Raises:
            RulesetError: every problem of the expression, ``"<what> must be bool, not ..."`` too.
        """
        bag = DiagnosticBag()
        gen, ctx, names = self._snippet_codegen(bag, generator, me=me, params=params)
        code, type_ = gen.expr(expr, ctx)
        gen.expect(t.BOOL, type_, expr, what)
        bag.raise_if_any()
        return self._define([*extra_args, *names], [f"    return {code}"], gen)

    def compile_effect(
        self, text: str, origin: Origin | None = None, *, params: Sequence[tuple[str, Type]] = ()
    ) -> Fn:
        """Check and compile an extra effect block, called as ``fn(F, R, me, *params)``."""
        block = parse_block(text, origin)
        bag = DiagnosticBag()
        gen, ctx, names = self._snippet_codegen(bag, CodeGen, me=True, params=params, effects=True)
        body = gen.block(block, ctx, 1)
        bag.raise_if_any()
        return self._define(names, body, gen)

    def _snippet_codegen(
        self,
        bag: DiagnosticBag,
        generator: type[CodeGen],
        *,
        me: bool,
        params: Sequence[tuple[str, Type]],
        effects: bool = False,
    ) -> tuple[CodeGen, Context, list[str]]:
        gen = generator(self.rules, bag)
        gen.function_types = dict(self.function_types)
        gen.spans = self.spans
        ctx = Context(me=me, effects=effects)
        return gen, ctx, [ctx.bind(n, ty) for n, ty in params]

    def _define(self, args: Sequence[str], body: Sequence[str], gen: CodeGen) -> Fn:
        """``def _snippet(F, R, me, *args)`` with ``body``, run in this program's namespace."""
        source = f"def _snippet(F, R, me{''.join(', ' + a for a in args)}):\n" + "\n".join(body) + "\n"
        namespace = dict(self.namespace)
        for name, value in gen.constants.items():
            namespace[f"K_{name}"] = value
        exec(compiled_code(source, f"<rulekit:{self.rules.name}:snippet>", self.rules), namespace)
        return namespace["_snippet"]

    def rule_span(self, error: BaseException) -> Span | None:
        """The rule text whose generated code raised ``error`` (innermost first), if any."""
        tb = error.__traceback__
        found = None
        lines = self.source.splitlines()
        filename = f"<rulekit:{self.rules.name}>"
        while tb is not None:
            if tb.tb_frame.f_code.co_filename == filename:
                found = marked_span(lines, tb.tb_lineno, self.spans) or found
            tb = tb.tb_next
        return found

    @property
    def name(self) -> str:
        return self.rules.name

    @property
    def memory(self) -> Memory:
        """What this program's built-ins remember (made with its namespace, dropped with it)."""
        memory: Memory = self.namespace["P_memory"]
        return memory

    @property
    def fingerprint(self) -> str:
        return self.rules.fingerprint

    @property
    def semantic_fingerprint(self) -> str:
        """The fingerprint of what decides play (see rulekit.rules.fingerprint)."""
        return self.rules.semantic_fingerprint or self.rules.fingerprint


__all__ = [
    "CompiledAction",
    "CompiledInvariant",
    "CompiledRequirement",
    "CompiledTrigger",
    "FlowNode",
    "Program",
    "runtime_namespace",
]
