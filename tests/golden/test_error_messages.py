"""Rendered error messages are API: their exact text and positions are golden-tested.

Each case is a ruleset directory under ``cases/``; its expected output is ``cases/<case>.expected``.
Run ``pytest tests/golden --update-goldens`` to rewrite the expected files, then review the diff.
"""

from __future__ import annotations

from pathlib import Path

import pytest

from rulekit.errors import RulekitError
from rulekit.load import load_game, load_program
from rulekit.rules import yaml_source

CASES = Path(__file__).resolve().parent / "cases"
#: Modules requested per case (the default is none).
MODULES: dict[str, list[str]] = {
    "unknown_module": ["harbor"],
    "module_error": ["harbour"],
}
CASE_NAMES = sorted(p.name for p in CASES.iterdir() if (p / "ruleset.yaml").is_file())


def _render(case: str) -> str:
    try:
        load_program(case, MODULES.get(case, []))
    except RulekitError as error:
        return str(error) + "\n"
    return "(no error)\n"


@pytest.mark.parametrize("case", CASE_NAMES)
def test_error_message_matches_golden(
    case: str, update_goldens: bool, monkeypatch: pytest.MonkeyPatch
) -> None:
    """Loading the case's ruleset fails with exactly the message in ``<case>.expected``."""
    monkeypatch.chdir(CASES)
    actual = _render(case)
    expected_path = CASES / f"{case}.expected"
    if update_goldens or not expected_path.exists():
        expected_path.write_text(actual, encoding="utf-8")
        if not update_goldens:
            pytest.fail(f"wrote a new golden file {expected_path.name}; check it and run again")
    assert actual == expected_path.read_text(encoding="utf-8")


YAML_CASES = [case for case in CASE_NAMES if case.startswith("yaml_") or case == "bad_yaml"]


@pytest.mark.skipif(yaml_source._FAST_LOADER is None, reason="PyYAML was built without libyaml")
@pytest.mark.parametrize("case", YAML_CASES)
def test_yaml_errors_are_the_same_with_and_without_libyaml(
    case: str, monkeypatch: pytest.MonkeyPatch
) -> None:
    """A YAML structure error has the same text and position whichever YAML loader read the file."""
    monkeypatch.chdir(CASES)
    with_libyaml = _render(case)
    monkeypatch.setattr(yaml_source, "_FAST_LOADER", None)
    assert _render(case) == with_libyaml
    assert "error:" in with_libyaml


PLAY_ATTEMPTS = ["bet(3)", "bet(9)", "borrow", "bett(1)", "bet", "bet(1, 2)", 'bet("x', "bet(2)", "bet(4)"]


def test_illegal_action_messages_match_golden(update_goldens: bool, monkeypatch: pytest.MonkeyPatch) -> None:
    """Rejected actions explain the rule, its citation and position: play.expected holds the exact text."""
    monkeypatch.chdir(Path(__file__).resolve().parent)
    state = load_game("play", 2).new_initial_state(0)
    parts = []
    for attempt in PLAY_ATTEMPTS:
        try:
            state.apply_action(attempt)
        except RulekitError as error:
            parts.append(f"$ {attempt}\n{error}\n")
        else:  # "bet(2)" is legal and moves on to P2, who then cannot afford "bet(4)"
            parts.append(f"$ {attempt}\n(accepted)\n")
    actual = "\n".join(parts)
    expected_path = Path(__file__).resolve().parent / "play.expected"
    if update_goldens:
        expected_path.write_text(actual, encoding="utf-8")
    assert actual == expected_path.read_text(encoding="utf-8")
