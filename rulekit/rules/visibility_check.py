"""The checker's part of the information model: visibilities that cannot hold.

A ``public`` field whose ``initial`` value reads a field that not everyone sees shows what
it read to everyone (a public copy of a hidden card); a visibility condition
(``visibility: {to: ...}``) is evaluated on the real state, so one that reads such a field
tells a seat something about it.  Both are reported at their position.  Reads are found on
the syntax trees (functions called included); a name read that is also a component
attribute or a public field's name is not counted (it may be either).  Assignments in
action effects are not followed: ``verify``'s ``engine:no_leak`` finds those copies.
"""

from __future__ import annotations

from typing import Any

from rulekit.errors import Span
from rulekit.rules import model as m


def visibility_problems(rules: m.RulesModel) -> list[tuple[Span | None, str]]:
    """Each visibility that cannot hold, with its position and message."""
    secret: set[str] = set()
    public: set[str] = set()
    for fields in rules.fields.values():
        for name, decl in fields.items():
            (public if decl.visibility == "public" and decl.visible_to is None else secret).add(name)
    attributes = {a for kind in rules.kinds.values() for a in kind.attributes}
    unsure = public | attributes
    walker = ReadWalker(rules)
    problems: list[tuple[Span | None, str]] = []

    def secret_reads(expr: Any) -> list[str]:
        return sorted({name for name, _ in walker.reads(expr, frozenset()) if name in secret - unsure})

    for scope, fields in rules.fields.items():
        for name, decl in fields.items():
            if decl.visibility == "public" and decl.visible_to is None and decl.initial is not None:
                read = secret_reads(decl.initial)
                if read:
                    problems.append(
                        (
                            decl.span,
                            f"{scope}.{name} is public but its initial value reads '{read[0]}', "
                            "which not everyone sees: make it as private as what it reads",
                        )
                    )
            if decl.visible_to is not None:
                read = secret_reads(decl.visible_to)
                if read:
                    problems.append(
                        (
                            decl.span,
                            f"the visibility condition of {scope}.{name} reads '{read[0]}', which not "
                            "everyone sees: a condition may read only public fields (who may see is public)",
                        )
                    )
    return problems


class ReadWalker:
    """The fields an expression reads, each with whether it is read of the scored player."""

    def __init__(self, rules: Any) -> None:
        self.rules = rules
        self.memo: dict[tuple[str, frozenset[str]], set[tuple[str, bool]]] = {}
        self.active: set[tuple[str, frozenset[str]]] = set()

    def reads(self, node: Any, selves: frozenset[str]) -> set[tuple[str, bool]]:
        from rulekit.dsl import ast

        found: set[tuple[str, bool]] = set()
        if isinstance(node, ast.Attribute):
            own = isinstance(node.subject, ast.Name) and node.subject.id in selves
            found.add((node.name, own))
            found |= self.reads(node.subject, selves)
        elif isinstance(node, ast.Call):
            function = self.rules.functions.get(node.function)
            for arg in (*node.args, *(k.value for k in node.keywords)):
                found |= self.reads(arg, selves)
            if function is not None:
                given = frozenset(
                    name
                    for (name, _), arg in zip(function.params, node.args, strict=False)
                    if isinstance(arg, ast.Name) and arg.id in selves
                )
                found |= self.function_reads(node.function, function.body, given)
        elif isinstance(node, ast.Comprehension):
            inner = selves
            for target, iterable in node.loops:
                found |= self.reads(iterable, inner)
                inner = inner - ({target} if isinstance(target, str) else set(target))
            for name, value in node.bindings:  # ``where`` clauses, bound in order
                found |= self.reads(value, inner)
                bound = isinstance(value, ast.Name) and value.id in inner
                inner = inner | {name} if bound else inner - {name}
            for part in (node.element, node.condition, node.key):
                if part is not None:
                    found |= self.reads(part, inner)
        elif isinstance(node, ast.LetIn | ast.Where):
            found |= self.reads(node.value, selves)
            bound = isinstance(node.value, ast.Name) and node.value.id in selves
            inner = selves | {node.name} if bound else selves - {node.name}
            found |= self.reads(node.body, inner)
        elif isinstance(node, tuple):
            for item in node:
                found |= self.reads(item, selves)
        elif hasattr(node, "__attrs_attrs__"):
            for attribute in node.__attrs_attrs__:
                if attribute.name != "span":
                    found |= self.reads(getattr(node, attribute.name), selves)
        return found

    def function_reads(self, name: str, body: Any, selves: frozenset[str]) -> set[tuple[str, bool]]:
        key = (name, selves)
        if key in self.memo:
            return self.memo[key]
        if key in self.active:  # a recursive call: its reads are the ones being gathered
            return set()
        self.active.add(key)
        try:
            found = self.reads(body, selves)
        finally:
            self.active.discard(key)
        self.memo[key] = found
        return found
