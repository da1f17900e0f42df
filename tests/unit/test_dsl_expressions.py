"""Expressions: let ... in, records and `with`, typed maps, ranges and '+' on text."""

from __future__ import annotations

import textwrap
from collections.abc import Callable
from pathlib import Path
from typing import Any

import pytest

from rulekit.dsl import ast, parse_expression
from rulekit.dsl import types as t
from rulekit.dsl.printer import print_expr
from rulekit.errors import DslSyntaxError, RulesetError
from rulekit.load import load_game, load_program


def _value(text: str) -> tuple[Any, t.Type]:
    game = load_game("tic_tac_toe", 2)
    fn, type_ = game.program.compile_expression(text)
    return fn(game.new_initial_state(0).fields, game.runtime, 0), type_


def _error(text: str) -> str:
    with pytest.raises(RulesetError) as caught:
        load_game("tic_tac_toe", 2).program.compile_expression(text)
    return str(caught.value)


# ------------------------------------------------------------------ let ... in


def test_let_in_binds_a_name_for_the_expression_after_in() -> None:
    """``let x = v in body`` reads top-down; lets nest, each seeing the ones before."""
    assert _value("let x = 2 * 3 in x + 1") == (7, t.INT)
    assert _value("let x = 2 in let y = x * 3 in x + y")[0] == 8


def test_a_let_name_is_unknown_outside_its_body() -> None:
    """The binding is local: the text after a parenthesised let cannot see it."""
    assert "unknown name 'x'" in _error("(let x = 1 in x) + x")


def test_a_let_value_with_a_comparison_needs_parentheses() -> None:
    """``let ok = a > b in ...`` would be ambiguous with ``in``; parentheses make it a value."""
    assert _value("let ok = (1 > 0) in ok and true")[0] is True
    with pytest.raises(DslSyntaxError, match=r"a value with a comparison, and/or or if/else in \(\.\.\.\)"):
        parse_expression("let ok = 1 > 0 in ok")


@pytest.mark.parametrize(
    "text",
    [
        "let x = 1 in x where y = 2",
        "(let x = 1 in x) where y = 2",
        "f(let x = 1 in x, 2)",
        "[let y = x in y for x in xs]",
        "-a with {b: 1}",
        "(a with {b: 1}).b",
        '{kind: "k", n: let m = 1 in m}',
        "x if c else (let y = 1 in y)",
        "[a + b for (a, b) in xs if a > 0]",
        "count(x for (x, y, z) in xs for w in ys)",
    ],
)
def test_new_expressions_print_and_parse_back_to_the_same_tree(text: str) -> None:
    """The printer adds parentheses exactly where the grammar needs them."""
    tree = parse_expression(text)
    assert parse_expression(print_expr(tree)) == tree


# --------------------------------------------------------------------- records


def test_a_record_literal_has_typed_fields_read_by_name() -> None:
    """``{kind: ..., owner: me}`` is a record; ``r.owner`` is a player, not an int."""
    value, type_ = _value('{kind: "knight", owner: me}')
    assert value == {"kind": "knight", "owner": 0}
    assert type_ == t.record_of({"kind": t.STR, "owner": t.PLAYER})
    assert _value('{kind: "knight", owner: me}.owner') == (0, t.PLAYER)


def test_with_replaces_fields_and_keeps_the_others() -> None:
    """``c with {strength: 5}`` is a new record; the old one is unchanged."""
    value, type_ = _value('[c, c with {strength: 5}] where c = {kind: "k", strength: 1}')
    assert value == ({"kind": "k", "strength": 1}, {"kind": "k", "strength": 5})
    assert type_ == t.list_of(t.record_of({"kind": t.STR, "strength": t.INT}))


@pytest.mark.parametrize(
    ("text", "message"),
    [
        ('c.knd where c = {kind: "k"}', "the record has no field 'knd'"),
        ("(c with {strenght: 5}) where c = {strength: 1}", "the record has no field 'strenght' to replace"),
        ('(c with {strength: "x"}) where c = {strength: 1}', "field 'strength' must be int, not str"),
        ("1 with {a: 1}", "'with' needs a record on its left, not an int"),
    ],
)
def test_record_mistakes_are_located_errors(text: str, message: str) -> None:
    """Unknown fields come with a did-you-mean; a replaced field keeps its type."""
    assert message in _error(text)


def test_a_field_given_twice_is_a_syntax_error_at_the_second() -> None:
    with pytest.raises(DslSyntaxError, match="field 'a' is given twice") as caught:
        parse_expression("{a: 1, a: 2}")
    assert caught.value.diagnostics[0].span.column == 8


def test_empty_braces_are_an_empty_map_of_any_type() -> None:
    """``{}`` starts a map of any keys (here cells) as well as an empty record."""
    assert _value("keys(put({}, (0, 0), 1))") == (((0, 0),), t.list_of(t.ANY))


def test_players_inside_records_are_written_as_names() -> None:
    """Text of a record shows its players as P1, P2 because the checker knows the field type."""
    assert _value('str({kind: "k", owner: me})')[0] == "{kind: k, owner: P1}"


# -------------------------------------------------------------------- typed maps


@pytest.mark.parametrize(
    ("text", "expected"),
    [
        ("map[tuple, player]", t.map_of(t.TUPLE, t.PLAYER)),
        ("map[str, list[int]]", t.map_of(t.STR, t.list_of(t.INT))),
        ("map[any, any]", t.MAP),
        ("{kind: str, at: tuple}", t.record_of({"kind": t.STR, "at": t.TUPLE})),
        ("list[{n: int}]?", t.list_of(t.record_of({"n": t.INT}))),
        ("map[tuple]", None),
        ("map[int, ]", None),
        ("{a: int, a: str}", None),
        ("list[int", None),
    ],
)
def test_type_text_parses_and_prints_back(text: str, expected: t.Type | None) -> None:
    """Typed maps and records parse from rules files and print as they are written."""
    parsed = t.parse_type(text, set())
    assert parsed == expected
    if parsed is not None:
        assert t.parse_type(str(parsed), set()) == parsed


def test_typed_maps_are_compatible_with_untyped_ones_but_not_with_other_typed_ones() -> None:
    board = t.map_of(t.TUPLE, t.PLAYER)
    assert t.compatible(board, t.MAP) and t.compatible(t.MAP, board)
    assert not t.compatible(board, t.map_of(t.TUPLE, t.INT))
    assert t.join(t.PLAYER, t.OWNER) == t.OWNER
    assert t.join(t.list_of(t.INT), t.list_of(t.STR)) == t.list_of(t.ANY)


MAP_RULES = """\
ruleset: boards
players: {min: 2, max: 2}
state:
  game:
    board: {type: "map[tuple, player]"}
    seats: {type: "list[player]"}
actions:
  mark:
    params:
      cell: "[(x, 0) for x in range(0, 3) if not has_key(game.board, (x, 0))]"
    effect: |
      %s
    ends_turn: true
flow:
  - repeat:
      until: len(game.board) == 3
      steps:
        - turn: player_at(1)
        - turn: player_at(2)
scoring:
  score: "count(c for c in keys(game.board) if game.board[c] == player)"
"""


def _load_board(write_ruleset: Callable[..., Path], effect: str) -> Any:
    return load_program(str(write_ruleset(MAP_RULES % textwrap.indent(effect, "      ").strip())))


def test_a_map_field_keeps_its_players_typed_end_to_end(write_ruleset: Callable[..., Path]) -> None:
    """Values read from a map[tuple, player] are players: comparable with players, shown as P1."""
    program = _load_board(write_ruleset, "game.board = put(game.board, cell, me)")
    fn, type_ = program.compile_expression("[game.board[c] for c in keys(game.board)]")
    assert type_ == t.list_of(t.PLAYER)
    fn, _ = program.compile_expression("str(game.board)")
    assert fn({("game", "board"): {(0, 0): 1}}, None, -1) == "{[0, 0]: P2}"


@pytest.mark.parametrize(
    ("effect", "message"),
    [
        ("game.board = put(game.board, cell, 3)", "a value of map[tuple, player] must be player, not int"),
        ('game.board = put(game.board, "a1", me)', "a key of map[tuple, player] must be tuple, not str"),
        ("let n = game.board[cell] + 1", "the left side of '+' must be int, not player"),
        ("game.board = {a: 1}", "the value of game.board must be map[tuple, player], not {a: int}"),
    ],
)
def test_typed_map_mistakes_are_located_errors(
    write_ruleset: Callable[..., Path], effect: str, message: str
) -> None:
    with pytest.raises(RulesetError) as caught:
        _load_board(write_ruleset, effect)
    assert message in str(caught.value)


@pytest.mark.parametrize(
    ("effect", "message"),
    [
        ("game.seats = append(game.seats, 3)", "an element of list[player] must be player, not int"),
        ("game.seats = prepend(game.seats, cell)", "an element of list[player] must be player, not tuple"),
        ('game.seats = replace_at(game.seats, 0, "P")', "an element of list[player] must be player, not str"),
        ("game.seats = without(game.seats, 1)", "an element of list[player] must be player, not int"),
        ("game.seats += [3]", "the value added to game.seats must be list[player], not list[int]"),
        ("game.seats = game.seats + [cell]", "'+' joins lists of one type, not list[player] and list[tuple]"),
    ],
)
def test_a_list_built_ins_element_and_an_added_list_must_fit_the_lists_type(
    write_ruleset: Callable[..., Path], effect: str, message: str
) -> None:
    """append, prepend, replace_at and without on a typed list take an element of its type, and
    += or + add a list of that type (a player put where warehouses are kept would otherwise be a
    silent no-op or a wrong value)."""
    with pytest.raises(RulesetError) as caught:
        _load_board(write_ruleset, effect)
    assert message in str(caught.value)


def test_list_built_ins_accept_elements_of_the_lists_type_and_none(
    write_ruleset: Callable[..., Path],
) -> None:
    program = _load_board(
        write_ruleset,
        "game.seats = without(replace_at(prepend(append(game.seats, me), me), 0, none), me)\n"
        "game.seats += [me] + []\ngame.seats = [] + game.seats + players",
    )
    _, joined = program.compile_expression("game.seats + [player_at(1)] + []")
    assert joined == t.list_of(t.PLAYER)


# ------------------------------------------------------------- ranges and text


def test_range_leaves_out_its_stop_and_between_includes_both_ends() -> None:
    """range is Python's; between is the inclusive one, named differently on purpose."""
    assert _value("range(1, 4)")[0] == (1, 2, 3)
    assert _value("between(1, 4)")[0] == (1, 2, 3, 4)
    assert _value("range(3, 3)")[0] == ()


@pytest.mark.parametrize(
    ("text", "hint"),
    [
        ('"a" + "b"', 'concat("a", "b")'),
        ('str(1) + "b" + str(2)', 'concat(str(1), "b", str(2))'),
    ],
)
def test_plus_on_text_is_one_error_that_points_to_concat(text: str, hint: str) -> None:
    """A chain of '+' on text is reported once, on the whole chain, with the concat to write."""
    message = _error(text)
    assert message.count("error:") == 1
    assert "'+' adds numbers and joins lists, not text" in message
    assert hint in message


def test_the_ast_of_a_record_keeps_each_field_span() -> None:
    record = parse_expression("{a: 1, bb: 2}")
    assert isinstance(record, ast.Record)
    assert [(f.name, f.span.column) for f in record.fields] == [("a", 2), ("bb", 8)]


def test_a_record_cannot_be_an_action_parameter(write_ruleset: Callable[..., Path]) -> None:
    """Logs write actions as text, which has no notation for records: the checker says so."""
    domain = '"[(x, 0) for x in range(0, 3) if not has_key(game.board, (x, 0))]"'
    text = MAP_RULES.replace(domain, '"[{x: x} for x in range(0, 3)]"') % "pass"
    with pytest.raises(RulesetError, match=r"action parameter .cell. would hold a \{x: int\}"):
        load_program(str(write_ruleset(text)))


def test_a_let_bound_to_a_name_is_not_captured_by_a_loop_of_that_name() -> None:
    """``let x = y in [x for y in ...]``: x is the outer y, not the loop's."""
    value, _ = _value("let y = 5 in let x = y in [x + y for y in [1, 2]]")
    assert value == (6, 7)
    assert _value("let x = me in [x for q in players]")[0] == (0, 0)


# ------------------------------------------------------------------ for (a, b) in pairs


def test_a_for_clause_takes_each_element_apart_by_position() -> None:
    """``for (x, y) in cells`` binds the parts of each tuple by position, in lists and aggregates."""
    assert _value("[x * 10 + y for (x, y) in [(1, 2), (3, 4)]]")[0] == (12, 34)
    assert _value("sum(len(s) for (label, s) in [('L', [0, 2]), ('W', [1])] if label == 'L')") == (2, t.INT)
    assert _value("[(b, a) for (a, b) in [(1, 2)] for c in [b]]")[0] == ((2, 1),)


def test_taking_apart_a_value_that_is_not_a_tuple_is_a_located_error() -> None:
    """A typed element (a cell of the board, a number) has no parts to take apart."""
    message = _error("[a for (a, b) in cells]")
    assert "cannot take a cell apart into (a, b)" in message
    assert "cannot take an int apart" in _error("[a for (a, b) in [1, 2]]")


def test_an_element_of_another_length_is_a_rule_error_when_evaluated() -> None:
    """The parts are counted at run time: three parts into two names fail, naming the cause."""
    with pytest.raises(ValueError, match="too many values to unpack"):
        _value("[a for (a, b) in [(1, 2, 3)]]")


# ------------------------------------------------------------ where in comprehensions


def test_a_where_clause_binds_a_name_for_each_element_seen_by_if_by_and_the_element() -> None:
    """``[... for x in xs where y = f(x) if g(y) by h(y)]``: y is computed for each x."""
    assert _value("[y for x in [3, 1, 2] where y = x * 10 if y > 10 by -y]") == (
        (30, 20),
        t.list_of(t.INT),
    )
    assert _value("count(x for x in [1, 2, 3, 4] where half = x // 2 if half == 1)") == (2, t.INT)


def test_a_where_clause_may_follow_the_if_and_is_bound_before_it_is_tested() -> None:
    assert _value("[x for x in [1, 2, 3] if y > 1 where y = x * x]")[0] == (2, 3)


def test_where_clauses_are_bound_left_to_right_each_seeing_the_ones_before() -> None:
    assert _value("sum(z for x in [1, 2, 3] where y = x * 2 where z = y + 1)") == (15, t.INT)
    assert _value("[(x, y, s) for x in [1, 2] for y in [10] where s = x + y]")[0] == (
        (1, 10, 11),
        (2, 10, 12),
    )


def test_a_where_clause_may_rebind_the_loop_variable_for_the_rest_of_the_clauses() -> None:
    assert _value("[x for x in [1, 2] where x = x * 10 if x > 10]")[0] == (20,)


def test_a_where_name_is_typed_and_unknown_outside_its_comprehension() -> None:
    assert "unknown name 'y'" in _error("len([y for x in [1] where y = x]) + y")
    assert "a condition must be bool, not int" in _error("[x for x in [1] where y = x if y]")
    assert "unknown player field 'cost'" in _error("[y.cost for p in players where y = p]")


@pytest.mark.parametrize(
    "text",
    [
        "[y for x in xs where y = x + 1]",
        "[y for x in xs where y = x where z = y if z > 1 by -z]",
        "sum(y for x in xs if y > 1 where y = x * x)",
        "[(y where y = 1) for x in xs where z = x or w]",
    ],
)
def test_where_clauses_print_and_parse_back_to_the_same_tree(text: str) -> None:
    tree = parse_expression(text)
    assert parse_expression(print_expr(tree)) == tree
    assert isinstance(tree, ast.ListComprehension | ast.Aggregate)
    assert tree.comprehension.bindings
