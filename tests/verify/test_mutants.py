"""``verify --mutants``: small mutations of the rules, and which checks kill them."""

from __future__ import annotations

from collections.abc import Callable
from pathlib import Path

import pytest

from rulekit.compiler.build import compile_rules
from rulekit.load import load_program
from rulekit.tools.verify import VerifyOptions, main
from rulekit.tools.verify.mutants import mutate, mutation_sites
from rulekit.tools.verify.mutation_run import run_mutants, scenario_files

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
    assert kinds == {
        "comparison",
        "arithmetic",
        "constant",
        "drop-requirement",
        "swap",
        "negate",
        "drop-effect",
        "swap-player",
    }
    details = {site.detail for site in sites}
    assert "'>=' -> '>'" in details and "'+=' -> '-='" in details and "PRICE 3 -> 4" in details
    assert "transfer: sides swapped" in details
    assert all(":" in site.describe() and "ruleset.yaml" in site.describe() for site in sites)
    assert all(site.before and site.after and site.before != site.after for site in sites)


def test_new_operators_negate_drop_a_statement_and_swap_the_player(
    write_ruleset: Callable[..., Path],
) -> None:
    rules = load_program(str(write_ruleset(SHOP))).rules
    changes = {(s.kind, s.before, s.after) for s in mutation_sites(rules)}
    assert ("negate", "me.money >= PRICE", "not me.money >= PRICE") in changes
    assert ("drop-effect", "me.goods += 1", "pass") in changes
    assert ("swap-player", "me", "next_player(me)") in changes
    for site in mutation_sites(rules):
        if site.kind in ("negate", "drop-effect", "swap-player"):
            mutant = mutate(rules, site)
            assert mutant != rules, site.describe()
            compile_rules(mutant)


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
    report = run_mutants(options, None)
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
    guarded = run_mutants(options, None, scenarios=scenario_files(str(directory)))
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


def test_survivors_show_the_rule_before_and_after(
    write_ruleset: Callable[..., Path], capsys: pytest.CaptureFixture[str]
) -> None:
    directory = write_ruleset(SHOP)
    assert main([str(directory), "--mutants", "--examples", "5", "--quiet", "--workers", "1"]) == 0
    out = capsys.readouterr().out
    survivors = out.split("surviving mutants", 1)[1]
    assert "before: PRICE: 3" in survivors and "after:  PRICE: 4" in survivors


def test_declared_equivalent_mutants_are_left_out_of_the_score(write_ruleset: Callable[..., Path]) -> None:
    directory = write_ruleset(SHOP)
    options = VerifyOptions(str(directory), examples=5, out=None, coverage=False)
    before = run_mutants(options, None, directory=directory)
    survivor = before.survivors[0].mutation
    line, column = survivor.where[1:3]
    (directory / "mutants.yaml").write_text(
        "equivalent:\n"
        f"  - at: 'ruleset.yaml:{line}:{column}'\n"
        f"    change: {survivor.detail!r}\n"
        "    reason: the same rules written another way\n",
        encoding="utf-8",
    )
    after = run_mutants(options, None, directory=directory)
    excluded = [r for r in after.results if r.equivalent is not None]
    assert [r.mutation for r in excluded] == [survivor]
    assert len(after.valid) == len(before.valid) - 1
    assert "declared equivalent" in after.render() and "the same rules written another way" in after.render()


@pytest.mark.parametrize(
    "text",
    [
        "equivalent: 3\n",
        "equivalent:\n  - at: x\n",
        "other: []\n",
        "equivalent:\n  - {at: '', change: a, reason: b}\n",
    ],
)
def test_a_bad_mutants_file_is_exit_1_with_its_position(
    write_ruleset: Callable[..., Path], capsys: pytest.CaptureFixture[str], text: str
) -> None:
    directory = write_ruleset(SHOP)
    (directory / "mutants.yaml").write_text(text, encoding="utf-8")
    assert main([str(directory), "--mutants", "2", "--examples", "2", "--quiet"]) == 1
    assert "mutants.yaml:" in capsys.readouterr().err


def test_the_report_does_not_depend_on_the_workers(write_ruleset: Callable[..., Path]) -> None:
    directory = write_ruleset(SHOP)
    one = run_mutants(VerifyOptions(str(directory), examples=10, out=None, coverage=False, workers=1), None)
    two = run_mutants(VerifyOptions(str(directory), examples=10, out=None, coverage=False, workers=2), None)
    assert [(r.mutation, r.killed_by, r.invalid) for r in one.results] == [
        (r.mutation, r.killed_by, r.invalid) for r in two.results
    ]


def test_the_budget_per_mutant_bounds_its_exploration(write_ruleset: Callable[..., Path]) -> None:
    directory = write_ruleset(SHOP)
    options = VerifyOptions(str(directory), examples=200, out=None, coverage=False)
    tiny = run_mutants(options, None, seconds=1e-9)  # one game each, then the budget is spent
    full = run_mutants(options, None)
    assert tiny.survivors and all(r.games == 1 for r in tiny.survivors)
    assert all(r.games == 200 for r in full.survivors)


def test_notes_and_constants_only_bots_use_are_not_mutated(write_ruleset: Callable[..., Path]) -> None:
    rules_text = SHOP.replace("  PRICE: 3\n", "  PRICE: 3\n  PATIENCE: 4\n").replace(
        "      game.sold += 1\n    ends_turn: true\n  wait:",
        '      game.sold += 1\n      note(concat(me, " bought 1"))\n    ends_turn: true\n  wait:',
    )
    rules_text += "bots:\n  evaluate: me.goods * PATIENCE\n"
    sites = mutation_sites(load_program(str(write_ruleset(rules_text))).rules)
    assert not any("PATIENCE" in s.detail or "note(" in s.before for s in sites)
    assert any(s.detail == "PRICE 3 -> 4" for s in sites)


def test_functions_and_constants_only_the_postconditions_read_are_not_mutated(
    write_ruleset: Callable[..., Path],
) -> None:
    """A reference a postcondition computes the payment with is a check, not a rule: mutating
    it would make the check fail on correct rules and count as a kill for free."""
    rules_text = SHOP.replace("  PRICE: 3\n", "  PRICE: 3\n  LIST_PRICE: 3\n").replace(
        "    ends_turn: true\n  wait:",
        "    ends_turn: true\n    ensures:\n"
        '      - holds: "after(me.money) == before(me.money) - ref_price(1)"\n'
        "        message: a purchase costs the list price\n  wait:",
    )
    rules_text += "functions:\n  ref_price:\n    params: {n: int}\n    body: n * LIST_PRICE + 0\n"
    sites = mutation_sites(load_program(str(write_ruleset(rules_text))).rules)
    assert not any("ref_price" in s.context or "LIST_PRICE" in s.detail for s in sites)
    assert any(s.detail == "PRICE 3 -> 4" for s in sites)
