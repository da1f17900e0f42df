"""benchmarks/kept_blocks.py: the bound on what keeping listings could save counts a listing
as kept only when the fields its enumerator reads are unchanged."""

from __future__ import annotations

import re
import subprocess
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]


def _kept(ruleset: str, players: int, games: int) -> dict[str, tuple[int, int]]:
    """Per action: (listings kept, listings) as the script prints them."""
    script = ROOT / "benchmarks" / "kept_blocks.py"
    done = subprocess.run(
        [sys.executable, str(script), ruleset, str(players), "--games", str(games)],
        capture_output=True,
        text=True,
        cwd=ROOT,
        check=True,
        timeout=120,
    )
    assert "of the enumerators' time kept" in done.stdout
    rows = re.findall(r"^(\w+)\s.*hits (\d+)/(\d+)", done.stdout, re.MULTILINE)
    return {name: (int(kept), int(runs)) for name, kept, runs in rows}


def test_a_listing_whose_fields_stay_the_same_counts_as_kept() -> None:
    kept = _kept("pig", 2, 3)
    roll_kept, roll_runs = kept["roll"]  # rolling reads nothing a roll changes
    assert roll_runs > 0 and roll_kept > roll_runs // 2
    hold_kept, hold_runs = kept["hold"]  # holding reads the turn's total, which each roll changes
    assert hold_kept < hold_runs // 2


def test_a_listing_after_its_fields_changed_never_counts_as_kept() -> None:
    kept, runs = _kept("tic_tac_toe", 2, 3)["place"]  # every move changes the board
    assert runs > 0 and kept == 0
