"""The board games of the library (conformance-tested against OpenSpiel's own in their files)
through PettingZoo's own tests, OpenSpiel's ``random_sim_test``, and ``rulekit verify``."""

from __future__ import annotations

import warnings
from pathlib import Path

import pytest

from rulekit.tools.verify import VerifyOptions, verify
from tests.ecosystem.extras import require

pyspiel = require("pyspiel", "openspiel")
require("pettingzoo", "pettingzoo")

from pettingzoo.test import api_test, seed_test  # noqa: E402

from rulekit import openspiel, pettingzoo  # noqa: E402

RULESETS = Path(__file__).resolve().parents[2] / "rulesets"
#: The perfect-information board games of the library, each with a small board where it has one.
GAMES = {
    "nim": {},
    "oware": {},
    "dots_and_boxes": {},
    "checkers": {},
    "breakthrough": {"ROWS": 6, "COLUMNS": 5},
    "hex": {"ROWS": 5, "COLUMNS": 5},
    "othello": {},
}


@pytest.mark.parametrize("name", sorted(GAMES))
def test_pettingzoo_api_and_seed_tests_pass(name: str) -> None:
    path, params = str(RULESETS / name), GAMES[name]
    with warnings.catch_warnings():
        # api_test warns that dict observations and all-zero masks of waiting agents are unusual.
        warnings.simplefilter("ignore", UserWarning)
        api_test(pettingzoo.env(path, players=2, **params), num_cycles=40)
    seed_test(lambda render_mode=None: pettingzoo.env(path, players=2, **params), num_cycles=6)


@pytest.mark.parametrize("name", sorted(GAMES))
def test_openspiel_random_sim_test_passes_with_serialization(name: str) -> None:
    game = openspiel.register(str(RULESETS / name), players=2, params=GAMES[name] or None)
    pyspiel.random_sim_test(game, num_sims=2, serialize=True, verbose=False)


@pytest.mark.slow
@pytest.mark.parametrize("name", sorted(GAMES))
def test_verify_finds_no_failure(name: str) -> None:
    result = verify(VerifyOptions(str(RULESETS / name), examples=30, out=None))
    assert result.ok, result.counterexample
    assert result.stats.invariant_checks > 0


@pytest.mark.slow
@pytest.mark.parametrize(
    ("name", "variants"), [("goofspiel", ()), ("pig", ("openspiel",)), ("fireworks", ())], ids=str
)
def test_verify_finds_no_failure_in_the_other_new_kinds_of_game(name: str, variants: tuple[str, ...]) -> None:
    """Simultaneous moves, OpenSpiel's pig (a variant) and the cooperative game."""
    result = verify(VerifyOptions(str(RULESETS / name), variants=variants, examples=30, out=None))
    assert result.ok, result.counterexample
