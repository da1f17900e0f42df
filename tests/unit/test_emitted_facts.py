"""The facts the code generator records where it writes code (rulekit.compiler.facts) against
the generated text read back (tests/unit/code_facts.py, the analysis the compiler used to make):
for every expression and every statement block (effects, procedures, enumerators, decisions)
of every shipped ruleset (with all its modules), nothing the text does is missing from the
record, and the fields a block writes and its exits are exactly those of the text."""

from __future__ import annotations

import ast
from pathlib import Path

import pytest

from rulekit.compiler.build import _Compiler
from rulekit.compiler.codegen import CodeGen, Context
from rulekit.compiler.facts import Facts
from rulekit.dsl import parse_block, parse_expression
from rulekit.errors import DiagnosticBag
from rulekit.load import load_program
from tests.rulesets import module_names, shipped_rulesets
from tests.unit.code_facts import of_block, of_code


@pytest.mark.parametrize("ruleset", shipped_rulesets(), ids=lambda p: p.name)
def test_recorded_facts_cover_what_the_generated_code_does(ruleset: Path) -> None:
    program = load_program(str(ruleset), module_names(ruleset))
    compiler = _Compiler(program.rules)
    compiler.compile()
    assert compiler.facts  # every ruleset has rules functions or requirements
    for name, found in compiler.facts.items():
        code = compiler.codes[name][0]
        text = of_code(code)
        where = f"{name}: {code}"
        assert found.builtins == text.builtins, where
        assert found.runtime == text.runtime, where
        assert found.charges == text.charges, where
        assert found.collection == text.collection, where
        assert found.me or not text.me, where
        assert text.calls <= found.calls, where
        assert text.reads <= found.reads, where
        if not text.opaque:
            assert (found.opaque, found.reads, found.calls) == (False, text.reads, text.calls), where
            # the text counts a condition written twice (plain and for the coverage hook) twice
            assert found.work <= text.work, where


@pytest.mark.parametrize("ruleset", shipped_rulesets(), ids=lambda p: p.name)
def test_recorded_writes_and_exits_of_every_generated_block_are_those_of_its_text(ruleset: Path) -> None:
    program = load_program(str(ruleset), module_names(ruleset))
    compiler = _Compiler(program.rules)
    compiler.compile()
    functions = {
        node.name: node
        for node in ast.parse("\n".join(compiler.lines)).body
        if isinstance(node, ast.FunctionDef)
    }
    unrecorded = sorted(set(functions) - set(compiler.facts) - set(compiler.block_facts))
    assert unrecorded == []  # every generated function has its facts
    assert compiler.block_facts  # every ruleset has effects
    for name, found in compiler.block_facts.items():
        reads, writes, calls, exits = of_block(functions[name])
        assert (found.writes, found.exits) == (writes, exits), name
        assert calls <= found.calls, name
        assert reads <= found.reads, name


def test_a_block_records_the_fields_it_assigns_and_its_fail() -> None:
    gen = CodeGen(load_program("tic_tac_toe").rules, DiagnosticBag())
    block = parse_block("game.winner = me\nif game.winner == none:\n    fail 'no winner'\n")
    _, found = gen.block_facts(block, Context(effects=True), 1)
    assert not gen.bag.items
    assert (found.writes, found.exits) == ({("game", "winner")}, {"fail"})
    _, quiet = gen.block_facts(parse_block("pass\n"), Context(effects=True), 1)
    assert (quiet.writes, quiet.exits) == (frozenset(), frozenset())


def _facts(text: str) -> Facts:
    gen = CodeGen(load_program("tic_tac_toe").rules, DiagnosticBag())
    _, _, found = gen.expr_facts(parse_expression(text), Context())
    assert not gen.bag.items
    return found


def test_a_name_bound_to_the_acting_player_and_not_used_is_no_use_of_it() -> None:
    """``let p = me in ...`` (how a requirement group binds its parameter) depends on the
    acting player only where ``p`` is used: the value bound is written only there."""
    unused = _facts("let p = me in game.winner == none")
    assert (unused.me, unused.reads) == (False, {("game", "winner")})
    used = _facts("let p = me in game.current == p")
    assert (used.me, used.reads) == (True, {("game", "current")})


def test_a_field_read_names_its_owner_when_written_as_one_else_any_owner() -> None:
    found = _facts("cells.a1.mark == none and game.current == me")
    assert found.reads == {("a1", "mark"), ("game", "current")} and not found.opaque
    assert _facts("[c.mark for c in cells]").reads == {(None, "mark")}
    assert _facts("cells").collection == "cell" and _facts("[c for c in cells]").collection is None
