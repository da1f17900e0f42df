"""The last parameter's tests asked once per listing over its domain (``planner.filtered_once``:
the domain reads no earlier parameter and the tests name no other one and charge no step) list
the same actions in the same order, charge the same steps and fail the same way as the same
tests asked at every run of the innermost loop."""

from __future__ import annotations

import random
from functools import cache
from typing import Any

import pytest
from attrs import evolve

from rulekit.compiler import planner
from rulekit.compiler.build import _Compiler
from rulekit.compiler.planner import ActionPlan, Check
from rulekit.engine.action import make_action
from rulekit.engine.game import Game, State
from rulekit.engine.slots import DECISION
from rulekit.errors import RulekitError
from rulekit.load import load_program
from tests.rulesets import RULESETS_DIR, Setup, setups, shipped_rulesets
from tests.unit.code_facts import of_code


@cache
def _game(setup: Setup, filter_once: bool) -> Game:
    program = load_program(str(setup.ruleset), setup.modules, players=setup.players)
    compiler = _Compiler(program.rules)
    compiler.filter_once = filter_once
    return Game(compiler.compile(), setup.players)


def _listings(state: State) -> tuple[Any, ...]:
    """The decision's planned enumerators one by one, and its fused listing function: the
    actions (or the error) and the steps each charged, nothing kept from earlier listings."""
    game = state.game
    me, names = state.fields[DECISION]
    R = game.runtime
    kept, R.persist = R.persist, None
    found: list[Any] = []
    try:
        for run in (
            [game.program.actions[name].enumerate for name in names],
            [game.program.decisions[names]] if names in game.program.decisions else [],
        ):
            if not run or any(f is None for f in run):
                continue
            R.reset_steps()
            R.memo = {}
            listed: list[object] = []
            try:
                for enumerate_ in run:
                    enumerate_(state.fields, R, me, make_action, listed)
            except Exception as error:  # a rule failing must fail the same way
                listed = [type(error).__name__, str(error)]
            found.append((listed, R.max_steps - R.left))
    finally:
        R.memo = None
        R.persist = kept
    return tuple(found)


def _setups() -> list[Setup]:
    return [s for ruleset in shipped_rulesets() for s in setups(ruleset)]


@pytest.mark.parametrize("setup", _setups(), ids=lambda s: s.name)
def test_tests_asked_once_per_listing_list_and_charge_what_the_loop_does(setup: Setup) -> None:
    """Every shipped ruleset, base and all modules, fewest and most players: seeded random
    games played in both programs side by side give the same listings, steps and states."""
    once, looped = _game(setup, True), _game(setup, False)
    compared = 0
    for seed in range(3):
        rng = random.Random(seed)
        a, b = once.new_initial_state(seed), looped.new_initial_state(seed)
        for _ in range(120):
            if a.is_terminal():
                break
            if a.fields[DECISION] is not None:
                assert _listings(a) == _listings(b)
                compared += 1
            legal = a.legal_actions()
            assert legal == b.legal_actions()
            action = rng.choice(legal)
            try:
                a.apply_action(action)
            except RulekitError as error:
                with pytest.raises(RulekitError) as other:
                    b.apply_action(action)
                assert str(other.value) == str(error)
                break
            b.apply_action(action)
            assert a.state_hash() == b.state_hash()
            assert once.runtime.work() == looped.runtime.work()
    assert compared


def test_el_caballero_asks_a_caballero_s_cost_once_per_listing() -> None:
    """add_caballero's strengths 1-8 are read from no other parameter and its cost names only
    the strength: the affordable strengths are found once, not once per cell and side."""
    setup = Setup(RULESETS_DIR / "el_caballero", (), 4)
    source = _game(setup, True).program.source
    start = source.index("def enum_add_caballero")
    enumerator = source[start : source.index("\n\n", start)]
    assert "E2 = []" in enumerator and "for v_strength in E2:" in enumerator
    assert "E2" not in _game(setup, False).program.source


def _plan(checks: list[Check], cost: Check | None = None) -> ActionPlan:
    return ActionPlan(
        name="a",
        params=("v_x", "v_y"),
        domains=(("K_XS", "  #@1", frozenset()), ("K_YS", "  #@2", frozenset())),
        checks=tuple(checks),
        cost=cost,
        money="money",
    )


def _check(code: str, arity: int, params: frozenset[int] | None) -> Check:
    return Check(code, arity, "  #@3", facts=of_code(code), params_read=params)


def test_tests_naming_another_parameter_or_charging_steps_stay_in_the_loop() -> None:
    only_y = _check("(v_y > 1)", 2, frozenset({1}))
    assert planner.filtered_once(_plan([only_y]), 1, [only_y], None)
    both = _check("(v_y > v_x)", 2, frozenset({0, 1}))
    charging = _check("fn_ok(F, R, me, v_y)", 2, frozenset({1}))
    unknown = _check("(v_y > 1)", 2, None)
    for check in (both, charging, unknown):
        assert not planner.filtered_once(_plan([only_y, check]), 1, [only_y, check], None)
    cost = _check("(v_y + v_x)", 2, frozenset({0, 1}))
    assert not planner.filtered_once(_plan([only_y], cost), 1, [only_y], 2)


def _run(plan: ActionPlan, xs: tuple[Any, ...], ys: tuple[Any, ...], money: int) -> tuple[Any, ...]:
    class Steps:
        def __init__(self) -> None:
            self.log: list[int] = []

        def steps(self, items: Any) -> Any:
            self.log.append(len(items))
            return items

    source = planner.generate(plan, "enum")
    namespace: dict[str, Any] = {"K_XS": xs, "K_YS": ys, "P_limits": type("L", (), {"max_candidates": 99})}
    exec(compile(source, "<test>", "exec"), namespace)  # test-only: code the planner wrote
    R = Steps()
    out: list[Any] = []
    try:
        namespace["enum"]({("me", "money"): money}, R, "me", tuple, out)
    except (TypeError, ZeroDivisionError) as error:
        return ("raised", type(error).__name__, R.log)
    return (out, R.log)


@pytest.mark.parametrize(
    ("ys", "money"),
    [((1, 2, 3, 4), 3), ((), 3), ((2, 0, 5), 9), ((1, "b", 2), 9), ((4, 3), 0)],
)
def test_a_filtered_domain_gives_the_loops_actions_charges_and_errors(
    ys: tuple[Any, ...], money: int
) -> None:
    """Written out by the planner, run on plain values: the same actions in the same order,
    the same charges (the domain at every use) and the same error (a test failing on some y)."""
    checks = [_check("(v_x >= 0)", 1, frozenset({0})), _check("((10 // v_y) > 1)", 2, frozenset({1}))]
    cost = _check("(v_y + 0)", 2, frozenset({1}))
    once = _plan(checks, cost)
    looped = evolve(once, filter_once=False)
    assert "E1 = []" in planner.generate(once, "enum")
    assert "E1" not in planner.generate(looped, "enum")
    assert _run(once, (0, -1, 2), ys, money) == _run(looped, (0, -1, 2), ys, money)
