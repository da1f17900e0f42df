"""Mutation score: how well a ruleset's invariants, properties and scenarios guard its rules.

``rulekit verify RULESET --mutants N`` makes N small changes to the rules, one at
a time -- the mistakes authors make -- and checks whether anything notices:

* a comparison off by one or turned round (``<`` and ``<=``, ``>`` and ``>=``,
  ``==`` and ``!=``);
* arithmetic the other way (``+`` and ``-``, ``+=`` and ``-=``);
* a number one larger (in an expression, or an integer constant or an entry of a
  table of constants);
* a requirement dropped from an action;
* the two sides of a ``transfer``, ``transfer_up_to`` or ``move`` swapped.

Mutations apply to actions (requirements, costs, effects), triggers and
functions -- never to the invariants and properties that are to catch them. A
mutant is *killed* when exploring games of it fails an invariant, a property
or an engine property, or else when one of the ruleset's scenarios fails on it;
the mutants nobody kills are listed: each is a rule no check pins down.
"""

from __future__ import annotations

import random
import time
from collections.abc import Callable, Iterator, Sequence
from contextlib import contextmanager
from pathlib import Path
from typing import Any

import attrs
from attrs import define

from rulekit.compiler.build import compile_rules
from rulekit.compiler.program import Program
from rulekit.dsl import ast
from rulekit.errors import RulekitError, Span
from rulekit.rules import model as m
from rulekit.tools.verify.checker import Checker
from rulekit.tools.verify.explore import Explorer, player_counts
from rulekit.tools.verify.options import Stats, VerifyOptions

_COMPARISONS = {"<": "<=", "<=": "<", ">": ">=", ">=": ">", "==": "!=", "!=": "=="}
_ARITHMETIC = {"+": "-", "-": "+"}
_ASSIGN = {"+=": "-=", "-=": "+="}
_SWAPPABLE = ("transfer", "transfer_up_to", "move")


@define(frozen=True)
class Mutation:
    """One small change: ``kind`` at ``where`` (a node is found again by its position)."""

    kind: str
    where: tuple[str, int, int, int, int]
    node: str
    detail: str
    context: str

    @property
    def location(self) -> str:
        return f"{self.where[0]}:{self.where[1]}:{self.where[2]}"

    def describe(self) -> str:
        return f"{self.location}: {self.detail} in {self.context}"


@define
class MutantResult:
    """What happened to one mutant."""

    mutation: Mutation
    killed_by: str | None = None  # "invariant:NAME", "property:NAME", "engine:...", "scenario:NAME"
    invalid: str | None = None  # the mutant does not compile: not counted


@define
class MutationReport:
    """The mutation score of a ruleset."""

    results: list[MutantResult]
    seconds: float
    sites: int

    @property
    def valid(self) -> list[MutantResult]:
        return [r for r in self.results if r.invalid is None]

    @property
    def killed(self) -> list[MutantResult]:
        return [r for r in self.valid if r.killed_by is not None]

    @property
    def score(self) -> float:
        return len(self.killed) / len(self.valid) if self.valid else 1.0

    def by_kind(self) -> dict[str, int]:
        counts: dict[str, int] = {}
        for result in self.killed:
            assert result.killed_by is not None
            kind = result.killed_by.split(":", 1)[0]
            counts[kind] = counts.get(kind, 0) + 1
        return counts

    def render(self) -> str:
        valid, killed = self.valid, self.killed
        kinds = ", ".join(f"{n} by {k}" for k, n in sorted(self.by_kind().items())) or "none"
        lines = [
            f"mutation score: {len(killed)}/{len(valid)} killed ({100 * self.score:.0f}%; {kinds}); "
            f"{len(self.results)} of {self.sites} mutation sites tried in {self.seconds:.0f}s"
        ]
        invalid = len(self.results) - len(valid)
        if invalid:
            lines.append(f"  {invalid} mutant(s) did not compile (not counted)")
        for result in killed:
            lines.append(f"  killed  {result.mutation.describe()}  <- {result.killed_by}")
        survivors = [r for r in valid if r.killed_by is None]
        if survivors:
            lines.append("  surviving mutants (no invariant, property or scenario notices them):")
            for result in survivors:
                lines.append(f"    {result.mutation.describe()}")
        return "\n".join(lines)


# ---------------------------------------------------------------- finding mutation sites


def mutation_sites(rules: m.RulesModel) -> list[Mutation]:
    """Every mutation the rules allow, in a stable order."""
    found: list[Mutation] = []
    for name, action in rules.actions.items():
        context = f"action '{name}'"
        for param in action.params:
            _walk(param.domain, f"parameter '{param.name}' of {context}", found)
        for i, requirement in enumerate(action.requires):
            if requirement.span is not None:
                found.append(
                    Mutation(
                        "drop-requirement",
                        _key(requirement.span),
                        "Requirement",
                        f"requirement {i + 1} dropped ({requirement.message})",
                        context,
                    )
                )
            _walk(requirement.condition, f"requirement of {context}", found)
        if action.cost is not None:
            _walk(action.cost, f"cost of {context}", found)
        if action.effect is not None:
            _walk(action.effect, f"effect of {context}", found)
    for trigger in rules.triggers.values():
        context = f"trigger '{trigger.name}'"
        if trigger.condition is not None:
            _walk(trigger.condition, f"'when' of {context}", found)
        _walk(trigger.effect, f"effect of {context}", found)
    used = _used_functions(rules)
    for function in rules.functions.values():
        if function.name in used:  # not those only the display (or the checks) call
            _walk(function.body, f"function '{function.name}'", found)
    for constant in rules.constants.values():
        if constant.span is None:
            continue
        value = constant.value
        if isinstance(value, int) and not isinstance(value, bool):
            found.append(
                Mutation(
                    "constant",
                    _key(constant.span),
                    "Constant",
                    f"{constant.name} {value} -> {value + 1}",
                    "constants",
                )
            )
        elif isinstance(value, list | tuple) and value and all(type(v) is int for v in value):
            i = len(value) // 2
            found.append(
                Mutation(
                    "constant",
                    _key(constant.span),
                    "Constant",
                    f"{constant.name}[{i}] {value[i]} -> {value[i] + 1}",
                    "constants",
                )
            )
    unique = {(f.kind, f.where, f.node, f.detail): f for f in found}
    return list(unique.values())


def _used_functions(rules: m.RulesModel) -> set[str]:
    """The functions the rules call (from actions, triggers, setup, flow and scoring), transitively."""
    roots = [rules.actions, rules.triggers, rules.setup, rules.flow, rules.scoring]
    used: set[str] = set()
    pending = [name for root in roots for name in _calls(root, rules.functions)]
    while pending:
        name = pending.pop()
        if name not in used:
            used.add(name)
            pending.extend(_calls(rules.functions[name].body, rules.functions))
    return used


def _calls(node: Any, functions: dict[str, m.FunctionDecl]) -> Iterator[str]:
    if isinstance(node, dict):
        node = tuple(node.values())
    if isinstance(node, tuple | list):
        for item in node:
            yield from _calls(item, functions)
        return
    if not attrs.has(type(node)):
        return
    if isinstance(node, ast.Call) and node.function in functions:
        yield node.function
    for attribute in attrs.fields(type(node)):
        yield from _calls(getattr(node, attribute.name), functions)


def _walk(node: Any, context: str, found: list[Mutation]) -> None:
    if isinstance(node, tuple):
        for item in node:
            _walk(item, context, found)
        return
    if not _is_node(node):
        return
    span = getattr(node, "span", None)
    if span is not None and span.line > 0:
        where = _key(span)
        if isinstance(node, ast.Binary):
            other = _COMPARISONS.get(node.op) or _ARITHMETIC.get(node.op)
            if other is not None:
                kind = "comparison" if node.op in _COMPARISONS else "arithmetic"
                found.append(Mutation(kind, where, f"Binary{node.op}", f"'{node.op}' -> '{other}'", context))
        elif isinstance(node, ast.Assign) and node.op in _ASSIGN:
            found.append(
                Mutation(
                    "arithmetic", where, f"Assign{node.op}", f"'{node.op}' -> '{_ASSIGN[node.op]}'", context
                )
            )
        elif isinstance(node, ast.Literal) and type(node.value) is int:
            found.append(
                Mutation(
                    "constant", where, f"Literal{node.value}", f"{node.value} -> {node.value + 1}", context
                )
            )
        elif isinstance(node, ast.Call) and node.function in _SWAPPABLE and len(node.args) >= 3:
            found.append(
                Mutation("swap", where, f"Call{node.function}", f"{node.function}: sides swapped", context)
            )
    for attribute in attrs.fields(type(node)):
        _walk(getattr(node, attribute.name), context, found)


def _is_node(value: Any) -> bool:
    return attrs.has(type(value)) and type(value).__module__ == ast.__name__


def _key(span: Span) -> tuple[str, int, int, int, int]:
    return (span.file, span.line, span.column, span.end_line, span.end_column)


# ---------------------------------------------------------------- applying one


def mutate(rules: m.RulesModel, mutation: Mutation) -> m.RulesModel:
    """``rules`` with ``mutation`` applied (unchanged if its node is not in them)."""
    if mutation.kind == "drop-requirement":
        actions = {}
        for name, action in rules.actions.items():
            kept = tuple(r for r in action.requires if r.span is None or _key(r.span) != mutation.where)
            actions[name] = (
                action if len(kept) == len(action.requires) else attrs.evolve(action, requires=kept)
            )
        return attrs.evolve(rules, actions=actions)
    if mutation.node == "Constant":
        constants = dict(rules.constants)
        for name, constant in rules.constants.items():
            if constant.span is not None and _key(constant.span) == mutation.where:
                constants[name] = attrs.evolve(constant, value=_bump(constant.value))
        return attrs.evolve(rules, constants=constants)

    def change(node: Any) -> Any:
        span = getattr(node, "span", None)
        if span is None or _key(span) != mutation.where:
            return None
        if isinstance(node, ast.Binary) and mutation.node == f"Binary{node.op}":
            return attrs.evolve(node, op=_COMPARISONS.get(node.op) or _ARITHMETIC[node.op])
        if isinstance(node, ast.Assign) and mutation.node == f"Assign{node.op}":
            return attrs.evolve(node, op=_ASSIGN[node.op])
        if (
            isinstance(node, ast.Literal)
            and type(node.value) is int
            and mutation.node == f"Literal{node.value}"
        ):
            return attrs.evolve(node, value=node.value + 1)
        if isinstance(node, ast.Call) and mutation.node == f"Call{node.function}":
            args = list(node.args)
            args[1], args[2] = args[2], args[1]
            return attrs.evolve(node, args=tuple(args))
        return None

    actions = {
        name: attrs.evolve(
            a,
            params=tuple(attrs.evolve(p, domain=_rewrite(p.domain, change)) for p in a.params),
            requires=tuple(attrs.evolve(r, condition=_rewrite(r.condition, change)) for r in a.requires),
            cost=_rewrite(a.cost, change),
            effect=_rewrite(a.effect, change),
        )
        for name, a in rules.actions.items()
    }
    triggers = {
        name: attrs.evolve(tr, condition=_rewrite(tr.condition, change), effect=_rewrite(tr.effect, change))
        for name, tr in rules.triggers.items()
    }
    functions = {name: attrs.evolve(f, body=_rewrite(f.body, change)) for name, f in rules.functions.items()}
    return attrs.evolve(rules, actions=actions, triggers=triggers, functions=functions)


def _bump(value: Any) -> Any:
    if isinstance(value, int):
        return value + 1
    items = list(value)
    items[len(items) // 2] += 1
    return type(value)(items)


def _rewrite(node: Any, change: Callable[[Any], Any]) -> Any:
    if isinstance(node, tuple):
        return tuple(_rewrite(item, change) for item in node)
    if not _is_node(node):
        return node
    replaced = change(node)
    if replaced is not None:
        return replaced
    changes = {}
    for attribute in attrs.fields(type(node)):
        value = getattr(node, attribute.name)
        new = _rewrite(value, change)
        if new is not value:
            changes[attribute.name] = new
    return attrs.evolve(node, **changes) if changes else node


# ---------------------------------------------------------------- running them


def run_mutants(
    options: VerifyOptions,
    count: int,
    *,
    scenarios: Sequence[Path] = (),
    say: Callable[[str], None] = lambda text: None,
) -> MutationReport:
    """Try ``count`` mutants (a seeded sample of every site) and see what kills each."""
    started = time.perf_counter()
    program, counts = player_counts(options)
    sites = mutation_sites(program.rules)
    chosen = sites if count >= len(sites) else random.Random(options.seed).sample(sites, count)
    results = []
    for index, mutation in enumerate(chosen, start=1):
        result = MutantResult(mutation)
        try:
            mutant = compile_rules(mutate(program.rules, mutation))
        except RulekitError as error:
            result.invalid = error.render().splitlines()[0]
        else:
            result.killed_by = _explore(options, mutant, counts)
            if result.killed_by is None and scenarios:
                result.killed_by = _scenarios(scenarios, mutation)
        results.append(result)
        verdict = (result.invalid and "invalid") or result.killed_by or "SURVIVED"
        say(f"mutant {index}/{len(chosen)}: {mutation.describe()}: {verdict}")
    return MutationReport(results, time.perf_counter() - started, len(sites))


def _explore(options: VerifyOptions, program: Program, counts: list[int]) -> str | None:
    checker = Checker(program, Stats())
    failure = Explorer(options, checker, counts).run(range(options.examples))
    return None if failure is None else failure.key


def _scenarios(paths: Sequence[Path], mutation: Mutation) -> str | None:
    from rulekit.tools import scenario

    with _mutated_loading(mutation):
        for path in paths:
            result = scenario.run_scenario(path)
            if not result.passed:
                return f"scenario:{path.stem}"
    return None


@contextmanager
def _mutated_loading(mutation: Mutation) -> Iterator[None]:
    """Scenarios load their rules through ``load_program``: give them the mutant's."""
    from rulekit.tools import scenario

    real = scenario.load_program
    cache: dict[int, Program] = {}

    def load(*args: Any, **kwargs: Any) -> Program:
        program = real(*args, **kwargs)
        mutant = cache.get(id(program))
        if mutant is None:
            mutant = cache[id(program)] = compile_rules(mutate(program.rules, mutation))
        return mutant

    scenario.load_program = load
    try:
        yield
    finally:
        scenario.load_program = real


def scenario_files(ruleset: str) -> list[Path]:
    """The scenarios shipped with a ruleset (its ``scenarios/`` directory), if any."""
    from rulekit.rules.compose import find_ruleset
    from rulekit.tools.scenario import find_scenarios

    directory = find_ruleset(ruleset) / "scenarios"
    return find_scenarios([directory]) if directory.is_dir() else []
