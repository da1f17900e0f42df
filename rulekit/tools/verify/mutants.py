"""Mutants of a ruleset's rules: the small mistakes authors make, applied one at a time.

The operators work on the rules model and its DSL trees (never on the YAML text):

* ``comparison``: a comparison off by one or turned round (``<`` and ``<=``, ``>`` and
  ``>=``, ``==`` and ``!=``);
* ``arithmetic``: arithmetic the other way (``+`` and ``-``, ``+=`` and ``-=``);
* ``constant``: a number one larger (in an expression, an integer constant or an entry of
  a table of constants);
* ``drop-requirement``: a requirement of an action dropped;
* ``swap``: the two sides of a ``transfer``, ``transfer_up_to`` or ``move`` swapped;
* ``negate``: a condition negated (a requirement, a trigger's ``when``, an ``if`` branch, a
  conditional expression's condition);
* ``drop-effect``: one statement of an effect dropped (an assignment, a call such as
  ``move`` or ``transfer``, an ``emit``);
* ``swap-player``: ``me`` read as ``next_player(me)``, and ``next_player(x)`` /
  ``previous_player(x)`` as ``x`` (the player a rule names swapped for another).

Mutations apply to actions (parameter domains, requirements, costs, effects), triggers, the
functions and the constants the rules use -- never to the invariants and properties that are
to catch them (``ensures:`` included, and what only they read), nor to functions or constants
only the display or the bots use, nor inside a
``note(...)`` (a message to everyone that no rule, score or seat's knowledge depends on).
Running them is :mod:`.mutation_run`.
"""

from __future__ import annotations

from collections.abc import Callable, Iterator
from typing import Any

import attrs
from attrs import define

from rulekit.dsl import ast
from rulekit.dsl.printer import print_block, print_expr
from rulekit.errors import Span
from rulekit.rules import model as m

_COMPARISONS = {"<": "<=", "<=": "<", ">": ">=", ">=": ">", "==": "!=", "!=": "=="}
_ARITHMETIC = {"+": "-", "-": "+"}
_ASSIGN = {"+=": "-=", "-=": "+="}
_SWAPPABLE = ("transfer", "transfer_up_to", "move")
_NEIGHBOURS = ("next_player", "previous_player")
_DROPPABLE = (ast.Assign, ast.CallStatement, ast.Emit)
#: The longest before/after text shown for a mutant.
_SHOWN = 160


@define(frozen=True)
class Mutation:
    """One small change: ``kind`` at ``where`` (a node is found again by its position)."""

    kind: str
    where: tuple[str, int, int, int, int]
    node: str
    detail: str
    context: str
    #: The rule text before and after the change (one line, shortened).
    before: str = ""
    after: str = ""

    @property
    def location(self) -> str:
        return f"{self.where[0]}:{self.where[1]}:{self.where[2]}"

    def describe(self) -> str:
        return f"{self.location}: {self.detail} in {self.context}"

    def change_text(self) -> str:
        """``before -> after`` as the rules read."""
        return f"{self.before}  ->  {self.after}" if self.before or self.after else self.detail


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
                text = _one_line(print_expr(requirement.condition))
                found.append(
                    Mutation(
                        "drop-requirement",
                        _key(requirement.span),
                        "Requirement",
                        f"requirement {i + 1} dropped ({requirement.message})",
                        context,
                        f"require: {text}",
                        "(no requirement)",
                    )
                )
            _negate(requirement.condition, f"requirement of {context}", found)
            _walk(requirement.condition, f"requirement of {context}", found)
        if action.cost is not None:
            _walk(action.cost, f"cost of {context}", found)
        if action.effect is not None:
            _walk(action.effect, f"effect of {context}", found)
    for trigger in rules.triggers.values():
        context = f"trigger '{trigger.name}'"
        if trigger.condition is not None:
            _negate(trigger.condition, f"'when' of {context}", found)
            _walk(trigger.condition, f"'when' of {context}", found)
        _walk(trigger.effect, f"effect of {context}", found)
    used = _used_functions(rules)
    for function in rules.functions.values():
        if function.name in used:  # not those only the display (or the checks) call
            _walk(function.body, f"function '{function.name}'", found)
    constants = _used_constants(rules, used)
    for constant in rules.constants.values():
        if constant.span is None or constant.name not in constants:  # only the bots' or the display's
            continue
        value = constant.value
        if isinstance(value, int) and not isinstance(value, bool):
            detail = f"{constant.name} {value} -> {value + 1}"
            found.append(
                Mutation(
                    "constant",
                    _key(constant.span),
                    "Constant",
                    detail,
                    "constants",
                    f"{constant.name}: {value}",
                    f"{constant.name}: {value + 1}",
                )
            )
        elif isinstance(value, list | tuple) and value and all(type(v) is int for v in value):
            i = len(value) // 2
            after = list(value)
            after[i] += 1
            found.append(
                Mutation(
                    "constant",
                    _key(constant.span),
                    "Constant",
                    f"{constant.name}[{i}] {value[i]} -> {value[i] + 1}",
                    "constants",
                    _one_line(f"{constant.name}: {list(value)}"),
                    _one_line(f"{constant.name}: {after}"),
                )
            )
    unique = {(f.kind, f.where, f.node, f.detail): f for f in found}
    return list(unique.values())


def _used_functions(rules: m.RulesModel) -> set[str]:
    """The functions the rules call (from actions, triggers, setup, flow and scoring), transitively;
    not those only the checks call (an action's or a trigger's ``ensures:``)."""
    roots = [rules.actions, rules.triggers, rules.setup, rules.flow, rules.scoring]
    used: set[str] = set()
    pending = [name for root in roots for name in _calls(root, rules.functions)]
    while pending:
        name = pending.pop()
        if name not in used:
            used.add(name)
            pending.extend(_calls(rules.functions[name].body, rules.functions))
    return used


def _used_constants(rules: m.RulesModel, functions: set[str]) -> set[str]:
    """The constants the rules read (from actions, triggers, setup, flow, scoring and the
    functions they call)."""
    roots: list[Any] = [rules.actions, rules.triggers, rules.setup, rules.flow, rules.scoring]
    roots += [rules.functions[name].body for name in functions]
    return {name for root in roots for name in _names(root) if name in rules.constants}


def _names(node: Any) -> Iterator[str]:
    if isinstance(node, dict):
        node = tuple(node.values())
    if isinstance(node, tuple | list):
        for item in node:
            yield from _names(item)
        return
    if isinstance(node, str):
        return
    if not attrs.has(type(node)) or isinstance(node, m.PropertyDecl):  # an ensures: a check
        return
    if isinstance(node, ast.Name):
        yield node.id
        return
    for attribute in attrs.fields(type(node)):
        yield from _names(getattr(node, attribute.name))


def _calls(node: Any, functions: dict[str, m.FunctionDecl]) -> Iterator[str]:
    if isinstance(node, dict):
        node = tuple(node.values())
    if isinstance(node, tuple | list):
        for item in node:
            yield from _calls(item, functions)
        return
    if not attrs.has(type(node)) or isinstance(node, m.PropertyDecl):  # an ensures: a check
        return
    if isinstance(node, ast.Call) and node.function in functions:
        yield node.function
    for attribute in attrs.fields(type(node)):
        yield from _calls(getattr(node, attribute.name), functions)


def _negate(condition: Any, context: str, found: list[Mutation]) -> None:
    span = getattr(condition, "span", None)
    if span is None or span.line <= 0 or not _is_node(condition):
        return
    before = _one_line(print_expr(condition))
    after = _one_line(print_expr(ast.Unary("not", condition)))
    found.append(Mutation("negate", _key(span), "Negate", "condition negated", context, before, after))


def _walk(node: Any, context: str, found: list[Mutation]) -> None:
    if isinstance(node, tuple):
        for item in node:
            _walk(item, context, found)
        return
    if not _is_node(node) or _is_note(node):
        return
    span = getattr(node, "span", None)
    if span is not None and span.line > 0:
        _sites_at(node, _key(span), context, found)
    for attribute in attrs.fields(type(node)):
        _walk(getattr(node, attribute.name), context, found)


def _sites_at(node: Any, where: tuple[str, int, int, int, int], context: str, found: list[Mutation]) -> None:
    """The mutations of one node (each described by the text before and after it)."""

    def add(kind: str, tag: str, detail: str) -> None:
        mutation = Mutation(kind, where, tag, detail, context)
        changed = _change_for(mutation)(node)
        if changed is not None:
            mutation = attrs.evolve(mutation, before=_text(node), after=_text(changed))
        found.append(mutation)

    if isinstance(node, ast.Binary):
        other = _COMPARISONS.get(node.op) or _ARITHMETIC.get(node.op)
        if other is not None:
            kind = "comparison" if node.op in _COMPARISONS else "arithmetic"
            add(kind, f"Binary{node.op}", f"'{node.op}' -> '{other}'")
    elif isinstance(node, ast.Assign) and node.op in _ASSIGN:
        add("arithmetic", f"Assign{node.op}", f"'{node.op}' -> '{_ASSIGN[node.op]}'")
    elif isinstance(node, ast.Literal) and type(node.value) is int:
        add("constant", f"Literal{node.value}", f"{node.value} -> {node.value + 1}")
    elif isinstance(node, ast.Call) and node.function in _SWAPPABLE and len(node.args) >= 3:
        add("swap", f"Call{node.function}", f"{node.function}: sides swapped")
    elif isinstance(node, ast.Call) and node.function in _NEIGHBOURS and len(node.args) == 1:
        add("swap-player", f"Neighbour{node.function}", f"{node.function}(x) -> x")
    elif isinstance(node, ast.Name) and node.id == "me":
        add("swap-player", "Me", "me -> next_player(me)")
    if isinstance(node, _DROPPABLE):
        add("drop-effect", f"Drop{type(node).__name__}", "statement dropped")
    elif isinstance(node, ast.If):
        for condition, _ in node.branches:
            _negate(condition, context, found)
    elif isinstance(node, ast.Conditional):
        _negate(node.condition, context, found)


def _is_note(node: Any) -> bool:
    """A ``note(...)``: commentary for everyone, not mutated."""
    call = node.call if isinstance(node, ast.CallStatement) else node
    return isinstance(call, ast.Call) and call.function == "note"


def _text(node: Any) -> str:
    if isinstance(node, ast.Assign | ast.Let | ast.Emit | ast.Fail | ast.Pass | ast.CallStatement):
        return _one_line(print_block((node,)))
    return _one_line(print_expr(node))


def _one_line(text: str) -> str:
    text = " ".join(text.split())
    return text if len(text) <= _SHOWN else text[: _SHOWN - 3] + "..."


def _is_node(value: Any) -> bool:
    return attrs.has(type(value)) and type(value).__module__ == ast.__name__


def _key(span: Span) -> tuple[str, int, int, int, int]:
    return (span.file, span.line, span.column, span.end_line, span.end_column)


# ---------------------------------------------------------------- applying one


def _change_for(mutation: Mutation) -> Callable[[Any], Any]:
    """The rewrite of the node ``mutation`` names (None for any other node)."""
    tag = mutation.node

    def change(node: Any) -> Any:
        span = getattr(node, "span", None)
        if span is None or _key(span) != mutation.where:
            return None
        if tag == "Negate" and _is_expression(node):
            return ast.Unary("not", node, span=span)
        if isinstance(node, ast.Binary) and tag == f"Binary{node.op}":
            return attrs.evolve(node, op=_COMPARISONS.get(node.op) or _ARITHMETIC[node.op])
        if isinstance(node, ast.Assign) and tag == f"Assign{node.op}":
            return attrs.evolve(node, op=_ASSIGN[node.op])
        if isinstance(node, ast.Literal) and type(node.value) is int and tag == f"Literal{node.value}":
            return attrs.evolve(node, value=node.value + 1)
        if isinstance(node, ast.Call) and tag == f"Call{node.function}":
            args = list(node.args)
            args[1], args[2] = args[2], args[1]
            return attrs.evolve(node, args=tuple(args))
        if isinstance(node, ast.Call) and tag == f"Neighbour{node.function}":
            return node.args[0]
        if isinstance(node, ast.Name) and tag == "Me" and node.id == "me":
            return ast.Call("next_player", (node,), span=span)
        if isinstance(node, _DROPPABLE) and tag == f"Drop{type(node).__name__}":
            return ast.Pass(span=span)
        return None

    return change


def _is_expression(node: Any) -> bool:
    return isinstance(node, ast.Expr)  # the union of expression nodes


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
    change = _change_for(mutation)
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
