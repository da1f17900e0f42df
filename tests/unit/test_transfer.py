"""Money: transfer between players and the bank, the bank's ledger, costs and partial payment."""

from __future__ import annotations

from collections.abc import Callable
from pathlib import Path

import pytest

from rulekit.engine.game import State
from rulekit.errors import IllegalActionError
from rulekit.load import load_game

RULES = """\
ruleset: money
players: {min: 2, max: 2}
money: cash
state:
  player:
    cash: {type: int, initial: 10}
actions:
  income: {effect: "transfer(5, bank, me)"}
  tax: {effect: "transfer(3, me, bank)"}
  gift: {effect: "transfer(4, me, next_player(me))"}
  ruin: {effect: "transfer(50, me, bank)"}
  squeeze: {effect: "transfer_up_to(50, next_player(me), me)"}
  negative: {effect: "transfer(-1, me, bank)"}
  shop: {cost: 7}
  check_ledger:
    require: [{if: bank.paid_out == 5 and bank.taken_in == 3, else: ledger mismatch}]
flow:
  - repeat: {while: 'true', steps: [{turn: {player: player_at(1), once: true}}]}
"""


@pytest.fixture
def state(write_ruleset: Callable[..., Path]) -> State:
    return load_game(str(write_ruleset(RULES)), 2).new_initial_state(0)


def _cash(state: State) -> tuple[int, int]:
    return state.value(0, "cash"), state.value(1, "cash")


def test_bank_ledger_counts_money_paid_out_and_taken_in(state: State) -> None:
    """Paying from the bank raises paid_out; paying to it raises taken_in; rules can read both."""
    state.apply_action("income")
    state.apply_action("tax")
    assert _cash(state) == (12, 10)
    assert state.value("_", "paid_out") == 5
    assert state.value("_", "taken_in") == 3
    assert "check_ledger" in state.legal_action_strings()


def test_transfer_between_players_keeps_the_total(state: State) -> None:
    """Player to player: one loses what the other gains; the bank's ledger does not move."""
    state.apply_action("gift")
    assert _cash(state) == (6, 14)
    assert (state.value("_", "paid_out"), state.value("_", "taken_in")) == (0, 0)


def test_a_player_who_cannot_pay_makes_the_action_fail_unchanged(state: State) -> None:
    """transfer fails when the payer is short, and the action changes nothing."""
    before = state.state_hash()
    with pytest.raises(IllegalActionError, match=r"ruin cannot be carried out: P1 cannot pay 50 \(has 10\)"):
        state.apply_action("ruin")
    assert state.state_hash() == before


def test_transfer_up_to_takes_what_there_is(state: State) -> None:
    """transfer_up_to pays all the payer has when it is not enough."""
    state.apply_action("squeeze")
    assert _cash(state) == (20, 0)


def test_negative_amounts_are_refused(state: State) -> None:
    """Money only moves forwards; a negative amount is a rule failure."""
    with pytest.raises(IllegalActionError, match="cannot transfer a negative amount"):
        state.apply_action("negative")


def test_cost_is_paid_to_the_bank_and_limits_legality(state: State) -> None:
    """cost: is paid from the money field; when it cannot be paid the action is not legal."""
    state.apply_action("shop")
    assert _cash(state) == (3, 10)
    assert state.value("_", "taken_in") == 7
    state.apply_action("tax")
    assert "shop" not in state.legal_action_strings()
