"""A ruleset's parameters through the bindings: OpenSpiel game parameters and PettingZoo keyword
arguments, checked like ``--param``."""

from __future__ import annotations

import pickle

import pytest

from tests.ecosystem.extras import require

pyspiel = require("pyspiel", "openspiel")
require("pettingzoo", "pettingzoo")

from rulekit import openspiel as rk  # noqa: E402
from rulekit import pettingzoo as rkz  # noqa: E402
from rulekit.errors import RulesetError  # noqa: E402


def test_openspiel_load_game_passes_the_rulesets_parameters() -> None:
    rk.register("hex")
    small = pyspiel.load_game("rulekit_hex", {"ROWS": 3, "COLUMNS": 4})
    assert small.num_distinct_actions() == 12
    assert small.get_parameters()["ROWS"] == 3
    assert pyspiel.load_game("rulekit_hex").num_distinct_actions() == 121


def test_openspiel_parameters_default_to_the_rulesets_defaults() -> None:
    game = rk.register("nim")
    chosen = game.get_parameters()
    assert (chosen["PILE_COUNT"], chosen["MISERE"]) == (4, True)


def test_a_game_with_parameters_survives_pickling() -> None:
    game = rk.register("hex", params={"ROWS": 2, "COLUMNS": 5})
    again = pickle.loads(pickle.dumps(game))
    assert again.num_distinct_actions() == 10
    state = again.new_initial_state()
    state.apply_action(state.legal_actions()[0])
    assert len(pickle.loads(pickle.dumps(state)).legal_actions()) == 9


def test_openspiel_refuses_a_parameter_out_of_range_naming_it() -> None:
    rk.register("hex")
    with pytest.raises(RulesetError, match="parameter ROWS must be a whole number from 1 to 26, not '40'"):
        pyspiel.load_game("rulekit_hex", {"ROWS": 40})


def test_pettingzoo_keyword_arguments_set_the_parameters() -> None:
    env = rkz.env("hex", ROWS=3, COLUMNS=3, max_cycles=50)
    env.reset(seed=0)
    assert env.action_space("player_0").n == 9
    with pytest.raises(RulesetError, match="did you mean 'ROWS'"):
        rkz.env("hex", ROWZ=3)
