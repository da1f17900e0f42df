"""Human play in the terminal shows a seat only what it may see."""

from __future__ import annotations

import io
import json
import sys
from collections.abc import Callable
from pathlib import Path

import pytest

from rulekit.cli import main
from rulekit.engine.game import Game
from rulekit.load import load_program
from rulekit.tools.bots import make_bots
from rulekit.tools.human import play_human
from rulekit.tools.render import render_state

SECRETS = """\
ruleset: secrets
title: Secrets
players: {min: 2, max: 2}
state:
  game:
    table: "list[str]"
  player:
    hand:
      type: "list[str]"
      visibility: owner
      initial: '["ace_of_p1", "king_of_p1"] if me == player_at(1) else ["two_of_p2", "three_of_p2"]'
actions:
  play:
    params:
      card: me.hand
    effect: |
      me.hand = without(me.hand, card)
      game.table = append(game.table, card)
    ends_turn: true
flow:
  - turn: player_at(1)
  - turn: player_at(2)
display:
  panels:
    - title: Your hand
      lines: '[join(me.hand, " ") if me != none else "(spectator)"]'
"""


def _game(write_ruleset: Callable[..., Path]) -> Game:
    return Game(load_program(str(write_ruleset(SECRETS, name="secrets"))), 2)


def test_every_line_printed_to_a_seat_shows_only_what_it_may_see(write_ruleset: Callable[..., Path]) -> None:
    game = _game(write_ruleset)
    printed: list[str] = []
    answers = iter(["?", "s", "1"])
    status = play_human(
        game,
        1,
        make_bots(game, "first", 0),
        seed=0,
        max_actions=10,
        read=lambda prompt: next(answers),
        write=printed.append,
    )
    assert status == 0
    lines = "\n".join(printed).splitlines()
    assert lines[0].startswith("Secrets: you are P2.") and "e.g." not in lines[0]
    # P1 plays her first card in public; her other card must never reach P2's screen.
    assert "P1 plays play(ace_of_p1)" in lines
    assert not [line for line in lines if "king_of_p1" in line]
    assert any("two_of_p2" in line for line in lines)  # P2 sees her own hand
    assert "(e.g. play(two_of_p2))" in "\n".join(lines)  # help uses P2's own option


def test_a_spectator_is_nobody_for_the_display_panels(write_ruleset: Callable[..., Path]) -> None:
    state = _game(write_ruleset).new_initial_state(0)
    spectator = render_state(state, None)
    assert "(spectator)" in spectator and "ace_of_p1" not in spectator and "panel failed" not in spectator
    assert "ace_of_p1 king_of_p1" in render_state(state, 0)


def test_the_seat_view_hides_the_other_hand(write_ruleset: Callable[..., Path]) -> None:
    state = _game(write_ruleset).new_initial_state(0)
    assert json.dumps(state.view(1)["P1.hand"]) == '{"hidden": 2}'


@pytest.mark.parametrize("seed", range(4))
def test_the_terminal_game_never_prints_the_other_hand(
    write_ruleset: Callable[..., Path],
    monkeypatch: pytest.MonkeyPatch,
    capsys: pytest.CaptureFixture[str],
    seed: int,
) -> None:
    """Through `rulekit play --human 2`: every line printed is checked against P2's view.

    P1 (a random bot) plays one of her two cards in public; the other one is in no view
    of P2's, so no line may show it (the old opening help used P1's first option as its example).
    """
    directory = write_ruleset(SECRETS, name="secrets")
    monkeypatch.setattr(sys, "stdin", io.StringIO("?\ns\nplay(three_of_p2)\n"))
    status = main(["play", str(directory), "--human", "2", "--bot", "random", "--seed", str(seed)])
    assert status == 0
    lines = capsys.readouterr().out.splitlines()
    played = next(line.split("(")[1].rstrip(")") for line in lines if line.startswith("P1 plays "))
    state = Game(load_program(str(directory)), 2).new_initial_state(seed)
    hidden = set(state.fields[(0, "hand")]) - {played}
    assert hidden and not hidden & set(json.dumps(state.view(1)).split('"'))
    for line in lines:
        assert not any(card in line for card in hidden), line
    assert any(line.endswith("-> play(three_of_p2)") for line in lines)
