"""Compile a :class:`RulesModel` into a :class:`Program`: Python functions built once.

Every DSL snippet is checked and translated by :mod:`rulekit.compiler.codegen`;
the whole ruleset becomes one generated Python module, executed once in a
namespace that holds only rulekit's run-time helpers.  Nothing is parsed or
looked up by name during play.
"""

from __future__ import annotations

import ast as ast_module
import re
from collections.abc import Callable, Iterator, Sequence
from operator import itemgetter
from typing import Any

from attrs import define, field

from rulekit.compiler import emit, planner, procedures
from rulekit.compiler.codegen import SPAN_MARK, CodeGen, Context
from rulekit.dsl import Origin, ast, parse_block, parse_expression
from rulekit.dsl import types as t
from rulekit.dsl.types import Type
from rulekit.errors import Diagnostic, DiagnosticBag, RulesetError, Span, did_you_mean
from rulekit.rules import model as m
from rulekit.runtime.builtins import BUILTINS
from rulekit.runtime.errors import RuleFailure

Fn = Callable[..., Any]

_SAFE_BUILTINS = {
    "sum": sum,
    "min": min,
    "max": max,
    "any": any,
    "all": all,
    "next": next,
    "tuple": tuple,
    "sorted": sorted,
    "str": str,
    "len": len,
}


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
    """One compiled flow step; ``kind`` is seq, do, repeat, for_each, turn or if."""

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
        exec(_compiled(source, f"<rulekit:{self.rules.name}:snippet>", self.rules), namespace)
        return namespace["_snippet"]

    def rule_span(self, error: BaseException) -> Span | None:
        """The rule text whose generated code raised ``error`` (innermost first), if any."""
        tb = error.__traceback__
        found = None
        lines = self.source.splitlines()
        filename = f"<rulekit:{self.rules.name}>"
        while tb is not None:
            if tb.tb_frame.f_code.co_filename == filename:
                found = _marked_span(lines, tb.tb_lineno, self.spans) or found
            tb = tb.tb_next
        return found

    @property
    def name(self) -> str:
        return self.rules.name

    @property
    def fingerprint(self) -> str:
        return self.rules.fingerprint

    @property
    def semantic_fingerprint(self) -> str:
        """The fingerprint of what decides play (see rulekit.rules.fingerprint)."""
        return self.rules.semantic_fingerprint or self.rules.fingerprint


class _Compiler:
    def __init__(self, rules: m.RulesModel) -> None:
        self.rules = rules
        self.bag = DiagnosticBag()
        self.gen = CodeGen(rules, self.bag)
        self.lines: list[str] = []
        self.flow: list[FlowNode] = []
        self._counter = 0
        #: The code and span marker of each generated expression function, for the planner.
        self.codes: dict[str, tuple[str, str]] = {}

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
        code, type_ = self.gen.expr(expr, ctx)
        if expected is not None:
            self.gen.expect(expected, type_, expr, what)
        fname = self.fresh(prefix)
        args = ", ".join(["F", "R", "me", *names])
        mark = self.gen.mark(expr.span)
        self.codes[fname] = (code, mark)
        self.lines.append(f"def {fname}({args}):\n    return {code}{mark}\n")
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
        body = self.gen.block(block, ctx, 1)
        fname = self.fresh(prefix)
        args = ["F", "R", "me", *names]
        if kwargs:
            args.append("**_")
        self.lines.append(
            f"def {fname}({', '.join(args)}):\n    {emit.step_entry()}\n" + "\n".join(body) + "\n"
        )
        return fname

    # ------------------------------------------------------------- sections
    def functions(self) -> None:
        rules = self.rules
        calls = {name: _calls(decl.body) & set(rules.functions) for name, decl in rules.functions.items()}
        cycle = _find_cycle(calls)
        if cycle:
            decl = rules.functions[cycle[0]]
            self.bag.error(
                "functions call each other in a cycle: " + " -> ".join(cycle),
                decl.span,
                hint="rules must terminate; functions cannot be recursive",
            )
            return
        for name in _topological(calls):
            decl = rules.functions[name]
            params = []
            for pname, ptext in decl.params:
                ptype = t.parse_type(ptext, self.gen.kinds)
                if ptype is None:
                    self.bag.error(f"unknown type '{ptext}' for parameter '{pname}'", decl.span)
                    ptype = t.ANY
                params.append((pname, ptype))
            if name in BUILTINS:
                self.bag.error(f"function '{name}' hides the built-in of that name", decl.span)
            ctx = Context()
            py_params = [ctx.bind(n, ty) for n, ty in params]
            code, type_ = self.gen.expr(decl.body, ctx)
            if decl.returns is not None:
                declared = t.parse_type(decl.returns, self.gen.kinds)
                if declared is None:
                    self.bag.error(f"unknown type '{decl.returns}' for the result of {name}", decl.span)
                else:
                    self.gen.expect(
                        declared, type_, decl.body, f"the result of {name} (returns: {decl.returns})"
                    )
                    type_ = declared
            self.gen.function_types[name] = type_
            self.lines.append(
                planner.memoized_function(
                    emit.name("fn_", name),
                    py_params,
                    code,
                    self.gen.mark(decl.body.span),
                    len(self.lines),
                    memo=all(planner.hashable(ty) for _, ty in params),
                    entry=emit.step_entry(),
                )
            )

    def action(self, decl: m.ActionDecl) -> dict[str, Any]:
        params: list[tuple[str, Type]] = []
        domains = []
        for param in decl.params:
            ctx = Context()
            py = [ctx.bind(n, ty) for n, ty in params]
            code, type_ = self.gen.expr(param.domain, ctx)
            if not (type_.is_list or type_ in (t.ANY, t.TUPLE)):
                self.gen.error(f"the domain of '{param.name}' must be a list, not {type_}", param.domain)
            fname = self.fresh(f"dom_{decl.name}")
            mark = self.gen.mark(param.domain.span)
            self.codes[fname] = (code, mark)
            # Charged by length: enumerating the parameters' combinations costs steps too.
            self.lines.append(
                f"def {fname}({', '.join(['F', 'R', 'me', *py])}):\n    return {emit.step_iter(code)}{mark}\n"
            )
            domains.append(fname)
            self.gen.check_action_param(param.name, t.element_type(type_), param.domain)
            params.append((param.name, t.element_type(type_)))
        requires = [
            self.define_expr(f"req_{decl.name}", r.condition, params, expected=t.BOOL, what="a requirement")
            for r in decl.requires
        ]
        cost = None
        if decl.cost is not None:
            cost = self.define_expr(f"cost_{decl.name}", decl.cost, params, expected=t.INT, what="a cost")
            if self.rules.money is None:
                self.bag.error("an action with a cost needs the ruleset's 'money' field", decl.cost_span)
        effect = None
        if decl.effect is not None:
            effect = self.define_block(f"eff_{decl.name}", decl.effect, params)
        weight = None
        if decl.name in self.rules.bot_weights:
            weight = self.define_expr(
                f"weight_{decl.name}",
                self.rules.bot_weights[decl.name],
                params,
                expected=t.INT,
                what="a bot weight",
            )
        return {
            "params": params,
            "domains": domains,
            "requires": requires,
            "cost": cost,
            "effect": effect,
            "weight": weight,
            "enumerate": self.enumerator(decl, params, domains, requires, cost),
        }

    def enumerator(
        self,
        decl: m.ActionDecl,
        params: list[tuple[str, Type]],
        domains: list[str],
        requires: list[str],
        cost: str | None,
    ) -> str | None:
        """Plan and generate the action's enumerator (see :mod:`rulekit.compiler.planner`)."""
        if self.bag.items:
            return None
        names = [p.name for p in decl.params]
        checks = []
        for fname, req in zip(requires, decl.requires, strict=True):
            code, mark = self.codes[fname]
            arity = _arity(req.condition, decl.params)
            member_of: tuple[str, ...] = ()
            if arity:
                exprs = planner.membership_sets(
                    req.condition, names[arity - 1], frozenset(names[arity:]), _names
                )
                member_of = self.member_codes(exprs, params[: arity - 1]) if exprs else ()
            checks.append(planner.Check(code, arity, mark, member_of))
        cost_check = None
        if cost is not None:
            code, mark = self.codes[cost]
            cost_check = planner.Check(code, _arity(decl.cost, decl.params) if decl.cost else 0, mark)
        plan = planner.ActionPlan(
            name=decl.name,
            params=tuple(emit.name("v_", n) for n in names),
            domains=tuple(
                (*self.codes[d], frozenset(i for i, n in enumerate(names) if n in _names(p.domain)))
                for d, p in zip(domains, decl.params, strict=True)
            ),
            checks=tuple(checks),
            cost=cost_check,
            money=self.rules.money,
        )
        fname = self.fresh(f"enum_{decl.name}")
        self.lines.append(planner.generate(plan, fname))
        return fname

    def member_codes(self, exprs: list[ast.Expr], params: list[tuple[str, Type]]) -> tuple[str, ...]:
        """The code of each ``E`` of ``p in E``, when every one is a list (else nothing)."""
        ctx = Context()
        for n, ty in params:
            ctx.bind(n, ty)
        codes = []
        for expr in exprs:
            code, type_ = self.gen.expr(expr, ctx)
            if not type_.is_list:
                return ()
            codes.append(code)
        return tuple(codes)

    def trigger(self, decl: m.TriggerDecl) -> dict[str, Any] | None:
        rules = self.rules
        if decl.event in rules.actions:
            action = rules.actions[decl.event]
            params = self._action_param_types.get(action.name, [])
        elif decl.event in rules.events:
            if decl.timing == "before":
                self.bag.error("'before' triggers listen to actions; events run 'after' only", decl.span)
            params = [
                (name, t.parse_type(text, self.gen.kinds) or t.ANY)
                for name, text in rules.events[decl.event].fields
            ]
        else:
            self.bag.error(
                f"trigger '{decl.name}' listens to '{decl.event}', which is neither an action nor an event",
                decl.span,
                hint=did_you_mean(decl.event, [*rules.actions, *rules.events]),
            )
            return None
        condition = None
        if decl.condition is not None:
            ctx = Context()
            names = [ctx.bind(n, ty) for n, ty in params]
            code, type_ = self.gen.expr(decl.condition, ctx)
            self.gen.expect(t.BOOL, type_, decl.condition, "a trigger condition")
            condition = self.fresh(f"when_{decl.name}")
            self.lines.append(
                f"def {condition}({', '.join(['F', 'R', 'me', *names, '**_'])}):\n"
                f"    return {code}{self.gen.mark(decl.condition.span)}\n"
            )
        effect = self.define_block(f"trig_{decl.name}", decl.effect, params, kwargs=True)
        return {"condition": condition, "effect": effect}

    def steps(self, steps: tuple[m.FlowStep, ...]) -> int:
        children = tuple(self.step(s) for s in steps)
        self.flow.append(FlowNode("seq", None, children))
        return len(self.flow) - 1

    def flow_expr(
        self, expr: ast.Expr | None, expected: Type | None, what: str, *, me: bool = False
    ) -> str | None:
        # Flow steps run for nobody in particular; only a turn's 'until' has a 'me'.
        if expr is None:
            return None
        return self.define_expr("flow", expr, [], me=me, expected=expected, what=what)

    def flow_field(self, name: str | None, span: Span | None) -> None:
        if name is not None and name not in self.rules.fields["game"]:
            self.bag.error(
                f"flow variable '{name}' must be a game field",
                span,
                hint=did_you_mean(name, self.rules.fields["game"]) or f"declare it under state.game.{name}",
            )

    def step(self, step: m.FlowStep) -> int:
        if isinstance(step, m.DoStep):
            node = FlowNode(
                "do", step.span, data={"effect": self.define_block("do", step.effect, [], me=False)}
            )
        elif isinstance(step, m.RepeatStep):
            self.flow_field(step.counter, step.span)
            node = FlowNode(
                "repeat",
                step.span,
                (self.steps(step.steps),),
                data={
                    "times": self.flow_expr(step.times, t.INT, "repeat times"),
                    "while": self.flow_expr(step.while_, t.BOOL, "a while condition"),
                    "until": self.flow_expr(step.until, t.BOOL, "an until condition"),
                    "counter": step.counter,
                },
            )
        elif isinstance(step, m.ForEachStep):
            self.flow_field(step.var, step.span)
            node = FlowNode(
                "for_each",
                step.span,
                (self.steps(step.steps),),
                data={"items": self.flow_expr(step.items, t.ANY_LIST, "for_each in"), "var": step.var},
            )
        elif isinstance(step, m.TurnStep):
            for name in step.actions or ():
                if name not in self.rules.actions:
                    self.bag.error(
                        f"turn lists unknown action '{name}'",
                        step.span,
                        hint=did_you_mean(name, self.rules.actions),
                    )
            offered = step.actions
            if offered is not None:  # actions that ask to join such a turn (offered_with)
                offered = (
                    *offered,
                    *(
                        a
                        for a, d in self.rules.actions.items()
                        if a not in offered and any(w in offered for w in d.offered_with)
                    ),
                )
            node = FlowNode(
                "turn",
                step.span,
                data={
                    "player": self.flow_expr(step.player, t.PLAYER, "the turn's player"),
                    "until": self.flow_expr(step.until, t.BOOL, "an until condition", me=True),
                    "on_start": self.define_block("turn_start", step.on_start, []) if step.on_start else None,
                    "on_end": self.define_block("turn_end", step.on_end, []) if step.on_end else None,
                    "actions": offered
                    if offered is not None
                    else tuple(a for a, d in self.rules.actions.items() if not d.prompt_only),
                    "once": step.once,
                },
            )
        else:
            node = FlowNode(
                "if",
                step.span,
                (self.steps(step.then), self.steps(step.otherwise)),
                data={"condition": self.flow_expr(step.condition, t.BOOL, "an if condition")},
            )
        self.flow.append(node)
        return len(self.flow) - 1

    def compile(self) -> Program:
        rules = self.rules
        gen = self.gen
        self.functions()
        self.lines.extend(procedures.compile_all(gen, rules.procedures, self.bag))
        field_inits = []
        for scope, fields in rules.fields.items():
            for name, field_decl in fields.items():
                if field_decl.initial is None:
                    continue
                params: list[tuple[str, Type]] = []
                if scope in rules.kinds:
                    params = [("this", t.entity(scope))]
                fname = self.define_expr(
                    f"init_{scope}_{name}",
                    field_decl.initial,
                    params,
                    me=scope == "player",
                    expected=gen.field_types[scope][name],
                    what=f"the initial value of {scope}.{name}",
                )
                field_inits.append((scope, name, fname))
        if rules.money is not None and rules.money not in rules.fields["player"]:
            self.bag.error(
                f"money field '{rules.money}' is not a player field",
                None,
                hint=did_you_mean(rules.money, rules.fields["player"]),
            )
        self._action_param_types: dict[str, list[tuple[str, Type]]] = {}
        action_parts = {}
        for name, decl in rules.actions.items():
            for other in decl.offered_with:
                if other not in rules.actions:
                    self.bag.error(
                        f"action '{name}' is offered_with unknown action '{other}'",
                        decl.span,
                        hint=did_you_mean(other, rules.actions),
                    )
            parts = self.action(decl)
            self._action_param_types[name] = parts["params"]
            action_parts[name] = parts
        trigger_parts = {name: self.trigger(decl) for name, decl in rules.triggers.items()}
        invariant_parts = {
            name: self.define_expr(
                f"inv_{name}", decl.condition, [], me=False, expected=t.BOOL, what="an invariant"
            )
            for name, decl in rules.invariants.items()
        }
        setup = self.define_block("setup", rules.setup, [], me=False) if rules.setup else None
        root = self.steps(rules.flow)
        scoring = rules.scoring
        score = tiebreaks = end_when = None
        if scoring.score is not None:
            score = self.define_expr(
                "score", scoring.score, [("player", t.PLAYER)], me=False, expected=t.INT, what="a score"
            )
        tiebreaks = [
            self.define_expr(
                "tiebreak", e, [("player", t.PLAYER)], me=False, expected=t.INT, what="a tie-break"
            )
            for e in scoring.tiebreak
        ]
        if scoring.end_when is not None:
            end_when = self.define_expr(
                "end_when", scoring.end_when, [], me=False, expected=t.BOOL, what="end_when"
            )
        evaluate = None
        if rules.bot_evaluate is not None:
            evaluate = self.define_expr(
                "evaluate", rules.bot_evaluate, [], expected=t.INT, what="the bots' evaluation"
            )
        self.bag.raise_if_any()

        source = "\n".join(self.lines)
        namespace = self.namespace()
        # Our own generated code: author text enters it only through the emitter, and audit
        # re-checks the result before it runs (see rulekit.compiler.emit).
        code = _compiled(source, f"<rulekit:{rules.name}>", rules)
        exec(code, namespace)

        def fn(name: str | None) -> Fn | None:
            return namespace[name] if name else None

        actions = {}
        for name, decl in rules.actions.items():
            parts = action_parts[name]
            actions[name] = CompiledAction(
                name,
                decl,
                tuple(n for n, _ in parts["params"]),
                tuple(ty for _, ty in parts["params"]),
                tuple(namespace[d] for d in parts["domains"]),
                tuple(
                    CompiledRequirement(namespace[q], r, _arity(r.condition, decl.params))
                    for q, r in zip(parts["requires"], decl.requires, strict=True)
                ),
                fn(parts["cost"]),
                fn(parts["effect"]),
                fn(parts["weight"]),
                _arity(decl.cost, decl.params) if decl.cost is not None else 0,
                fn(parts["enumerate"]),
                decl.fallback,
                frozenset(decl.fallback_ignoring),
            )
        triggers = [
            CompiledTrigger(rules.triggers[name], fn(parts["condition"]), namespace[parts["effect"]])
            for name, parts in trigger_parts.items()
            if parts is not None
        ]
        invariants = [
            CompiledInvariant(rules.invariants[n], namespace[f]) for n, f in invariant_parts.items()
        ]
        for node in self.flow:
            node.fns = {
                k: namespace[v]
                for k, v in node.data.items()
                if isinstance(v, str) and v in namespace and k not in ("counter", "var")
            }
        # the root sequence must be the last node so the engine can find it
        assert root == len(self.flow) - 1
        return Program(
            rules=rules,
            actions=actions,
            triggers=triggers,
            invariants=invariants,
            field_inits=[(s, n, namespace[f]) for s, n, f in field_inits],
            setup=fn(setup),
            flow=self.flow,
            score=fn(score),
            tiebreaks=tuple(namespace[x] for x in tiebreaks),
            end_when=fn(end_when),
            attributes=self.attributes(),
            collections={k.name: tuple(i.id for i in k.items) for k in rules.kinds.values()},
            field_types=gen.field_types,
            source=source,
            spans=gen.spans,
            namespace=namespace,
            function_types=dict(gen.function_types),
            code=code,
            evaluate=fn(evaluate),
        )

    def attributes(self) -> dict[tuple[str, str], Any]:
        return _attributes(self.rules)

    def namespace(self) -> dict[str, Any]:
        constants = {f"K_{name}": value for name, value in self.gen.constants.items()}
        return runtime_namespace(self.rules, self.gen.spans, constants)


def runtime_namespace(
    rules: m.RulesModel, spans: list[Span | None], constants: dict[str, Any]
) -> dict[str, Any]:
    """The globals of a ruleset's generated module: rulekit's run-time helpers, the
    collections and attributes, the constants (``K_name``) and the spans of the rule text."""
    ns: dict[str, Any] = {"__builtins__": _SAFE_BUILTINS}
    for name, builtin in BUILTINS.items():
        ns[("E_" if builtin.effect else "B_") + name] = builtin.impl
    ns["RuleFailure"] = RuleFailure
    ns["SPANS"] = spans
    ns["A"] = _attributes(rules)
    ns["_key0"] = itemgetter(0)
    for kind in rules.kinds.values():
        ns[f"C_{kind.name}"] = tuple(i.id for i in kind.items)
    ns.update(constants)
    ns.update(
        planner.collection_tables([(k.name, tuple(i.id for i in k.items)) for k in rules.kinds.values()])
    )
    return ns


def _attributes(rules: m.RulesModel) -> dict[tuple[str, str], Any]:
    return {
        (item.id, attr): value
        for kind in rules.kinds.values()
        for item in kind.items
        for attr, value in item.values.items()
    }


def _compiled(source: str, filename: str, rules: m.RulesModel) -> Any:
    """``source`` audited and compiled; rules too deeply nested for Python are a located error."""
    try:
        tree = ast_module.parse(source, filename)
        emit.audit(tree)
        return compile(tree, filename, "exec")
    except (SyntaxError, RecursionError, MemoryError, ValueError) as error:
        raise RulesetError(
            Diagnostic(
                f"the rules are too deeply nested to compile ({type(error).__name__}: {error})",
                Span(rules.name, 1, 1),
                hint="split long or deeply nested expressions into functions",
            )
        ) from None


def _marked_span(lines: list[str], lineno: int, spans: list[Span | None]) -> Span | None:
    """The span named by the marker on generated line ``lineno`` or the closest line above."""
    pattern = re.compile("  " + re.escape(SPAN_MARK) + r"(\d+)$")
    for index in range(min(lineno, len(lines)) - 1, -1, -1):
        text = lines[index]
        match = pattern.search(text)
        if match:
            return spans[int(match.group(1))]
        if text.startswith("def "):
            return None
    return None


def _arity(expr: ast.Expr, params: tuple[m.Param, ...]) -> int:
    """How many leading parameters ``expr`` may read: one past the last one it names.

    A local variable that happens to share a parameter's name counts as a use, so
    the answer errs on the safe side (a later test, never a wrong one).
    """
    names = _names(expr)
    used = [i for i, param in enumerate(params) if param.name in names]
    return used[-1] + 1 if used else 0


def _walk(node: Any) -> Iterator[Any]:
    """Every AST node, tuple element and string below ``node`` (spans left out)."""
    stack = [node]
    while stack:
        current = stack.pop()
        yield current
        if isinstance(current, tuple):
            stack.extend(current)
        elif hasattr(current, "__attrs_attrs__"):
            stack.extend(
                getattr(current, attribute.name)
                for attribute in current.__attrs_attrs__
                if attribute.name != "span"
            )


def _names(node: Any) -> set[str]:
    """Names read below ``node``, plus every identifier-like string (loop and ``where``
    variables, which may shadow a parameter): a superset, on purpose."""
    found: set[str] = set()
    for current in _walk(node):
        if isinstance(current, ast.Name):
            found.add(current.id)
        elif isinstance(current, str):
            found.add(current)
    return found


def _calls(node: Any) -> set[str]:
    """Names of the functions called below ``node``."""
    return {current.function for current in _walk(node) if isinstance(current, ast.Call)}


def _find_cycle(graph: dict[str, set[str]]) -> list[str] | None:
    state: dict[str, int] = {}
    path: list[str] = []

    def visit(node: str) -> list[str] | None:
        state[node] = 1
        path.append(node)
        for nxt in sorted(graph.get(node, ())):
            if state.get(nxt) == 1:
                return [*path[path.index(nxt) :], nxt]
            if nxt not in state:
                found = visit(nxt)
                if found:
                    return found
        path.pop()
        state[node] = 2
        return None

    for node in graph:
        if node not in state:
            found = visit(node)
            if found:
                return found
    return None


def _topological(graph: dict[str, set[str]]) -> list[str]:
    order: list[str] = []
    seen: set[str] = set()

    def visit(node: str) -> None:
        if node in seen:
            return
        seen.add(node)
        for nxt in sorted(graph.get(node, ())):
            visit(nxt)
        order.append(node)

    for node in graph:
        visit(node)
    return order


def compile_rules(rules: m.RulesModel) -> Program:
    """Check and compile a rules model.

    Raises:
        RulesetError: every name, arity and type problem found, with positions.
    """
    return _Compiler(rules).compile()
