"""Speed-only shapes of the generated code: each is checked for the shape it promises and
for giving the same values as the plain form would."""

from __future__ import annotations

import re
from functools import cache
from typing import Any

from rulekit.compiler import planner
from rulekit.compiler.planner_reads import Line, hoist_reads
from rulekit.engine.game import Game
from rulekit.load import load_game

MODULES = ("porto", "lisboa", "islas_canarias")


@cache
def _capitan() -> Game:
    return load_game("el_capitan", 4, MODULES)


def _function(source: str, name: str) -> str:
    """The generated source of the function ``name`` (``_n<k>`` may follow: up to the next
    top-level line)."""
    match = re.search(rf"^def {re.escape(name)}(_n[0-9]+)?\(.*?(?=^\S)", source + "\nEND", re.S | re.M)
    assert match, name
    return match.group(0)


def test_an_items_attribute_is_read_from_a_table_per_attribute() -> None:
    """``card.cost`` is ``A_cost[v_card]`` (the id's hash is kept by the string) instead of
    ``A[(v_card, 'cost')]`` (a new tuple hashed at every read), with the same values."""
    game = _capitan()
    source = game.program.source
    assert "A_cost[v_card]" in source
    assert "A[(v_card, 'cost')]" not in source
    attributes = game.program.attributes
    state = game.new_initial_state(0)
    for card in game.program.collections["card"][:12]:
        fn, _ = game.program.compile_expression(f"cards.{card}.cost + len(cards.{card}.kind)")
        expected = attributes[(card, "cost")] + len(attributes[(card, "kind")])
        assert fn(state.fields, game.runtime, 0) == expected


def _value(text: str) -> object:
    game = load_game("tic_tac_toe", 2)
    fn, _ = game.program.compile_expression(text)
    return fn(game.new_initial_state(0).fields, game.runtime, 0)


def test_where_and_let_bind_a_local_of_the_function_not_a_lambda() -> None:
    """``where`` and ``let ... in`` assign the value to a local (``:=``) instead of calling a
    lambda per evaluation."""
    source = _capitan().program.source
    body = _function(source, "fn_majority_income")
    assert ":= fn_colour_ranking(F, R, me, v_city)" in body
    assert "lambda" not in body


def test_an_inner_binding_of_the_same_name_leaves_the_outer_one_alone() -> None:
    """Each binding has its own local: the inner ``x`` is gone once its body is done."""
    assert _value("((x where x = 2) + x) where x = 1") == 3
    assert _value("let x = 1 in (let x = 2 in x) * 10 + x") == 21
    assert _value("[(y * 10 where y = x + 1) + x for x in [1, 2]]") == (21, 32)


def test_a_binding_inside_a_loops_collection_or_sort_key_still_compiles() -> None:
    """Python refuses ``:=`` in a comprehension's iterable: there the binding stays a lambda,
    and sorts and text conversions take generated code as an argument, not as an iterable."""
    assert _value("[y for y in (xs where xs = [3, 1])]") == (3, 1)
    assert _value("sorted(x for x in [3, 1, 2] by (k where k = 0 - x))") == (3, 2, 1)
    assert _value("rank(x for x in [3, 1, 2] by (k where k = x))") == (3, 2, 1)
    assert _value("[x for x in [2, 1] by (k where k = x)]") == (1, 2)
    assert _value("str([p for p in players] where n = 1)") == _value("str([p for p in players])")
    assert _value("any(x > n for x in [1, 5]) where n = 4") is True
    assert _value("count(x for x in [1, 5, 7] if (y > 4 where y = x))") == 2


# ------------------------------------------------------------------ field reads in enumerators


def _stable(owner: str | None, field: str) -> bool:
    return field != "maybe"


def _hoisted(texts: list[str]) -> list[str]:
    """:func:`hoist_reads` on lines written as the generated module has them (four spaces a
    level, the marker at the end), given as the planner records them."""
    lines = []
    for text in texts:
        code = text.lstrip(" ")
        code, at, mark = code.rpartition("  #@") if "  #@" in code else (code, "", "")
        lines.append(Line((len(text) - len(text.lstrip(" "))) // 4, code, at + mark))
    return [line.text for line in hoist_reads(lines, _stable)]


def test_a_read_in_a_loop_is_made_once_before_the_loop_with_its_rules_marker() -> None:
    lines = [
        "def enum_a(F, R, me, mk, out):",
        "    if not (F[('turn', 'done')]):  #@1",
        "        return",
        "    for v_c in R.steps(F[(me, 'hand')]):  #@2",
        "        if not (A_city[v_c] != F[(me, 'ship')]):  #@3",
        "            continue",
    ]
    assert _hoisted(lines) == [
        "def enum_a(F, R, me, mk, out):",
        "    if not (F[('turn', 'done')]):  #@1",
        "        return",
        "    L0 = F[(me, 'ship')]  #@2",
        "    for v_c in R.steps(F[(me, 'hand')]):  #@2",
        "        if not (A_city[v_c] != L0):  #@3",
        "            continue",
    ]


def test_reads_that_may_fail_or_only_spell_a_read_stay_in_place() -> None:
    """A computed owner (none, or another kind's item, would fail), a field some states lack,
    the text of a string: nothing is moved.  Columns count characters, not UTF-8 bytes."""
    lines = [
        "def enum_a(F, R, me, mk, out):",
        "    for v_p in R.steps(R.players):  #@1",
        "        if not (F[(v_p, 'ship')] == F[('game', 'maybe')]):  #@2",
        "            continue",
        "        if not ('F[(me, \\'ship\\')]' != 'é' + str(F[('game', 'n')])):  #@3",
        "            continue",
    ]
    hoisted = _hoisted(lines)
    assert hoisted[1] == "    L0 = F[('game', 'n')]  #@1"
    assert hoisted[2:5] == lines[1:4]
    assert hoisted[5] == "        if not ('F[(me, \\'ship\\')]' != 'é' + str(L0)):  #@3"


def test_the_membership_test_a_domain_was_built_from_is_not_repeated() -> None:
    """``card in E or card in G`` holds for every card of the loop over E and G; it is tested
    again only when E or G may charge the step budget (a rules function), so the budget
    counts as before."""
    source = _capitan().program.source
    buy = _function(source, "enum_buy_card")
    assert "(v_card in" not in buy
    plan = planner.ActionPlan(
        name="a",
        params=("v_x",),
        domains=(("C_tile", "", frozenset()),),
        checks=(planner.Check("(v_x in fn_e(F, R, me))", 1, "  #@1", ("fn_e(F, R, me)",)),),
        cost=None,
        money=None,
    )
    assert "if not ((v_x in fn_e(F, R, me))):  #@1" in planner.generate(plan, "enum_a")


def test_an_enumerator_reads_the_acting_players_fields_once() -> None:
    sail = _function(_capitan().program.source, "enum_sail_route")
    assert sail.count("F[(me, 'ship')]") == 1
    loop = sail.index("for v_target")
    assert "F[" not in sail[loop:]


# ------------------------------------------------------------------ small functions inlined

INLINE_RULESET = """\
ruleset: inl
players: {min: 2, max: 2}
money: coins
components:
  tile:
    attributes: {size: int}
    items: [{id: t1, size: 1}, {id: t2, size: 2}, {id: t3, size: 4}]
state:
  player:
    coins: {type: int}
functions:
  double: {params: {x: int}, body: "x + x"}
  total: {body: "sum(t.size for t in tiles)"}
  twice_total: {body: "double(total())"}
  mine: {body: "me.coins + 1"}
  size_of: {params: {t: tile}, body: "t.size"}
actions:
  act:
    params: {t: tiles}
    require:
      - {if: "size_of(t) < double(1) + mine()", else: never}
    ends_turn: true
flow:
  - turn: player_at(1)
"""


def test_a_small_function_is_written_out_where_it_is_called() -> None:
    """``sea_steps`` (one built-in call on attributes) is its body at the call, not a call;
    its function stays for anything else that names it."""
    source = _capitan().program.source
    paid = _function(source, "enum_move_pirate_paid")
    assert "B_manhattan(" in paid
    assert "fn_sea_steps(" not in paid
    assert "def fn_sea_steps(" in source


def test_an_inlined_call_evaluates_each_argument_once_before_its_body(write_ruleset: Any) -> None:
    """``double(total())`` in a rules function costs the steps of ``total()`` once: the
    argument is evaluated once (into a local), not once per use of ``x``, and no step is
    charged for entering ``double``.  A function that reads ``me`` stays a call.  (Extra
    expressions tools compile, as here, call the functions.)"""
    game = load_game(str(write_ruleset(INLINE_RULESET)), 2)
    program, R = game.program, game.runtime
    F = game.new_initial_state(0).fields

    def run(text: str) -> tuple[Any, int]:
        fn, _ = program.compile_expression(text)
        R.reset_steps()
        value = fn(F, R, 0)
        return value, R.max_steps - R.left

    once, steps = run("total()")
    assert run("twice_total()") == (2 * once, steps + 1)
    assert "fn_double(" not in _function(program.source, "fn_twice_total")
    assert "fn_size_of(" not in _function(program.source, "enum_act")
    assert "fn_mine(F, R, me)" in program.source
    assert [a.args[0] for a in game.new_initial_state(0).legal_actions()] == ["t1", "t2"]
