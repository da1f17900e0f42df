"""Procedures: named effect blocks with typed parameters, called as statements, never in a cycle."""

from __future__ import annotations

import pytest

from rulekit.compiler import procedures as pr
from rulekit.compiler.codegen import CodeGen, Context
from rulekit.dsl import parse_block
from rulekit.errors import DiagnosticBag
from rulekit.load import load_program
from rulekit.rules.values import parse_declared


def _procedure(name: str, body: str, **params: str) -> pr.Procedure:
    typed = tuple((p, parse_declared(text, {"cell"})) for p, text in params.items())
    return pr.Procedure(name, typed, parse_block(body), None)


def _compile(procedures: list[pr.Procedure], effect: str) -> tuple[list[str], list[str]]:
    """Source lines of the procedures and of an effect calling them, and the messages."""
    rules = load_program("tic_tac_toe").rules
    bag = DiagnosticBag()
    gen = CodeGen(rules, bag)
    lines = pr.compile_all(gen, {p.name: p for p in procedures}, bag)
    lines += gen.block(parse_block(effect), Context(effects=True), 1)
    return lines, [d.message for d in bag.items]


MARK = _procedure("mark", "cell.mark = who\ngame.current = next_player(who)", cell="cell", who="player")


def test_a_procedure_is_called_as_a_statement_with_the_callers_me() -> None:
    """The call passes the state, the runtime, the caller's ``me`` and the checked arguments."""
    lines, messages = _compile([MARK], "mark(cells.a1, me)")
    assert messages == []
    assert any(line.startswith("def pr_mark(F, R, me, v_cell, v_who):") for line in lines)
    assert lines[-1].strip().startswith("pr_mark(F, R, me, ")


@pytest.mark.parametrize(
    ("effect", "message"),
    [
        ("mark(cells.a1)", "procedure 'mark' takes 2 argument(s), not 1"),
        ("mark(me, cells.a1)", "argument 'cell' of mark must be cell, not player"),
        (
            "let x = mark(cells.a1, me)",
            "'mark' is a procedure: it changes the game, so it stands on a line of its own",
        ),
    ],
)
def test_calls_are_checked_like_function_calls(effect: str, message: str) -> None:
    assert message in _compile([MARK], effect)[1]


def test_procedures_calling_each_other_in_a_cycle_are_refused() -> None:
    """a -> b -> a would not terminate: the cycle is named."""
    a = _procedure("a", "if true:\n    b()")
    b = _procedure("b", "for c in cells:\n    a()")
    messages = _compile([a, b], "pass")[1]
    assert "procedures call each other in a cycle: a -> b -> a" in messages


def test_a_procedure_may_call_another_procedure() -> None:
    outer = _procedure("outer", "mark(cells.b2, me)")
    lines, messages = _compile([MARK, outer], "outer()")
    assert messages == []
    assert any("pr_mark(F, R, me, " in line for line in lines)


def test_a_procedure_cannot_hide_a_built_in() -> None:
    assert (
        "procedure 'note' hides the built-in of that name"
        in _compile([_procedure("note", "pass")], "pass")[1]
    )
