"""Composition: modules add, override and remove entries by name; requires, conflicts, players are checked."""

from __future__ import annotations

from collections.abc import Callable
from pathlib import Path

import pytest

from rulekit.errors import RulesetError
from rulekit.load import load_game, load_program

BASE = """\
ruleset: base
players: {min: 2, max: 4}
constants: {BONUS: 1}
state:
  game:
    n: {type: int}
actions:
  step:
    effect: game.n += BONUS
    ends_turn: true
triggers:
  bump:
    after: step
    effect: game.n += 10
flow:
  - repeat: {times: 2, steps: [{turn: player_at(1)}]}
scoring:
  score: game.n
"""
MODULES = {
    "extra": """\
module: extra
constants: {JUMP: 7}
state:
  game:
    m: {type: int}
actions:
  jump:
    effect: game.m += JUMP
    ends_turn: true
""",
    "fast": """\
module: fast
override:
  actions:
    step:
      effect: game.n += 5
      ends_turn: true
  flow:
    - turn: player_at(2)
""",
    "quiet": "module: quiet\nremove: [triggers.bump]\n",
    "needs": "module: needs\nrequires: [extra]\n",
    "again": "module: again\nrequires: [extra]\noverride:\n  actions:\n    jump: {effect: game.m += 100}\n",
    "clash": "module: clash\nconflicts: [fast]\n",
    "big": "module: big\nplayers: {min: 3, max: 4}\n",
    "dup": "module: dup\nactions:\n  step:\n    ends_turn: true\n",
    "typo": "module: typo\noverride:\n  actions:\n    stpe:\n      ends_turn: true\n",
    "badremove": "module: badremove\nremove: [triggers.bmup, bump]\n",
}


@pytest.fixture
def ruleset(write_ruleset: Callable[..., Path]) -> str:
    return str(write_ruleset(BASE, MODULES))


def _after_one_step(ruleset: str, modules: list[str]) -> int:
    game = load_game(ruleset, 2, modules)
    state = game.new_initial_state(0)
    state.apply_action("step")
    return int(state.value("game", "n"))


def test_base_ruleset_runs_its_trigger(ruleset: str) -> None:
    """Without modules: the effect adds BONUS and the trigger adds 10."""
    assert _after_one_step(ruleset, []) == 11


def test_module_adds_constants_fields_and_actions(ruleset: str) -> None:
    """New named entries of a module join the base ruleset's sections."""
    program = load_program(ruleset, ["extra"])
    assert "jump" in program.actions
    assert "JUMP" in program.rules.constants
    assert "m" in program.rules.fields["game"]
    assert program.rules.modules == ("extra",)


def test_override_replaces_an_entry_and_a_single_section(ruleset: str) -> None:
    """override: replaces actions.step by name and the whole flow."""
    game = load_game(ruleset, 2, ["fast"])
    state = game.new_initial_state(0)
    assert state.current_player() == 1  # the overridden flow starts with player 2
    state.apply_action("step")
    assert state.value("game", "n") == 15


def test_remove_deletes_an_entry(ruleset: str) -> None:
    """remove: [triggers.bump] takes the trigger out."""
    assert _after_one_step(ruleset, ["quiet"]) == 1


def test_modules_change_the_fingerprint(ruleset: str) -> None:
    """The fingerprint covers the composed rules, so a replay notices a different module set."""
    assert load_program(ruleset).fingerprint != load_program(ruleset, ["quiet"]).fingerprint
    assert load_program(ruleset).fingerprint == load_program(ruleset).fingerprint


def _error(ruleset: str, modules: list[str], players: int | None = None) -> str:
    with pytest.raises(RulesetError) as caught:
        load_program(ruleset, modules, players=players)
    return str(caught.value)


def test_unknown_module_is_reported_with_a_suggestion(ruleset: str) -> None:
    """A misspelled module name gets a did-you-mean hint."""
    text = _error(ruleset, ["extr"])
    assert "unknown module 'extr' for ruleset 'base'" in text
    assert "did you mean 'extra'?" in text


def test_required_module_must_be_chosen(ruleset: str) -> None:
    """requires: lists modules that must be chosen too."""
    assert "module 'needs' requires module 'extra'" in _error(ruleset, ["needs"])
    load_program(ruleset, ["needs", "extra"])


def test_conflicting_modules_are_refused(ruleset: str) -> None:
    """conflicts: lists modules that cannot be combined with this one."""
    assert "module 'clash' conflicts with module 'fast'" in _error(ruleset, ["clash", "fast"])


def test_module_player_range_is_checked(ruleset: str) -> None:
    """players: in a module narrows the allowed player counts."""
    assert "module 'big' allows 3-4 players, not 2" in _error(ruleset, ["big"], players=2)
    load_program(ruleset, ["big"], players=3)


def test_a_malformed_module_player_range_is_reported_at_its_position(
    write_ruleset: Callable[..., Path],
) -> None:
    """A module's players must be whole numbers; a word there is a located error, not a crash."""
    path = write_ruleset(BASE, {"odd": "module: odd\nplayers: {min: two, max: 4}\n"})
    with pytest.raises(RulesetError) as caught:
        load_program(str(path))
    assert "odd.yaml:2:10: error: a module's players needs {min: N, max: M}" in caught.value.render()


def test_adding_an_existing_name_is_a_conflict_pointing_at_the_module(ruleset: str) -> None:
    """A module cannot silently redefine an entry; it must say override."""
    text = _error(ruleset, ["dup"])
    assert "modules/dup.yaml:3:3: error: action 'step' is already defined at" in text
    assert "use 'replace:' to replace it" in text


def test_override_of_a_missing_entry_suggests_the_right_name(ruleset: str) -> None:
    """Overriding a name the ruleset lacks is an error with a did-you-mean hint."""
    text = _error(ruleset, ["typo"])
    assert "cannot replace actions 'stpe': no such entry" in text
    assert "did you mean 'step'?" in text


def test_bad_remove_entries_are_all_reported(ruleset: str) -> None:
    """Each remove entry that names nothing is reported, not only the first."""
    text = _error(ruleset, ["badremove"])
    assert "cannot remove 'triggers.bmup': no such entry" in text
    assert "cannot remove 'bump': write SECTION.NAME" in text
    assert text.endswith("2 errors")


def test_unknown_ruleset_name_is_a_ruleset_error(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    """A name that is neither bundled nor a directory is a user error listing what exists."""
    monkeypatch.chdir(tmp_path)
    with pytest.raises(RulesetError, match="no ruleset 'tic_tac_to'") as caught:
        load_program("tic_tac_to")
    assert caught.value.diagnostics[0].hint == "did you mean 'tic_tac_toe'?"


def test_a_ruleset_may_include_other_files(write_ruleset: Callable[..., Path]) -> None:
    """include: merges sections from other files of the directory; positions point into them."""
    directory = write_ruleset(BASE + "include: [more.yaml]\n")
    (directory / "more.yaml").write_text("functions:\n  twice: {params: {x: int}, body: x * 2}\n")
    program = load_program(str(directory))
    assert "twice" in program.rules.functions
    assert program.rules.functions["twice"].span.file.endswith("more.yaml")


def test_edited_rules_are_loaded_again_not_served_from_the_cache(write_ruleset: Callable[..., Path]) -> None:
    """Programs are cached per directory and content: changing a file gives the new rules."""
    directory = write_ruleset(BASE)
    assert "jump" not in load_program(str(directory)).actions
    write_ruleset(BASE.replace("actions:\n", "actions:\n  jump: {ends_turn: true}\n"))
    assert "jump" in load_program(str(directory)).actions


def test_a_required_module_is_applied_before_the_module_that_requires_it(ruleset: str) -> None:
    """'again' sorts before 'extra' by name but overrides extra's action, so extra goes first."""
    program = load_program(ruleset, ["again", "extra"])
    assert program.rules.modules == ("extra", "again")
    game = load_game(ruleset, 2, ["again", "extra"])
    state = game.new_initial_state(0)
    state.apply_action("jump")
    assert state.value("game", "m") == 100
