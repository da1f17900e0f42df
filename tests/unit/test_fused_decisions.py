"""A turn's enumerators fused into one listing function (rulekit/compiler/planner_decisions.py):
the same actions, the same step count, the same errors as calling them one by one."""

from __future__ import annotations

import os
import random
import re
import subprocess
import sys
from collections.abc import Callable
from functools import cache
from pathlib import Path

import pytest

from rulekit.compiler import planner_decisions
from rulekit.compiler.planner import Check, Enumerator
from rulekit.compiler.planner_reads import Line
from rulekit.engine.action import make_action
from rulekit.engine.game import Game, State
from rulekit.engine.slots import DECISION
from rulekit.errors import RuleEvaluationError
from rulekit.load import load_game
from tests.unit.code_facts import of_code

ALL_MODULES = ("porto", "lisboa", "islas_canarias")


@cache
def _game(ruleset: str, modules: tuple[str, ...] = ()) -> Game:
    return load_game(ruleset, 4, modules)


def _one_by_one(state: State) -> tuple[list[object], int]:
    """The planned enumerators of the state's decision called one by one: the actions and
    the steps they charged."""
    game = state.game
    me, names = state.fields[DECISION]
    R = game.runtime
    R.reset_steps()
    R.memo = {}
    found: list[object] = []
    try:
        for name in names:
            game.program.actions[name].enumerate(state.fields, R, me, make_action, found)
    finally:
        R.memo = None
    return found, R.max_steps - R.left


def _fused(state: State) -> tuple[list[object], int]:
    game = state.game
    me, names = state.fields[DECISION]
    fused = game.program.decisions[names]
    R = game.runtime
    R.reset_steps()
    R.memo = {}
    found: list[object] = []
    try:
        fused(state.fields, R, me, make_action, found)
    finally:
        R.memo = None
    return found, R.max_steps - R.left


@pytest.mark.parametrize(
    ("ruleset", "modules"),
    [("el_capitan", ALL_MODULES), ("el_caballero", ())],
    ids=["el_capitan", "el_caballero"],
)
def test_a_fused_listing_lists_and_charges_what_the_enumerators_do_one_by_one(
    ruleset: str, modules: tuple[str, ...]
) -> None:
    game = _game(ruleset, modules)
    rng = random.Random(11)
    compared = 0
    for seed in range(3):
        state = game.new_initial_state(seed)
        while not state.is_terminal() and compared < 400:
            if state.fields[DECISION][1] in game.program.decisions:
                R = game.runtime
                kept, R.persist = R.persist, None  # nothing kept across listings: exact steps
                try:
                    assert _fused(state) == _one_by_one(state)
                finally:
                    R.persist = kept
                compared += 1
            state.apply_action(rng.choice(state.legal_actions()))
    assert compared >= 100


def test_the_first_tests_several_actions_share_run_once() -> None:
    """El Caballero's main turn: the test blocking a kind of action after a partial
    placement (a `use:` requirement of most actions) is computed into one local."""
    source = _game("el_caballero").program.source
    start = source.index("def decide_")
    fused = source[start : source.index("\n\n", start)]
    shared = re.findall(r"^    (G\d+) = P_miss$", fused, re.MULTILINE)
    assert shared
    for local in shared:  # each use computes it only if no earlier block did
        uses = re.findall(rf"if not \({local} if {local} is not P_miss else \({local} := (.*)\)\):", fused)
        assert len(uses) >= 2 and len(set(uses)) == 1


def test_a_test_that_charges_steps_or_reads_one_field_is_not_shared() -> None:
    charging = Check("fn_f(F, R, me)", 0, "  #@1", facts=of_code("fn_f(F, R, me)"))
    one_read = Check("not F[('turn', 'x')]", 0, "  #@3", facts=of_code("not F[('turn', 'x')]"))

    def enumerator(name: str, check: Check, *rest: str) -> Enumerator:
        lines = [
            Line(0, f"def {name}(F, R, me, mk, out):"),
            Line(1, f"if not ({check.code}):", check.mark),
            Line(2, "return"),
        ]
        return Enumerator([*lines, *(Line(1, code) for code in rest)], {1: check}, frozenset({2}))

    enumerators = [
        enumerator("e1", charging, "add(mk(('a', ())))"),
        enumerator("e2", charging, "add(mk(('b', ())))"),
        enumerator("e3", one_read),
        enumerator("e4", one_read),
    ]
    source = planner_decisions.fuse("decide", enumerators, None)
    assert "P_miss" not in source
    assert source.count("fn_f(F, R, me)") == 2
    assert source.count("        break") == 4  # each failing first test ends its own block


def test_an_error_inside_a_fused_turn_names_the_action_that_failed(
    write_ruleset: Callable[..., Path],
) -> None:
    """The second action of a turn fails while listing: listed one by one again, the error
    names that action and points at its domain."""
    directory = write_ruleset(
        "ruleset: d\nplayers: {min: 1, max: 1}\nstate: {game: {n: {type: int}}}\n"
        "actions:\n"
        "  bump: {require: [{if: game.n < 3 and game.n >= 0}], effect: game.n += 5}\n"
        "  pick: {require: [{if: game.n < 3 and game.n >= 0}], params: {x: '[[1], [2]][game.n + 5]'}}\n"
        "flow:\n  - turn: player_at(1)\n"
    )
    game = load_game(str(directory), 1)
    assert ("bump", "pick") in game.program.decisions
    with pytest.raises(RuleEvaluationError) as caught:
        game.new_initial_state(0)
    rendered = caught.value.render()
    assert "ruleset.yaml:6:68: error: cannot list the legal actions: IndexError" in rendered
    assert "hint: a parameter domain, requirement or cost of 'pick' failed" in rendered


def test_the_generated_module_is_the_same_whatever_the_hash_seed(tmp_path: Path) -> None:
    """String hashing differs between processes: nothing the compiler writes may depend on
    the order of a set (the shared first tests are numbered in the order they appear)."""
    script = (
        "import hashlib, sys\n"
        "from rulekit.load import load_game\n"
        "tiles = ('porto', 'lisboa', 'islas_canarias')\n"
        "for name, modules in (('el_caballero', ()), ('el_capitan', tiles)):\n"
        "    source = load_game(name, 4, modules).program.source\n"
        "    print(hashlib.sha256(source.encode()).hexdigest())\n"
    )
    outputs = []
    for seed in ("1", "2"):
        env = {**os.environ, "PYTHONHASHSEED": seed, "RULEKIT_CACHE_DIR": str(tmp_path / seed)}
        done = subprocess.run(
            [sys.executable, "-c", script], env=env, capture_output=True, text=True, check=True
        )
        outputs.append(done.stdout)
    assert outputs[0] == outputs[1]
