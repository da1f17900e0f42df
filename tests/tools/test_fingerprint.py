"""Replays survive cosmetic edits: a semantic fingerprint beside the full one, and replay --force."""

from __future__ import annotations

import json
import re
import shutil
from collections.abc import Callable
from pathlib import Path

import pytest

from rulekit.cli import main
from rulekit.errors import ReplayError
from rulekit.load import load_program
from rulekit.tools.force import force_replay
from rulekit.tools.log import replay
from tests.rulesets import module_names, shipped_rulesets

ROOT = Path(__file__).resolve().parents[2]

COSMETIC = [
    ("title: Tic-tac-toe", "title: Noughts and crosses"),
    ("doc: Mark an empty cell.", "doc: Put your mark in an empty cell."),
    ('cite: "Rules: a turn"', 'cite: "Rules, section 2"'),
    ("- title: Board", "- title: The grid"),
]
SEMANTIC = [
    ("effect: game.winner = me", "effect: game.winner = next_player(me)"),
    (
        'cell: "[c for c in cells if c.mark == none]"',
        "cell: \"[c for c in cells if c.mark == none and c.id != 'a1']\"",
    ),
]


@pytest.fixture
def rules(tmp_path: Path) -> Path:
    directory = tmp_path / "ttt"
    shutil.copytree(ROOT / "rulesets" / "tic_tac_toe", directory)
    return directory


def _edit(directory: Path, old: str, new: str) -> None:
    path = directory / "ruleset.yaml"
    text = path.read_text(encoding="utf-8")
    assert old in text, old
    path.write_text(text.replace(old, new), encoding="utf-8")


def _log(rules: Path, tmp_path: Path) -> Path:
    log = tmp_path / "game.jsonl"
    assert main(["play", str(rules), "--quiet", "--bot", "first", "--log", str(log)]) == 0
    return log


@pytest.mark.parametrize(("old", "new"), COSMETIC)
def test_a_cosmetic_edit_keeps_the_semantic_fingerprint(rules: Path, old: str, new: str) -> None:
    before = load_program(str(rules))
    _edit(rules, old, new)
    after = load_program(str(rules))
    assert after.fingerprint != before.fingerprint
    assert after.semantic_fingerprint == before.semantic_fingerprint


@pytest.mark.parametrize(("old", "new"), SEMANTIC)
def test_a_change_of_play_changes_the_semantic_fingerprint(rules: Path, old: str, new: str) -> None:
    before = load_program(str(rules))
    _edit(rules, old, new)
    assert load_program(str(rules)).semantic_fingerprint != before.semantic_fingerprint


def test_requirement_and_invariant_messages_are_cosmetic(write_ruleset: object, tmp_path: Path) -> None:
    text = """\
ruleset: r
title: R
players: {min: 2, max: 2}
state:
  game:
    n: int
actions:
  go:
    require:
      - {if: game.n < 3, else: MESSAGE, cite: "§1"}
    effect: game.n += 1
    ends_turn: true
invariants:
  small: {holds: game.n <= 3, message: MESSAGE}
flow:
  - repeat:
      times: 2
      steps:
        - turn: player_at(1)
"""
    prints = []
    for message in ("too many", "no more than three"):
        directory = tmp_path / message.replace(" ", "_")
        directory.mkdir()
        (directory / "ruleset.yaml").write_text(text.replace("MESSAGE", message), encoding="utf-8")
        program = load_program(str(directory))
        prints.append((program.fingerprint, program.semantic_fingerprint))
    assert prints[0][0] != prints[1][0] and prints[0][1] == prints[1][1]


# Wording anywhere in a ruleset's files, on one line or as a folded block: docs, citations,
# requirement messages (also in requirement groups), invariant, property and ensures messages,
# titles, relaxations' reasons.
WORDING = re.compile(
    r"(?m)^(\s*(?:- )?(?:doc|cite|message|else|title|description|because): (?:[>|][-+]?\n\s+)?)"
    r"([\"']?)(?=[A-Za-z§])"
)


@pytest.mark.parametrize("ruleset", shipped_rulesets(), ids=lambda p: p.name)
def test_rewording_a_shipped_ruleset_keeps_its_semantic_fingerprint(ruleset: Path, tmp_path: Path) -> None:
    """Every module on: a log of any shipped game survives rewording its rules' text."""
    modules = module_names(ruleset)
    before = load_program(str(ruleset), modules)
    copy = tmp_path / ruleset.name
    shutil.copytree(ruleset, copy)
    for path in copy.rglob("*.yaml"):
        text = path.read_text(encoding="utf-8")
        path.write_text(WORDING.sub(r"\1\2Reworded ", text), encoding="utf-8")
    after = load_program(str(copy), modules)
    assert after.fingerprint != before.fingerprint
    assert after.semantic_fingerprint == before.semantic_fingerprint


def test_a_log_replays_after_a_cosmetic_edit(rules: Path, tmp_path: Path) -> None:
    log = _log(rules, tmp_path)
    for old, new in COSMETIC:
        _edit(rules, old, new)
    assert replay(log, ruleset=str(rules)).is_terminal()


def test_an_old_log_replays_while_the_rules_are_unchanged(rules: Path, tmp_path: Path) -> None:
    log = _log(rules, tmp_path)
    lines = log.read_text(encoding="utf-8").splitlines()
    header = json.loads(lines[0])
    del header["semantics"]  # a log written before the semantic fingerprint existed
    log.write_text("\n".join([json.dumps(header), *lines[1:]]) + "\n", encoding="utf-8")
    assert replay(log, ruleset=str(rules)).is_terminal()
    _edit(rules, *COSMETIC[1])  # it cannot tell a cosmetic edit apart: refused, with the way out
    with pytest.raises(ReplayError, match="replay --force"):
        replay(log, ruleset=str(rules))


def test_a_change_of_play_is_refused_and_force_finds_the_first_differing_action(
    rules: Path, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    log = _log(rules, tmp_path)  # first-action bots: P1 takes a1 first
    _edit(rules, *SEMANTIC[1])  # a1 can no longer be marked
    with pytest.raises(ReplayError, match="the rules changed"):
        replay(log, ruleset=str(rules))
    forced = force_replay(log, ruleset=str(rules))
    assert not forced.same and forced.replayed == 0
    assert forced.difference is not None and forced.difference.startswith("action 1 (line 2) P1 place(a1)")
    assert main(["replay", str(log), "--ruleset", str(rules), "--force"]) == 1
    out = capsys.readouterr().out
    assert "the rules changed since the game was logged; replaying anyway" in out
    assert "replayed 0 of 7 actions; first difference: action 1 (line 2) P1 place(a1)" in out


def _strip_digests(log: Path) -> None:
    """Make ``log`` look like one written before action lines carried a state digest."""
    entries = [json.loads(line) for line in log.read_text(encoding="utf-8").splitlines()]
    for entry in entries:
        entry.pop("h", None)
    log.write_text("".join(json.dumps(e) + "\n" for e in entries), encoding="utf-8")


def test_force_names_the_winning_move_when_only_its_outcome_changes(rules: Path, tmp_path: Path) -> None:
    log = _log(rules, tmp_path)
    _edit(rules, *SEMANTIC[0])  # the winner is now the other player: same moves, another end
    forced = force_replay(log, ruleset=str(rules))
    assert forced.replayed == forced.total == 7 and forced.difference is None
    assert forced.outcome is not None and forced.outcome.startswith(
        "action 7 (line 8) P1 place(a3): it has another outcome"
    )


def test_force_on_a_log_without_digests_reports_a_different_ending(rules: Path, tmp_path: Path) -> None:
    log = _log(rules, tmp_path)
    _strip_digests(log)
    _edit(rules, *SEMANTIC[0])
    forced = force_replay(log, ruleset=str(rules))
    assert forced.replayed == forced.total == 7 and forced.outcome is None
    assert (
        forced.difference is not None
        and "every action replays, but the game ends in state" in forced.difference
    )


COUNTER = """\
ruleset: counter
title: Counter
players: {min: 2, max: 2}
state:
  game:
    n: int
actions:
  go:
    require:
      - {if: game.n < 3, else: too many}
    effect: EFFECT
    ends_turn: true
flow:
  - repeat:
      times: 4
      steps:
        - turn: player_at(1)
"""


def test_force_names_the_first_action_whose_outcome_differs_and_the_first_that_cannot_replay(
    write_ruleset: Callable[..., Path], tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    rules = write_ruleset(COUNTER.replace("EFFECT", "game.n = min(x for x in [game.n + 1, 2])"))
    log = tmp_path / "counter.jsonl"
    assert main(["play", str(rules), "--quiet", "--bot", "first", "--log", str(log)]) == 0
    # n goes 1, 2, 2, 2 under these rules; counting on, the third action makes it 3 and the fourth
    # is refused: the third is the first whose outcome differs, the fourth cannot be replayed.
    (rules / "ruleset.yaml").write_text(COUNTER.replace("EFFECT", "game.n += 1"), encoding="utf-8")
    with pytest.raises(ReplayError, match="the rules changed"):
        replay(log, ruleset=str(rules))
    forced = force_replay(log, ruleset=str(rules))
    assert forced.replayed == 3 and forced.total == 4
    assert forced.outcome is not None and forced.outcome.startswith("action 3 (line 4) P1 go:")
    assert forced.difference is not None and forced.difference.startswith("action 4 (line 5) P1 go: ")
    capsys.readouterr()
    assert main(["replay", str(log), "--ruleset", str(rules), "--force"]) == 1
    out = capsys.readouterr().out
    assert "replayed 3 of 4 actions; first action whose outcome differs: action 3 (line 4) P1 go" in out
    assert "first action that cannot be replayed: action 4 (line 5) P1 go" in out


def test_force_on_unchanged_rules_says_so(
    rules: Path, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    log = _log(rules, tmp_path)
    capsys.readouterr()
    assert main(["replay", str(log), "--ruleset", str(rules), "--force"]) == 0
    assert capsys.readouterr().out == "ok: all 7 actions replay and the game ends in the logged state\n"
