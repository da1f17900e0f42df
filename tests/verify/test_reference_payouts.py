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

# Three players; P2 builds her last warehouse, so the round ends in a payday (§3). Tunis holds
# a tie of one warehouse each (P1's at the front: P1 first, P2 second, §9.3); P3's fortress in
# Valencia (one warehouse: not the most built city) earns half of V (§9.4).
PAYDAY = f"""\
scenario: a payday after a tie in Tunis and a fortress outside the most built city
ruleset: {ROOT / "rulesets" / "el_capitan"}
players: 3
skip_invariants: [warehouses_accounted, fortresses_accounted]
setup:
  P1.ship: napoli
  P1.berth: 1
  P2.ship: napoli
  P2.berth: 2
  P2.supply_warehouses: 1
  P2.supply_fortresses: 0
  P3.ship: valencia
  P3.berth: 1
setup_effect: |
  let a = main_warehouse(player_at(1))
  let b = main_warehouse(player_at(2))
  cities.tunis.sites = [a, b] + [none for i in between(3, 12)]
  cities.tunis.top = 2
  cities.valencia.fortresses = [player_at(3), none]
actions:
  - build_warehouse(1)
  - end_turn
  - build_warehouse(2)
  - end_turn
  - build_warehouse(1)
  - end_turn
  - choose_start_player(P1)
expect_properties: ["payday_majorities.ensures[4]", "payday_fortresses.ensures[4]"]
expect:
  - game.phase == 2
"""

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


def _failures(tmp_path: Path, text: str, bug: str | None = None) -> list[str]:
    path = tmp_path / "s.yaml"
    path.write_text(text, encoding="utf-8")
    variants = [str(CORPUS / bug)] if bug else []
    return run_scenario(path, variants=variants).failures


def test_the_reference_payday_holds_on_the_shipped_rules(tmp_path: Path) -> None:
    assert _failures(tmp_path, PAYDAY) == []


@pytest.mark.parametrize(
    ("bug", "key"),
    [
        ("el_capitan/majority_tie_goes_to_the_back.yaml", "payday_majorities.ensures[4]"),
        ("el_capitan/second_rank_paid_the_full_value.yaml", "payday_majorities.ensures[4]"),
        ("el_capitan/fortress_always_earns_the_full_value.yaml", "payday_fortresses.ensures[4]"),
    ],
)
def test_a_payday_paying_the_wrong_amount_breaks_the_reference(tmp_path: Path, bug: str, key: str) -> None:
    failures = _failures(tmp_path, PAYDAY, bug)
    assert len(failures) == 1
    assert f"property '{key}' fails" in failures[0]


def test_lisboa_paying_the_second_rank_in_full_breaks_the_reference(tmp_path: Path) -> None:
    assert _failures(tmp_path, LISBOA) == []
    failures = _failures(tmp_path, LISBOA, "el_capitan/lisboa_second_rank_paid_in_full.yaml")
    assert len(failures) == 1
    assert "property 'lisboa_immediate_payment.ensures[1]' fails" in failures[0]


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
expect_properties: ["score_the_map.ensures[2]"]
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
    assert len(failures) == 1
    assert "property 'score_the_map.ensures[2]' fails" in failures[0]
