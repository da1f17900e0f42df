"""``verify --against REV``: the same seeded games with two versions of the rules, and the first
divergence explained in rule terms."""

from __future__ import annotations

import subprocess
from collections.abc import Callable
from pathlib import Path

import pytest

from rulekit.tools.verify import main

ROOT = Path(__file__).resolve().parents[2]
#: the rules alone (without the properties file they include: these tests compare rule edits)
PIG = (
    (ROOT / "rulesets" / "pig" / "ruleset.yaml")
    .read_text(encoding="utf-8")
    .replace("include: [properties.yaml]\n", "")
)
TTT = (
    (ROOT / "rulesets" / "tic_tac_toe" / "ruleset.yaml")
    .read_text(encoding="utf-8")
    .replace("include: [properties.yaml]\n", "")
)


def _git(where: Path, *args: str) -> str:
    done = subprocess.run(
        ["git", "-C", str(where), "-c", "user.name=t", "-c", "user.email=t@t", *args],
        capture_output=True,
        text=True,
        check=True,
    )
    return done.stdout


@pytest.fixture
def repo(tmp_path: Path) -> Path:
    """A git repository with pig's rules committed in ``games/pig``."""
    root = tmp_path / "repo"
    (root / "games" / "pig").mkdir(parents=True)
    _git(root, "init", "-q")
    (root / "README").write_text("x\n", encoding="utf-8")
    _git(root, "add", "README")
    _git(root, "commit", "-qm", "before the game")
    (root / "games" / "pig" / "ruleset.yaml").write_text(PIG, encoding="utf-8")
    _git(root, "add", "-A")
    _git(root, "commit", "-qm", "pig")
    return root


def test_a_changed_effect_is_reported_with_the_trigger_and_the_edit(
    write_ruleset: Callable[..., Path], capsys: pytest.CaptureFixture[str]
) -> None:
    old = write_ruleset(TTT, name="old")
    new = write_ruleset(TTT.replace("effect: game.winner = me", "effect: game.winner = next_player(me)"))
    assert main([str(new), "--against", str(old), "--quiet"]) == 1
    out = capsys.readouterr().out
    assert "first divergence at place(" in out and "the state differs" in out
    assert "game.winner:" in out and "scores:" in out
    assert "trigger 'three_in_a_row'" in out
    assert "changed triggers three_in_a_row" in out and "+effect: game.winner = next_player(me)" in out
    steps = [line for line in out.splitlines() if line.strip()[:3].strip().rstrip(".").isdigit()]
    assert 5 <= len(steps) <= 9  # the first win (a line needs at least five marks)


def test_a_working_tree_edit_against_a_git_revision_names_the_refusing_requirement(
    repo: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    rules = repo / "games" / "pig" / "ruleset.yaml"
    rules.write_text(PIG.replace("- if: turn.rolls > 0", "- if: turn.rolls > 1"), encoding="utf-8")
    status = _git(repo, "status", "--porcelain")
    assert main([str(rules.parent), "--against", "HEAD", "--quiet"]) == 1
    out = capsys.readouterr().out
    assert "the legal actions differ: only the other version allows hold" in out
    assert "now: hold is not legal: roll at least once before you hold" in out
    assert "changed actions hold" in out and "+require: [{if: turn.rolls > 1" in out
    assert "      1. roll" in out and "      2." not in out
    # the work tree is untouched: the same changes, the edit still there
    assert _git(repo, "status", "--porcelain") == status
    assert "turn.rolls > 1" in rules.read_text(encoding="utf-8")


def test_the_same_rules_play_the_same_games(repo: Path, capsys: pytest.CaptureFixture[str]) -> None:
    assert main([str(repo / "games" / "pig"), "--against", "HEAD", "--examples", "5", "--quiet"]) == 0
    assert "the same games in both versions (5 games" in capsys.readouterr().out


def test_a_changed_constant_shows_in_the_scores_or_state(
    repo: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    rules = repo / "games" / "pig" / "ruleset.yaml"
    rules.write_text(PIG.replace("GOAL: 100", "GOAL: 20"), encoding="utf-8")
    assert main([str(rules.parent), "--against", "HEAD~0", "--quiet", "--players", "2"]) == 1
    out = capsys.readouterr().out
    assert "game.winner:" in out
    assert "changed constants GOAL" in out


@pytest.mark.parametrize(
    "revision",
    ["no-such-revision", "--output=/tmp/x", "HEAD~5", "HEAD~1", "", "a\nb"],
)
def test_a_bad_revision_is_exit_1_with_a_message(
    repo: Path, capsys: pytest.CaptureFixture[str], revision: str
) -> None:
    assert main([str(repo / "games" / "pig"), f"--against={revision}", "--quiet"]) == 1
    captured = capsys.readouterr()
    assert "--against" in captured.err and "Traceback" not in captured.err
    assert captured.out == ""


def test_an_effect_that_fails_in_one_version_is_a_divergence_not_a_crash(
    write_ruleset: Callable[..., Path], capsys: pytest.CaptureFixture[str]
) -> None:
    old = write_ruleset(PIG, name="old")
    new = write_ruleset(
        PIG.replace(
            "      me.banked += turn.total\n", '      me.banked += turn.total\n      fail "no banking"\n'
        )
    )
    assert main([str(new), "--against", str(old), "--quiet", "--players", "2"]) == 1
    out = capsys.readouterr().out
    assert "hold fails under this version: " in out and "no banking" in out
    assert "is not legal" not in out  # after a failure the two listings are not compared
    assert out.rstrip().splitlines()[-2].strip().endswith("hold")  # the last action to reach it
