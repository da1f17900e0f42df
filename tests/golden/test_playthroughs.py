"""Each shipped ruleset's seeded random game matches its playthrough golden (tests/golden/playthroughs)."""

from __future__ import annotations

import pytest

from tests.golden.playthrough import REGENERATE, all_setups, path_for, playthrough
from tests.rulesets import Setup


@pytest.mark.parametrize("setup", all_setups(), ids=lambda s: s.name)
def test_a_seeded_game_plays_exactly_as_its_playthrough_golden(setup: Setup, update_goldens: bool) -> None:
    """The same actions, legal-action counts, views, scores and returns as the committed file."""
    path = path_for(setup)
    actual = playthrough(setup)
    if update_goldens:
        path.write_text(actual, encoding="utf-8")
    assert path.exists(), f"no playthrough for {setup.name}; run {REGENERATE}"
    expected = path.read_text(encoding="utf-8")
    if actual != expected:  # the first differing line says more than a diff of two long strings
        pairs = zip([*actual.splitlines(), ""], [*expected.splitlines(), ""], strict=False)
        line = next(i for i, (a, b) in enumerate(pairs, 1) if a != b)
        pytest.fail(
            f"{setup.name} plays differently from {path.name} from line {line} on; "
            f"if that is intended, run {REGENERATE} and review the diff"
        )
