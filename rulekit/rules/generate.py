"""Components generated from parameters: a kind's ``generate: {for: ..., id: ...}``.

Each loop variable of ``for`` is a DSL expression over constants only (numbers, text,
lists, arithmetic and ``range(a, b)``), evaluated when the rules load (by the one load-time
evaluator, :mod:`rulekit.rules.evaluate`); the items are
the product of the loops (the first variable outermost), each with the loop
variables as its attributes and ``id`` the template with ``{variable}`` filled in.
With ``copies: N`` each combination is N distinct items in a row (:func:`copy_ids`).
Every problem is reported once at its ``file:line:col`` and generates nothing.
"""

from __future__ import annotations

import string
from collections.abc import Mapping, Sequence
from itertools import product
from typing import Any

from rulekit.dsl import ast
from rulekit.dsl.names import is_name
from rulekit.errors import DiagnosticBag, Span, did_you_mean
from rulekit.limits import LIMITS
from rulekit.rules.evaluate import Call, Scope, Unevaluable, evaluate
from rulekit.rules.yaml_source import LocDict

__all__ = ["COPY_FIELDS", "copy_ids", "copy_letter", "generate_items"]

#: The id template fields that name a copy: its letter (a, b, ...) and its number (1, 2, ...).
COPY_FIELDS = ("copy", "copy_number")


def generate_items(
    kind: str,
    loops: Mapping[str, ast.Expr],
    loop_spans: Mapping[str, Span | None],
    template: str,
    template_span: Span | None,
    attributes: Sequence[str],
    constants: Mapping[str, Any],
    bag: DiagnosticBag,
    copies: int | None = None,
) -> list[LocDict]:
    """The generated items of ``kind`` as located mappings ``{id: ..., variable: value}``.

    Problems go to ``bag`` (and nothing is generated): a loop that is not a constant
    list, attributes the loops do not cover, an id template naming something other
    than a loop variable, too many items, an id that is not a name, a duplicate id.
    ``copies`` (checked by the caller: a whole number >= 1) makes each combination that
    many items (:func:`copy_ids`).
    """
    where = f"components.{kind}.generate"
    names = list(loops)
    reserved = [name for name in names if name in COPY_FIELDS]
    if copies is not None and reserved:
        bag.error(
            f"{where}.for: '{reserved[0]}' names a copy in the id template when copies is given",
            loop_spans.get(reserved[0]),
            hint="rename the attribute",
        )
        return []
    if set(names) != set(attributes):
        missing = [a for a in attributes if a not in loops]
        extra = [n for n in names if n not in attributes]
        if missing:
            bag.error(
                f"{where}.for does not give attribute{'s' if len(missing) > 1 else ''} "
                + ", ".join(f"'{a}'" for a in missing),
                template_span,
                hint="generated items have exactly the loop variables as attributes",
            )
        for name in extra:
            bag.error(
                f"{where}.for: '{name}' is not an attribute of {kind}",
                loop_spans.get(name),
                hint=did_you_mean(name, attributes) or f"declare it under components.{kind}.attributes",
            )
        return []
    fields = _fields(
        template, [*names, *COPY_FIELDS] if copies is not None else names, where, template_span, bag
    )
    if fields is None:
        return []
    values: list[Sequence[Any]] = []
    scope = _scope(constants)
    for name, expression in loops.items():
        try:
            value = evaluate(expression, scope)
        except Unevaluable as refused:
            bag.error(
                f"{where}.for.{name}: {refused}", refused.span or loop_spans.get(name), hint=refused.hint
            )
            return []
        if not isinstance(value, list | tuple | range):
            bag.error(
                f"{where}.for.{name} must be a list or range(a, b), not {type(value).__name__}",
                expression.span,
            )
            return []
        values.append(value)
    count = copies or 1
    for value in values:
        count *= max(0, value.stop - value.start) if isinstance(value, range) else len(value)
    if count > LIMITS.max_generated_items:
        bag.error(
            f"{where} would make {count} items, more than max_generated_items ({LIMITS.max_generated_items})",
            template_span,
            hint="raise it with --limit max_generated_items=N if the file is trusted",
        )
        return []
    span = template_span or Span("<rules>", 1, 1)
    items: list[LocDict] = []
    seen: set[str] = set()
    for combination in product(*values):
        bound = dict(zip(names, combination, strict=True))
        for item_id in copy_ids(template, copies or 1, bound):
            if not is_name(item_id):
                bag.error(f"{where}.id makes '{item_id}', which is not a name", template_span)
                return []
            if item_id in seen:
                bag.error(
                    f"{where}.id makes '{item_id}' twice", template_span, hint="use every loop variable"
                )
                return []
            seen.add(item_id)
            item = LocDict(id=item_id, **bound)
            item.span = span
            item.key_spans = dict.fromkeys(item, span)
            items.append(item)
    return items


def copy_letter(index: int) -> str:
    """The letters of copy ``index`` (from 0): a ... z, then aa, ab ... (as spreadsheet columns)."""
    letters = ""
    index += 1
    while index:
        index, rest = divmod(index - 1, 26)
        letters = string.ascii_lowercase[rest] + letters
    return letters


def copy_ids(template: str, copies: int, bound: Mapping[str, Any]) -> list[str]:
    """The ids of ``copies`` copies of one item: ``template`` filled with ``bound``.

    ``{copy}`` in the template is the copy's letter (a, b, ... z, aa, ab ...) and
    ``{copy_number}`` its number from 1; a template with neither gets ``_{copy}`` appended
    (``red_3`` -> ``red_3_a``, ``red_3_b``), unless there is one copy (then it is the id).
    """
    named = {field for _, field, _, _ in string.Formatter().parse(template) if field}
    if not named & set(COPY_FIELDS):
        if copies == 1:
            return [template.format(**bound)]
        template += "_{copy}"
    return [
        template.format(**bound, copy=copy_letter(index), copy_number=index + 1) for index in range(copies)
    ]


def _fields(
    template: str, names: Sequence[str], where: str, span: Span | None, bag: DiagnosticBag
) -> list[str] | None:
    """The ``{variable}`` fields of the id template, or None (reported) when one is wrong."""
    try:
        parts = list(string.Formatter().parse(template))
    except ValueError as error:
        bag.error(f"{where}.id is not a valid template: {error}", span, hint="write {x} for a loop variable")
        return None
    fields = []
    for _, field, spec, conversion in parts:
        if field is None:
            continue
        if field not in names:
            bag.error(
                f"{where}.id names '{{{field}}}', which is not a loop variable",
                span,
                hint=did_you_mean(field, names) or "loop variables: " + ", ".join(names),
            )
            return None
        if spec or conversion:
            bag.error(f"{where}.id: write {{{field}}} without a format or conversion", span)
            return None
        fields.append(field)
    return fields


def _scope(constants: Mapping[str, Any]) -> Scope:
    """What a loop of ``generate:`` may use: constants, numbers, text, lists and ``range(a, b)``."""

    def unknown(name: str) -> Unevaluable:
        return Unevaluable(
            f"'{name}' is not a constant (generated items are made when the rules load, before any state)",
            None,
            hint=did_you_mean(name, constants),
        )

    return Scope(
        names=constants,
        calls={"range": Call(2, range)},
        unknown=unknown,
        state="reads the state, which does not exist yet: generated items are made when the rules load",
        state_hint="use constants, numbers, lists and range(a, b)",
        refused="only constants, numbers, text, lists, + - * // % and range(a, b) can be used here "
        "(generated items are made when the rules load, before any state)",
    )


def expand_copies(kind: str, items: Sequence[Any], bag: DiagnosticBag) -> list[Any]:
    """The listed items of ``kind`` with every ``copies: N`` entry made N items (:func:`copy_ids`).

    An entry's ``id`` may name ``{copy}`` or ``{copy_number}``; every copy keeps the entry's
    positions.  A count that is not a whole number >= 1, an id template naming anything
    else, or more than ``max_generated_items`` copies is reported at its position and the
    entry is kept out.  Entries without ``copies`` (and malformed ones) pass unchanged.
    """
    where = f"components.{kind}.items"
    result: list[Any] = []
    made = 0
    for raw in items:
        if not isinstance(raw, LocDict) or "copies" not in raw:
            result.append(raw)
            continue
        copies, copies_span = raw["copies"], raw.key_spans.get("copies") or raw.span
        if type(copies) is not int or copies < 1:
            bag.error(f"{where}: copies must be a whole number of at least 1, not {copies!r}", copies_span)
            continue
        made += copies
        if made > LIMITS.max_generated_items:
            bag.error(
                f"{where}: the copies make more than max_generated_items "
                f"({LIMITS.max_generated_items}) items",
                copies_span,
                hint="raise it with --limit max_generated_items=N if the file is trusted",
            )
            return result
        template = raw.get("id")
        id_span = raw.key_spans.get("id") or raw.span
        if not isinstance(template, str):
            result.append(raw)  # reported by the caller ("each item needs an id")
            continue
        try:
            named = [field for _, field, _, _ in string.Formatter().parse(template) if field is not None]
        except ValueError as error:
            bag.error(f"{where}: the id '{template}' is not a valid template: {error}", id_span)
            continue
        wrong = [field for field in named if field not in COPY_FIELDS]
        if wrong:
            bag.error(
                f"{where}: the id names '{{{wrong[0]}}}'; "
                "an item's id can fill in only {copy} and {copy_number}",
                id_span,
                hint="{copy} is the copy's letter (a, b ...), {copy_number} its number (1, 2 ...)",
            )
            continue
        for item_id in copy_ids(template, copies, {}):
            item = LocDict({key: value for key, value in raw.items() if key != "copies"})
            item["id"] = item_id
            item.span = raw.span
            item.key_spans = {key: span for key, span in raw.key_spans.items() if key != "copies"}
            result.append(item)
    return result
