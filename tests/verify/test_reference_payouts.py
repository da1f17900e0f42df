"""The shipped reference payouts (El Capitan's paydays, El Caballero's scoring) fail on a wrong payout.

`reference_payouts.yaml` and `reference_scoring.yaml` recompute what a payday or a scoring pays
from the board, independently of the rules' functions; the postconditions that use them must
hold on the shipped rules and fail, naming themselves, when an edit changes what is paid
(a planted bug of tests/verify/corpus). Each scenario reaches the payment by actions, so that
``expect_properties`` checks the trigger's postconditions as ``rulekit verify`` does."""

from __future__ import annotations

from pathlib import Path

import pytest

from rulekit.tools.scenario import run_scenario

ROOT = Path(__file__).resolve().parents[2]
CORPUS = ROOT / "tests" / "verify" / "corpus"

# P2 builds her last warehouse, so the round ends in a payday (§3). Tunis holds a tie of one
# warehouse each (the front one first, §9.3) and ties Napoli for the most built city, so P1's
# fortress there earns V; with three players P3's fortress in Valencia (one warehouse) earns
# half of V (§9.4).
PAYDAY = """\
scenario: a payday after a tie in Tunis, with fortresses in and outside the most built cities
ruleset: {ruleset}
players: {players}
modules: [{modules}]
skip_invariants: [warehouses_accounted, fortresses_accounted{skip}]
setup:
  P1.ship: napoli
  P1.berth: 1
  P2.ship: napoli
  P2.berth: 2
  P2.supply_warehouses: 1
  P2.supply_fortresses: 0
  P2.supply_neutral: 0
{setup}setup_effect: |
  let a = main_warehouse(player_at(1))
  let b = main_warehouse(player_at(2))
  cities.tunis.sites = [{tunis}] + [none for i in between(3, 12)]
  cities.tunis.top = 2
  cities.tunis.fortresses = [player_at(1), none]
{effect}actions:
  - build_warehouse(1)
  - end_turn
  - build_warehouse(2)
  - end_turn
{actions}expect_properties: [{properties}]
"""

THREE: dict[str, str] = {
    "players": "3",
    "modules": "",
    "tunis": "a, b",
    "setup": "  P3.ship: valencia\n  P3.berth: 1\n",
    "effect": "  cities.valencia.fortresses = [player_at(3), none]\n",
    "actions": "  - build_warehouse(1)\n  - end_turn\n",
    "properties": '"payday_majorities.ensures[4]", "payday_fortresses.ensures[4]"',
    "skip": "",
}


def payday(**changes: str) -> str:
    """The payday scenario, three players unless ``changes`` say otherwise."""
    return PAYDAY.format(ruleset=ROOT / "rulesets" / "el_capitan", **{**THREE, **changes})


# Lisboa (§12.3): P2 builds behind P1's warehouse; one each, P1's earlier, so P2 ranks second
# and is paid half of the next free value.
LISBOA = f"""\
scenario: a second-rank build in Lisboa is paid half
ruleset: {ROOT / "rulesets" / "el_capitan"}
modules: [lisboa]
players: 3
setup:
  P1.ship: lisboa
  P1.berth: 1
  P2.ship: lisboa
  P2.berth: 2
actions:
  - build_warehouse(1)
  - end_turn
  - build_warehouse(2)
  - end_turn
expect_properties: ["lisboa_immediate_payment.ensures[1]"]
expect:
  - player_at(2).money == 21
"""


def _failures(tmp_path: Path, text: str, *bugs: str) -> list[str]:
    path = tmp_path / "s.yaml"
    path.write_text(text, encoding="utf-8")
    variants = [bug if bug.startswith("/") else str(CORPUS / bug) for bug in bugs]
    return run_scenario(path, variants=variants).failures


def _only_failure_is(failures: list[str], key: str) -> None:
    """The scenario failed once, on the property ``key``."""
    assert len(failures) == 1
    assert f"property '{key}' fails" in failures[0]


def _variant(tmp_path: Path, text: str) -> str:
    path = tmp_path / "variant.yaml"
    path.write_text(text, encoding="utf-8")
    return str(path)


# Two players (§11): Tunis' tie is between P2's neutral colour (at the front: first) and P1's
# main colour (second, which pays nothing with two players).
TWO: dict[str, str] = {
    "players": "2",
    "skip": ", neutral_warehouses_accounted",
    "tunis": "neutral_warehouse(player_at(2)), a",
    "setup": "",
    "effect": "",
    "actions": "",
}
# Porto (§12.2, R30): P1 first, P2 and P3 present; the off-board payday pays them half V.
PORTO: dict[str, str] = {
    "modules": "porto",
    "skip": ", porto_warehouses_accounted",
    "effect": THREE["effect"]
    + "  cities.porto.sites = [a, b, main_warehouse(player_at(3)), a] + [none for i in between(5, 12)]\n"
    + "  cities.porto.top = 4\n",
    "properties": THREE["properties"] + ', "porto_payday_everyone_present.ensures[1]"',
}


@pytest.mark.parametrize("changes", [{}, TWO, PORTO], ids=["three players", "two players", "porto"])
def test_the_reference_payday_holds_on_the_shipped_rules(tmp_path: Path, changes: dict[str, str]) -> None:
    assert _failures(tmp_path, payday(**changes)) == []


@pytest.mark.parametrize(
    ("bug", "key"),
    [
        ("el_capitan/majority_tie_goes_to_the_back.yaml", "payday_majorities.ensures[4]"),
        ("el_capitan/second_rank_paid_the_full_value.yaml", "payday_majorities.ensures[4]"),
        ("el_capitan/fortress_always_earns_the_full_value.yaml", "payday_fortresses.ensures[4]"),
    ],
)
def test_a_payday_paying_the_wrong_amount_breaks_the_reference(tmp_path: Path, bug: str, key: str) -> None:
    failures = _failures(tmp_path, payday(), bug)
    _only_failure_is(failures, key)


def test_a_fortress_in_a_city_tied_for_the_most_warehouses_paid_half_breaks_the_reference(
    tmp_path: Path,
) -> None:
    strict = _variant(
        tmp_path,
        "variant: strict\nruleset: el_capitan\nset:\n"
        "  functions.most_built.body: >\n"
        "    operating_count(city) > max(operating_count(c) for c in cities if c != city)\n",
    )
    failures = _failures(tmp_path, payday(), strict)
    _only_failure_is(failures, "payday_fortresses.ensures[4]")


def test_a_second_rank_paid_with_two_players_breaks_the_reference(tmp_path: Path) -> None:
    second = _variant(
        tmp_path,
        "variant: second\nruleset: el_capitan\nset:\n"
        "  functions.majority_income.body: >\n"
        "    (V(city) if len(r) > 0 and r[0] == m else half(V(city)) if len(r) > 1 and r[1] == m else 0)\n"
        "    where r = colour_ranking(city) where m = main_warehouse(p)\n",
    )
    failures = _failures(tmp_path, payday(**TWO), second)
    _only_failure_is(failures, "payday_majorities.ensures[4]")


def test_porto_paying_everyone_present_in_full_breaks_the_reference(tmp_path: Path) -> None:
    failures = _failures(tmp_path, payday(**PORTO), "el_capitan/porto_payday_pays_the_full_value.yaml")
    _only_failure_is(failures, "porto_payday_everyone_present.ensures[1]")


def test_lisboa_paying_the_second_rank_in_full_breaks_the_reference(tmp_path: Path) -> None:
    assert _failures(tmp_path, LISBOA) == []
    failures = _failures(tmp_path, LISBOA, "el_capitan/lisboa_second_rank_paid_in_full.yaml")
    _only_failure_is(failures, "lisboa_immediate_payment.ensures[1]")


# El Caballero, two players, the scoring after round 4 reached by actions (§5.4): P1 and P2 tie
# for the strongest on the island (5 each), which pays neither in a two-player game (§8.1,
# §8.4, the ruleset's default); P1's ship borders a sea of one sector and one of two sectors
# and a fish, and scores the better, 3 (§8.2, A5; tests/.../39_scoring_ships.yaml).
SCORING = f"""\
scenario: a tie for first on an island at the scoring after round 4
ruleset: {ROOT / "rulesets" / "el_caballero"}
players: 2
skip_invariants: [area_cards_accounted, caballero_cards_conserved, ships_conserved]
setup:
  game.round: 4
  P1.stock: 7
  P2.stock: 7
setup_effect: |
  game.map = with_area(with_area({{}}, (0, 0), area_cards.land_03, 0), (1, 0), area_cards.land_04, 0)
  game.map = with_caballero(game.map, (0, -1), player_at(1), 2, 5)
  game.map = with_caballero(game.map, (1, -1), player_at(2), 2, 5)
  game.map = with_area(game.map, (-1, 10), area_cards.water_04, 0)
  game.map = with_area(game.map, (1, 10), area_cards.water_05, 0)
  game.map = with_area(game.map, (2, 10), area_cards.water_01, 0)
  game.map = with_caballero(game.map, (0, 10), player_at(1), 1, 1)
  game.map = put(game.map, (0, 10), put(game.map[(0, 10)], "ship", true))
  game.display = [area_cards.cape_05, area_cards.cape_06]
actions:
  - play_power(10)
  - play_power(3)
  - place_area(cape_05, (2, 0), 3)
  - end_turn
  - place_area(cape_06, (-1, 0), 1)
  - end_turn
expect_properties: ["score_the_map.ensures[5]"]
expect:
  - "[p.score for p in players] == [3, 0]"
"""


def test_the_reference_scoring_holds_on_the_shipped_rules(tmp_path: Path) -> None:
    assert _failures(tmp_path, SCORING) == []


@pytest.mark.parametrize(
    "bug", ["el_caballero/tie_for_first_scores_first.yaml", "el_caballero/ships_score_the_poorest_sea.yaml"]
)
def test_a_scoring_paying_the_wrong_amount_breaks_the_reference(tmp_path: Path, bug: str) -> None:
    failures = _failures(tmp_path, SCORING, bug)
    _only_failure_is(failures, "score_the_map.ensures[5]")


# El Caballero, three players: the display and the stack are empty, so each turn's placement is
# skipped (A24) and round 4 ends in a scoring after three turns. The island (2 cards + 1 gold,
# value 3) has P1 at strength 5, P2 at 3 (single second) or 5 (tied first) and P3 at 2.
THREE_SCORING = f"""\
scenario: places on an island with three players at the scoring after round 4
ruleset: {ROOT / "rulesets" / "el_caballero"}
players: 3
skip_invariants: [area_cards_accounted, caballero_cards_conserved]
setup:
  game.round: 4
setup_effect: |
  game.map = with_area(with_area({{{{}}}}, (0, 0), area_cards.land_03, 0), (1, 0), area_cards.land_01, 0)
  game.map = with_caballero(game.map, (0, -1), player_at(1), 2, 5)
  game.map = with_caballero(game.map, (1, -1), player_at(2), 2, {{p2}})
  game.map = with_caballero(game.map, (0, 1), player_at(3), 0, 2)
  game.display = []
  game.stack = []
actions:
  - play_power(10)
  - play_power(3)
  - play_power(5)
  - draw_area
  - end_turn
  - draw_area
  - end_turn
  - draw_area
  - end_turn
expect_properties: ["score_the_map.ensures[5]"]
expect:
  - "[p.score for p in players] == {{scores}}"
"""


@pytest.mark.parametrize(
    ("p2", "scores"), [(3, [6, 3, 0]), (5, [3, 3, 0])], ids=["single second", "tie for first"]
)
def test_the_reference_scoring_holds_with_three_players(tmp_path: Path, p2: int, scores: list[int]) -> None:
    assert _failures(tmp_path, THREE_SCORING.format(p2=p2, scores=scores)) == []


def test_a_single_second_place_left_unpaid_breaks_the_reference(tmp_path: Path) -> None:
    unpaid = _variant(
        tmp_path,
        "variant: unpaid\nruleset: el_caballero\nset:\n  functions.place_points.body: >\n"
        "    let mine = s[seat(p) - 1] in let top = max(x for x in s) in\n"
        "    let firsts = count(x for x in s if x == top) in\n"
        "    0 if mine == 0 else FIRST_MULTIPLIER * value if mine == top and firsts == 1\n"
        "    else SECOND_MULTIPLIER * value if mine == top else 0\n",
    )
    failures = _failures(tmp_path, THREE_SCORING.format(p2=3, scores=[6, 3, 0]), unpaid)
    _only_failure_is(failures, "score_the_map.ensures[5]")


def test_a_tie_for_first_paid_in_full_with_three_players_breaks_the_reference(tmp_path: Path) -> None:
    failures = _failures(
        tmp_path, THREE_SCORING.format(p2=5, scores=[3, 3, 0]), "el_caballero/tie_for_first_scores_first.yaml"
    )
    _only_failure_is(failures, "score_the_map.ensures[5]")
