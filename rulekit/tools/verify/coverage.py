"""Rule coverage for ``rulekit verify``: what the exploration reached and what it never did.

Coverage is collected on an instrumented *copy* of a compiled program, so the
normal path (and the cached program other callers share) is never slowed down
or changed:

* actions and triggers that never fired, through the runtime's ``fired`` hook;
* requirements of actions, trigger ``when`` conditions, flow conditions
  (``if``, ``repeat`` ``while``/``until``, a turn's ``until``) and
  ``scoring.end_when``: each is wrapped so that its outcomes are counted, and
  the report lists those that were never evaluated, never true or never false.

* ``if`` statements in effects (actions, triggers, the set-up, the flow's ``do``
  steps and procedures) and conditional expressions (``a if c else b``) wherever
  the game's rules use them (functions, requirements, costs, parameters, scoring):
  the generated code reports each branch taken to the runtime's ``branch`` hook,
  which only verify sets (None otherwise: one test per branch or conditional);
  the report lists the branches never taken (the implicit "none taken" of an
  ``if`` without ``else`` included). Invariants, properties, bot weights and views
  are not the game's rules: their conditionals are not counted.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

import attrs
from attrs import define, field

from rulekit.compiler.program import CompiledRequirement, FlowNode, Program
from rulekit.dsl import ast
from rulekit.errors import Span

Fn = Callable[..., Any]

_FLOW_CONDITIONS = {"condition": "if", "while": "repeat while", "until": "until"}


@define
class Condition:
    """A condition the rules evaluate, where it is, and how often it was true and false."""

    what: str
    span: Span | None
    true: int = 0
    false: int = 0
    #: The condition's expression (requirements and trigger ``when``s), to see what it reads.
    expr: ast.Expr | None = None


@define
class Coverage:
    """Outcomes collected while games run on an instrumented program."""

    program: Program
    fired: dict[str, int] = field(factory=dict)
    conditions: dict[str, Condition] = field(factory=dict)
    #: How many things (an action or trigger firing, a condition being true or false) happened
    #: for the first time; the exploration watches it to keep games that reached something new.
    novel: int = 0
    #: ``if`` statements and conditional expressions of the rules, by span: how often each
    #: branch was taken (a conditional has two: its condition true, false).
    branches: dict[Span, list[int]] = field(factory=dict)
    #: The spans of the conditional expressions among ``branches``.
    conditionals: set[Span] = field(factory=set)
    #: For conditions never true: how close a game came, ``(distance, text)`` (closeness.py).
    closest: dict[str, tuple[int, str]] = field(factory=dict)

    def __attrs_post_init__(self) -> None:
        for node in branching_nodes(self.program):
            if isinstance(node, ast.If):
                self.branches.setdefault(node.span, [0] * (len(node.branches) + 1))
            else:
                self.branches.setdefault(node.span, [0, 0])
                self.conditionals.add(node.span)

    # ---------------------------------------------------------- instrument
    def instrument(self) -> Program:
        """A copy of the program whose conditions report their outcomes here."""
        program = self.program
        actions = {}
        for name, action in program.actions.items():
            requires = tuple(
                CompiledRequirement(
                    self._wrap(
                        f"require:{name}:{i}",
                        f"requirement of '{name}': {req.decl.message}",
                        req.decl.span,
                        req.check,
                        req.decl.condition,
                    ),
                    req.decl,
                    req.arity,
                )
                for i, req in enumerate(action.requires)
            )
            # listed through the wrapped requirements: the planned enumerator checks them inline
            actions[name] = attrs.evolve(action, requires=requires, enumerate=None)
        triggers = []
        for trigger in program.triggers:
            condition = trigger.condition
            if condition is not None:
                decl = trigger.decl
                condition = self._wrap(
                    f"when:{decl.name}",
                    f"'when' of trigger '{decl.name}'",
                    decl.span,
                    condition,
                    decl.condition,
                )
            triggers.append(attrs.evolve(trigger, condition=condition))
        flow: list[FlowNode] = []
        for index, node in enumerate(program.flow):
            fns = dict(node.fns)
            for key, label in _FLOW_CONDITIONS.items():
                fn = fns.get(key)
                if fn is not None:
                    fns[key] = self._wrap(
                        f"flow:{index}:{key}", f"{label} of the {node.kind} step", node.span, fn
                    )
            flow.append(attrs.evolve(node, fns=fns))
        end_when = program.end_when
        if end_when is not None:
            end_when = self._wrap("end_when", "scoring end_when", program.rules.scoring.span, end_when)
        return attrs.evolve(  # (no fused listings: they would skip the wrapped requirements)
            program, actions=actions, triggers=triggers, flow=flow, end_when=end_when, decisions={}
        )

    def _wrap(self, key: str, what: str, span: Span | None, fn: Fn, expr: ast.Expr | None = None) -> Fn:
        condition = self.conditions.setdefault(key, Condition(what, span, expr=expr))

        def wrapped(*args: Any, **kwargs: Any) -> Any:
            result = fn(*args, **kwargs)
            if result:
                if not condition.true:
                    self.novel += 1
                condition.true += 1
            else:
                if not condition.false:
                    self.novel += 1
                condition.false += 1
            return result

        return wrapped

    def never_true(self) -> list[ast.Expr]:
        """The expressions of the requirements and trigger ``when``s evaluated but never true
        so far (what the exploration should steer towards)."""
        return [c.expr for c in self.conditions.values() if c.expr is not None and c.false and not c.true]

    def fire(self, what: str) -> None:
        """The runtime's ``fired`` hook: ``action:NAME`` or ``trigger:NAME``."""
        count = self.fired.get(what, 0)
        if not count:
            self.novel += 1
        self.fired[what] = count + 1

    def branch(self, span: Span, index: int) -> None:
        """The runtime's ``branch`` hook: branch ``index`` of the ``if`` statement or conditional
        expression at ``span`` was taken (those of invariants, properties, views: ignored)."""
        counts = self.branches.get(span)
        if counts is None or index >= len(counts):
            return
        if not counts[index]:
            self.novel += 1
        counts[index] += 1

    def never_taken(self) -> list[tuple[str, Span | None]]:
        """Branches of ``if`` statements and conditional expressions never taken (reached or not)."""
        result: list[tuple[str, Span | None]] = []
        for span, counts in self.branches.items():
            last = len(counts) - 1
            for index, count in enumerate(counts):
                if not count:
                    if span in self.conditionals:
                        part = "'if' value (its condition true)" if index == 0 else "'else' value"
                        name = f"conditional expression 'a if c else b': its {part} was never taken"
                    elif index == last:
                        name = "'if' statement: its else (without one: no branch) was never taken"
                    else:
                        kind = "if" if index == 0 else "elif"
                        name = f"'if' statement: branch {index + 1} ({kind}) was never taken"
                    result.append((name, span))
        return result

    # -------------------------------------------------------------- report
    def never_fired(self) -> list[tuple[str, Span | None]]:
        """Actions and triggers that never fired, with their declarations."""
        result: list[tuple[str, Span | None]] = []
        for name, action in self.program.actions.items():
            if f"action:{name}" not in self.fired:
                result.append((f"action '{name}'", action.decl.span))
        for trigger in self.program.triggers:
            if f"trigger:{trigger.decl.name}" not in self.fired:
                result.append((f"trigger '{trigger.decl.name}'", trigger.decl.span))
        return result

    def report(self) -> str:
        """The coverage report, one line per gap, each with its file:line."""
        actions = len(self.program.actions)
        triggers = len(self.program.triggers)
        fired_actions = sum(1 for name in self.program.actions if f"action:{name}" in self.fired)
        fired_triggers = sum(1 for t in self.program.triggers if f"trigger:{t.decl.name}" in self.fired)
        never_evaluated = [c for c in self.conditions.values() if c.true == 0 and c.false == 0]
        never_true = [(k, c) for k, c in self.conditions.items() if c.true == 0 and c.false > 0]
        never_false = [c for c in self.conditions.values() if c.false == 0 and c.true > 0]
        both = len(self.conditions) - len(never_evaluated) - len(never_true) - len(never_false)

        def closest(key: str) -> str:
            found = self.closest.get(key)
            return f"; closest: {found[1]}" if found else ""

        branches = sum(len(c) for c in self.branches.values())
        taken = sum(1 for c in self.branches.values() for n in c if n)
        lines = [
            f"coverage: {fired_actions}/{actions} actions and {fired_triggers}/{triggers} triggers fired; "
            f"{both}/{len(self.conditions)} conditions were both true and false; "
            f"{taken}/{branches} branches taken"
        ]

        def section(title: str, items: list[tuple[str, Span | None]]) -> None:
            if not items:
                return
            lines.append(f"  {title}:")
            for what, span in sorted(items, key=lambda i: _span_key(i[1])):
                lines.append(f"    {span or '?'}: {what}")

        section("never fired", self.never_fired())
        section("never evaluated", [(c.what, c.span) for c in never_evaluated])
        section("never true", [(f"{c.what} (false {c.false}x{closest(k)})", c.span) for k, c in never_true])
        section("never false", [(f"{c.what} (true {c.true}x)", c.span) for c in never_false])
        section("branches never taken", self.never_taken())
        if len(lines) == 1:
            lines.append("  every action, trigger and condition was reached both ways")
        return "\n".join(lines)


def branching_nodes(program: Program) -> list[ast.If | ast.Conditional]:
    """The ``if`` statements and conditional expressions of the code games run: actions (not
    their ``ensures``), triggers, set-up, flow, procedures, scoring, and the functions these
    call, directly or through other functions (not those only views, invariants or bot
    weights call)."""
    rules = program.rules
    roots: list[Any] = [
        *(attrs.evolve(action, ensures=()) for action in rules.actions.values()),
        *rules.triggers.values(),
        rules.setup,
        *rules.flow,
        *rules.procedures.values(),
        rules.scoring,
    ]
    nodes = _nodes(roots)
    called = [node.function for node in nodes if isinstance(node, ast.Call)]
    seen: set[str] = set()
    while called:
        name = called.pop()
        function = rules.functions.get(name)
        if function is None or name in seen:
            continue
        seen.add(name)
        found = _nodes(function)
        nodes.extend(found)
        called.extend(node.function for node in found if isinstance(node, ast.Call))
    return [node for node in nodes if isinstance(node, (ast.If, ast.Conditional))]


def _nodes(root: Any) -> list[Any]:
    """The AST nodes below ``root`` (each object once)."""
    found: list[Any] = []
    seen: set[int] = set()
    stack = [root]
    while stack:
        value = stack.pop()
        if isinstance(value, (str, int, float, bool)) or value is None or id(value) in seen:
            continue
        seen.add(id(value))
        if isinstance(value, (tuple, list)):
            stack.extend(value)
        elif isinstance(value, dict):
            stack.extend(value.values())
        elif attrs.has(type(value)):
            if type(value).__module__ == ast.__name__:
                found.append(value)
            stack.extend(getattr(value, a.name) for a in attrs.fields(type(value)))
    return found


def _span_key(span: Span | None) -> tuple[str, int, int]:
    return (span.file, span.line, span.column) if span else ("", 0, 0)
