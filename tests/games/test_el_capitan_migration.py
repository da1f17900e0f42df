"""El Capitan's migrations.yaml: DSL and set-up values written when a track held players are
rewritten for warehouse records (commit 4d32c92), and nothing else is touched."""

from __future__ import annotations

from pathlib import Path

import pytest

from rulekit.rules.migrations import load_migrations

EL_CAPITAN = Path(__file__).resolve().parents[2] / "rulesets" / "el_capitan"


def _migrate(line: str) -> str:
    (migration,) = load_migrations(EL_CAPITAN).after(1)
    for rewrite in migration.rewrites:
        line = rewrite.apply(line)
    return line


@pytest.mark.parametrize(
    ("old", "new"),
    [
        (
            "  let n = neutral_colour(player_at(2))",
            "  let n = neutral_warehouse(player_at(2))",
        ),
        ("  let a = player_at(1)", "  let a = main_warehouse(player_at(1))"),
        (
            "  c.sites = replace_at(c.sites, 0, player_at(1))",
            "  c.sites = replace_at(c.sites, 0, main_warehouse(player_at(1)))",
        ),
        (
            '  - "cities.lisboa.sites[0] == neutral_colour(player_at(1))"',
            '  - "cities.lisboa.sites[0] == neutral_warehouse(player_at(1))"',
        ),
        (
            '  - "game.porto_removed == [player_at(2)]"',
            '  - "game.porto_removed == [main_warehouse(player_at(2))]"',
        ),
        ("  napoli.sites: [P2, none]", "  napoli.sites: [{owner: P2, colour: main}, none]"),
        (
            "  - {expr: cities.napoli.closed, equals: [P2]}",
            "  - {expr: cities.napoli.closed, equals: [{owner: P2, colour: main}]}",
        ),
        # a player elsewhere stays a player
        (
            "  cities.athen.fortresses = [player_at(2), none]",
            "  cities.athen.fortresses = [player_at(2), none]",
        ),
        ("  - {expr: game.capitan, equals: P2}", "  - {expr: game.capitan, equals: P2}"),
        ("  - proliferation_count(player_at(1)) == 3", "  - proliferation_count(player_at(1)) == 3"),
    ],
)
def test_a_track_of_players_becomes_a_track_of_warehouses(old: str, new: str) -> None:
    assert _migrate(old) == new


def test_el_capitans_data_is_at_version_2() -> None:
    assert load_migrations(EL_CAPITAN).version == 2
