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

from collections.abc import Callable, Mapping, Sequence

from attrs import field, frozen

from rulekit.compiler import callgraph, emit, loops
from rulekit.compiler.facts import Facts, combine
from rulekit.compiler.planner_reads import Line, Stable, hoist_reads, source
from rulekit.dsl import ast
from rulekit.dsl import types as t
from rulekit.limits import LIMITS
from rulekit.runtime import memo
from rulekit.runtime.registry import Builtin


@frozen
class Check:
    """A requirement (or the cost test) ready to inline: its code reads the first ``arity``
    parameters; ``mark`` is its span marker comment."""

    code: str
    arity: int
    mark: str
    member_of: tuple[str, ...] = ()  # code of E, G when the check is `p in E or p in G` (last param p)
    #: When the check is a call of a built-in with a ``cyclic`` parameter that is the last
    #: parameter: (the code asking every answer at once, the code of the answer's index).
    every: tuple[str, str] | None = None
    #: The facts of ``code`` (:mod:`rulekit.compiler.facts`); None: unknown (never shared).
    facts: Facts | None = None
    #: Some code of ``member_of`` may charge the step budget (then the check is still tested).
    member_charges: bool = True


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
    #: Per domain: the fields it reads and whether it reads the acting player, when that is
    #: all it depends on (:func:`field_reads`); then a domain that reads no parameter is
    #: kept across listings like a rules function's results (:func:`kept_value`).
    kept: tuple[tuple[Reads | None, bool], ...] = ()
    #: Which fields every state holds (planner_reads.Stable): their reads are made once
    #: into locals (:func:`planner_reads.hoist_reads`); None: every read stays in place.
    stable: Stable | None = None
    #: Per domain: the kind when it is a whole collection of components (``C_kind``).
    collections: tuple[str | None, ...] = ()
    #: Per domain: the facts of its code (None: not known, then the enumerator's neither).
    domain_facts: tuple[Facts, ...] | None = None


@frozen
class Enumerator:
    """A generated enumerator before its field reads are made once: its lines (a header,
    then one statement or block header per line, :class:`planner_reads.Line`), the tests
    that end it when they fail before its first loop (line index -> the check), and the
    lines that end it (``return``), each recorded where the planner writes it."""

    lines: list[Line]
    firsts: dict[int, Check] = field(factory=dict)
    exits: frozenset[int] = frozenset()
    #: The line that binds ``add = out.append``.
    appender: int = 0
    #: Its last statement is the check of the limit ``max_candidates`` at the top level of
    #: the function (one parameter: after its one loop).
    limited: bool = False
    #: What it reads, calls and writes, and its exits (:func:`facts.combine` of its parts).
    facts: Facts | None = None


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
    lines = enumerator(plan, fname).lines
    if plan.stable is not None:
        lines = hoist_reads(lines, plan.stable)
    return source(lines)


def enumerator(plan: ActionPlan, fname: str) -> Enumerator:
    """:func:`generate`'s function before its field reads are made once; a test that fails
    before the first loop is ``return`` on a line of its own."""
    n = len(plan.params)
    at_depth: list[list[Check]] = [[] for _ in range(n + 1)]
    for check in plan.checks:
        at_depth[min(check.arity, n)].append(check)
    cost_depth = None if plan.cost is None else min(plan.cost.arity, n)
    lines = [Line(0, f"def {fname}(F, R, me, mk, out):")]
    hoisted = [i for i in range(1, n) if not plan.domains[i][2]]
    for i in hoisted:
        lines.append(Line(1, f"D{i} = None"))
    money = f"F[(me, {emit.literal(plan.money)})]"
    if plan.cost is not None and plan.money is not None:  # the state does not change while
        lines.append(Line(1, f"P_money = {money}"))  # listing: read the money once
        money = "P_money"
    appender = len(lines)
    lines.append(Line(1, "add = out.append"))

    answers = {id(check): f"Q{k}" for k, check in enumerate(at_depth[n]) if n and check.every}
    firsts: dict[int, Check] = {}
    exits: set[int] = set()

    def tests(depth: int, at: int, fail: str, skip: Check | None = None) -> None:
        for check in at_depth[depth]:
            if check is skip:
                continue
            if depth == n and id(check) in answers:  # asked once per run of the innermost loop,
                every, index = check.every or ("", "")  # at the first value that reaches it
                q = answers[id(check)]
                lines.append(Line(at, f"if {q} is None:"))
                lines.append(Line(at + 1, f"{q} = {every}", check.mark))
                lines.append(Line(at, f"if not {q}[{index}]:"))
            else:
                if depth == 0:
                    firsts[len(lines)] = check
                lines.append(Line(at, f"if not ({check.code}):", check.mark))
            if depth == 0:
                exits.add(len(lines))
            lines.append(Line(at + 1, fail))
        if cost_depth == depth and plan.cost is not None:
            lines.append(Line(at, f"if {money} < ({plan.cost.code}):", plan.cost.mark))
            if depth == 0:
                exits.add(len(lines))
            lines.append(Line(at + 1, fail))

    tests(0, 1, "return")
    at = 1
    for i, param in enumerate(plan.params):
        code, mark, _ = plan.domains[i]
        first = at_depth[i + 1][0] if at_depth[i + 1] else None
        kind = plan.collections[i] if plan.collections else None
        reads, mine = plan.kept[i] if plan.kept else (None, True)
        skip = None
        if first is not None and first.member_of and kind is not None:
            members = " | ".join(f"P_set({e})" for e in first.member_of)
            iterated = emit.step_iter(
                f"(sorted(({members}) & S_{kind}, key=I_{kind}.get) if S_{kind} else ())"
            )
            mark = first.mark
            if not first.member_charges:
                skip = first  # `p in E or p in G` holds for every p of E and G: not tested again
        elif i in hoisted:
            lines.append(Line(at, f"if D{i} is None:"))
            lines.extend(_domain_lines(at + 1, i, code, mark, reads, mine, f"{fname}/{i}"))
            iterated = emit.step_iter(f"D{i}")  # charged at every use, as a domain function call is
        elif i == 0 and reads is not None:
            lines.extend(_domain_lines(at, i, code, mark, reads, mine, f"{fname}/{i}"))
            iterated = emit.step_iter("D0")
        else:
            iterated = emit.step_iter(code)
        if i == n - 1:
            lines.extend(Line(at, f"{q} = None") for q in answers.values())
        lines.append(Line(at, f"for {param} in {iterated}:", mark))
        at += 1
        tests(i + 1, at, "continue", skip)
    lines.append(
        Line(at, f"add(mk(({emit.literal(plan.name)}, ({''.join(p + ', ' for p in plan.params)}))))")
    )
    if n:  # a listing may not grow without bound (the limit max_candidates): checked after each
        # run of the innermost loop, whose length the step budget already bounds
        lines.append(Line(at - 1, "if len(out) > P_limits.max_candidates:"))
        lines.append(Line(at, "P_too_many()"))
    return Enumerator(lines, firsts, frozenset(exits), appender, n == 1, _facts(plan, bool(exits)))


def _domain_lines(
    at: int, i: int, code: str, mark: str, reads: Reads | None, mine: bool, key: str
) -> list[Line]:
    """``D{i} = code`` (at depth ``at``); with ``reads``, kept across listings
    (:func:`kept_value`, :func:`keep_value`), per acting player if it reads ``me``."""
    if reads is None:
        return [Line(at, f"D{i} = {code}", mark)]
    owner = "me" if mine else "None"
    key_code = emit.literal(key)
    return [
        Line(at, f"D{i} = P_kept(F, R, {owner}, {key_code}, {emit.literal(tuple(sorted(reads, key=repr)))})"),
        Line(at, f"if D{i} is P_miss:"),
        Line(at + 1, f"S{i} = R.left"),
        Line(at + 1, f"D{i} = {code}", mark),
        Line(at + 1, f"P_keep(R, {key_code}, {owner}, D{i}, S{i})"),
    ]


def _facts(plan: ActionPlan, returns: bool) -> Facts | None:
    """The facts of the enumerator of ``plan``: those of its domains, tests and cost, the
    money read, and its exits (``return`` before its first loop, ``continue`` in one)."""
    if plan.domain_facts is None or any(c.facts is None for c in plan.checks):
        return None
    checks = [*plan.checks, *([plan.cost] if plan.cost is not None else [])]
    parts = [*plan.domain_facts, *(c.facts for c in checks if c.facts is not None)]
    tested = [min(c.arity, len(plan.params)) for c in checks]
    exits = ["return"] if returns else []
    if any(depth > 0 for depth in tested):
        exits.append("continue")
    money = [(None, plan.money)] if plan.cost is not None and plan.money is not None else []
    return combine(parts, exits, money)


def collection_tables(kinds: Sequence[tuple[str, tuple[str, ...]]]) -> dict[str, object]:
    """The namespace entries the generated enumerators and rules functions use: each
    collection's members as a set (``S_kind``) and their positions (``I_kind``); ``P_set`` is
    ``set``; ``P_miss`` marks a value not memoized yet; the run-time helpers of
    :mod:`rulekit.runtime.memo`."""
    tables: dict[str, object] = {
        "P_set": set,
        "P_miss": memo.MISSING,
        "P_once": (None,),  # a block run once (rulekit.compiler.planner_decisions)
        "P_limits": LIMITS,
        "P_too_many": memo.too_many_candidates,
        "P_memo": memo.memoized,
        "P_kept": memo.kept_value,
        "P_keep": memo.keep_value,
    }
    for kind, ids in kinds:
        tables[f"S_{kind}"] = frozenset(ids)
        tables[f"I_{kind}"] = {id_: i for i, id_ in enumerate(ids)}
    return tables


_HASHABLE = frozenset({"int", "bool", "str", "none", "player", "owner", "entity", "tuple"})


def hashable(type_: t.Type) -> bool:
    """Whether values of ``type_`` can key a memo (tuples may still hold a map: then the
    generated code falls back to computing)."""
    if type_.is_list:
        return type_.element is not None and hashable(type_.element)
    return type_.name in _HASHABLE


_ONE_END = frozenset({"len", "first", "last", "has_key", "get"})  # look at one item or the size


def cheap_builtin(builtin: Builtin | None) -> bool:
    """A built-in that walks no collection: none of its parameters is a list or a map (or it
    only looks at one end, one key or the size, or it remembers its answers), and it has no
    effect."""
    if builtin is None or builtin.effect:
        return False
    if builtin.remembers or builtin.name in _ONE_END:
        return True
    return not any(ty.is_list or ty.is_map for _, ty in builtin.params)


def cheap(body: ast.Expr, cheap_call: Callable[[str], bool]) -> bool:
    """Whether a function body costs less to compute than a memo look-up (building the key
    tuple, hashing it, a dictionary probe): no loop (comprehension or aggregate) and only
    calls ``cheap_call`` accepts (cheap functions, built-ins that walk no collection)."""
    for node in callgraph.walk(body):
        if isinstance(node, ast.Comprehension):
            return False
        if isinstance(node, ast.Call) and not cheap_call(node.function):
            return False
    return True


#: What a rules function may use of the runtime and still depend only on the fields it reads.
_STATELESS_RUNTIME = frozenset(
    {"left", "over_budget", "steps", "memo", "mul", "number", "players", "num_players"}
)

Reads = frozenset[tuple[str | None, str]]


def field_reads(facts: Facts, callees: Mapping[str, Reads | None]) -> Reads | None:
    """The state fields a generated expression (its ``facts``) reads, with the functions it
    calls (``callees``: each generated function's reads): ``(owner, field)`` for a literal
    owner, ``(None, field)`` for a computed one (that field of any owner).  None when it may
    read anything else of the state (the state used otherwise, a runtime service that is
    not stateless, a function whose reads are unknown)."""
    if facts.opaque or not facts.runtime <= _STATELESS_RUNTIME:
        return None
    found = set(facts.reads)
    for called in facts.calls:
        reads = callees.get(called)
        if reads is None:
            return None
        found |= reads
    return frozenset(found)


def reads_me(facts: Facts, callees: Mapping[str, bool]) -> bool:
    """Whether a generated expression (its ``facts``) depends on the acting player ``me``:
    it names it other than to pass it on to a function that does not (``callees``)."""
    return facts.me or any(callees.get(called, True) for called in facts.calls)


def memoized_function(
    name: str,
    params: Sequence[str],
    code: str,
    mark: str,
    key: int,
    *,
    memo: bool,
    reads: Reads | None = None,
    mine: bool = True,
) -> str:
    """A rules function: its body, then (``memo``) the function the rules call made by the
    run-time helper :func:`rulekit.runtime.memo.memoized` (``P_memo``), which charges the
    step of entering it and memoizes it while legal actions are listed.

    While the engine lists legal actions the state does not change, so a function
    (an expression: no effects) called again with the same acting player and arguments
    gives the same value; ``key`` tells the functions apart.  With ``reads`` (the fields it
    reads, :func:`field_reads`) the results also outlive the listing while those fields hold
    the same values; a function that does not depend on the acting player (``mine`` false)
    shares its results between players.  A function not memoized charges its step itself
    (:func:`rulekit.compiler.emit.step_entry`).
    """
    args = ", ".join(["F", "R", "me", *params])
    body = "".join(line + "\n" for line in loops.return_lines(code, mark, ["F", "R", "me", *params]))
    if not memo:
        return f"def {name}({args}):\n    {emit.step_entry()}\n{body}"
    kept = "None" if reads is None else emit.literal(tuple(sorted(reads, key=repr)))
    return f"def {name}({args}):\n{body}{name} = P_memo({name}, {key}, {kept}, {emit.literal(mine)})\n"
