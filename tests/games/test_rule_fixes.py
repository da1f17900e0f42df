"""Two rule bugs of issue 15, each shown by its shipped scenarios failing on the rules before the fix.

The rules before each fix are rebuilt as a variant (a few removed requirements, an old trigger
condition), so these tests keep checking that the shipped scenarios would catch the bug again.
"""

from __future__ import annotations

from pathlib import Path

import pytest

from rulekit.tools.scenario import run_scenario

RULESETS = Path(__file__).resolve().parents[2] / "rulesets"

# El Caballero before the fix: a card turned up from the stack (A24) did not have to be placed next.
CABALLERO_BEFORE_THE_FIX = """\
variant: before_the_fix
ruleset: el_caballero
remove:
  - requirements.placements_first.require.1   # not drawn_due(): the turned-up card first
  - actions.place_area.require.1              # not drawn_due() or card in turn.drawn
"""

# El Capitan before the fix: a warehouse on a dark site shut down the front one even on the 12th site.
CAPITAN_BEFORE_THE_FIX = """\
variant: before_the_fix
ruleset: el_capitan
set:
  triggers.shut_down_on_dark_site.when: "site in dark_sites(city)"
"""

# ... and before the second fix (found by `rulekit verify` on that board): a warehouse that went
# before the front on a dark site shut down the one behind it, leaving a hole in the chain.
CAPITAN_BEFORE_THE_FRONT_FIX = """\
variant: before_the_front_fix
ruleset: el_capitan
set:
  triggers.shut_down_on_dark_site.when: >
    site in dark_sites(city) and len(occupied_sites(city)) < len(city.sites)
"""

SETUP = """\
players: 2
setup:
  P1.stock: 7
setup_effect: |
  game.map = with_area(record(), (0, 0), area_cards.cape_05, 0)
  game.map = with_caballero(game.map, (0, -1), player_at(1), 2, 3)
  game.display = [area_cards.land_01, area_cards.land_02]
  let front = [area_cards.land_03, area_cards.water_05, area_cards.water_06]
  game.stack = front + [c for c in area_cards if c not in front and c not in game.display
                        and c != area_cards.cape_05]
"""

# Every step legal on the old rules: water_05 is turned up (no display card fits), the caballero
# card is taken back, a display card goes on the freed cell and water_05 vanishes at the turn's end.
EXPLOITS = {
    "take_back": "  - play_power(10)\n  - play_power(3)\n",
    "take_back_with_the_nine": "  - play_power(9)\n  - play_power(3)\n",
}
EXPLOIT_STEPS = """\
  - draw_area
  - take_back_card((0, -1))
  - place_area(land_02, (0, -1), 0)
{second}  - end_turn
"""


def _write(directory: Path, name: str, text: str) -> Path:
    path = directory / name
    path.write_text(text, encoding="utf-8")
    return path


@pytest.mark.parametrize("power", sorted(EXPLOITS))
def test_the_area_card_invariant_catches_a_turned_up_card_that_vanishes(power: str, tmp_path: Path) -> None:
    _write(tmp_path, "before.yaml", CABALLERO_BEFORE_THE_FIX)
    second = "  - place_area(land_01, (1, -1), 0)\n" if "nine" in power else ""
    scenario = _write(
        tmp_path,
        "exploit.yaml",
        "scenario: the turned-up card vanishes\nformat: 2\nruleset: el_caballero\nvariants: [before.yaml]\n"
        + SETUP
        + "actions:\n"
        + EXPLOITS[power]
        + EXPLOIT_STEPS.format(second=second),
    )
    (failure,) = run_scenario(scenario).failures
    assert "invariant 'area_cards_accounted' fails after end_turn" in failure
    # the same steps on the shipped rules: taking the caballero card back is refused
    fixed = _write(tmp_path, "fixed.yaml", scenario.read_text().replace("variants: [before.yaml]\n", ""))
    (refused,) = run_scenario(fixed).failures
    assert "take_back_card((0, -1)) is not legal: the card turned up from the stack" in refused


@pytest.mark.parametrize(
    "name",
    [
        "42_drawn_card_survives_take_back",
        "43_drawn_card_cells_cannot_be_covered",
        "44_nine_first_drawn_card_placed_first",
    ],
)
def test_the_turned_up_card_scenarios_fail_on_the_rules_before_the_fix(name: str, tmp_path: Path) -> None:
    scenario = RULESETS / "el_caballero" / "scenarios" / f"{name}.yaml"
    assert run_scenario(scenario).failures == []
    before = _write(tmp_path, "before.yaml", CABALLERO_BEFORE_THE_FIX)
    (failure,) = run_scenario(scenario, variants=[str(before)]).failures
    assert "('the card turned up from the stack must be placed first'), but P1 could play it" in failure


def test_the_twelfth_site_scenario_fails_on_the_rules_before_the_fix(tmp_path: Path) -> None:
    scenario = RULESETS / "el_capitan" / "scenarios" / "no_shut_down_once_all_twelve_sites_are_occupied.yaml"
    assert run_scenario(scenario).failures == []
    before = _write(tmp_path, "before.yaml", CAPITAN_BEFORE_THE_FIX)
    (failure,) = run_scenario(scenario, variants=[str(before)]).failures
    # the front warehouse is shut down: the track has a gap at site 1
    assert "invariant 'u_track_contiguous' fails after build_warehouse(1)" in failure


def test_the_dark_front_scenario_fails_on_the_rules_before_the_fix(tmp_path: Path) -> None:
    scenario = RULESETS / "el_capitan" / "scenarios" / "dark_site_at_the_front_shuts_nothing_down.yaml"
    assert run_scenario(scenario).failures == []
    before = _write(tmp_path, "before.yaml", CAPITAN_BEFORE_THE_FRONT_FIX)
    failures = run_scenario(scenario, variants=[str(before)]).failures
    assert "expectation failed: cities.marseille.closed == []" in "\n".join(failures)
