"""``verify --suggest``'s relations at the end of the game, of who decides next and
conditional ones: the miner proposes each on a small ruleset, and a planted change of the
rules breaks it (a property ``over: game`` reading ``result(p)``, ``decider()`` after an
action, an implication ``not (CONDITION) or (RELATION)``)."""

from __future__ import annotations

import shutil
from collections.abc import Callable
from pathlib import Path

import pytest
import yaml

from rulekit.tools.verify import VerifyOptions, verify
from rulekit.tools.verify.suggest import Confidence, suggest

RULESETS = Path(__file__).resolve().parents[2] / "rulesets"

RACE = """
ruleset: race
players: {min: 2, max: 3}
constants:
  BUST: 1
  ROUNDS: 4
state:
  game:
    current: {type: player, initial: "player_at(1)"}
    last: {type: int}
    rounds: {type: int}
  turn:
    done: {type: bool}
  player:
    points: {type: int}
    style: {type: int}
actions:
  roll:
    effect: |
      game.last = roll(3)
      if game.last == BUST:
          turn.done = true
      else:
          me.points += game.last
  pass:
    effect: |
      me.style += 1
      turn.done = true
  poke:
    params: {target: "[p for p in players if p != me]"}
    effect: |
      if me.style != target.style:
          target.style += 1
      turn.done = true
flow:
  - repeat:
      until: game.rounds >= ROUNDS
      steps:
        - for_each:
            in: players
            as: current
            steps:
              - turn: {player: game.current, until: turn.done}
        - do: game.rounds += 1
scoring:
  score: player.points
  tiebreak: [player.style]
"""

MOST_POINTS = "all(result(p) >= result(q) for p in players for q in players if p.points > q.points)"
TIE_BREAK = (
    "all(result(p) >= result(q) for p in players for q in players "
    "if p.points == q.points and p.style > q.style)"
)
SAME_PLAYER = "not (after(game.last) != BUST) or (after(decider()) == me)"
PIGGED = "not (after(game.last) == BUST) or (after(decider()) == none or after(decider()) == next_player(me))"
PASS_NEXT = "after(decider()) == none or after(decider()) == next_player(me)"
EQUAL_NOTHING = (
    "not (before(me.style) == before(target.style)) or "
    "(all(after(p.style) == before(p.style) for p in players))"
)
ROLL_AMOUNT = "not (after(game.last) != BUST) or (after(me.points) == before(me.points) + after(game.last))"


@pytest.fixture(scope="module")
def race(tmp_path_factory: pytest.TempPathFactory) -> tuple[Path, dict[str, set[str]]]:
    directory = tmp_path_factory.mktemp("race")
    (directory / "ruleset.yaml").write_text(RACE, encoding="utf-8")
    mined = suggest(VerifyOptions(str(directory), examples=60, out=None))
    found: dict[str, set[str]] = {}
    for s in mined.suggestions:
        found.setdefault(s.action or f"over:{s.over}", set()).add(s.holds)
    return directory, found


def _check(
    directory: Path, tmp_path: Path, action: str | None, holds: str, plant: dict[str, object]
) -> str | None:
    """Verify the rules (changed by ``plant``) with the one relation ``holds`` added: the
    failing check's key, or ``None``."""
    if action is None:
        added: dict[str, object] = {"add": {"properties": {"mined": {"over": "game", "holds": holds}}}}
    else:
        added = {"extend": {"actions": {action: {"ensures": [{"holds": holds}]}}}}
    variant = {"variant": "checked", "title": "t", "description": "d", "ruleset": "race", **added}
    if plant:
        variant["set"] = plant
    path = tmp_path / "variant.yaml"
    path.write_text(yaml.safe_dump(variant), encoding="utf-8")
    result = verify(
        VerifyOptions(str(directory), variants=(str(path),), examples=40, out=tmp_path / "ce", workers=1)
    )
    return None if result.counterexample is None else result.counterexample.key


def test_the_returns_are_mined_against_the_players_values_and_their_tie_break(
    race: tuple[Path, dict[str, set[str]]],
) -> None:
    _, found = race
    assert MOST_POINTS in found["over:game"]
    assert TIE_BREAK in found["over:game"]
    assert "all(result(p) in [-1, 0, 1] for p in players)" in found["over:game"]
    # style alone does not order the returns: no relation says so
    assert not any("if p.style > q.style)" in h for h in found["over:game"])


def test_who_decides_next_is_mined_whole_and_split_by_the_die(race: tuple[Path, dict[str, set[str]]]) -> None:
    _, found = race
    assert PASS_NEXT in found["pass"]
    assert SAME_PLAYER in found["roll"] and PIGGED in found["roll"]
    assert ROLL_AMOUNT in found["roll"]
    # overall, a roll is followed by either player: no unconditional relation of the decider
    assert not any(h.startswith("after(decider())") for h in found["roll"])


def test_a_comparison_of_two_players_values_splits_an_action(race: tuple[Path, dict[str, set[str]]]) -> None:
    _, found = race
    assert EQUAL_NOTHING in found["poke"]


@pytest.mark.parametrize(
    ("action", "holds", "plant"),
    [
        (None, MOST_POINTS, {"scoring.score": "0 - player.points"}),
        (None, TIE_BREAK, {"scoring.tiebreak": ["0 - player.style"]}),
        ("roll", SAME_PLAYER, {"actions.roll.effect": "game.last = roll(3)\nturn.done = true\n"}),
        (
            "poke",
            EQUAL_NOTHING,
            {"actions.poke.effect": "target.style += 1\nturn.done = true\n"},
        ),
        ("pass", PASS_NEXT, {"actions.pass.effect": "me.style += 1\n"}),
    ],
    ids=["end-order", "end-tiebreak", "if-decider", "if-frame", "decider"],
)
def test_a_planted_change_breaks_the_mined_relation(
    race: tuple[Path, dict[str, set[str]]],
    tmp_path: Path,
    action: str | None,
    holds: str,
    plant: dict[str, object],
) -> None:
    directory, _ = race
    assert _check(directory, tmp_path, action, holds, {}) is None  # the rules keep it
    key = _check(directory, tmp_path, action, holds, plant)
    assert key == ("property:mined" if action is None else f"property:{action}.ensures[1]")


def test_the_player_a_field_names_has_the_best_return(tmp_path: Path) -> None:
    mined = suggest(VerifyOptions("pig", examples=30, out=None))
    at_end = {s.holds for s in mined.suggestions if s.over == "game"}
    named = "all(result(p) < result(game.winner) for p in players if p != game.winner)"
    assert named in at_end and "game.winner != none" in at_end
    plant = tmp_path / "plant.yaml"
    plant.write_text(
        yaml.safe_dump(
            {
                "variant": "plant",
                "title": "t",
                "description": "the fewest points win",
                "ruleset": "pig",
                "set": {"scoring.score": "0 - player.banked"},
                # pig ships the relations mined here: only this copy is checked
                "remove": [
                    "properties.mined_the_winner_wins",
                    "properties.mined_the_most_banked_points_never_do_worse",
                ],
                "add": {"properties": {"named": {"over": "game", "holds": named}}},
            }
        ),
        encoding="utf-8",
    )
    result = verify(
        VerifyOptions(
            "pig", variants=(str(plant),), examples=20, out=tmp_path / "ce", workers=1, shrink=False
        )
    )
    assert result.counterexample is not None and result.counterexample.key == "property:named"


def test_a_rare_branch_proposes_nothing(write_ruleset: Callable[..., Path]) -> None:
    directory = write_ruleset(RACE.replace("roll(3)", "roll(6)"))
    options = VerifyOptions(str(directory), examples=4, out=None)
    # a bust is one roll in six: in four games, too few to say what follows one
    found = {s.holds for s in suggest(options).suggestions}
    assert not any(h.startswith("not (after(game.last) == BUST)") for h in found)
    loose = suggest(options, Confidence(support=1, changes=1))
    assert any(s.holds.startswith("not (after(game.last) == BUST)") for s in loose.suggestions)


def test_result_outside_a_property_over_the_game_is_an_error_with_its_position(
    write_ruleset: Callable[..., Path], tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    from rulekit.tools.verify import main

    text = RACE + "properties:\n  early:\n    holds: all(result(p) >= -1 for p in players)\n"
    directory = write_ruleset(text)
    assert main([str(directory), "--examples", "2", "--out", str(tmp_path / "o"), "--workers", "1"]) == 1
    err = capsys.readouterr().err
    assert "ruleset.yaml:" in err and "result" in err
    directory = write_ruleset(text.replace("holds: all", "over: game\n    holds: all"))
    assert main([str(directory), "--examples", "2", "--out", str(tmp_path / "o"), "--workers", "1"]) == 0


SCENARIO = """
scenario: the tie on points goes to the more stylish player
format: 2
players: 2
expect_properties: [mined]
actions: [pass, pass, pass, poke(P1), pass, pass, pass, pass]
"""


@pytest.mark.parametrize(("tiebreak", "passes"), [("player.style", True), ("0 - player.style", False)])
def test_a_scenario_checks_a_property_over_the_game_when_it_ends(
    write_ruleset: Callable[..., Path], tiebreak: str, passes: bool
) -> None:
    from rulekit.tools.scenario import run_scenario

    text = RACE.replace("tiebreak: [player.style]", f'tiebreak: ["{tiebreak}"]')
    text += f'properties:\n  mined:\n    over: game\n    holds: "{TIE_BREAK}"\n'
    directory = write_ruleset(text)
    scenario = directory / "scenarios" / "tie.yaml"
    scenario.parent.mkdir()
    scenario.write_text(SCENARIO, encoding="utf-8")
    result = run_scenario(scenario)
    assert result.passed is passes, result.failures
    if not passes:
        assert "property 'mined' fails after pass" in result.failures[0]
        assert "fails for p" in result.failures[0]


NEXT_STILL_IN = (
    "after(decider()) == none or "
    "after(decider()) == first(q for q in players_from(next_player(me)) if not q.out)"
)


def test_the_next_player_still_in_is_mined_and_a_turn_given_to_a_player_out_breaks_it(tmp_path: Path) -> None:
    mined = suggest(VerifyOptions("royal_letter", examples=60, out=None))
    assert any(s.action == "guard" and s.holds == NEXT_STILL_IN for s in mined.suggestions)
    plant = tmp_path / "plant.yaml"
    plant.write_text(
        yaml.safe_dump(
            {
                "variant": "plant",
                "title": "t",
                "description": "players knocked out still take turns",
                "ruleset": "royal_letter",
                "set": {"functions.next_in_round.body": "next_player(p)"},
                # the invariant sees the card a player out draws: only the mined relation is checked
                "remove": ["invariants.out_players_hold_nothing"],
                "replace": {"postconditions": {"guard": [{"holds": NEXT_STILL_IN}]}},
            }
        ),
        encoding="utf-8",
    )
    options = VerifyOptions(
        "royal_letter", variants=(str(plant),), examples=60, out=tmp_path / "ce", workers=1
    )
    example = verify(options).counterexample
    assert example is not None and example.condition == NEXT_STILL_IN, example and example.key


SCORE_ORDER = "all(result(p) > result(q) for p in players for q in players if score(p) > score(q))"
DRAW_SCORES_NOTHING = (
    "not all(result(p) == result(q) for p in players for q in players) or all(score(p) == 0 for p in players)"
)


def test_a_draw_scored_as_a_win_for_both_breaks_the_mined_scores_at_the_end(tmp_path: Path) -> None:
    # without its scenarios (one of them sees the change first): only the relation is checked
    rules = tmp_path / "tic_tac_toe"
    shutil.copytree(RULESETS / "tic_tac_toe", rules, ignore=shutil.ignore_patterns("scenarios"))
    mined = suggest(VerifyOptions(str(rules), examples=100, out=None))
    at_end = {s.holds for s in mined.suggestions if s.over == "game"}
    assert SCORE_ORDER in at_end and DRAW_SCORES_NOTHING in at_end

    def verify_with(plant: dict[str, object]) -> str | None:
        variant = {
            "variant": "plant",
            "title": "t",
            "description": "a draw scores a point for both players",
            "ruleset": "tic_tac_toe",
            # tic-tac-toe ships the relation mined here: only this copy is checked
            "remove": ["properties.mined_a_draw_scores_nothing"],
            "add": {"properties": {"drawn": {"over": "game", "holds": DRAW_SCORES_NOTHING}}},
            **plant,
        }
        path = tmp_path / "plant.yaml"
        path.write_text(yaml.safe_dump(variant), encoding="utf-8")
        options = VerifyOptions(
            str(rules), variants=(str(path),), examples=60, out=tmp_path / "ce", workers=1, shrink=False
        )
        example = verify(options).counterexample
        return None if example is None else example.key

    assert verify_with({}) is None  # the rules keep it
    # the returns of a draw stay 0 and 0 (both "win"): only the scores show it
    assert verify_with(
        {"set": {"scoring.score": "1 if game.winner == player or game.winner == none else 0"}}
    ) == ("property:drawn")


def test_score_outside_a_property_over_the_game_is_an_error_with_its_position(
    write_ruleset: Callable[..., Path], tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    from rulekit.tools.verify import main

    text = RACE + "properties:\n  early:\n    holds: all(score(p) >= 0 for p in players)\n"
    directory = write_ruleset(text)
    assert main([str(directory), "--examples", "2", "--out", str(tmp_path / "o"), "--workers", "1"]) == 1
    err = capsys.readouterr().err
    assert "ruleset.yaml:" in err and "score" in err
    directory = write_ruleset(text.replace("holds: all", "over: game\n    holds: all"))
    assert main([str(directory), "--examples", "2", "--out", str(tmp_path / "o"), "--workers", "1"]) == 0
