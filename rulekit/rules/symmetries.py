"""Declared symmetries (``symmetries:``): relabellings the author says the rules cannot tell apart.

A symmetry maps components of some kinds by their attributes, and optionally the tuples of
whole numbers that stand for positions on a board::

    symmetries:
      mirror:
        doc: The rules do not tell left from right.
        components: {cell: {column: "2 - column"}}
        points: {x: "WIDTH - 1 - x", y: y}

Each item of a listed kind goes to the item of the same kind whose attributes are its own with
the listed ones replaced by their values (names: the constants and the item's whole-number
attributes); the map must be a permutation of the kind.  A declaration that is wrong in itself (an
unknown kind, attribute or name) is an error at its position; items that do not map as declared
(an image no item has, two items going to one: a variant moved a cell) are not -- the rules still
load and play -- but verify reports the broken claim.  ``points`` names a tuple's elements in
order and gives each one's image (names: the constants and the elements).  Everything is
evaluated here, when the rules load, by the one load-time evaluator
(:mod:`rulekit.rules.evaluate`); a problem is reported at its position.  ``rulekit verify``
checks the claim (``engine:declared-symmetry``): the rules must commute with the relabelling.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from rulekit.dsl import ast
from rulekit.errors import DiagnosticBag, Span, did_you_mean
from rulekit.rules import model as m
from rulekit.rules.evaluate import Scope, Unevaluable, evaluate

__all__ = ["point_image", "resolve_symmetry"]


def resolve_symmetry(
    name: str,
    components: Mapping[str, Any],
    points: Mapping[str, Any],
    kinds: Mapping[str, m.ComponentKind],
    constants: Mapping[str, Any],
    bag: DiagnosticBag,
    *,
    doc: str | None,
    cite: str | None,
    span: Span | None,
) -> m.SymmetryDecl | None:
    """The symmetry ``name`` with its component map worked out (None: a problem, reported)."""
    numbers = {k: v for k, v in constants.items() if type(v) is int}
    mapping: dict[str, str] = {}
    problem: str | None = None
    ok = True
    for kind_name, attributes in components.items():
        where = f"symmetries.{name}.components.{kind_name}"
        kind = kinds.get(kind_name)
        place = getattr(components, "spans", {}).get(kind_name) or span
        if kind is None:
            bag.error(f"{where}: no component kind '{kind_name}'", place, hint=did_you_mean(kind_name, kinds))
            ok = False
            continue
        moved = _kind_map(where, kind, attributes, numbers, bag, place)
        if moved is None:
            ok = False
        elif isinstance(moved, str):
            problem = problem or moved
        else:
            mapping.update(moved)
    order = tuple(points)
    for coordinate, expression in points.items():
        scope = _scope({**numbers, **dict.fromkeys(order, 0)}, set(order), f"symmetries.{name}.points")
        try:
            _check_names(expression, scope)
        except Unevaluable as wrong:
            bag.error(f"symmetries.{name}.points.{coordinate}: {wrong.message}", wrong.span, hint=wrong.hint)
            ok = False
    if not components and not points:
        bag.error(f"symmetries.{name}: map some components or points", span)
        ok = False
    if not ok:
        return None
    return m.SymmetryDecl(
        name=name,
        mapping=mapping,
        kinds=tuple(components),
        points=tuple((c, points[c]) for c in order),
        constants=numbers,
        doc=doc,
        cite=cite,
        span=span,
        problem=problem,
    )


def point_image(symmetry: m.SymmetryDecl, value: tuple[Any, ...]) -> tuple[Any, ...] | None:
    """The image of a position under ``symmetry`` (None: not a position it maps: another
    length, or not all whole numbers)."""
    if len(value) != len(symmetry.points) or not all(type(v) is int for v in value):
        return None
    names = dict(symmetry.constants) | {c: v for (c, _), v in zip(symmetry.points, value, strict=True)}
    scope = Scope(names, refused="not a position", only_numbers=True)
    return tuple(evaluate(expression, scope) for _, expression in symmetry.points)


def _kind_map(
    where: str,
    kind: m.ComponentKind,
    attributes: Mapping[str, Any],
    numbers: Mapping[str, int],
    bag: DiagnosticBag,
    span: Span | None,
) -> dict[str, str] | str | None:
    """The kind's permutation; a text: why the items do not map (the rules load, verify
    reports it); None: an error in the declaration (reported)."""
    spans = getattr(attributes, "spans", {})
    for attribute in attributes:
        if attribute not in kind.attributes:
            bag.error(
                f"{where}: '{attribute}' is not an attribute of {kind.name}",
                spans.get(attribute) or span,
                hint=did_you_mean(attribute, kind.attributes),
            )
            return None
    by_values = {_key(item.values): item.id for item in kind.items}
    mapping: dict[str, str] = {}
    for item in kind.items:
        own = {k: v for k, v in item.values.items() if type(v) is int}
        scope = _scope({**numbers, **own}, set(own), where)
        image = dict(item.values)
        for attribute, expression in attributes.items():
            try:
                image[attribute] = evaluate(expression, scope)
            except Unevaluable as problem:
                bag.error(f"{where}.{attribute}: {problem.message}", problem.span or span, hint=problem.hint)
                return None
        target = by_values.get(_key(image))
        if target is None:
            shown = ", ".join(f"{a} {image[a]}" for a in attributes)
            return f"the image of {kind.name} '{item.id}' has {shown}, and no {kind.name} has these"
        mapping[item.id] = target
    seen: dict[str, str] = {}
    for source, target in mapping.items():
        if target in seen:
            return f"{kind.name} '{seen[target]}' and '{source}' both go to '{target}': not a permutation"
        seen[target] = source
    return mapping


def _key(values: Mapping[str, Any]) -> str:
    return repr(sorted(values.items()))


def _scope(names: Mapping[str, int], own: set[str], where: str) -> Scope:
    def unknown(name: str) -> Unevaluable:
        return Unevaluable(
            f"'{name}' is neither a whole-number constant nor one of {', '.join(sorted(own)) or 'no names'}",
            None,
            hint=did_you_mean(name, names),
        )

    return Scope(
        names=names,
        unknown=unknown,
        only_numbers=True,
        state="reads the state: a symmetry is worked out when the rules load",
        state_hint="use whole-number constants and the attributes (or coordinates) by name",
        refused=f"{where}: only whole numbers, names and + - * // % can be used here",
    )


def _check_names(expression: ast.Expr, scope: Scope) -> None:
    """Evaluate with every name bound to 0 except constants, to find unknown names and
    refused forms when the rules load (a division by zero is left to the check)."""
    try:
        evaluate(expression, scope)
    except Unevaluable as problem:
        if problem.message != "division by zero":
            raise
