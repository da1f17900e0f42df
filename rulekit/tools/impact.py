"""What reads what: the rules that use a constant, function, field, attribute, component,
event or action.

``rulekit diff`` lists, for every constant, function, state field, component attribute,
component (by id and by its collection), event and action a change touches, the actions,
triggers, functions, invariants, scoring, setup and flow of the rules that read it —
directly, or through the functions they call (``via f``).  An event is read by the rules that
``emit`` it and the triggers that run after it; an action by the triggers that run before or
after it, the flow's turns that list it and the actions offered with it.  Reads are found
statically in the compiled rules' syntax trees, by name: an over-approximation (a field
``money`` of two scopes is one name), never a miss.
"""

from __future__ import annotations

from collections.abc import Iterable, Iterator
from typing import Any

from rulekit.dsl import ast
from rulekit.rules.model import RulesModel, TurnStep


def _names(node: Any, found: set[str], calls: set[str]) -> None:
    if isinstance(node, tuple | list):
        for item in node:
            _names(item, found, calls)
        return
    if not hasattr(node, "__attrs_attrs__"):
        return
    if type(node).__module__ == ast.__name__:
        if isinstance(node, ast.Attribute):
            found.add(node.name)
        elif isinstance(node, ast.Name):
            found.add(node.id)
        elif isinstance(node, ast.Call):
            calls.add(node.function)
        elif isinstance(node, ast.Emit):
            found.add(node.event)
    elif isinstance(node, TurnStep) and node.actions:
        found.update(node.actions)
    for attribute in node.__attrs_attrs__:
        if attribute.name != "span":
            _names(getattr(node, attribute.name), found, calls)


def rules_parts(rules: RulesModel) -> Iterator[tuple[str, Any]]:
    """Every rule that reads something: (its label, its syntax trees)."""
    for name, function in rules.functions.items():
        yield f"function {name}", function.body
    for name, action in rules.actions.items():
        parts = (
            [p.domain for p in action.params]
            + [r.condition for r in action.requires]
            + [action.cost, action.effect]
            + [e.condition for e in action.ensures]
        )
        yield f"action {name}", parts
    for name, trigger in rules.triggers.items():
        yield f"trigger {name}", [trigger.condition, trigger.effect]
    for name, invariant in rules.invariants.items():
        yield f"invariant {name}", invariant.condition
    scoring = rules.scoring
    yield "scoring", [scoring.score, scoring.tiebreak, scoring.end_when]
    if rules.setup is not None:
        yield "setup", rules.setup
    yield "flow", rules.flow  # a step's expressions and blocks are attributes of it
    for scope, fields in rules.fields.items():
        for name, decl in fields.items():
            if decl.initial is not None:
                yield f"state {scope}.{name} (initial)", decl.initial


def users(rules: RulesModel, subjects: Iterable[str]) -> dict[str, list[str]]:
    """For each name in ``subjects``, the rules that read it (``via f`` through function f)."""
    direct: dict[str, tuple[set[str], set[str]]] = {}
    for label, trees in rules_parts(rules):
        found: set[str] = set()
        calls: set[str] = set()
        _names(trees, found, calls)
        direct[label] = (found, calls & set(rules.functions))
    for name, trigger in rules.triggers.items():
        direct[f"trigger {name}"][0].add(trigger.event)  # runs before or after it
    for name, action in rules.actions.items():
        direct[f"action {name}"][0].update((*action.offered_with, *action.fallback_ignoring))
    result: dict[str, list[str]] = {}
    for subject in subjects:
        # functions that use the subject, directly or through other functions
        reach: dict[str, str | None] = {}  # function -> the function it reaches the subject through
        changed = True
        while changed:
            changed = False
            for name in rules.functions:
                if name in reach:
                    continue
                found, calls = direct[f"function {name}"]
                if subject in found or subject == name:
                    reach[name] = None
                    changed = True
                else:
                    through = next((c for c in sorted(calls) if c in reach), None)
                    if through is not None:
                        reach[name] = through
                        changed = True
        listed: list[str] = []
        for label, (found, calls) in direct.items():
            if label == f"function {subject}":
                continue
            if subject in found or subject in calls:
                listed.append(label)
                continue
            through = next((c for c in sorted(calls) if c in reach and c != subject), None)
            if through is not None:
                listed.append(f"{label} (via {through})")
        result[subject] = listed
    return result
