"""Generated functions returning ``any``/``all`` over a generator are written as loops
(rulekit.compiler.loops) that compute the same value with the same step charges, in the
same order, stopping at the same element."""

from __future__ import annotations

import ast
from typing import Any

from hypothesis import given
from hypothesis import strategies as st

from rulekit.compiler.build import _Compiler
from rulekit.compiler.loops import return_lines
from rulekit.load import load_program


class _Steps:
    """A stand-in for the runtime's step charging: records every charge, in order."""

    def __init__(self) -> None:
        self.log: list[Any] = []

    def steps(self, items: Any) -> Any:
        self.log.append(tuple(items))
        return items


def _define(body: list[str], params: list[str]) -> Any:
    source = f"def f({', '.join(['F', 'R', 'me', *params])}):\n" + "".join(line + "\n" for line in body)
    namespace: dict[str, Any] = {}
    exec(compile(source, "<test>", "exec"), namespace)  # test-only: code written by this test
    return namespace["f"]


def _run(body: list[str], params: list[str], args: list[Any]) -> tuple[Any, list[Any]]:
    steps = _Steps()
    try:
        value: Any = _define(body, params)({}, steps, 0, *args)
    except ZeroDivisionError:
        value = "raised"
    return value, steps.log


EXPRESSIONS = [
    "any(all((c == me) for c in R.steps(v_line)) for v_line in R.steps(v_rows) if (v_k in v_line))",
    "all(any((c == me) for c in R.steps(v_line)) for v_line in R.steps(v_rows))",
    "any(any((c == me) for c in R.steps(v_line)) for v_line in R.steps(v_rows))",
    "all(all((c != me) for c in R.steps(v_line) if (c >= 0)) for v_line in R.steps(v_rows))",
    "any(((c // (c - 2)) == me) for v_line in R.steps(v_rows) for c in R.steps(v_line))",
    "all(((1 // c) >= 0) for v_line in R.steps(v_rows) if (len(v_line) > 1) for c in R.steps(v_line))",
    "any((c, d) == (me, v_k) for (c, d) in R.steps(tuple(zip(v_rows, v_rows[1:]))))",
    "((v_k == 3) or (1 // v_k == 0)"
    " or all(any((c == me) for c in R.steps(v_line)) for v_line in R.steps(v_rows)))",
    "((v_k != 2) and (not (v_k in R.steps(v_rows)))"
    " and any((len(v_line) == v_k) for v_line in R.steps(v_rows)))",
]

rows = st.lists(st.lists(st.integers(-1, 3), max_size=4).map(tuple), max_size=5).map(tuple)


@given(rows=rows, key=st.integers(-1, 3))
def test_any_and_all_as_loops_give_the_generators_value_and_step_charges(rows: Any, key: int) -> None:
    params = ["v_rows", "v_k"]
    for code in EXPRESSIONS:
        looped = return_lines(code, "", params)
        assert len(looped) > 1, code  # written as loops
        plain = [f"    return {code}"]
        assert _run(looped, params, [rows, key]) == _run(plain, params, [rows, key]), code


def test_a_generator_whose_loop_variable_is_a_parameter_stays_a_generator() -> None:
    code = "any((v_x == me) for v_x in R.steps(v_rows))"
    assert return_lines(code, "  #@1", ["F", "R", "me", "v_x"]) == [f"    return {code}  #@1"]


def test_an_inner_generator_reusing_an_outer_loop_variable_stays_a_generator() -> None:
    code = "any(any((c == me) for c in R.steps(c)) for c in R.steps(v_rows))"
    lines = return_lines(code, "", ["F", "R", "me", "v_rows"])
    assert "any(" in "".join(lines)  # the inner one is kept as it is
    for rows in [(), ((0,),), ((1,), (0, 1))]:
        assert _run(lines, ["v_rows"], [rows]) == _run([f"    return {code}"], ["v_rows"], [rows])


def test_an_operand_before_the_aggregate_that_may_be_no_bool_keeps_the_expression() -> None:
    code = "(v_k or all((c == me) for c in R.steps(v_rows)))"
    assert return_lines(code, "", ["F", "R", "me", "v_rows", "v_k"]) == [f"    return {code}"]


def test_every_loop_line_carries_the_span_mark_of_the_expression() -> None:
    lines = return_lines(EXPRESSIONS[0], "  #@7", ["F", "R", "me", "v_rows", "v_k"])
    assert all(line.endswith("  #@7") for line in lines)


def test_tic_tac_toe_trigger_condition_is_generated_without_generators() -> None:
    program = load_program("rulesets/tic_tac_toe")
    compiler = _Compiler(program.rules)
    compiler.compile()
    functions = {
        node.name: node
        for node in ast.parse("\n".join(compiler.lines)).body
        if isinstance(node, ast.FunctionDef)
    }
    (when,) = [f for name, f in functions.items() if name.startswith("when_three_in_a_row")]
    assert not [node for node in ast.walk(when) if isinstance(node, ast.GeneratorExp)]
    assert [node for node in ast.walk(when) if isinstance(node, ast.For)]
