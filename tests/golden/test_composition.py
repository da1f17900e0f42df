"""Every shipped combination of modules and variants composes to the data recorded in
``tests/golden/composed.json`` (see tests/golden/composition.py; the recording was made by the
composer before modules and variants became one patch language)."""

from __future__ import annotations

import json

import pytest

from tests.golden.composition import GOLDEN, REGENERATE, differences, snapshot


@pytest.mark.slow
def test_every_shipped_combination_composes_as_recorded(update_goldens: bool) -> None:
    now = snapshot()
    if update_goldens:
        GOLDEN.write_text(json.dumps(now, indent=1, sort_keys=True) + "\n", encoding="utf-8")
    found = differences(json.loads(GOLDEN.read_text(encoding="utf-8")), now)
    assert not found, (
        f"{len(found)} combinations compose differently (if intended: {REGENERATE}):\n"
        + "\n".join(found[:20])
    )
