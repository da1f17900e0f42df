"""The run-time namespace of a ruleset's generated module, and compiling that module's code.

The namespace holds only rulekit's run-time helpers, the collections, attributes and
constants; :func:`marked_span` maps a generated line back to its rule text.
"""

from __future__ import annotations

import ast as ast_module
from collections.abc import Iterable
from operator import itemgetter
from typing import Any

from rulekit.compiler import emit, planner
from rulekit.compiler.codegen import SPAN_MARK
from rulekit.dsl.names import is_name
from rulekit.errors import Diagnostic, RulesetError, Span
from rulekit.rules import model as m
from rulekit.runtime.builtins import BUILTINS
from rulekit.runtime.errors import RuleFailure
from rulekit.runtime.memory import Memory

SAFE_BUILTINS = {
    "sum": sum,
    "min": min,
    "max": max,
    "any": any,
    "all": all,
    "next": next,
    "tuple": tuple,
    "sorted": sorted,
    "str": str,
    "len": len,
}


def runtime_namespace(
    rules: m.RulesModel, spans: list[Span | None], constants: dict[str, Any]
) -> dict[str, Any]:
    """The globals of a ruleset's generated module: rulekit's run-time helpers, the
    collections and attributes, the constants (``K_name``) and the spans of the rule text;
    ``P_memory``, what its built-ins remember (a new :class:`Memory` per program)."""
    ns: dict[str, Any] = {"__builtins__": SAFE_BUILTINS}
    memory = Memory()  # what the built-ins remember, for this program only
    ns["P_memory"] = memory
    for name, builtin in BUILTINS.items():
        ns[("E_" if builtin.effect else "B_") + name] = builtin.bind(memory)
        if builtin.cyclic is not None:  # every answer at once (planner.Check.every)
            ns["BC_" + name] = builtin.bind_every(memory)
    ns["RuleFailure"] = RuleFailure
    ns["SPANS"] = spans
    ns["A"] = item_attributes(rules)
    ns.update(attribute_tables(rules))
    ns["_sorted_values"] = sorted_values
    ns["_count"] = count_items
    for kind in rules.kinds.values():
        ns[f"C_{kind.name}"] = tuple(i.id for i in kind.items)
    ns.update(constants)
    ns.update(
        planner.collection_tables([(k.name, tuple(i.id for i in k.items)) for k in rules.kinds.values()])
    )
    return ns


def sorted_values(pairs: Iterable[tuple[Any, Any]], reverse: bool = False) -> tuple[Any, ...]:
    """The values of ``(key, value)`` pairs sorted by key (stable): ``sorted``/``rank``/``by``.
    (A helper rather than generated code: the generated pairs may hold ':=', which Python
    refuses in a comprehension's iterable.)"""
    return tuple([value for _, value in sorted(pairs, key=_first, reverse=reverse)])


_first = itemgetter(0)


def count_items(items: Iterable[Any]) -> int:
    """How many items ``items`` yields: ``count(...)``."""
    n = 0
    for _ in items:
        n += 1
    return n


def item_attributes(rules: m.RulesModel) -> dict[tuple[str, str], Any]:
    return {
        (item.id, attr): value
        for kind in rules.kinds.values()
        for item in kind.items
        for attr, value in item.values.items()
    }


def attribute_tables(rules: m.RulesModel) -> dict[str, dict[str, Any]]:
    """``A_attr``: every item's value of the attribute ``attr``, by the item's id (what the
    generated code reads for ``item.attr``)."""
    tables: dict[str, dict[str, Any]] = {}
    for kind in rules.kinds.values():
        for item in kind.items:
            for attr, value in item.values.items():
                if is_name(attr):
                    tables.setdefault(emit.name("A_", attr), {})[item.id] = value
    return tables


def compiled_code(source: str, filename: str, rules: m.RulesModel) -> Any:
    """``source`` audited and compiled; rules too deeply nested for Python are a located error."""
    try:
        tree = ast_module.parse(source, filename)
        emit.audit(tree)
        return compile(tree, filename, "exec")
    except (SyntaxError, RecursionError, MemoryError, ValueError) as error:
        raise RulesetError(
            Diagnostic(
                f"the rules are too deeply nested to compile ({type(error).__name__}: {error})",
                Span(rules.name, 1, 1),
                hint="split long or deeply nested expressions into functions",
            )
        ) from None


def marked_span(lines: list[str], lineno: int, spans: list[Span | None]) -> Span | None:
    """The span named by the marker on generated line ``lineno`` or the closest line above; on a
    function's entry (the step charge before its first statement), its first marked line below."""
    for index in range(min(lineno, len(lines)) - 1, -1, -1):
        text = lines[index]
        index_ = _marker(text)
        if index_ is not None:
            return spans[index_]
        if text.startswith("def "):
            break
    for text in lines[lineno : lineno + 50]:
        if text.startswith("def "):
            return None
        index_ = _marker(text)
        if index_ is not None:
            return spans[index_]
    return None


def _marker(line: str) -> int | None:
    """The span index of the ``  #@N`` marker ending a generated ``line``, if any."""
    at = line.rfind("  " + SPAN_MARK)
    if at < 0:
        return None
    number = line[at + 2 + len(SPAN_MARK) :]
    return int(number) if number.isascii() and number.isdigit() else None
