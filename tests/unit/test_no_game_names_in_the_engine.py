"""Game knowledge lives in rulesets/: no source file of the engine names a shipped game."""

from __future__ import annotations

import re
from pathlib import Path

import yaml

ROOT = Path(__file__).resolve().parents[2]
#: Words a usage example may name (the tutorial game is the CLI's example; OpenSpiel's own
#: tic-tac-toe is the benchmarks' calibration), so they are not searched for.
EXAMPLE_GAMES = {"tic_tac_toe"}


def _game_words() -> set[str]:
    """The shipped rulesets' names, titles and module names, and their distinctive words."""
    words: set[str] = set()
    for ruleset in (ROOT / "rulesets").glob("*/ruleset.yaml"):
        if ruleset.parent.name in EXAMPLE_GAMES:
            continue
        data = yaml.safe_load(ruleset.read_text(encoding="utf-8"))
        words.add(ruleset.parent.name)
        words.add(str(data.get("title", "")).split(":")[0].strip())
        words.update(module.stem for module in (ruleset.parent / "modules").glob("*.yaml"))
    return {w for w in words if len(w) > 3}


def test_no_engine_source_file_names_a_shipped_game_or_module() -> None:
    words = _game_words()
    assert {"el_capitan", "lisboa"} <= {w.lower() for w in words}
    pattern = re.compile("|".join(re.escape(w).replace(r"\_", "[_ ]") for w in sorted(words)), re.IGNORECASE)
    found = [
        f"{path.relative_to(ROOT)}:{number}: {line.strip()}"
        for path in sorted((ROOT / "rulekit").rglob("*.py"))
        for number, line in enumerate(path.read_text(encoding="utf-8").splitlines(), start=1)
        if pattern.search(line)
    ]
    assert found == []
