"""Why a condition is false: the values of its parts. The one implementation of this for
rulekit's tools (verify's counterexamples, scenario expectations).

Public and stable:

* :func:`explain_condition` -- the lines explaining why a boolean DSL expression is false in
  a state (optionally with names bound: a loop variable, a parameter);
* :func:`explain_invariant` -- the same for a compiled invariant (its condition);
* :func:`explain_with` -- the same with another evaluator of its parts (verify's two-state
  properties evaluate ``before(...)`` and ``after(...)``);
* :func:`explain_error` -- why evaluating an expression raised (the innermost failing part);
* :func:`compile_node` -- compile a parsed expression of the ruleset to ``fn(F, R, me, *params)``;
* :data:`unparse` -- the DSL text of an expression.

The explanation follows the expression: for ``and`` each part up to the one that is false, for
``or`` every part, for a comparison its operands side by side (``a == b is false: 115 == 120``,
as pytest shows a failed assert) and the value of each non-constant side, for ``not`` the value
of its operand, for ``x where x = ...``
the value bound, for ``a if c else b`` the branch taken, for ``all(...)`` the elements it fails
for and why it fails for the first, for ``any(...)`` that no element makes it true.
"""

from __future__ import annotations

import json
from collections.abc import Callable, Sequence
from contextvars import ContextVar
from typing import Any, TypeGuard

import attrs

from rulekit.compiler.program import CompiledInvariant, Program
from rulekit.dsl import ast
from rulekit.dsl import types as t
from rulekit.dsl.printer import loop_names, print_expr
from rulekit.dsl.types import Type
from rulekit.engine.game import State
from rulekit.engine.values import format_value, to_json
from rulekit.tools.verify.failures import (
    describe_error,
)

# ------------------------------------------------------------------ explaining an invariant


def explain_invariant(program: Program, invariant: CompiledInvariant, state: State) -> list[str]:
    """The values of the parts of a failed invariant, e.g. both sides of its comparison."""
    return explain_condition(program, invariant.decl.condition, state)


#: ``me`` left out: the condition is compiled as an invariant's, without ``me``.
NO_ME: tuple[()] = ()


def explain_condition(
    program: Program,
    condition: ast.Expr,
    state: State,
    bindings: Sequence[Binding] = (),
    *,
    me: int | tuple[()] | None = NO_ME,
) -> list[str]:
    """Why ``condition`` (a parsed boolean DSL expression of ``program``'s rules, e.g. a
    scenario's ``expect``) is false in ``state``: one line per part, indented by depth.
    ``bindings`` are names the expression uses besides the state: ``(name, type, value)``;
    ``me`` is the player the condition may call ``me`` (None: nobody, e.g. after the end).
    If evaluating it raises, the lines say where and why (see :func:`explain_error`)."""
    token = _ME.set(None if isinstance(me, tuple) else (me,))
    try:
        return explain_with(_state_evaluator(program, state), condition, bindings)
    finally:
        _ME.reset(token)


#: Evaluates a part of the condition being explained (with names bound): its value and type.
Evaluator = Callable[[ast.Expr, Sequence["Binding"]], tuple[Any, Type]]


def explain_with(evaluate: Evaluator, condition: ast.Expr, bindings: Sequence[Binding] = ()) -> list[str]:
    """Why ``condition`` is false, its parts evaluated by ``evaluate`` (a tool whose conditions
    read more than one state -- verify's properties -- passes its own; see
    :func:`explain_condition`). If evaluating it raises, the lines say where and why."""
    lines: list[str] = []
    try:
        _explain(evaluate, condition, list(bindings), lines, 0)
    except Exception as error:
        lines.clear()
        lines.extend(_explain_error(evaluate, condition, error))
    return lines


def _state_evaluator(program: Program, state: State) -> Evaluator:
    def evaluate(expr: ast.Expr, bindings: Sequence[Binding]) -> tuple[Any, Type]:
        return _evaluate(program, expr, state, bindings)

    return evaluate


#: ``me`` while :func:`explain_condition` runs (as a 1-tuple: it may be None); unset, the parts
#: are compiled and evaluated as an invariant's, without ``me``.
_ME: ContextVar[tuple[int | None] | None] = ContextVar("explained_me", default=None)


def explain_error(program: Program, expr: ast.Expr, state: State, error: Exception) -> list[str]:
    """Why evaluating ``expr`` raised: the innermost part that raises, the values of the
    parts around it that do evaluate, and the underlying error."""
    return _explain_error(_state_evaluator(program, state), expr, error)


def _explain_error(evaluate: Evaluator, expr: ast.Expr, error: Exception) -> list[str]:
    lines: list[str] = []
    failing = expr
    while True:
        inner = None
        for part in _parts(failing):
            if _constant(part):
                continue
            try:
                evaluate(part, [])
            except Exception:
                inner = part
                break
        if inner is None:
            break
        failing = inner
    for part in _parts(failing):
        if _constant(part):
            continue
        try:
            value, type_ = evaluate(part, [])
        except Exception:  # pragma: no cover - failing was the innermost failing part
            continue
        lines.append(f"{unparse(part)} = {_show(value, type_)}")
    lines.append(f"{unparse(failing)} cannot be evaluated: {describe_error(error)}")
    return lines


def _parts(expr: ast.Expr) -> list[ast.Expr]:
    """The direct sub-expressions of ``expr`` that use no loop variable of its own."""
    if isinstance(expr, ast.Aggregate | ast.ListComprehension | ast.Where | ast.LetIn):
        return []  # their parts need the loop variable or the binding
    parts = []
    for name in attrs.fields_dict(type(expr)):
        value = getattr(expr, name)
        for item in value if isinstance(value, tuple) else (value,):
            if isinstance(item, ast.Keyword):
                item = item.value
            if isinstance(item, ast.Expr):
                parts.append(item)
    return parts


Binding = tuple[str, Type, Any]


def _evaluate(
    program: Program, expr: ast.Expr, state: State, bindings: Sequence[Binding]
) -> tuple[Any, Type]:
    fn, type_ = compile_node(program, expr, [(n, ty) for n, ty, _ in bindings])
    me = _ME.get()
    state.game.runtime.reset_steps()
    return fn(
        state.fields, state.game.runtime, -1 if me is None else me[0], *(v for _, _, v in bindings)
    ), type_


def compile_node(
    program: Program, expr: ast.Expr, params: Sequence[tuple[str, Type]]
) -> tuple[Callable[..., Any], Type]:
    """Compile an already parsed expression of the ruleset (``fn(F, R, me, *params)``)."""
    return program.compile_function(expr, params=params, me=_ME.get() is not None)


def _show(value: Any, type_: Type) -> str:
    text = format_value(value, type_)
    if isinstance(value, dict):
        text = json.dumps(to_json(value))
    return text if len(text) <= 200 else text[:197] + "..."


#: The comparisons whose operands an explanation shows side by side (``115 == 120``).
COMPARISONS = ("==", "!=", "<", "<=", ">", ">=", "in", "not in")


def _is_comparison(expr: ast.Expr) -> TypeGuard[ast.Binary]:
    return isinstance(expr, ast.Binary) and expr.op in COMPARISONS


def _conjuncts(expr: ast.Expr, op: str) -> list[ast.Expr]:
    """The parts of a chain of ``and`` (or ``or``): ``a and b and c`` is three parts."""
    if isinstance(expr, ast.Binary) and expr.op == op:
        return [*_conjuncts(expr.left, op), *_conjuncts(expr.right, op)]
    return [expr]


def _explain(
    evaluate: Evaluator, expr: ast.Expr, bindings: list[Binding], lines: list[str], depth: int
) -> None:
    """Explain ``expr``, which is false: one line per part, indented by ``depth``."""
    indent = "  " * depth
    where = "".join(f" [{n} = {_show(v, ty)}]" for n, ty, v in bindings) if depth == 0 else ""
    if isinstance(expr, ast.Binary) and expr.op == "and":
        for part in _conjuncts(expr, "and"):
            if _is_comparison(part):
                if _compare(evaluate, part, bindings, lines, depth, where):
                    continue
                return
            value, _ = evaluate(part, bindings)
            if value:
                lines.append(f"{indent}{unparse(part)} is true")
                continue
            lines.append(f"{indent}{unparse(part)} is false{where}")
            _explain(evaluate, part, bindings, lines, depth + 1)
            return
    if isinstance(expr, ast.Binary) and expr.op == "or":
        for part in _conjuncts(expr, "or"):
            if _is_comparison(part):
                _compare(evaluate, part, bindings, lines, depth, "")
                continue
            lines.append(f"{indent}{unparse(part)} is false")
            _explain(evaluate, part, bindings, lines, depth + 1)
        return
    if isinstance(expr, ast.Unary) and expr.op == "not":
        value, type_ = evaluate(expr.operand, bindings)
        lines.append(f"{indent}{unparse(expr.operand)} = {_show(value, type_)}")
        return
    if _is_comparison(expr):
        _compare(evaluate, expr, bindings, lines, depth, where)
        return
    if isinstance(expr, ast.Where):
        value, type_ = evaluate(expr.value, bindings)
        lines.append(f"{indent}{expr.name} = {_show(value, type_)}")
        _explain(evaluate, expr.body, [*bindings, (expr.name, type_, value)], lines, depth)
        return
    if isinstance(expr, ast.Conditional):
        value, _ = evaluate(expr.condition, bindings)
        branch = expr.then if value else expr.otherwise
        lines.append(f"{indent}{unparse(expr.condition)} is {'true' if value else 'false'}")
        _explain(evaluate, branch, bindings, lines, depth)
        return
    if isinstance(expr, ast.Aggregate) and expr.function == "all":
        comp = expr.comprehension
        loop_vars = [name for var, _ in comp.loops for name in loop_names(var)]
        negated: ast.Expr = ast.Unary("not", comp.element)
        if comp.condition is not None:
            negated = ast.Binary("and", comp.condition, negated)
        element: ast.Expr = (
            ast.Name(loop_vars[0])
            if len(loop_vars) == 1
            else ast.TupleExpr(tuple(ast.Name(v) for v in loop_vars))
        )
        witnesses_expr = ast.ListComprehension(
            ast.Comprehension(element, comp.loops, negated, bindings=comp.bindings)
        )
        witnesses, list_type = evaluate(witnesses_expr, bindings)
        element_type = t.element_type(list_type) if list_type.is_list else t.ANY
        shown = ", ".join(_show(w, element_type) for w in witnesses[:5]) + (
            ", ..." if len(witnesses) > 5 else ""
        )
        lines.append(f"{indent}fails for {' , '.join(loop_vars)} = {shown}")
        if witnesses and len(loop_vars) == 1 and not comp.bindings:
            binding = (loop_vars[0], element_type, witnesses[0])
            lines.append(f"{indent}  with {loop_vars[0]} = {_show(witnesses[0], element_type)}:")
            _explain(evaluate, comp.element, [*bindings, binding], lines, depth + 2)
        return
    if isinstance(expr, ast.Aggregate) and expr.function == "any":
        lines.append(f"{indent}no element makes {unparse(expr.comprehension.element)} true")
        return
    value, type_ = evaluate(expr, bindings)
    lines.append(f"{indent}{unparse(expr)} = {_show(value, type_)}")


def _compare(
    evaluate: Evaluator, expr: ast.Binary, bindings: list[Binding], lines: list[str], depth: int, where: str
) -> bool:
    """A comparison with its operands side by side, as pytest shows a failed assert
    (``sum(p.money for p in players) == 120 is false: 115 == 120``), then the value of each
    side that is not a constant; whether it is true."""
    indent = "  " * depth
    left, left_type = evaluate(expr.left, bindings)
    right, right_type = evaluate(expr.right, bindings)
    holds, _ = evaluate(expr, bindings)
    verdict = "true" if holds else "false"
    operands = f"{_show(left, left_type)} {expr.op} {_show(right, right_type)}"
    lines.append(f"{indent}{unparse(expr)} is {verdict}: {operands}{where if not holds else ''}")
    if not holds:
        for side, value, type_ in ((expr.left, left, left_type), (expr.right, right, right_type)):
            if not _constant(side):
                lines.append(f"{indent}  {unparse(side)} = {_show(value, type_)}")
    return bool(holds)


def _constant(expr: ast.Expr) -> bool:
    if isinstance(expr, ast.Literal):
        return True
    if isinstance(expr, ast.ListExpr | ast.TupleExpr):
        return all(_constant(i) for i in expr.items)
    return False


#: DSL text of an expression (parses back to the same tree).
unparse = print_expr
