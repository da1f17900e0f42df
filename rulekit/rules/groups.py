"""Requirement groups: named, parameterised lists of requirements, used by actions.

A group is written once (its conditions, messages and citations) and used by any
number of actions as ``use: "anchored_at_harbor(me)"``.  Using it adds the group's
requirements to the action, in order; each condition becomes
``let p = <argument> in <condition>`` for every parameter ``p``, the argument checked
against the parameter's declared type, so nothing downstream (the compiler, the
engine's explanations, verify) needs to know groups exist.  Groups may use other
groups, never in a cycle.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence

from attrs import frozen

from rulekit.dsl import ast
from rulekit.errors import DiagnosticBag, Span, did_you_mean
from rulekit.rules.model import Requirement


@frozen
class Use:
    """``use: group(args)`` in a requirement list."""

    call: ast.Call
    span: Span | None


@frozen
class RequirementGroup:
    """A named group: typed parameters and its requirements (which may use other groups)."""

    name: str
    params: tuple[tuple[str, str], ...]  # name, type text
    requires: tuple[Requirement | Use, ...]
    span: Span | None


def expand(
    items: Sequence[Requirement | Use], groups: Mapping[str, RequirementGroup], bag: DiagnosticBag
) -> tuple[Requirement, ...]:
    """The requirements with every ``use`` replaced by the group's requirements."""
    return tuple(_expand(items, groups, bag, ()))


def _expand(
    items: Sequence[Requirement | Use],
    groups: Mapping[str, RequirementGroup],
    bag: DiagnosticBag,
    using: tuple[str, ...],
) -> list[Requirement]:
    result: list[Requirement] = []
    for item in items:
        if isinstance(item, Requirement):
            result.append(item)
            continue
        call = item.call
        group = groups.get(call.function)
        if group is None:
            bag.error(
                f"unknown requirement group '{call.function}'",
                call.span,
                hint=did_you_mean(call.function, groups) or "declare it under requirements:",
            )
            continue
        if group.name in using:
            continue  # a cycle, reported once by check()
        if call.keywords or len(call.args) != len(group.params):
            bag.error(
                f"requirement group '{group.name}' takes {len(group.params)} argument(s)"
                + (f", not {len(call.args)}" if not call.keywords else " and no keyword arguments"),
                call.span,
            )
            continue
        for requirement in _expand(group.requires, groups, bag, (*using, group.name)):
            condition = requirement.condition
            for (name, type_text), arg in reversed(tuple(zip(group.params, call.args, strict=True))):
                condition = ast.LetIn(name, arg, condition, declared=type_text, span=condition.span)
            result.append(Requirement(condition, requirement.message, requirement.cite, requirement.span))
    return result


def check(groups: Mapping[str, RequirementGroup], bag: DiagnosticBag) -> None:
    """Report groups that use each other in a cycle (the first cycle found from each group)."""
    done: set[str] = set()

    def visit(name: str, path: list[str]) -> bool:
        path.append(name)
        for item in groups[name].requires:
            callee = item.call.function if isinstance(item, Use) else None
            if callee is None or callee not in groups or callee in done:
                continue
            if callee in path:
                cycle = [*path[path.index(callee) :], callee]
                bag.error(
                    "requirement groups use each other in a cycle: " + " -> ".join(cycle),
                    groups[callee].span,
                    hint="a group may use other groups, but never itself",
                )
                return True
            if visit(callee, path):
                return True
        path.pop()
        done.add(name)
        return False

    for name in groups:
        if name not in done and visit(name, []):
            return
