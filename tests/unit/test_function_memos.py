"""Rules functions while listing: which are memoized, which keep results across listings
(the fields they read, whether they depend on the acting player), and what a kept result
charges to the step budget."""

from __future__ import annotations

import random
import re
from collections.abc import Callable
from pathlib import Path

import pytest

from rulekit.compiler import planner
from rulekit.engine.game import State
from rulekit.load import load_game
from tests.unit.code_facts import of_code

ALL_MODULES = ("porto", "lisboa", "islas_canarias")


def _function_source(source: str, name: str) -> str:
    start = source.index(f"def {name}")  # a name or the start of one (enumerators are numbered)
    return source[start : source.index("\n\n", start)]


def test_field_reads_names_literal_owners_and_any_owner_of_a_computed_one() -> None:
    code = "(F[('game', 'pirate')] == v_c) and F[(v_p, 'ship')] and F[(F[('game', 'active')], 'money')]"
    assert planner.field_reads(of_code(code), {}) == {
        ("game", "pirate"),
        (None, "ship"),
        ("game", "active"),
        (None, "money"),
    }


def test_field_reads_adds_the_reads_of_called_functions() -> None:
    callees = {"fn_near": frozenset({(None, "berth")})}
    assert planner.field_reads(of_code("fn_near(F, R, me, v_x) and F[('turn', 'x')]"), callees) == {
        (None, "berth"),
        ("turn", "x"),
    }


def test_field_reads_is_unknown_when_the_state_escapes_or_a_callee_is_unknown() -> None:
    assert planner.field_reads(of_code("B_something(F, v_x)"), {}) is None
    assert planner.field_reads(of_code("F[v_key]"), {}) is None
    assert planner.field_reads(of_code("fn_other(F, R, me)"), {"fn_other": None}) is None
    assert planner.field_reads(of_code("fn_unseen(F, R, me)"), {}) is None
    assert planner.field_reads(of_code("R.random_below(F, 3)"), {}) is None
    assert planner.field_reads(of_code("R.steps(F[('game', 'pile')])"), {}) == {("game", "pile")}


def test_a_string_that_spells_a_field_read_or_a_name_is_no_fact() -> None:
    """Facts come from the syntax tree, not the text: a literal is only a literal."""
    assert planner.field_reads(of_code("(v_x == \"F[('game', 'x')]\") and (me == 'me')"), {}) == set()
    assert planner.reads_me(of_code("F[('game', 'x')] == 'me'"), {}) is False
    assert not of_code("B_len(F[('game', 'x')]) > 0 and 'R' == v_edge").charges
    assert of_code("R.steps(C_card)").charges and of_code("C_card").collection == "card"


def test_reads_me_sees_the_acting_player_directly_or_through_a_callee() -> None:
    assert planner.reads_me(of_code("F[(me, 'money')] > 2"), {})
    assert planner.reads_me(of_code("fn_mine(F, R, me)"), {"fn_mine": True})
    assert not planner.reads_me(of_code("fn_other(F, R, me, v_c) and F[('game', 'x')]"), {"fn_other": False})


def test_cheap_functions_are_computed_and_costly_ones_memoized_across_listings() -> None:
    source = load_game("el_capitan", 4, ALL_MODULES).program.source
    cheap = _function_source(source, "fn_sea_steps")  # one built-in call on constants
    assert "P_memo(" not in cheap
    kept = _function_source(source, "fn_pirate_can_go")  # a loop over harbor spaces and ships
    # memoized by the run-time helper, kept across listings by the fields it reads, and
    # (False: no 'me') shared between players
    assert re.search(r"fn_pirate_can_go = P_memo\(fn_pirate_can_go, \d+, \(\(.*\), False\)$", kept)


def test_a_result_kept_from_an_earlier_listing_charges_the_steps_computing_it_took() -> None:
    """Listing the same position twice charges the budget the same (never less): kept
    results charge what they cost, so a budget fails at the same point either way."""
    game = load_game("el_capitan", 4, ALL_MODULES)
    state = game.new_initial_state(3)
    rng = random.Random(3)
    R = game.runtime
    checked = 0
    for _ in range(200):
        if state.is_terminal():
            break
        if R.persist is not None:
            R.persist.clear()
        R.off.clear()
        State(game, dict(state.fields)).legal_actions()
        fresh = R.max_steps - R.left
        State(game, dict(state.fields)).legal_actions()
        again = R.max_steps - R.left
        assert again >= fresh
        checked += again == fresh
        state.apply_action(rng.choice(state.legal_actions()))
    assert checked > 150


_KEPT_DOMAIN = """\
ruleset: kept
players: {min: 2, max: 2}
state:
  game: {marks: {type: "list[int]", initial: "[1, 4, 9]"}}
functions:
  near:
    params: {n: int}
    body: "len([m for m in game.marks if m > n - 2 and m < n + 2]) > 0"
actions:
  pick:
    params: {n: "[k for k in range(0, 12) if near(k)]"}
  plain:
    params: {n: "[k for k in range(0, 12) if k > 5]"}
flow:
  - turn: player_at(1)
"""


def test_a_domain_asking_memoized_functions_is_kept_and_a_plain_one_computed(
    write_ruleset: Callable[..., Path],
) -> None:
    source = load_game(str(write_ruleset(_KEPT_DOMAIN)), 2).program.source
    assert "P_kept(" in _function_source(source, "enum_pick_")  # near() walks the marks
    assert "P_kept(" not in _function_source(source, "enum_plain_")  # a comprehension, no function
    tic_tac_toe = load_game("tic_tac_toe", 2).program.source
    assert "P_kept(" not in tic_tac_toe  # empty cells: a comprehension, no function


def test_a_function_around_a_built_in_that_remembers_its_answers_is_computed_not_memoized() -> None:
    """land_sides is one tile_facing call, which keeps its answers per grid: a memo in front
    of it would cost more than asking again, so the planner computes (and inlines) it."""
    caballero = load_game("el_caballero", 4).program.source
    assert "R.memo" not in _function_source(caballero, "fn_land_sides")
    add = _function_source(caballero, "enum_add_caballero_")
    assert "B_tile_facing(" in add and "fn_land_sides(" not in add and "P_kept(" not in add


def test_a_requirement_on_a_cyclic_parameter_asks_every_answer_once_per_innermost_loop() -> None:
    """tile_fits(grid, cell, edges, rotation) with the rotation the last parameter: its four
    answers are asked once per cell, at the first rotation that reaches the test."""
    caballero = load_game("el_caballero", 4).program.source
    place = _function_source(caballero, "enum_place_area_")
    assert "B_tile_fits(" not in place
    assert re.search(r"Q0 = None\n\s+for v_rotation in ", place)
    asked = r"if Q0 is None:\n\s+Q0 = BC_tile_fits\(L\d+, v_cell, A_edges\[v_card\], 'area'\)"
    assert re.search(asked, place)
    assert "if not Q0[v_rotation % 4]:" in place


@pytest.mark.parametrize(
    ("ruleset", "modules"),
    [("el_capitan", ALL_MODULES), ("el_caballero", ())],
    ids=["el_capitan", "el_caballero"],
)
def test_interleaved_positions_of_several_games_list_what_the_reference_lists(
    ruleset: str, modules: tuple[str, ...]
) -> None:
    """Kept results are checked against the fields they read, so listing unrelated
    positions in any order never reuses a stale one."""
    game = load_game(ruleset, 4, modules)
    rng = random.Random(7)
    positions = []
    for seed in range(4):
        state = game.new_initial_state(seed)
        for _ in range(rng.randrange(20, 120)):
            if state.is_terminal():
                break
            positions.append(dict(state.fields))
            state.apply_action(rng.choice(state.legal_actions()))
    rng.shuffle(positions)
    for fields in positions[:150]:
        planned = State(game, dict(fields)).legal_actions()
        game.reference_enumeration = True
        try:
            reference = State(game, dict(fields)).legal_actions()
        finally:
            game.reference_enumeration = False
        assert planned == reference
