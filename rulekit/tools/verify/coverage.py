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

* the scoring and the outcome (for ``rulekit scenario --coverage``): the branches of the
  score and tie-break expressions (and of the functions only they call) count only while
  :attr:`Coverage.scoring` is true (``verify``: always; a scenario: while its final
  expectations compare winners, standings or scores), and :meth:`Coverage.outcome` records
  the shape of each finished game whose outcome was checked -- one winner or a tie for first,
  each tie-break deciding between players the score left equal, a cooperative success or
  failure (:data:`OUTCOMES`); a Coverage that records none reports none.
"""

from __future__ import annotations

from collections.abc import Callable, Iterator
from contextlib import contextmanager
from itertools import pairwise
from typing import TYPE_CHECKING, Any

import attrs
from attrs import define, field

from rulekit.compiler.program import CompiledRequirement, FlowNode, Program
from rulekit.dsl import ast
from rulekit.errors import Span

if TYPE_CHECKING:
    from rulekit.engine.game import State

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
    #: The spans among ``branches`` only the score and tie-breaks reach (:func:`scoring_nodes`).
    scoring_spans: set[Span] = field(factory=set)
    #: Whether their branches count now (a scenario: only while its final expectations run).
    scoring: bool = True
    #: Outcome shapes of the finished games whose outcome was checked, by key of
    #: :func:`outcome_shapes` (None: outcomes are not recorded nor reported).
    outcomes: dict[str, int] | None = None

    def __attrs_post_init__(self) -> None:
        for node in branching_nodes(self.program):
            if isinstance(node, ast.If):
                self.branches.setdefault(node.span, [0] * (len(node.branches) + 1))
            else:
                self.branches.setdefault(node.span, [0, 0])
                self.conditionals.add(node.span)
        self.scoring_spans = {node.span for node in scoring_nodes(self.program)}

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
        if counts is None or index >= len(counts) or (not self.scoring and span in self.scoring_spans):
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

    def outcome(self, state: State) -> None:
        """A final expectation checked the outcome of the finished game ``state``: record its shapes."""
        if self.outcomes is None:
            return
        for key in outcome_shapes(state):
            self.outcomes[key] = self.outcomes.get(key, 0) + 1

    def outcomes_missing(self) -> list[str]:
        """The outcome shapes the rules can have that no checked game had (none if not recorded)."""
        if self.outcomes is None:
            return []
        return [key for key in self._possible_outcomes() if key not in self.outcomes]

    def _possible_outcomes(self) -> list[str]:
        scoring = self.program.rules.scoring
        possible = list(OUTCOMES.get(scoring.outcome, OUTCOMES["competitive"]))
        if scoring.outcome != "cooperative":
            possible += [f"tiebreak:{k + 1}" for k in range(len(scoring.tiebreak))]
        return possible

    # -------------------------------------------------------------- report
    def never_fired(self) -> list[tuple[str, Span | None]]:
        """Actions and triggers that never fired, with their declarations."""
        return [(what, span) for what, span, _ in self._never_fired()]

    def _never_fired(self) -> list[tuple[str, Span | None, str]]:
        result: list[tuple[str, Span | None, str]] = []
        for name, action in self.program.actions.items():
            if f"action:{name}" not in self.fired:
                result.append((f"action '{name}'", action.decl.span, f"action:{name}"))
        for trigger in self.program.triggers:
            if f"trigger:{trigger.decl.name}" not in self.fired:
                result.append(
                    (f"trigger '{trigger.decl.name}'", trigger.decl.span, f"trigger:{trigger.decl.name}")
                )
        return result

    def gaps(self, *, cited: bool = False) -> list[Gap]:
        """Everything never reached, section by section (in the order the report lists them)."""
        rules = self.program.rules
        cites: dict[str, str | None] = {}
        if cited:
            for name, action in rules.actions.items():
                cites[f"action:{name}"] = action.cite
                for i, req in enumerate(action.requires):
                    cites[f"require:{name}:{i}"] = req.cite or action.cite
            for name, trigger in rules.triggers.items():
                cites[f"trigger:{name}"] = cites[f"when:{name}"] = trigger.cite
        owners = rule_owners(self.program) if cited else {}

        def closest(key: str) -> str:
            found = self.closest.get(key)
            return f"; closest: {found[1]}" if found else ""

        result: list[Gap] = []
        for what, span, key in self._never_fired():
            result.append(Gap("never fired", what, span, cites.get(key)))
        for key, c in self.conditions.items():
            if c.true == 0 and c.false == 0:
                result.append(Gap("never evaluated", c.what, c.span, cites.get(key)))
        for key, c in self.conditions.items():
            if c.true == 0 and c.false > 0:
                result.append(
                    Gap("never true", f"{c.what} (false {c.false}x{closest(key)})", c.span, cites.get(key))
                )
        for key, c in self.conditions.items():
            if c.false == 0 and c.true > 0:
                result.append(Gap("never false", f"{c.what} (true {c.true}x)", c.span, cites.get(key)))
        scoring_apart = self.outcomes is not None
        for what, span in self.never_taken():
            section = (
                "scoring branches no final expectation checked"
                if scoring_apart and span in self.scoring_spans
                else "branches never taken"
            )
            owner = owners.get(span) if span is not None else None
            if owner is not None:
                what = f"{what}, in {owner[0]}"
            result.append(Gap(section, what, span, owner[1] if owner else None))
        for key in self.outcomes_missing():
            result.append(
                Gap("outcomes no final expectation checked", outcome_label(key), rules.scoring.span, None)
            )
        return result

    def summary(self) -> str:
        """The report's first line: how much of each kind was reached."""
        actions = len(self.program.actions)
        triggers = len(self.program.triggers)
        fired_actions = sum(1 for name in self.program.actions if f"action:{name}" in self.fired)
        fired_triggers = sum(1 for t in self.program.triggers if f"trigger:{t.decl.name}" in self.fired)
        both = sum(1 for c in self.conditions.values() if c.true and c.false)
        branches = sum(len(c) for c in self.branches.values())
        taken = sum(1 for c in self.branches.values() for n in c if n)
        line = (
            f"{fired_actions}/{actions} actions and {fired_triggers}/{triggers} triggers fired; "
            f"{both}/{len(self.conditions)} conditions were both true and false; "
            f"{taken}/{branches} branches taken"
        )
        if self.outcomes is not None:
            possible = len(self._possible_outcomes())
            line += f"; {possible - len(self.outcomes_missing())}/{possible} outcomes checked"
        return line

    def report(self, *, cited: bool = False) -> str:
        """The coverage report, one line per gap, each with its file:line (and its rule's
        citation with ``cited``)."""
        lines = [f"coverage: {self.summary()}"]
        gaps = self.gaps(cited=cited)
        for title in dict.fromkeys(gap.section for gap in gaps):
            lines.append(f"  {title}:")
            for gap in sorted((g for g in gaps if g.section == title), key=lambda g: _span_key(g.span)):
                lines.append(f"    {gap.span or '?'}: {gap.what}" + (f" [{gap.cite}]" if gap.cite else ""))
        if len(lines) == 1:
            lines.append("  every action, trigger and condition was reached both ways")
        return "\n".join(lines)


@define
class Gap:
    """Something the games never reached: its report section, what it is, where, its citation."""

    section: str
    what: str
    span: Span | None
    cite: str | None = None


def branching_nodes(program: Program) -> list[ast.If | ast.Conditional]:
    """The ``if`` statements and conditional expressions of the code games run: actions (not
    their ``ensures``), triggers, set-up, flow, procedures, scoring, and the functions these
    call, directly or through other functions (not those only views, invariants or bot
    weights call)."""
    return _branching(program, [*_play_roots(program), program.rules.scoring])


def scoring_nodes(program: Program) -> list[ast.If | ast.Conditional]:
    """The ``if`` statements and conditional expressions only the scoring's score, tie-breaks
    and team reach (directly or through functions), not the play nor ``end_when``."""
    scoring = program.rules.scoring
    played = {id(node) for node in _branching(program, [*_play_roots(program), scoring.end_when])}
    found = _branching(program, [scoring.score, *scoring.tiebreak, scoring.team])
    return [node for node in found if id(node) not in played]


def rule_owners(program: Program) -> dict[Span, tuple[str, str | None]]:
    """For each branching node's span: the rule it is written in and that rule's citation
    (``("action 'sail'", "§5")``; a function, the set-up, the flow, the scoring: no citation)."""
    rules = program.rules
    owners: dict[Span, tuple[str, str | None]] = {}
    named: list[tuple[str, str | None, Any]] = [
        *((f"action '{n}'", a.cite, attrs.evolve(a, ensures=())) for n, a in rules.actions.items()),
        *((f"trigger '{n}'", t.cite, t) for n, t in rules.triggers.items()),
        *((f"procedure '{n}'", None, p) for n, p in rules.procedures.items()),
        *((f"function '{n}'", None, f) for n, f in rules.functions.items()),
        ("the set-up", None, rules.setup),
        ("the flow", None, rules.flow),
        ("the scoring", None, rules.scoring),
    ]
    for label, cite, root in named:
        for node in _nodes(root):
            if isinstance(node, (ast.If, ast.Conditional)) and node.span is not None:
                owners.setdefault(node.span, (label, cite))
    return owners


#: The outcome shapes :meth:`Coverage.outcome` records, by the ruleset's ``scoring.outcome``
#: (tie-breaks add ``tiebreak:N``, "tie-break N decided between players equal before it").
OUTCOMES = {
    "competitive": {"one_winner": "a game won by one player", "shared": "a tie for first place"},
    "teams": {"one_winner": "a game won by one team", "shared": "a tie between the best teams"},
    "cooperative": {"success": "a success (the shared score reached)", "failure": "a failure"},
}


def outcome_shapes(state: State) -> list[str]:
    """The outcome shapes of a finished game (keys of :data:`OUTCOMES` and ``tiebreak:N``)."""
    from rulekit.engine import outcome

    game = state.game
    kind = outcome.kind(game)
    if kind == outcome.COOPERATIVE:
        return ["success" if outcome.success(state) else "failure"]
    winners = state.winners()
    best = {outcome.teams(state)[p] for p in winners} if kind == outcome.TEAMS else set(winners)
    shapes = ["one_winner" if len(best) == 1 else "shared"]
    keys = [key for _, key in state.standings()]
    for k in range(1, len(keys[0]) if keys else 0):
        if any(a[:k] == b[:k] and a[k] != b[k] for a, b in pairwise(keys)):
            shapes.append(f"tiebreak:{k}")
    return shapes


def outcome_label(key: str) -> str:
    if key.startswith("tiebreak:"):
        number = key.split(":")[1]
        return f"tie-break {number} deciding between players equal on the score (and earlier tie-breaks)"
    return next(table[key] for table in OUTCOMES.values() if key in table)


@contextmanager
def coverage_off(state: State) -> Iterator[None]:
    """While invariants, properties, views, rejections and replays are checked (and bots think
    ahead), the rules they run do not count as coverage: it is of the game's own play."""
    runtime = state.game.runtime
    branch, fired = runtime.branch, runtime.fired
    runtime.branch = runtime.fired = None
    try:
        yield
    finally:
        runtime.branch, runtime.fired = branch, fired


def _play_roots(program: Program) -> list[Any]:
    rules = program.rules
    return [
        *(attrs.evolve(action, ensures=()) for action in rules.actions.values()),
        *rules.triggers.values(),
        rules.setup,
        *rules.flow,
        *rules.procedures.values(),
    ]


def _branching(program: Program, roots: list[Any]) -> list[ast.If | ast.Conditional]:
    rules = program.rules
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
