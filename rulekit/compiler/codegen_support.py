"""The tables and small helpers shared by code generation (:mod:`rulekit.compiler.codegen`):
the aggregates, operator sets, nesting limit, span marker, and text for messages."""

from __future__ import annotations

from typing import Any

from rulekit.compiler import emit
from rulekit.compiler.facts import Recorder
from rulekit.dsl import ast
from rulekit.dsl import types as t
from rulekit.dsl.printer import loop_names, print_expr
from rulekit.dsl.types import Type

AGGREGATES = {
    "count": "number of elements: count(c for c in cities if c.open)",
    "sum": "sum of the elements: sum(c.value for c in cities)",
    "min": "smallest element, or none if there is none",
    "max": "largest element, or none if there is none",
    "any": "true if some element is true",
    "all": "true if every element is true",
    "list": "the elements as a list (same as [...])",
    "first": "the first element, or none",
    "rank": "elements sorted by the 'by' key, highest first; ties keep collection order",
    "sorted": "elements sorted by the 'by' key, lowest first; ties keep collection order",
    "distinct": "the first element of each group of identical ones (by the 'by' key, or else "
    "components of the same kind with equal attributes and fields), in collection order",
}

ARITH = {"+", "-", "*", "//", "%"}
COMPARE = {"==", "!=", "<", "<=", ">", ">="}


def article(thing: object) -> str:
    """``thing`` with its indefinite article: 'an int', 'a player'."""
    text = str(thing)
    return ("an " if text[:1] in "aeiou" else "a ") + text


#: How deeply expressions and statements may nest (Python's own parser stops near 200
#: parentheses, and each level may add up to three).
MAX_NESTING = 50

#: Marks a generated line with the index (in SPANS) of the rule text it came from.
SPAN_MARK = "#@"

#: Built-ins that write values as text: players in them are written P1, P2... (the
#: checker knows which values are players; at run time they are plain seat numbers).
TEXT_BUILTINS = frozenset({"str", "concat"})


def as_text(code: str, type_: Type, note: Recorder, depth: int = 0) -> str:
    """Code for the value with its players replaced by their names (P1, P2), also inside lists,
    maps and records (the checker knows where players are; at run time they are seat numbers);
    the built-ins it calls are noted in ``note``."""
    if not holds_players(type_):
        return code
    if type_ in (t.PLAYER, t.OWNER):
        note.builtin("B_player_name")
        return f"B_player_name({code})"
    var = f"_p{depth}"
    # (``code`` is passed to a lambda, not looped over: it may hold ':=', which Python
    # refuses in a comprehension's iterable)
    if type_.is_list:
        each = as_text(var, t.element_type(type_), note, depth + 1)
        return f"(lambda {var}: tuple({each} for {var} in {var}))({code})"
    if type_.is_map:
        key, value = f"_k{depth}", f"_v{depth}"
        key_text = as_text(key, t.map_key(type_), note, depth + 1)
        value_text = as_text(value, t.map_value(type_), note, depth + 1)
        return f"(lambda {var}: {{{key_text}: {value_text} for {key}, {value} in {var}.items()}})({code})"
    assert type_.is_record
    fields = dict(type_.fields or ())
    if fields:
        note.builtin("B_get")
    converted = ", ".join(
        f"{emit.literal(name)}: {as_text(f'B_get({var}, {emit.literal(name)})', ft, note, depth + 1)}"
        for name, ft in fields.items()
    )
    return f"(lambda {var}: {{**{var}, {converted}}})({code})"


def holds_maps(type_: Type) -> bool:
    if type_.is_map or type_.is_record:
        return True
    return type_.is_list and holds_maps(t.element_type(type_))


def holds_players(type_: Type) -> bool:
    if type_ in (t.PLAYER, t.OWNER):
        return True
    if type_.is_list:
        return holds_players(t.element_type(type_))
    if type_.is_map:
        return holds_players(t.map_key(type_)) or holds_players(t.map_value(type_))
    if type_.is_record:
        return any(holds_players(ft) for _, ft in type_.fields or ())
    return False


def bound_names(node: Any) -> set[str]:
    """Every name bound inside ``node`` (loop, let and where variables), which could capture
    a name substituted into it."""
    found: set[str] = set()
    stack = [node]
    while stack:
        current = stack.pop()
        if isinstance(current, ast.Comprehension):
            found.update(name for var, _ in current.loops for name in loop_names(var))
            found.update(name for name, _ in current.bindings)
        elif isinstance(current, ast.LetIn | ast.Where | ast.Let):
            found.add(current.name)
        elif isinstance(current, ast.For):
            found.add(current.var)
        if isinstance(current, tuple):
            stack.extend(current)
        elif hasattr(current, "__attrs_attrs__"):
            stack.extend(getattr(current, a.name) for a in current.__attrs_attrs__ if a.name != "span")
    return found


def is_plus(node: ast.Expr) -> bool:
    return isinstance(node, ast.Binary) and node.op == "+"


def concat_hint(node: ast.Binary) -> str:
    """``concat(a, b)`` for ``a + b`` (a chain ``a + b + c`` becomes one concat)."""
    parts: list[ast.Expr] = []

    def flatten(e: ast.Expr) -> None:
        if isinstance(e, ast.Binary) and e.op == "+":
            flatten(e.left)
            flatten(e.right)
        else:
            parts.append(e)

    flatten(node)
    text = f"concat({', '.join(print_expr(p) for p in parts)})"
    return text if len(text) <= 80 else "concat(a, b, ...)"


def describe(node: ast.Expr) -> str:
    if isinstance(node, ast.Name):
        return node.id
    if isinstance(node, ast.Attribute):
        return f"{describe(node.subject)}.{node.name}"
    return "expression"
