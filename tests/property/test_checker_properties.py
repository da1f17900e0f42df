"""Damaged rules files are user errors, never crashes: the loader and checker only raise RulekitError."""

from __future__ import annotations

from pathlib import Path

import pytest
from hypothesis import given
from hypothesis import strategies as st

from rulekit.errors import RulekitError
from rulekit.load import load_game

ROOT = Path(__file__).resolve().parents[2]
SOURCES = {
    "tic_tac_toe": (ROOT / "rulesets" / "tic_tac_toe" / "ruleset.yaml").read_text(encoding="utf-8"),
    "cards": (ROOT / "tests" / "data" / "cards" / "ruleset.yaml").read_text(encoding="utf-8"),
}
_REPLACEMENTS = ["none", "0", "-1", "[]", "{}", "true", "me", "players", "x", "'a'", "list[int]", "T?", "|"]
_CHARACTERS = "x:-[]{}\"' 0#|()=.,"

# One damage: (kind, line index, position or replacement index); applied modulo the sizes.
_KINDS = st.sampled_from(["delete", "char", "duplicate", "value"])
damages = st.lists(st.tuples(_KINDS, st.integers(0, 10_000), st.integers(0, 10_000)), min_size=1, max_size=3)


def _damage(text: str, edits: list[tuple[str, int, int]]) -> str:
    lines = text.splitlines()
    for kind, where, what in edits:
        i = where % len(lines)
        line = lines[i]
        if kind == "delete":
            del lines[i]
        elif kind == "duplicate":
            lines.insert(i, lines[what % len(lines)])
        elif kind == "char" and line:
            k = what % len(line)
            lines[i] = line[:k] + _CHARACTERS[what % len(_CHARACTERS)] + line[k + 1 :]
        elif kind == "value" and ":" in line:
            key = line.partition(":")[0]
            lines[i] = f"{key}: {_REPLACEMENTS[what % len(_REPLACEMENTS)]}"
    return "\n".join(lines) + "\n"


@given(source=st.sampled_from(sorted(SOURCES)), edits=damages, seed=st.integers(0, 100))
def test_damaged_rules_load_or_fail_with_a_user_error(
    tmp_path_factory: pytest.TempPathFactory, source: str, edits: list[tuple[str, int, int]], seed: int
) -> None:
    """Deleting, duplicating or garbling lines gives a RulekitError with diagnostics, or rules that play."""
    directory = tmp_path_factory.mktemp("damaged")
    (directory / "ruleset.yaml").write_text(_damage(SOURCES[source], edits), encoding="utf-8")
    try:
        game = load_game(str(directory), 2)
        state = game.new_initial_state(seed)
        for step in range(40):
            if state.is_terminal():
                break
            legal = state.legal_actions()
            state.apply_action(legal[(seed + step) % len(legal)])
    except RulekitError as error:
        assert error.diagnostics
        assert all(d.message for d in error.diagnostics)
