"""Scenario files carry a format version and a ruleset data version; older files run as they were
written, or are rewritten by ``rulekit upgrade``; a ruleset's migrations.yaml (issue #29)."""

from __future__ import annotations

import os
from collections.abc import Callable
from pathlib import Path

import pytest

from rulekit.cli import main
from rulekit.errors import ReplayError, RulesetError
from rulekit.rules.migrations import load_migrations, template_rewrite
from rulekit.tools.log.reading import read_log
from rulekit.tools.scenario import run_scenario

TALLY = """\
ruleset: tally
title: Tally
players: {min: 2, max: 2}
constants:
  CARDS: [1, 2, 3]
functions:
  points:
    params: {p: player}
    returns: int
    body: p.marks * 2
state:
  game:
    deck: {type: "list[int]", initial: CARDS}
    kept: "list[int]"
  player:
    marks: {type: int, initial: 0}
invariants:
  cards_kept:
    holds: len(game.deck) + len(game.kept) == len(CARDS)
    message: a card vanished
actions:
  mark:
    effect: me.marks += 1
    ends_turn: true
flow:
  - turn: player_at(1)
  - turn: player_at(2)
scoring:
  score: player.marks
"""

#: Version 2 of the tally's data renamed score_of(p) to points(p).
MIGRATIONS = """\
version: 2
migrations:
  - to: 2
    doc: score_of(p) became points(p)
    rewrite:
      - {find: "score_of({p})", replace: "points({p})", doc: "score_of(p) -> points(p)"}
"""

#: A file of format 1 written for version 1 of the tally: a partial set-up (one card gone),
#: an inclusive range, the old function name; a comment and a quoted string kept by upgrade.
OLD = """\
scenario: a mark is worth two points   # from last month
setup:
  game.deck: [1, 2]
actions:
  - mark
expect:
  - "score_of(player_at(1)) == 2"
  - "[i for i in range(1, 3)] == [1, 2, 3]"
"""


@pytest.fixture
def tally(write_ruleset: Callable[..., Path]) -> Path:
    directory = write_ruleset(TALLY, name="tally")
    (directory / "migrations.yaml").write_text(MIGRATIONS, encoding="utf-8")
    (directory / "scenarios").mkdir()
    return directory


def _write(tally: Path, text: str, name: str = "s") -> Path:
    path = tally / "scenarios" / f"{name}.yaml"
    path.write_text(text, encoding="utf-8")
    return path


def test_a_file_without_a_version_runs_as_format_1_and_rules_version_1(tally: Path) -> None:
    assert run_scenario(_write(tally, OLD)).failures == []


def test_format_1_checks_invariants_only_when_the_file_asks(tally: Path) -> None:
    failures = run_scenario(_write(tally, OLD + "check_invariants: true\n")).failures
    assert "invariant 'cards_kept' fails after the set-up" in failures[0]


def test_format_2_checks_invariants_after_the_set_up_and_range_is_half_open(tally: Path) -> None:
    current = "scenario: x\nformat: 2\nrules_version: 2\nsetup:\n  game.deck: [1, 2]\n"
    failures = run_scenario(_write(tally, current)).failures
    assert "s.yaml:4:1: error: invariant 'cards_kept' fails after the set-up" in failures[0]
    half_open = (
        "scenario: x\nformat: 2\nrules_version: 2\nexpect:\n  - '[i for i in range(1, 3)] == [1, 2]'\n"
    )
    assert run_scenario(_write(tally, half_open)).failures == []


def test_the_old_encoding_needs_the_migration(tally: Path) -> None:
    old_names = "scenario: x\nformat: 2\nrules_version: 1\nexpect: [score_of(player_at(1)) == 0]\n"
    assert run_scenario(_write(tally, old_names)).failures == []
    failures = run_scenario(_write(tally, old_names.replace("rules_version: 1", "rules_version: 2"))).failures
    assert "unknown function 'score_of'" in failures[0]


@pytest.mark.parametrize(
    ("line", "message"),
    [
        ("format: 3", "s.yaml:2:1: error: format: 3 is newer than this rulekit's format (2)"),
        ("rules_version: 5", "rules_version: 5 is newer than the ruleset's data encoding version (2)"),
        ("format: zero", "format is a whole number from 1"),
    ],
)
def test_a_version_newer_than_known_is_refused_at_its_position(tally: Path, line: str, message: str) -> None:
    failures = run_scenario(_write(tally, f"scenario: x\n{line}\n")).failures
    assert message in failures[0]


def test_upgrade_rewrites_the_text_keeps_comments_and_says_what_changed(
    tally: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    path = _write(tally, OLD)
    os.chmod(path, 0o640)
    assert main(["upgrade", str(path)]) == 0
    out = capsys.readouterr().out
    new = path.read_text(encoding="utf-8")
    assert new == (
        "scenario: a mark is worth two points   # from last month\n"
        "format: 2\n"
        "rules_version: 2\n"
        "skip_invariants: [cards_kept]   # format 1 checked no invariants; the set-up breaks these\n"
        "setup:\n"
        "  game.deck: [1, 2]\n"
        "actions:\n"
        "  - mark\n"
        "expect:\n"
        '  - "points(player_at(1)) == 2"\n'
        '  - "[i for i in between(1, 3)] == [1, 2, 3]"\n'
    )
    assert f"upgraded {path}" in out
    assert "format 1 -> 2: range(a, b) was inclusive in format 1" in out and "(line 8)" in out
    assert "rules_version 1 -> 2: score_of(p) -> points(p) (line 7)" in out
    assert "skip_invariants: [cards_kept] added" in out
    assert path.stat().st_mode & 0o777 == 0o640
    assert run_scenario(path).failures == []
    assert main(["upgrade", "--check", str(path)]) == 0  # nothing left to do
    assert "0 would be upgraded, 1 already current" in capsys.readouterr().out


def test_upgrade_check_and_diff_write_nothing(tally: Path, capsys: pytest.CaptureFixture[str]) -> None:
    path = _write(tally, OLD)
    assert main(["upgrade", "--check", str(path)]) == 1
    assert f"would upgrade {path}" in capsys.readouterr().out
    assert main(["upgrade", "--diff", str(path)]) == 0
    out = capsys.readouterr().out
    assert '\n-  - "score_of(player_at(1)) == 2"\n' in out and '\n+  - "points(player_at(1)) == 2"\n' in out
    assert "+format: 2\n" in out and f"--- a/{path}" in out
    assert path.read_text(encoding="utf-8") == OLD


def test_upgrade_of_a_bad_file_is_exit_1_with_a_position(
    tally: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    path = _write(tally, "scenario: [unclosed\n")
    assert main(["upgrade", str(path)]) == 1
    assert f"{path}:1:11: error" in capsys.readouterr().out
    assert path.read_text(encoding="utf-8") == "scenario: [unclosed\n"


def test_upgrade_refuses_a_layout_it_cannot_edit_and_leaves_the_file(
    tally: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    flow = "{scenario: one line, actions: [mark]}\n"
    path = _write(tally, flow)
    assert main(["upgrade", str(path)]) == 1
    assert f"{path}:1:1: error: cannot upgrade this file's layout" in capsys.readouterr().out
    assert path.read_text(encoding="utf-8") == flow


def test_a_file_outside_the_ruleset_runs_with_ruleset_given(
    tally: Path, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    path = tmp_path / "elsewhere.yaml"
    path.write_text(OLD, encoding="utf-8")
    assert "names no ruleset" in run_scenario(path).failures[0]
    assert run_scenario(path, ruleset=str(tally)).failures == []
    assert main(["scenario", "--ruleset", str(tally), str(path)]) == 0
    assert main(["upgrade", "--ruleset", str(tally), str(path)]) == 0
    assert "points(player_at(1))" in path.read_text(encoding="utf-8")


@pytest.mark.parametrize(
    ("text", "message"),
    [
        ("version: 2\n", "version 2 needs a migration to each version from 2 to 2"),
        ("version: 1\nmigrations:\n  - {to: 3, doc: d, rewrite: []}\n", "migration to 3: migrations go one"),
        (
            "version: 2\nmigrations:\n  - to: 2\n    doc: d\n    rewrite: [{find: '{a}{b}', replace: x}]\n",
            "rewrite: two {names} must be parted by a character other than",
        ),
        (
            "version: 2\nmigrations:\n  - to: 2\n    doc: d\n"
            "    rewrite: [{find: 'f({a})', replace: '{b}'}]\n",
            "replace uses {b}, which find does not have",
        ),
        (
            "version: 2\nmigrations:\n  - {to: 2, doc: d, rewrite: [], extra: 1}\n",
            "unknown migration key 'extra'",
        ),
    ],
)
def test_a_malformed_migrations_file_is_a_located_error(tmp_path: Path, text: str, message: str) -> None:
    (tmp_path / "migrations.yaml").write_text(text, encoding="utf-8")
    with pytest.raises(RulesetError) as caught:
        load_migrations(tmp_path)
    assert message in caught.value.render() and "migrations.yaml:" in caught.value.render()


def test_a_template_matches_its_text_literally_and_whole_names_only() -> None:
    rename = template_rewrite("f({x}) + .*", "g({x})")
    assert rename.apply("f(a) + .* and f(b) + 1") == "g(a) and f(b) + 1"
    with pytest.raises(ValueError, match="parted by"):
        template_rewrite("{a}.{b}", "{b}")
    wrap = template_rewrite("p({n})", "w(p({n}))", lines_with=(".sites",), not_after="w(")
    assert wrap.apply("c.sites = [p(1), w(p(2)), top(3)]") == "c.sites = [w(p(1)), w(p(2)), top(3)]"
    assert wrap.apply("c.fortresses = [p(1)]") == "c.fortresses = [p(1)]"
    call = template_rewrite("old({x})", "new({x})")
    assert (
        call.apply("old(player_at(2)) + old(a.b) + old(f(g(1)))")
        == "new(player_at(2)) + new(a.b) + old(f(g(1)))"
    )


def test_a_log_of_a_newer_format_is_refused_saying_so(tmp_path: Path) -> None:
    path = tmp_path / "game.jsonl"
    path.write_text('{"rulekit_log": 2, "ruleset": "tic_tac_toe"}\n', encoding="utf-8")
    with pytest.raises(ReplayError) as caught:
        read_log(path)
    assert (
        f"{path}:1:1: error: the log is of format 2, newer than this rulekit's (1)" in caught.value.render()
    )
