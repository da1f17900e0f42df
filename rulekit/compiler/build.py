"""The whole-ruleset compiler: every declaration of a :class:`RulesModel` into one generated
module, executed once, wrapped as a :class:`~rulekit.compiler.program.Program`."""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

from rulekit.compiler import callgraph, emit, loops, planner, planner_decisions, procedures
from rulekit.compiler.build_flow import FlowBuilder
from rulekit.compiler.codegen import Context
from rulekit.compiler.codegen_support import TEXT_BUILTINS
from rulekit.compiler.namespace import compiled_code, item_attributes, runtime_namespace
from rulekit.compiler.program import (
    CompiledAction,
    CompiledInvariant,
    CompiledRequirement,
    CompiledTrigger,
    Program,
)
from rulekit.dsl import ast
from rulekit.dsl import types as t
from rulekit.dsl.types import Type
from rulekit.errors import did_you_mean
from rulekit.rules import model as m
from rulekit.rules.visibility_check import visibility_problems
from rulekit.runtime.builtins import BUILTINS, PLAYER_BUILTINS

Fn = Callable[..., Any]


class _Compiler(FlowBuilder):
    """Every declaration of a ruleset: functions, actions, triggers, the flow, scoring."""

    def functions(self) -> None:
        rules = self.rules
        calls = {
            name: callgraph.calls(decl.body) & set(rules.functions) for name, decl in rules.functions.items()
        }
        cycle = callgraph.find_cycle(calls)
        if cycle:
            decl = rules.functions[cycle[0]]
            self.bag.error(
                "functions call each other in a cycle: " + " -> ".join(cycle),
                decl.span,
                hint="rules must terminate; functions cannot be recursive",
            )
            return
        cheap = self.fn_cheap  # functions computed again rather than memoized
        reads = self.fn_reads  # the fields each generated function reads
        mine = self.fn_mine  # whether it depends on the acting player

        for name in callgraph.topological(calls):
            decl = rules.functions[name]
            params = [(pname, declared.type) for pname, declared in decl.params]
            if name in BUILTINS:
                self.bag.error(f"function '{name}' hides the built-in of that name", decl.span)
            ctx = Context()
            py_params = [ctx.bind(n, ty) for n, ty in params]
            code, type_, body = self.gen.expr_facts(decl.body, ctx)
            if decl.returns is not None:
                self.gen.expect(
                    decl.returns.type, type_, decl.body, f"the result of {name} (returns: {decl.returns})"
                )
                type_ = decl.returns.type
            self.gen.function_types[name] = type_
            if name not in BUILTINS and planner.cheap(decl.body, self.cheap_call):
                cheap.add(name)
                if "me" not in callgraph.names_read(decl.body) and calls[name] <= set(self.gen.inline):
                    self.gen.inline[name] = decl  # written out where it is called (codegen_inline)
            fn_name = emit.name("fn_", name)
            reads[fn_name] = planner.field_reads(body, reads)
            mine[fn_name] = planner.reads_me(body, mine)
            mark = self.gen.mark(decl.body.span)
            self.codes[fn_name] = (code, mark)
            self.facts[fn_name] = body
            self.lines.append(
                planner.memoized_function(
                    fn_name,
                    py_params,
                    code,
                    mark,
                    len(self.lines),
                    memo=all(planner.hashable(ty) for _, ty in params) and name not in cheap,
                    reads=reads[fn_name],
                    mine=mine[fn_name],
                )
            )

    def action(self, decl: m.ActionDecl) -> dict[str, Any]:
        params: list[tuple[str, Type]] = []
        domains = []
        for param in decl.params:
            ctx = Context()
            py = [ctx.bind(n, ty) for n, ty in params]
            code, type_, found = self.gen.expr_facts(param.domain, ctx)
            if not (type_.is_list or type_ in (t.ANY, t.TUPLE)):
                self.gen.error(f"the domain of '{param.name}' must be a list, not {type_}", param.domain)
            fname = self.fresh(f"dom_{decl.name}")
            mark = self.gen.mark(param.domain.span)
            self.codes[fname] = (code, mark)
            self.facts[fname] = found
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

    def ignored_when(self, decl: m.ActionDecl) -> dict[str, str]:
        """The conditions under which a fallback action ignores other actions (``ignoring:
        [{action, when}]``), each compiled over the ignored action's parameters."""
        for other in decl.fallback_ignoring:
            if other not in self.rules.actions:
                self.bag.error(
                    f"action '{decl.name}' ignores unknown action '{other}'",
                    decl.span,
                    hint=did_you_mean(other, self.rules.actions),
                )
        return {
            other: self.define_expr(
                f"ign_{decl.name}",
                when,
                self._action_param_types[other],
                expected=t.BOOL,
                what="an 'ignoring' condition",
            )
            for other, when in decl.fallback_ignored_when
            if other in self._action_param_types
        }

    def cheap_call(self, called: str) -> bool:
        """A call cheaper than a memo look-up: a cheap rules function or built-in."""
        return called in self.fn_cheap or planner.cheap_builtin(BUILTINS.get(called))

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
            arity = callgraph.arity(req.condition, decl.params)
            member_of: tuple[str, ...] = ()
            member_charges = False
            if arity:
                exprs = planner.membership_sets(
                    req.condition, names[arity - 1], frozenset(names[arity:]), callgraph.names_read
                )
                member_of, member_charges = (
                    self.member_codes(exprs, params[: arity - 1]) if exprs else ((), False)
                )
            every = self.every_answer(req.condition, names, params) if arity == len(names) else None
            checks.append(
                planner.Check(code, arity, mark, member_of, every, self.facts[fname], member_charges)
            )
        cost_check = None
        if cost is not None:
            code, mark = self.codes[cost]
            cost_check = planner.Check(
                code,
                callgraph.arity(decl.cost, decl.params) if decl.cost else 0,
                mark,
                facts=self.facts[cost],
            )
        plan = planner.ActionPlan(
            name=decl.name,
            params=tuple(emit.name("v_", n) for n in names),
            domains=tuple(
                (
                    *self.codes[d],
                    frozenset(i for i, n in enumerate(names) if n in callgraph.names_read(p.domain)),
                )
                for d, p in zip(domains, decl.params, strict=True)
            ),
            checks=tuple(checks),
            cost=cost_check,
            money=self.rules.money,
            kept=tuple(  # kept across listings: a domain that asks memoized rules functions
                (None, True)  # (a domain that is one such call: the function keeps its results)
                if not (callgraph.calls(p.domain) & set(self.rules.functions)) - self.fn_cheap
                or (isinstance(p.domain, ast.Call) and p.domain.function in self.rules.functions)
                else (
                    planner.field_reads(self.facts[d], self.fn_reads),
                    planner.reads_me(self.facts[d], self.fn_mine),
                )
                for d, p in zip(domains, decl.params, strict=True)
            ),
            stable=self.stable_field,
            collections=tuple(self.facts[d].collection for d in domains),
            domain_facts=tuple(self.facts[d] for d in domains),
        )
        fname = self.fresh(f"enum_{decl.name}")
        planned = planner.enumerator(plan, fname)
        self.enumerators[decl.name] = (planned, plan.stable)
        if planned.facts is not None:
            self.block_facts[fname] = planned.facts
        self.lines.append(planner.generate(plan, fname))
        return fname

    def decisions(self) -> dict[tuple[str, ...], str]:
        """One fused listing function per turn that offers several actions, each with a
        planned enumerator (:mod:`rulekit.compiler.planner_decisions`); a fallback among them
        is still filtered after listing (:mod:`rulekit.engine.priority`)."""
        fused: dict[tuple[str, ...], str] = {}
        for node in self.flow:
            names = node.data.get("actions") if node.kind in ("turn", "simultaneous") else None
            if (
                not isinstance(names, tuple)
                or len(names) < 2
                or names in fused
                or any(n not in self.enumerators for n in names)
            ):
                continue
            fname = self.fresh("decide")
            stable = self.enumerators[names[0]][1]
            planned = [self.enumerators[n][0] for n in names]
            self.lines.append(planner_decisions.fuse(fname, planned, stable))
            found = planner_decisions.facts(planned)
            if found is not None:
                self.block_facts[fname] = found
            fused[names] = fname
        return fused

    def stable_field(self, owner: str | None, field: str) -> bool:
        """Whether every state holds the field (owner None: the acting player's)."""
        fields = self.rules.fields
        if owner is None:
            return field in fields.get("player", {})
        scope = owner if owner in ("game", "turn") else self.gen.item_kind.get(owner)
        return scope is not None and field in fields.get(scope, {})

    def every_answer(
        self, condition: ast.Expr, names: list[str], params: list[tuple[str, Type]]
    ) -> tuple[str, str] | None:
        """For a requirement that is a call of a built-in whose ``cyclic`` parameter is given
        the last parameter (and no other argument reads it), e.g. ``fits(grid, cell, r)``
        with ``r`` last: the code asking every answer at once and the index of the one
        wanted (:attr:`planner.Check.every`); otherwise None."""
        if not isinstance(condition, ast.Call) or condition.keywords:
            return None
        builtin = BUILTINS.get(condition.function)
        if (
            builtin is None
            or builtin.cyclic is None
            or builtin.effect
            or builtin.fields  # arguments given as they are written, nothing converted
            or builtin.name in TEXT_BUILTINS | PLAYER_BUILTINS
            or condition.function in self.rules.functions
        ):
            return None
        index, period, _ = builtin.cyclic
        args = condition.args
        last = names[-1]
        given = args[index] if index < len(args) else None
        if not (
            isinstance(given, ast.Name)
            and given.id == last
            and not any(last in callgraph.names_read(a) for i, a in enumerate(args) if i != index)
        ):
            return None
        ctx = Context()
        for n, ty in params:
            ctx.bind(n, ty)
        codes = [self.gen.expr(a, ctx)[0] for i, a in enumerate(args) if i != index]
        cyclic_name = emit.name("BC_", builtin.name)
        return f"{cyclic_name}({', '.join(codes)})", f"{emit.name('v_', last)} % {int(period)}"

    def member_codes(
        self, exprs: list[ast.Expr], params: list[tuple[str, Type]]
    ) -> tuple[tuple[str, ...], bool]:
        """The code of each ``E`` of ``p in E``, when every one is a list (else nothing), and
        whether some of them may charge the step budget."""
        ctx = Context()
        for n, ty in params:
            ctx.bind(n, ty)
        codes = []
        charges = False
        for expr in exprs:
            code, type_, found = self.gen.expr_facts(expr, ctx)
            if not type_.is_list:
                return (), False
            codes.append(code)
            charges = charges or found.charges
        return tuple(codes), charges

    def trigger(self, decl: m.TriggerDecl) -> dict[str, Any] | None:
        rules = self.rules
        if decl.event in rules.actions:
            action = rules.actions[decl.event]
            params = self._action_param_types.get(action.name, [])
        elif decl.event in rules.events:
            if decl.timing == "before":
                self.bag.error("'before' triggers listen to actions; events run 'after' only", decl.span)
            params = [(name, declared.type) for name, declared in rules.events[decl.event].fields]
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
            code, type_, found = self.gen.expr_facts(decl.condition, ctx)
            self.gen.expect(t.BOOL, type_, decl.condition, "a trigger condition")
            condition = self.fresh(f"when_{decl.name}")
            mark = self.gen.mark(decl.condition.span)
            self.codes[condition] = (code, mark)
            self.facts[condition] = found
            body = "".join(line + "\n" for line in loops.return_lines(code, mark, ["F", "R", "me", *names]))
            self.lines.append(f"def {condition}({', '.join(['F', 'R', 'me', *names, '**_'])}):\n{body}")
        effect = self.define_block(f"trig_{decl.name}", decl.effect, params, kwargs=True)
        return {"condition": condition, "effect": effect}

    def compile(self) -> Program:
        rules = self.rules
        gen = self.gen
        self.functions()
        self.lines.extend(procedures.compile_all(gen, rules.procedures, self.bag, self.block_facts))
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
        ignored_when = {name: self.ignored_when(decl) for name, decl in rules.actions.items()}
        trigger_parts = {name: self.trigger(decl) for name, decl in rules.triggers.items()}
        invariant_parts = {
            name: self.define_expr(
                f"inv_{name}", decl.condition, [], me=False, expected=t.BOOL, what="an invariant"
            )
            for name, decl in rules.invariants.items()
        }
        visibility_parts = {}
        for scope, fields in rules.fields.items():
            for name, field_decl in fields.items():
                if field_decl.visible_to is None:
                    continue
                owner_type = (
                    t.PLAYER if scope == "player" else t.entity(scope) if scope in rules.kinds else t.ANY
                )
                visibility_parts[(scope, name)] = self.define_expr(
                    f"vis_{scope}_{name}",
                    field_decl.visible_to,
                    [("viewer", t.PLAYER), ("owner", owner_type)],
                    me=False,
                    expected=t.BOOL,
                    what=f"the visibility condition of {scope}.{name}",
                )
        sample_parts = {}
        for scope, fields in rules.fields.items():
            for name, field_decl in fields.items():
                if field_decl.sample is None:
                    continue
                owner_type = (
                    t.PLAYER if scope == "player" else t.entity(scope) if scope in rules.kinds else t.ANY
                )
                item_type = field_decl.declared.type.element or t.ANY
                sample_parts[(scope, name)] = self.define_expr(
                    f"sample_{scope}_{name}",
                    field_decl.sample,
                    [("owner", owner_type), ("index", t.INT), ("item", item_type)],
                    me=False,
                    expected=t.BOOL,
                    what=f"the sample condition of {scope}.{name}",
                )
        for span, message in visibility_problems(rules):
            self.bag.error(message, span)
        setup = self.define_block("setup", rules.setup, [], me=False) if rules.setup else None
        root = self.steps(rules.flow)
        decisions = self.decisions()
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
        team = None
        if scoring.team is not None:
            team = self.define_expr(
                "team", scoring.team, [("player", t.PLAYER)], me=False, expected=t.INT, what="a team"
            )
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
        code = compiled_code(source, f"<rulekit:{rules.name}>", rules)
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
                    CompiledRequirement(namespace[q], r, callgraph.arity(r.condition, decl.params))
                    for q, r in zip(parts["requires"], decl.requires, strict=True)
                ),
                fn(parts["cost"]),
                fn(parts["effect"]),
                fn(parts["weight"]),
                callgraph.arity(decl.cost, decl.params) if decl.cost is not None else 0,
                fn(parts["enumerate"]),
                decl.fallback,
                frozenset(decl.fallback_ignoring),
                {other: namespace[f] for other, f in ignored_when[name].items()},
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
            decisions={names: namespace[f] for names, f in decisions.items()},
            score=fn(score),
            tiebreaks=tuple(namespace[x] for x in tiebreaks),
            end_when=fn(end_when),
            team=fn(team),
            attributes=self.attributes(),
            collections={k.name: tuple(i.id for i in k.items) for k in rules.kinds.values()},
            field_types=gen.field_types,
            source=source,
            spans=gen.spans,
            namespace=namespace,
            function_types=dict(gen.function_types),
            code=code,
            evaluate=fn(evaluate),
            visible_to={key: namespace[f] for key, f in visibility_parts.items()},
            sample={key: namespace[f] for key, f in sample_parts.items()},
        )

    def attributes(self) -> dict[tuple[str, str], Any]:
        return item_attributes(self.rules)

    def namespace(self) -> dict[str, Any]:
        constants = {f"K_{name}": value for name, value in self.gen.constants.items()}
        return runtime_namespace(self.rules, self.gen.spans, constants)


def compile_rules(rules: m.RulesModel) -> Program:
    """Check and compile a rules model.

    Raises:
        RulesetError: every name, arity and type problem found, with positions.
    """
    return _Compiler(rules).compile()
