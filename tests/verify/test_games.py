"""``rulekit verify`` over the games: their invariants hold, and planted bugs are caught.

The number of games explored follows the Hypothesis profile (``HYPOTHESIS_PROFILE``):
``ci`` keeps it small and derandomized, ``long`` explores many more (docs/verification.md).
"""

from __future__ import annotations

import itertools
import shutil
from pathlib import Path

import pytest
from hypothesis import settings

from rulekit.errors import RulekitError
from rulekit.load import load_program
from rulekit.tools.log import replay
from rulekit.tools.verify import Checker, Stats, VerifyOptions, find_failure, format_counterexample, verify

ROOT = Path(__file__).resolve().parents[2]
PLANTED = ROOT / "tests" / "fixtures" / "planted"
TILES = ("islas_canarias", "lisboa", "porto")


def _game_examples() -> int:
    """Games per verify run: a twelfth of the profile's examples (ci: 5, long: 166)."""
    return max(3, settings().max_examples // 12)


def _require(ruleset: str, modules: tuple[str, ...] = ()) -> None:
    try:
        load_program(ruleset, modules)
    except RulekitError as error:
        pytest.skip(f"{ruleset} {'+'.join(modules)} does not load: {error.diagnostics[0].message}")


@pytest.mark.parametrize(
    "modules",
    [  # the base game and all tiles in make test, the combinations in between in the slow step
        combo if len(combo) in (0, len(TILES)) else pytest.param(combo, marks=pytest.mark.slow)
        for n in range(len(TILES) + 1)
        for combo in itertools.combinations(TILES, n)
    ],
    ids=lambda m: "+".join(m) or "base",
)
def test_el_capitan_invariants_hold_with_every_tile_combination(modules: tuple[str, ...]) -> None:
    _require("el_capitan", modules)
    result = verify(VerifyOptions("el_capitan", modules=modules, examples=_game_examples(), out=None))
    assert result.ok, format_counterexample(result.counterexample)  # type: ignore[arg-type]
    assert result.stats.invariant_checks > 0


def test_el_caballero_invariants_hold() -> None:
    _require("el_caballero")
    result = verify(VerifyOptions("el_caballero", examples=_game_examples(), out=None))
    assert result.ok, format_counterexample(result.counterexample)  # type: ignore[arg-type]
    assert result.stats.invariant_checks > 0


def test_games_declare_the_invariants_the_issue_asks_for() -> None:
    _require("el_capitan", TILES)
    capitan = {i.decl.name for i in load_program("el_capitan", TILES).invariants}
    assert {
        "money_conserved",
        "warehouses_accounted",
        "fortresses_accounted",
        "harbor_not_overfull",
        "one_fortress_per_player_and_city",
        "u_track_contiguous",
        "three_in_a_row",
        "loan_cards_accounted",
        "porto_warehouses_accounted",
        "pirate_on_a_harbor_space",
        "harbor_not_overfull_with_pirate",
    } <= capitan
    _require("el_caballero")
    caballero = {i.decl.name for i in load_program("el_caballero").invariants}
    assert {
        "area_edges_match",
        "no_card_touches_land_twice",
        "courts_within_capacity",
        "caballero_cards_conserved",
        "ships_conserved",
        "castillos_conserved",
        "area_cards_accounted",
        "scores_never_decrease",
    } <= caballero


# (game, planted module, modules it needs, the invariant it breaks, longest acceptable counterexample)
GAME_BUGS = [
    ("el_capitan", "planted_full_city", (), "invariant:one_ship_per_harbor_space", 16),
    pytest.param(  # shrinking it takes most of a minute: the slow step
        "el_capitan",
        "planted_lisboa_pays_twice",
        ("lisboa",),
        "invariant:money_conserved",
        16,
        marks=pytest.mark.slow,
    ),
    # 10 to 14 actions, 1-minimal, depending on the seeds explored (three players need more)
    ("el_caballero", "planted_keeps_caballeros", (), "invariant:no_card_touches_land_twice", 16),
]


@pytest.mark.parametrize(
    ("game", "bug", "needs", "key", "longest"),
    GAME_BUGS,
    ids=[getattr(b, "values", b)[1] for b in GAME_BUGS],
)
def test_planted_game_bug_is_caught_and_shrunk(
    game: str, bug: str, needs: tuple[str, ...], key: str, longest: int, tmp_path: Path
) -> None:
    _require(game, needs)
    directory = tmp_path / game
    shutil.copytree(ROOT / "rulesets" / game, directory)
    (directory / "modules").mkdir(exist_ok=True)
    shutil.copy(PLANTED / game / f"{bug}.yaml", directory / "modules" / f"{bug}.yaml")
    modules = (*needs, bug)
    result = verify(VerifyOptions(str(directory), modules=modules, examples=60, out=tmp_path / "out"))
    example = result.counterexample
    assert example is not None, f"the planted bug {bug} was not caught"
    assert example.key == key, format_counterexample(example)
    assert 0 < len(example.actions) <= longest, format_counterexample(example)
    # 1-minimal: dropping any one action makes the violation disappear or an action illegal
    checker = Checker(load_program(str(directory), modules), Stats(), full=True)
    texts = [a for _, a in example.actions]
    for i in range(len(texts)):
        assert find_failure(checker, example.players, example.seed, texts[:i] + texts[i + 1 :], key) is None
    # the log replays to the violating state
    log_path = next(p for p in example.files if p.suffix == ".jsonl")
    state = replay(log_path, ruleset=str(directory))
    invariant = next(i for i in result.program.invariants if f"invariant:{i.decl.name}" == key)
    assert not invariant.check(state.fields, state.game.runtime, -1)
    # the scenario reproduces it: the invariant fails, as its expectation or as the invariant
    # that scenarios check after every step
    scenario = pytest.importorskip("rulekit.tools.scenario")
    outcome = scenario.run_scenario(next(p for p in example.files if p.suffix == ".yaml"))
    assert not outcome.passed
    name = key.removeprefix("invariant:")
    assert any(
        "expectation failed" in failure or f"invariant '{name}' fails" in failure
        for failure in outcome.failures
    ), outcome.failures


def _variants() -> list[tuple[str, str, tuple[str, ...]]]:
    import yaml

    found = []
    for path in sorted((ROOT / "rulesets").glob("*/variants/*.yaml")):
        data = yaml.safe_load(path.read_text(encoding="utf-8"))
        if isinstance(data, dict) and "variant" in data:
            found.append((path.parent.parent.name, path.stem, tuple(data.get("requires") or ())))
    return found


@pytest.mark.parametrize(
    ("ruleset", "variant", "needs"),
    [  # the game variants' verify runs take 10-20 s each: the slow step
        v if v[0] == "tic_tac_toe" else pytest.param(*v, marks=pytest.mark.slow) for v in _variants()
    ],
    ids=lambda v: v if isinstance(v, str) else "",
)
def test_invariants_hold_with_every_variant(ruleset: str, variant: str, needs: tuple[str, ...]) -> None:
    _require(ruleset, needs)
    examples = settings().max_examples if ruleset == "tic_tac_toe" else _game_examples()
    result = verify(VerifyOptions(ruleset, modules=needs, variants=(variant,), examples=examples, out=None))
    assert result.ok, format_counterexample(result.counterexample)  # type: ignore[arg-type]
