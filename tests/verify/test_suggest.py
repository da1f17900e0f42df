"""``verify --suggest``: likely properties mined from play, written for review, and a variant
that breaks an accepted one reported with its counterexample."""

from __future__ import annotations

from collections.abc import Callable
from pathlib import Path

import pytest
import yaml

from rulekit.load import load_program
from rulekit.tools.verify import VerifyOptions, format_counterexample, main, verify
from rulekit.tools.verify.suggest import Confidence, suggest

MARKET = """
ruleset: market
players: {min: 2, max: 3}
constants:
  FEE: 3
components:
  ware:
    attributes: {price: int}
    items:
      - {id: apple, price: 2}
      - {id: pear, price: 5}
state:
  game:
    sold: {type: int}
    winner: {type: "player?"}
    who: {type: player, initial: "player_at(1)"}
  player:
    money: {type: int, initial: 40}
money: money
actions:
  buy:
    params: {ware: wares}
    require:
      - {if: "me.money >= ware.price", else: she cannot pay}
    effect: |
      me.money -= ware.price
      game.sold += 1
      if game.sold >= 12 and game.winner == none:
          game.winner = me
    ends_turn: true
  tip:
    params: {to: "[p for p in players if p != me]"}
    require:
      - {if: "me.money >= FEE", else: she cannot pay}
    effect: |
      me.money -= FEE
      to.money += FEE
    ends_turn: true
flow:
  - repeat:
      until: game.winner != none
      steps:
        - for_each:
            in: players
            as: who
            steps:
              - turn: game.who
"""

PIG_BUG = """
variant: bug
title: one point too many
description: hold banks the turn's total and one more point
ruleset: pig
set:
  actions.hold.effect: |
    me.banked += turn.total + 1
    if me.banked >= GOAL:
        game.winner = me
"""


def _suggested(directory: Path, examples: int = 40) -> dict[str, list[str]]:
    mined = suggest(VerifyOptions(str(directory), examples=examples, out=None))
    found: dict[str, list[str]] = {}
    for s in mined.suggestions:
        found.setdefault(s.action or "*", []).append(s.holds)
    return found


def test_payments_are_mined_against_prices_constants_and_the_receiver(
    write_ruleset: Callable[..., Path],
) -> None:
    found = _suggested(write_ruleset(MARKET))
    assert "after(me.money) == before(me.money) - ware.price" in found["buy"]
    assert "all(after(p.money) == before(p.money) for p in players if p != me)" in found["buy"]
    assert "after(me.money) == before(me.money) - FEE" in found["tip"]
    assert "after(to.money) - before(to.money) == before(me.money) - after(me.money)" in found["tip"]
    assert "after(game.sold) >= before(game.sold) and after(game.sold) - before(game.sold) <= 1" in found["*"]
    assert "before(game.winner) == none or after(game.winner) == before(game.winner)" in found["*"]
    # no relation that the games contradict: money goes down and up, so it is not monotonic
    assert not any("p.money) >= before(p.money)" in holds for holds in found["*"])


def test_a_wrong_price_breaks_the_accepted_suggestion_with_a_counterexample(
    write_ruleset: Callable[..., Path], tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    directory = write_ruleset(MARKET)
    out = tmp_path / "out"
    assert main([str(directory), "--suggest", "--examples", "30", "--out", str(out)]) == 0
    printed = capsys.readouterr().out
    suggested = out / "market-suggested.yaml"
    assert f"written to {suggested}" in printed
    data = yaml.safe_load(suggested.read_text(encoding="utf-8"))
    assert data["variant"] == "market_suggested" and data["add"]["properties"]
    assert any(e["holds"].endswith("- ware.price") for e in data["extend"]["actions"]["buy"]["ensures"])
    load_program(str(directory), (), (str(suggested),))  # a variant that loads as written
    bug = tmp_path / "bug.yaml"
    bug.write_text(
        "variant: bug\ntitle: b\ndescription: pears cost an apple\nruleset: market\n"
        "set:\n  actions.buy.effect: |\n    me.money -= 2\n    game.sold += 1\n"
        "    if game.sold >= 12 and game.winner == none:\n        game.winner = me\n",
        encoding="utf-8",
    )
    common = ["--examples", "20", "--no-coverage", "--quiet", "--out", str(tmp_path / "ce"), "--workers", "1"]
    assert main([str(directory), "--variant", str(bug), *common]) == 0  # no invariant notices
    capsys.readouterr()
    assert main([str(directory), "--variant", str(bug), "--variant", str(suggested), *common]) == 1
    report = capsys.readouterr().out
    assert "property 'buy.ensures[" in report and "ware.price" in report
    assert "buy(pear)" in report  # the counterexample buys the pear
    assert main([str(directory), "--variant", str(suggested), *common]) == 0  # the rules keep them


def test_pig_suggestions_catch_a_hold_that_banks_too_much(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    out = tmp_path / "out"
    assert main(["pig", "--suggest", "--examples", "20", "--out", str(out)]) == 0
    assert "hold: after(me.banked) == before(me.banked) + before(turn.total)" in capsys.readouterr().out
    bug = tmp_path / "bug.yaml"
    bug.write_text(PIG_BUG, encoding="utf-8")
    common = ["--examples", "10", "--no-coverage", "--quiet", "--out", str(tmp_path / "ce"), "--workers", "1"]
    assert main(["pig", "--variant", str(bug), "--variant", str(out / "pig-suggested.yaml"), *common]) == 1
    report = capsys.readouterr().out
    # Pig ships this property (properties.yaml): the ruleset's own copy fails first
    assert (
        "suggested: me.banked changes by +before(turn.total)" in report or "holding banks exactly" in report
    )
    assert "P1 hold" in report or "P2 hold" in report


def test_suggest_on_rules_that_do_not_load_is_exit_1(
    write_ruleset: Callable[..., Path], tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    directory = write_ruleset(MARKET.replace("me.money -= ware.price", "me.money -= ware.cost"))
    assert main([str(directory), "--suggest", "--out", str(tmp_path / "o")]) == 1
    assert "ruleset.yaml:" in capsys.readouterr().err
    assert not (tmp_path / "o").exists()


BUILDERS = """
ruleset: builders
players: {min: 2, max: 2}
state:
  game:
    turns: {type: int}
    who: {type: player, initial: "player_at(1)"}
  turn:
    built: {type: bool}
  player:
    supply: {type: int, initial: 30}
    points: {type: int}
actions:
  build:
    require:
      - {if: "not turn.built", else: one build a turn}
      - {if: "me.supply > 0", else: nothing left to build}
    effect: |
      me.supply -= 1
      turn.built = true
  score:
    effect: me.points += 1
  end_turn:
    effect: game.turns += 1
    ends_turn: true
flow:
  - repeat:
      until: game.turns >= 20
      steps:
        - for_each:
            in: players
            as: who
            steps:
              - turn: game.who
"""


def test_per_turn_counts_are_mined_and_catch_a_second_build_in_a_turn(
    write_ruleset: Callable[..., Path], tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    directory = write_ruleset(BUILDERS)
    mined = suggest(VerifyOptions(str(directory), examples=30, out=None))
    per_turn = {s.holds for s in mined.suggestions if s.over == "turn"}
    assert "all(before(p.supply) - after(p.supply) <= 1 for p in players)" in per_turn
    # a player scores several times a turn: no bound on points per turn is claimed
    assert not any("points" in holds for holds in per_turn)
    out = tmp_path / "out"
    assert main([str(directory), "--suggest", "--examples", "30", "--out", str(out)]) == 0
    capsys.readouterr()
    bug = tmp_path / "bug.yaml"
    bug.write_text(
        "variant: bug\ntitle: b\ndescription: two builds a turn\nruleset: builders\n"
        "set:\n  actions.build.require:\n    - {if: 'me.supply > 0', else: nothing left}\n",
        encoding="utf-8",
    )
    common = ["--examples", "20", "--no-coverage", "--quiet", "--out", str(tmp_path / "ce"), "--workers", "1"]
    assert main([str(directory), "--variant", str(bug), *common]) == 0
    capsys.readouterr()
    assert (
        main(
            [
                str(directory),
                "--variant",
                str(bug),
                "--variant",
                str(out / "builders-suggested.yaml"),
                *common,
            ]
        )
        == 1
    )
    report = capsys.readouterr().out
    # caught by the per-turn count, or first by the precondition mined with it (no build yet)
    assert (
        "player.supply falls by at most 1 in one turn" in report
        or "turn.built is false when 'build'" in report
    )


TAVERN = """
ruleset: tavern
players: {min: 3, max: 3}
constants:
  FEE: 2
  PAYOUT: [3, 5, 8]
state:
  game:
    round: {type: int, initial: 1}
    turns: {type: int}
    who: {type: player, initial: "player_at(1)"}
  player:
    coins: {type: int, initial: 10}
    out: {type: bool}
    lucky: {type: int}
actions:
  collect:
    effect: me.coins += PAYOUT[game.round - 1]
    ends_turn: true
  tip:
    params: {to: "[p for p in players if p != me]"}
    require:
      - {if: "me.coins >= FEE", else: she cannot pay}
    effect: |
      me.coins -= FEE
      to.coins += FEE
    ends_turn: true
  kick:
    params: {target: "[p for p in players if p != me and not p.out]"}
    effect: target.out = true
    ends_turn: true
  jackpot:
    require:
      - {if: "me.coins == 17 and game.round == 3", else: not now}
    effect: me.lucky += 7
    ends_turn: true
flow:
  - repeat:
      until: game.round > 3
      steps:
        - for_each:
            in: players
            as: who
            steps:
              - turn: game.who
        - do: |
            game.turns += 1
            if game.turns % 4 == 0:
                game.round += 1
"""


def test_the_miner_proposes_table_amounts_receivers_who_and_preconditions(
    write_ruleset: Callable[..., Path],
) -> None:
    found = _suggested(write_ruleset(TAVERN))
    # an amount paid against a table entry, indexed by a field before the action
    assert "after(me.coins) == before(me.coins) + PAYOUT[before(game.round) - 1]" in found["collect"]
    # who receives a payment: the player parameter, and nobody else's coins change
    assert "after(to.coins) - before(to.coins) == before(me.coins) - after(me.coins)" in found["tip"]
    assert "all(after(p.coins) == before(p.coins) for p in players if p != me and p != to)" in found["tip"]
    # who a change concerns, what it sets, and what holds of the player it is taken on
    assert "all(after(p.out) == before(p.out) for p in players if p != target)" in found["kick"]
    assert "after(target.out) == true" in found["kick"]
    assert "before(target.out) == false" in found["kick"]
    assert "all(after(p.out) == before(p.out) or after(p.out) == true for p in players)" in found["*"]
    # frames: what other actions change and this one never does
    assert any("all(after(p.out) == before(p.out) for p in players)" in h for h in found["collect"])


def test_a_relation_seen_too_few_times_is_not_suggested(write_ruleset: Callable[..., Path]) -> None:
    directory = write_ruleset(TAVERN)
    options = VerifyOptions(str(directory), examples=40, out=None)
    rare = [
        s for s in suggest(options, Confidence(support=1, changes=1)).suggestions if s.action == "jackpot"
    ]
    # a jackpot is possible only in a few states: what held in those few is a coincidence
    assert rare and max(s.support for s in rare) < Confidence().support
    assert any(s.holds == "before(me.out) == true" for s in rare)
    assert not [s for s in suggest(options).suggestions if s.action == "jackpot"]


ROYAL_LETTER_BUG = """
variant: bug
title: the Guard strikes its player
description: a right guess knocks out the player of the Guard instead of the target
ruleset: royal_letter
set:
  actions.guard.effect: |
    play_card(card_kind.guard)
    if holds(target, guess):
        emit knocked_out(who=me)
"""


@pytest.mark.parametrize(
    ("ruleset", "bug", "key", "acted"),
    [
        ("pig", PIG_BUG, "property:hold.ensures[1]", "hold"),
        ("royal_letter", ROYAL_LETTER_BUG, "property:guard.ensures[", "guard("),
    ],
)
def test_a_planted_bug_fails_against_the_shipped_mined_properties(
    ruleset: str, bug: str, key: str, acted: str, tmp_path: Path
) -> None:
    path = tmp_path / "bug.yaml"
    path.write_text(bug, encoding="utf-8")
    result = verify(
        VerifyOptions(ruleset, variants=(str(path),), examples=100, out=tmp_path / "ce", workers=1)
    )
    example = result.counterexample
    assert example is not None and example.key.startswith(key), example and example.key
    assert "properties.yaml:" in format_counterexample(example)
    assert len(example.actions) <= 8 and acted in example.actions[-1][1]
