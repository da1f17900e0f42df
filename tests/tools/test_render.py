"""The text display: generic state rendering, hidden information, ruleset panels, text built-ins."""

from __future__ import annotations

from collections.abc import Callable
from pathlib import Path

import pytest

from rulekit.errors import RulesetError
from rulekit.load import load_game, load_program
from rulekit.tools.render import compile_display, render_standings, render_state
from tests.tools.conftest import TINY


def test_a_state_shows_game_player_and_component_fields() -> None:
    state = load_game("tic_tac_toe", 2).new_initial_state(0)
    state.apply_action("place(b2)")
    text = render_state(state, fields=True)
    assert text.splitlines()[0] == "Tic-tac-toe · move 1 · P2 to play (place)"
    assert "  current  P2" in text
    assert "  b2  mark=P1" in text
    assert "(8 with nothing set: a1, b1, c1, a2, c2, a3, b3, c3)" in text


def test_the_tic_tac_toe_board_panel_draws_the_marks() -> None:
    state = load_game("tic_tac_toe", 2).new_initial_state(0)
    for action in ("place(a1)", "place(b2)"):
        state.apply_action(action)
    lines = render_state(state).splitlines()
    board = lines.index("-- Board --")
    assert lines[board + 1 : board + 5] == [
        "    a   b   c",
        " 1  X | . | .",
        " 2  . | O | .",
        " 3  . | . | .",
    ]


def test_a_player_sees_her_own_hidden_hand_but_not_the_others(tiny: Path) -> None:
    state = load_game(str(tiny), 2).new_initial_state(0)
    mine = render_state(state, viewer=0)
    assert " >P1 (you)  coins=3  hand=[1, 10]" in mine
    assert "  P2  coins=3  hand=(hidden, 2)" in mine
    spectator = render_state(state)
    assert "hand=[" not in spectator


def test_standings_rank_players_by_score(tiny: Path) -> None:
    state = load_game(str(tiny), 2).new_initial_state(0)
    for action in ("pay(2)", "wait", "wait", "wait"):
        state.apply_action(action)
    assert state.is_terminal()
    assert render_standings(state).splitlines() == [
        "place  player  score",
        "1      P2      3",
        "2      P1      1",
        "winner: P2",
    ]


def _with_display(write_ruleset: Callable[..., Path], display: str) -> Path:
    return write_ruleset(TINY + display, name="shown")


def test_display_panels_use_the_text_builtins(write_ruleset: Callable[..., Path]) -> None:
    directory = _with_display(
        write_ruleset,
        "display:\n  panels:\n    - title: Purse\n      lines: |\n"
        '        [concat(pad(player_name(p), 3), "|", pad_left(p.coins, 3), "|", center("*", 3), "|",'
        ' repeat_text("$", p.coins)) for p in players] + [join([1, none, true], ",")]\n',
    )
    state = load_game(str(directory), 2).new_initial_state(0)
    text = render_state(state)
    assert "-- Purse --\nP1 |  3| * |$$$\nP2 |  3| * |$$$\n1,none,true" in text


def test_a_bad_panel_expression_is_reported_at_its_position(write_ruleset: Callable[..., Path]) -> None:
    directory = _with_display(
        write_ruleset, 'display:\n  panels:\n    - title: Bad\n      lines: "[p.cash for p in players]"\n'
    )
    program = load_program(str(directory))
    with pytest.raises(RulesetError) as caught:
        compile_display(program)
    line = TINY.count("\n") + 4
    assert f"shown/ruleset.yaml:{line}:" in caught.value.render()
    assert "unknown player field 'cash'" in caught.value.render()


def test_a_panel_must_give_text(write_ruleset: Callable[..., Path]) -> None:
    directory = _with_display(
        write_ruleset, "display:\n  panels:\n    - title: Bad\n      lines: game.round\n"
    )
    with pytest.raises(RulesetError, match="a panel's lines must be a list of str, not int"):
        compile_display(load_program(str(directory)))


def test_a_ruleset_with_panels_shows_only_its_panels_by_default() -> None:
    state = load_game("tic_tac_toe", 2).new_initial_state(0)
    state.apply_action("place(b2)")
    text = render_state(state)
    assert "-- Board --" in text
    assert "  b2  mark=P1" not in text
