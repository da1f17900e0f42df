"""``verify --suggest``: likely properties mined from play, written for review, and a variant
that breaks an accepted one reported with its counterexample."""

from __future__ import annotations

from collections.abc import Callable
from pathlib import Path

import pytest
import yaml

from rulekit.load import load_program
from rulekit.tools.verify import VerifyOptions, main
from rulekit.tools.verify.suggest import suggest

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
    assert any(e["holds"].endswith("- ware.price") for e in data["add"]["postconditions"]["buy"])
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
    assert "suggested: me.banked changes by +before(turn.total)" in report
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
    assert "player.supply falls by at most 1 in one turn" in capsys.readouterr().out
