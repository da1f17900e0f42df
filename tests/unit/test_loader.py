"""The loader checks the structure of every section and reports every problem, each at its position."""

from __future__ import annotations

from collections.abc import Callable
from pathlib import Path

import pytest

from rulekit.errors import RulesetError
from rulekit.load import load_program

MINIMAL = """\
ruleset: m
players: {min: 2, max: 2}
state:
  game:
    n: {type: int}
actions:
  go: {ends_turn: true}
flow:
  - turn: player_at(1)
"""


def _diagnostics(write: Callable[..., Path], text: str) -> list[tuple[int, str]]:
    directory = write(text)
    with pytest.raises(RulesetError) as caught:
        load_program(str(directory))
    return [(d.span.line if d.span else 0, d.message) for d in caught.value.diagnostics]


def test_minimal_ruleset_loads(write_ruleset: Callable[..., Path]) -> None:
    """The base text of these tests is itself valid."""
    program = load_program(str(write_ruleset(MINIMAL)))
    assert list(program.actions) == ["go"]


@pytest.mark.parametrize(
    ("change", "line", "message"),
    [
        (("flow:", "flwo:"), 8, "unknown ruleset key 'flwo'"),
        (("go: {ends_turn: true}", "go: {ends_turn: true, efect: pass}"), 7, "unknown action key 'efect'"),
        (("{min: 2, max: 2}", "{min: 3, max: 2}"), 2, "players needs integers 1 <= min <= max"),
        (
            ("n: {type: int}", "n: {type: int, visibility: secret}"),
            5,
            "visibility must be public, owner, others or hidden (got 'secret')",
        ),
        (
            ("n: {type: int}", "n: {type: int, visibility: owner}"),
            5,
            "visibility 'owner' is for player fields only",
        ),
        (("  game:", "  gaem:"), 4, "unknown state scope 'gaem'"),
        (("go: {ends_turn: true}", "me: {ends_turn: true}"), 7, "'me' is reserved and cannot name an action"),
        (
            ("- turn: player_at(1)", "- turn: player_at(1)\n    do: pass"),
            9,
            "a flow step needs exactly one of: do, repeat, for_each, turn, simultaneous, if",
        ),
        (("- turn: player_at(1)", "- repeat: {steps: []}"), 9, "repeat needs 'times', 'while' or 'until'"),
        (
            ("- turn: player_at(1)", "- for_each: {in: players, steps: []}"),
            9,
            "for_each needs 'as: FIELD' (a game field that holds the element)",
        ),
        (
            ("flow:", "spaces: {bound: -1}\nflow:"),
            8,
            "spaces.bound must be a whole number from 0 to 1000 (got -1)",
        ),
        (("flow:", "spaces: {bonud: 3}\nflow:"), 8, "unknown spaces key 'bonud'"),
        (("flow:", "money: me\nflow:"), 8, "money field 'me' is not a player field"),
        (
            ("go: {ends_turn: true}", "go: {require: [{else: never}]}"),
            7,
            "a requirement needs 'if: CONDITION' and 'else: MESSAGE' (or 'use: GROUP(ARGS)')",
        ),
    ],
)
def test_structural_mistakes_are_reported_at_their_line(
    write_ruleset: Callable[..., Path], change: tuple[str, str], line: int, message: str
) -> None:
    """Each structural mistake gives one located, specific message."""
    old, new = change
    assert old in MINIMAL
    found = _diagnostics(write_ruleset, MINIMAL.replace(old, new, 1))
    assert (line, message) in found


def test_missing_flow_is_an_error(write_ruleset: Callable[..., Path]) -> None:
    """A ruleset must say how the game runs."""
    text = MINIMAL.split("flow:")[0]
    assert (1, "a ruleset needs a 'flow' section (the game structure)") in _diagnostics(write_ruleset, text)


def test_trigger_needs_a_timing(write_ruleset: Callable[..., Path]) -> None:
    """A trigger must say what it listens to."""
    text = MINIMAL + "triggers:\n  t: {effect: pass}\n"
    assert (11, "a trigger needs 'after: EVENT' or 'before: ACTION'") in _diagnostics(write_ruleset, text)


def test_component_items_are_checked(write_ruleset: Callable[..., Path]) -> None:
    """Items need an id, unique ids, known attributes and a value for every attribute."""
    text = MINIMAL + (
        "components:\n"
        "  tile:\n"
        "    attributes: {size: int}\n"
        "    items:\n"
        "      - {id: t1, size: 1}\n"
        "      - {id: t1, size: 2}\n"
        "      - {id: t2, szie: 2}\n"
        "      - {size: 3}\n"
    )
    found = [message for _, message in _diagnostics(write_ruleset, text)]
    assert any(m.startswith("duplicate component id 't1'") for m in found)
    assert "'szie' is not an attribute of tile" in found
    assert "tile 't2' has no value for attribute 'size'" in found
    assert "each tile item needs an 'id'" in found


def test_all_problems_are_reported_together_in_file_order(write_ruleset: Callable[..., Path]) -> None:
    """Several mistakes in one file are all reported, sorted by position, with a count."""
    text = MINIMAL.replace("go: {ends_turn: true}", "go: {ends_turn: true, efect: pass}").replace(
        "flow:", "flow:\n  - turn: (\n"
    )
    directory = write_ruleset(text)
    with pytest.raises(RulesetError) as caught:
        load_program(str(directory))
    lines = [d.span.line for d in caught.value.diagnostics if d.span]
    assert len(lines) == 2
    assert lines == sorted(lines)
    assert str(caught.value).endswith("2 errors")


def test_dsl_syntax_errors_in_several_snippets_are_all_reported(write_ruleset: Callable[..., Path]) -> None:
    """One bad snippet does not hide the next."""
    text = MINIMAL.replace(
        "go: {ends_turn: true}", "go: {ends_turn: true, effect: 'game.n +'}\n  stop: {effect: 'game.n = = 1'}"
    )
    found = _diagnostics(write_ruleset, text)
    assert [line for line, _ in found] == [7, 8]


def test_load_composed_gives_the_data_the_program_was_compiled_from() -> None:
    """``rulekit rules`` and ``diff`` print this data: compiling it must not change it, and its
    fingerprint is the program's (one composition, not two that could disagree)."""
    from rulekit.load import load_composed
    from rulekit.rules.compose import fingerprint

    composed = load_composed("tic_tac_toe", variants=["misere"])
    assert fingerprint(composed.data) == composed.program.fingerprint
    assert [v.name for v in composed.variants] == ["misere"]
    assert composed.program.rules.origins["triggers"]["three_in_a_row"].startswith("variant ")
    again = load_composed("tic_tac_toe", variants=["misere"])
    assert again.program is composed.program  # compiled once per process
    assert again.data is not composed.data and fingerprint(again.data) == fingerprint(composed.data)
