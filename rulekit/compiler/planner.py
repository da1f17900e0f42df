"""Plan legal-action enumeration: one generated enumerator function per action.

The compiler hands the planner what it already generated for an action (the Python code
of each parameter's domain, each requirement and the cost) and the AST of each
requirement.  The planner writes one function that lists the action's legal instances:

* parameters are chosen in declaration order by nested loops;
* each requirement (and the cost) is tested, inline, as soon as the parameters it reads
  are chosen, in declaration order (the order ``explain`` reports), so one failing
  requirement prunes every choice of the later parameters;
* a domain that reads none of the earlier parameters is computed once per listing,
  lazily (the first time it is needed), not once per choice of the earlier ones;
* when the first test after choosing ``x`` from a whole collection is ``x in E`` (or
  ``x in E or x in G``), the loop runs over the members of ``E`` (and ``G``) in
  collection order instead of over the whole collection;
* nothing is built for a candidate until it is legal: then ``mk((name, args))`` is
  appended to ``out``.

Every generated line keeps the ``#@N`` span marker of the rule text it runs, so an
error raised while listing points at the same rule as before.  Enumeration yields the
same actions in the same order as testing every candidate against every requirement
(the reference enumerator the engine keeps for tests and ``RULEKIT_REFERENCE_ENUMERATION``).
"""

from __future__ import annotations

import re
from collections.abc import Callable, Sequence

from attrs import frozen

from rulekit.compiler import emit
from rulekit.dsl import ast
from rulekit.dsl import types as t
from rulekit.limits import LIMITS
from rulekit.runtime.errors import RuleFailure

_COLLECTION = re.compile(r"C_(\w+)")


@frozen
class Check:
    """A requirement (or the cost test) ready to inline: its code reads the first ``arity``
    parameters; ``mark`` is its span marker comment."""

    code: str
    arity: int
    mark: str
    member_of: tuple[str, ...] = ()  # code of E, G when the check is `p in E or p in G` (last param p)


@frozen
class ActionPlan:
    """What the planner needs to know about one action."""

    name: str
    params: tuple[str, ...]  # Python names (v_x)
    domains: tuple[tuple[str, str, frozenset[int]], ...]  # (code, marker, parameter indexes read)
    # (each domain is charged to the step budget by its length, as the domain functions are)
    checks: tuple[Check, ...]
    cost: Check | None
    money: str | None


def membership_sets(
    condition: ast.Expr, param: str, later: frozenset[str], names: Callable[[ast.Expr], set[str]]
) -> list[ast.Expr] | None:
    """For ``param in E`` or ``param in E or param in G ...``: the expressions ``E, G...``
    (which must not read ``param`` or a later parameter); otherwise None."""
    if isinstance(condition, ast.Binary) and condition.op == "or":
        left = membership_sets(condition.left, param, later, names)
        right = membership_sets(condition.right, param, later, names)
        return None if left is None or right is None else left + right
    if (
        isinstance(condition, ast.Binary)
        and condition.op == "in"
        and isinstance(condition.left, ast.Name)
        and condition.left.id == param
        and not (names(condition.right) & (later | {param}))
    ):
        return [condition.right]
    return None


def generate(plan: ActionPlan, fname: str) -> str:
    """The source of ``def fname(F, R, me, mk, out)`` appending the legal instances to ``out``."""
    n = len(plan.params)
    at_depth: list[list[Check]] = [[] for _ in range(n + 1)]
    for check in plan.checks:
        at_depth[min(check.arity, n)].append(check)
    cost_depth = None if plan.cost is None else min(plan.cost.arity, n)
    lines = [f"def {fname}(F, R, me, mk, out):"]
    hoisted = [i for i in range(1, n) if not plan.domains[i][2]]
    for i in hoisted:
        lines.append(f"    D{i} = None")
    money = f"F[(me, {emit.literal(plan.money)})]"
    if plan.cost is not None and plan.money is not None:  # the state does not change while
        lines.append(f"    P_money = {money}")  # listing: read the money once
        money = "P_money"
    lines.append("    add = out.append")

    def tests(depth: int, indent: str, fail: str) -> None:
        for check in at_depth[depth]:
            lines.append(f"{indent}if not ({check.code}):{check.mark}")
            lines.append(f"{indent}    {fail}")
        if cost_depth == depth and plan.cost is not None:
            lines.append(f"{indent}if {money} < ({plan.cost.code}):{plan.cost.mark}")
            lines.append(f"{indent}    {fail}")

    tests(0, "    ", "return")
    indent = "    "
    for i, param in enumerate(plan.params):
        code, mark, _ = plan.domains[i]
        first = at_depth[i + 1][0] if at_depth[i + 1] else None
        collection = _COLLECTION.fullmatch(code)
        if first is not None and first.member_of and collection is not None:
            kind = collection.group(1)
            members = " | ".join(f"P_set({e})" for e in first.member_of)
            source = emit.step_iter(f"(sorted(({members}) & S_{kind}, key=I_{kind}.get) if S_{kind} else ())")
            mark = first.mark
        elif i in hoisted:
            lines.append(f"{indent}if D{i} is None:")
            lines.append(f"{indent}    D{i} = {code}{mark}")
            source = emit.step_iter(f"D{i}")  # charged at every use, as a domain function call is
        else:
            source = emit.step_iter(code)
        lines.append(f"{indent}for {param} in {source}:{mark}")
        indent += "    "
        tests(i + 1, indent, "continue")
    lines.append(f"{indent}add(mk(({emit.literal(plan.name)}, ({''.join(p + ', ' for p in plan.params)}))))")
    if n:  # a listing may not grow without bound (the limit max_candidates): checked after each
        # run of the innermost loop, whose length the step budget already bounds
        lines.append(f"{indent[:-4]}if len(out) > P_limits.max_candidates:")
        lines.append(f"{indent[:-4]}    P_too_many()")
    return "\n".join(lines) + "\n"


def collection_tables(kinds: Sequence[tuple[str, tuple[str, ...]]]) -> dict[str, object]:
    """The namespace entries the generated enumerators use: each collection's members as a
    set (``S_kind``) and their positions (``I_kind``); ``P_set`` is ``set``; ``P_miss`` marks
    a value not memoized yet."""
    tables: dict[str, object] = {
        "P_set": set,
        "P_miss": _MISSING,
        "P_type_error": TypeError,
        "P_limits": LIMITS,
        "P_too_many": too_many_candidates,
    }
    for kind, ids in kinds:
        tables[f"S_{kind}"] = frozenset(ids)
        tables[f"I_{kind}"] = {id_: i for i, id_ in enumerate(ids)}
    return tables


_MISSING = object()


def too_many_candidates() -> None:
    """Raised by a generated enumerator whose listing grew beyond the limit."""
    raise RuleFailure(f"more than {LIMITS.max_candidates} legal actions at once (limit max_candidates)")


_HASHABLE = frozenset({"int", "bool", "str", "none", "player", "owner", "entity", "tuple"})


def hashable(type_: t.Type) -> bool:
    """Whether values of ``type_`` can key a memo (tuples may still hold a map: then the
    generated code falls back to computing)."""
    if type_.is_list:
        return type_.element is not None and hashable(type_.element)
    return type_.name in _HASHABLE


def memoized_function(
    name: str, params: Sequence[str], code: str, mark: str, key: int, *, memo: bool, entry: str
) -> str:
    """A rules function, memoized while legal actions are listed.

    While the engine lists legal actions the state does not change, so a function
    (an expression: no effects) called again with the same acting player and arguments
    gives the same value: the engine sets ``R.memo`` to a fresh dict for each listing
    (None otherwise), and the function keeps its results there.  ``key`` tells the
    functions apart; ``entry`` is the statement every rule function starts with (the
    step budget's charge), run on a memo hit too.
    """
    args = ", ".join(["F", "R", "me", *params])
    if not memo:
        return f"def {name}({args}):\n    {entry}\n    return {code}{mark}\n"
    memo_key = f"({key}, me{''.join(', ' + p for p in params)})"
    return (
        f"def {name}({args}):\n"
        f"    {entry}\n"
        f"    M = R.memo\n"
        f"    if M is not None:\n"
        f"        try:\n"
        f"            v = M.get({memo_key}, P_miss)\n"
        f"        except P_type_error:  # an unhashable argument: no memo\n"
        f"            M = None\n"
        f"        else:\n"
        f"            if v is not P_miss:\n"
        f"                return v\n"
        f"    v = {code}{mark}\n"
        f"    if M is not None:\n"
        f"        M[{memo_key}] = v\n"
        f"    return v\n"
    )
