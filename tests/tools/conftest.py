"""A tiny ruleset with money, a hidden hand and a requirement with a message, for the tools tests."""

from __future__ import annotations

from collections.abc import Callable
from pathlib import Path

import pytest

TINY = """\
ruleset: tiny
title: Tiny
players: {min: 2, max: 2}
money: coins
state:
  game:
    round: {type: int}
    order: {type: "list[player]"}
    spots: {type: map}
  player:
    coins: {type: int, initial: 3}
    hand: {type: "list[int]", visibility: owner, initial: "[seat(me), 10]"}
actions:
  pay:
    params:
      amount: "between(1, 2)"
    require:
      - if: "me.coins >= amount"
        else: "not enough coins"
        cite: "§1"
    effect: transfer(amount, me, bank)
    ends_turn: true
  wait:
    ends_turn: true
flow:
  - repeat:
      times: 2
      counter: round
      steps:
        - turn: player_at(1)
        - turn: player_at(2)
scoring:
  score: player.coins
"""


@pytest.fixture
def tiny(write_ruleset: Callable[..., Path]) -> Path:
    """The directory of the tiny ruleset (in a temporary directory)."""
    return write_ruleset(TINY, name="tiny")
