"""``verify --mutants``: small mutations of the rules, and which checks kill them."""

from __future__ import annotations

from collections.abc import Callable
from pathlib import Path

import pytest

from rulekit.compiler.build import compile_rules
from rulekit.load import load_program
from rulekit.tools.verify import VerifyOptions, main
from rulekit.tools.verify.mutants import mutate, mutation_sites, run_mutants, scenario_files

SHOP = """
ruleset: shop
players: {min: 2, max: 2}
constants:
  PRICE: 3
state:
  game:
    sold: {type: int}
    who: {type: player, initial: "player_at(1)"}
  player:
    money: {type: int, initial: 10}
    goods: {type: int}
money: money
actions:
  buy:
    require:
      - if: "me.money >= PRICE"
        else: she cannot pay
    effect: |
      transfer(PRICE, me, bank)
      me.goods += 1
      game.sold += 1
    ends_turn: true
  wait:
    effect: game.sold += 1
    ends_turn: true
flow:
  - repeat:
      until: game.sold >= 8
      steps:
        - for_each:
            in: players
            as: who
            steps:
              - turn: game.who
invariants:
  no_debt:
    holds: all(p.money >= 0 for p in players)
    message: nobody owes money
"""

SCENARIO = """
scenario: a purchase costs the price
players: 2
actions:
  - buy
expect:
  - player_at(1).money == 7
  - player_at(1).goods == 1
"""


def test_sites_cover_each_kind_of_mistake(write_ruleset: Callable[..., Path]) -> None:
    sites = mutation_sites(load_program(str(write_ruleset(SHOP))).rules)
    kinds = {site.kind for site in sites}
    assert kinds == {"comparison", "arithmetic", "constant", "drop-requirement", "swap"}
    details = {site.detail for site in sites}
    assert "'>=' -> '>'" in details and "'+=' -> '-='" in details and "PRICE 3 -> 4" in details
    assert "transfer: sides swapped" in details
    assert all(":" in site.describe() and "ruleset.yaml" in site.describe() for site in sites)


def test_a_mutant_changes_one_node_and_still_compiles(write_ruleset: Callable[..., Path]) -> None:
    rules = load_program(str(write_ruleset(SHOP))).rules
    drop = next(s for s in mutation_sites(rules) if s.kind == "drop-requirement")
    mutant = mutate(rules, drop)
    assert mutant.actions["buy"].requires == ()
    assert mutant.actions["wait"] == rules.actions["wait"]
    compile_rules(mutant)
    swap = next(s for s in mutation_sites(rules) if s.kind == "swap")
    swapped = mutate(rules, swap).actions["buy"].effect
    assert swapped != rules.actions["buy"].effect


def test_invariants_and_scenarios_kill_mutants_and_survivors_are_listed(
    write_ruleset: Callable[..., Path],
) -> None:
    directory = write_ruleset(SHOP)
    options = VerifyOptions(str(directory), examples=20, out=None, coverage=False)
    report = run_mutants(options, 100)
    assert len(report.results) == len(mutation_sites(load_program(str(directory)).rules))
    by_detail = {r.mutation.detail: r for r in report.results}
    dropped = next(r for d, r in by_detail.items() if d.startswith("requirement 1 dropped"))
    assert dropped.killed_by == "engine:legal-applies"  # transfer refuses to overdraw
    survivors = [r for r in report.valid if r.killed_by is None]
    assert survivors, "without a scenario, a wrong price survives"
    assert "surviving mutants" in report.render() and "mutation score: " in report.render()
    # a scenario that pins the price kills what the invariant cannot see
    (directory / "scenarios").mkdir()
    (directory / "scenarios" / "price.yaml").write_text(SCENARIO, encoding="utf-8")
    guarded = run_mutants(options, 100, scenarios=scenario_files(str(directory)))
    assert guarded.score > report.score
    price = next(r for r in guarded.results if r.mutation.detail == "PRICE 3 -> 4")
    assert price.killed_by == "scenario:price"


def test_cli_prints_the_mutation_score(
    write_ruleset: Callable[..., Path], capsys: pytest.CaptureFixture[str]
) -> None:
    directory = write_ruleset(SHOP)
    assert main([str(directory), "--mutants", "3", "--examples", "10", "--quiet"]) == 0
    out = capsys.readouterr().out
    assert out.startswith("mutation score: ") and "of 1" in out.splitlines()[0]
