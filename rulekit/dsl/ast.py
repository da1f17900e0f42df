"""AST nodes produced by the DSL parser; every node carries its source span.

Spans take no part in equality, so ``parse(print(tree)) == tree`` holds.
"""

from __future__ import annotations

from attrs import field, frozen

from rulekit.errors import Span

_NOWHERE = Span("<unknown>", 1, 1, 1, 1)


def _span() -> Span:
    return field(default=_NOWHERE, eq=False, kw_only=True, repr=False)


# ----------------------------------------------------------------- expressions


@frozen
class Literal:
    """An int, string, bool or ``none``: ``3``, ``"yes"``, ``true``, ``none``."""

    value: int | str | bool | None
    span: Span = _span()


@frozen
class Name:
    """A reference: a parameter, a let/loop variable, a constant, a collection."""

    id: str
    span: Span = _span()


@frozen
class Attribute:
    """``subject.name``: a field of a player, a component, ``game`` or ``turn``."""

    subject: Expr
    name: str
    span: Span = _span()


@frozen
class Index:
    """``subject[key]``: an element of a list, tuple or table."""

    subject: Expr
    key: Expr
    span: Span = _span()


@frozen
class Keyword:
    """``name=value`` inside a call's arguments."""

    name: str
    value: Expr
    span: Span = _span()


@frozen
class Call:
    """``f(a, b, key=c)``: a built-in or a ruleset function."""

    function: str
    args: tuple[Expr, ...]
    keywords: tuple[Keyword, ...] = ()
    span: Span = _span()


@frozen
class Comprehension:
    """``expr for x in xs [for y in ys] [where n = v] [if cond] [by key]``.

    Used inside ``[...]`` (a list) and as the single argument of an aggregate
    such as ``sum(...)``, ``count(...)`` or ``rank(...)``.  A loop's target is a
    name, or a tuple of names that takes each element apart (``for (cell, part) in region``).
    ``bindings`` (the ``where`` clauses, before or after the ``if``) are computed in order for
    each element, after the loops: the condition, the key, the element and the later bindings
    see them.
    """

    element: Expr
    loops: tuple[tuple[str | tuple[str, ...], Expr], ...]
    condition: Expr | None = None
    key: Expr | None = None
    bindings: tuple[tuple[str, Expr], ...] = ()
    span: Span = _span()


@frozen
class Aggregate:
    """``count(x for x in xs if c)``, ``sum(...)``, ``rank(... by key)`` and friends."""

    function: str
    comprehension: Comprehension
    span: Span = _span()


@frozen
class ListExpr:
    """``[a, b, c]``."""

    items: tuple[Expr, ...]
    span: Span = _span()


@frozen
class ListComprehension:
    """``[x.cost for x in cards if x.seals > 1]``."""

    comprehension: Comprehension
    span: Span = _span()


@frozen
class TupleExpr:
    """``(x, y)``."""

    items: tuple[Expr, ...]
    span: Span = _span()


@frozen
class Unary:
    """``-x`` (op ``-``) and ``not x`` (op ``not``)."""

    op: str
    operand: Expr
    span: Span = _span()


@frozen
class Binary:
    """Arithmetic, comparison, membership and boolean operators."""

    op: str
    left: Expr
    right: Expr
    span: Span = _span()


@frozen
class Conditional:
    """``a if cond else b``."""

    condition: Expr
    then: Expr
    otherwise: Expr
    span: Span = _span()


@frozen
class Where:
    """``body where name = value``: a let-binding local to ``body``."""

    body: Expr
    name: str
    value: Expr
    span: Span = _span()


@frozen
class LetIn:
    """``let name = value in body``: a binding local to ``body``, read top-down.

    ``declared`` is the type text the value must have, when the binding stands for a
    parameter (a requirement group's, bound to the argument of its use); the parser
    never sets it, and like a span it takes no part in equality (the printer leaves it out).
    """

    name: str
    value: Expr
    body: Expr
    declared: str | None = field(default=None, kw_only=True, eq=False)
    span: Span = _span()


@frozen
class Record:
    """``{kind: "knight", strength: 3}``: a record, a map from field names to values.

    Each field is a :class:`Keyword` (its name, its value and the span of both).
    """

    fields: tuple[Keyword, ...]
    span: Span = _span()


@frozen
class With:
    """``card with {strength: n}``: a copy of a record with some fields replaced."""

    subject: Expr
    changes: Record
    span: Span = _span()


Expr = (
    Literal
    | Name
    | Attribute
    | Index
    | Call
    | Aggregate
    | ListExpr
    | ListComprehension
    | TupleExpr
    | Unary
    | Binary
    | Conditional
    | Where
    | LetIn
    | Record
    | With
)

# ------------------------------------------------------------------ statements


@frozen
class Assign:
    """``target.field = value``; op is ``=``, ``+=`` or ``-=``."""

    target: Attribute
    op: str
    value: Expr
    span: Span = _span()


@frozen
class Let:
    """``let name = value``: visible to the statements after it."""

    name: str
    value: Expr
    span: Span = _span()


@frozen
class Emit:
    """``emit event(key=value, ...)``: runs the triggers that listen to ``event``."""

    event: str
    args: tuple[Keyword, ...]
    span: Span = _span()


@frozen
class Fail:
    """``fail "message"``: reject the action being applied; nothing changes."""

    message: Expr
    span: Span = _span()


@frozen
class Pass:
    """``pass``: do nothing."""

    span: Span = _span()


@frozen
class CallStatement:
    """An effect built-in called for its effect: ``transfer(3, me, bank)``."""

    call: Call
    span: Span = _span()


@frozen
class If:
    """``if c: ... elif d: ... else: ...``; ``branches`` pairs conditions with bodies."""

    branches: tuple[tuple[Expr, tuple[Stmt, ...]], ...]
    otherwise: tuple[Stmt, ...] = ()
    span: Span = _span()


@frozen
class For:
    """``for x in collection: ...``: bounded, the collection is finite."""

    var: str
    iterable: Expr
    body: tuple[Stmt, ...]
    span: Span = _span()


Stmt = Assign | Let | Emit | Fail | Pass | CallStatement | If | For


@frozen
class Block:
    """A sequence of statements: an effect."""

    statements: tuple[Stmt, ...]
    span: Span = _span()


Node = Expr | Stmt | Block | Comprehension | Keyword
