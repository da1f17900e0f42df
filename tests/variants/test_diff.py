"""``rulekit diff``: what variants change, with positions, as text and JSON."""

from __future__ import annotations

import argparse
import json
from collections.abc import Callable
from pathlib import Path

import pytest

from rulekit.errors import UsageError
from rulekit.tools import diff
from tests.variants.conftest import base_line

WriteVariant = Callable[..., Path]
HEADER = "variant: house\nruleset: tic_tac_toe\n"


def _run(argv: list[str], capsys: pytest.CaptureFixture[str]) -> str:
    parser = argparse.ArgumentParser()
    diff.add_parser(parser.add_subparsers(dest="command"))
    assert diff.run(parser.parse_args(["diff", *argv])) == 0
    return capsys.readouterr().out


def _changes(*variants: str) -> dict[tuple[str, str], diff.Change]:
    left = diff.Side("tic_tac_toe")
    right = diff.Side("tic_tac_toe", variants=list(variants))
    return {(c.section, c.name): c for c in diff.diff_sides(left, right).changes}


def test_constant_change_shows_unified_diff_and_where(capsys: pytest.CaptureFixture[str]) -> None:
    out = _run(["tic_tac_toe", "--variant", "no_diagonals"], capsys)
    assert "variant no_diagonals: No diagonals  (rulesets/tic_tac_toe/variants/no_diagonals.yaml" in out
    assert (
        "  ~ LINES  (changed at rulesets/tic_tac_toe/variants/no_diagonals.yaml:10; "
        f"was at {base_line('  LINES:')})"
    ) in out
    assert "      -- [a1, b2, c3]\n      -- [c1, b2, a3]\n" in out
    assert out.rstrip().endswith("1 changed, 0 added, 0 removed")


def test_dsl_change_by_path_is_located_in_the_variant(capsys: pytest.CaptureFixture[str]) -> None:
    out = _run(["tic_tac_toe", "--variant", "misere"], capsys)
    assert (
        "  ~ three_in_a_row  (changed at rulesets/tic_tac_toe/variants/misere.yaml:10; "
        f"was at {base_line('three_in_a_row:')})"
    ) in out
    assert "      -effect: game.winner = me\n      +effect: game.winner = next_player(me)" in out
    assert (
        "  ~ winner_has_a_line  (changed at rulesets/tic_tac_toe/variants/misere.yaml:14; "
        f"was at {base_line('winner_has_a_line:')})"
    ) in out


def test_attribute_change_is_shown_old_to_new(write_variant: WriteVariant) -> None:
    path = write_variant(HEADER + "set:\n  components.cell.b2.column: 7\n")
    change = _changes(str(path))[("components", "cell.b2.column")]
    assert (change.kind, change.old, change.new) == ("changed", 1, 7)
    assert change.new_at == f"{path}:4"
    assert change.old_at == base_line("{id: b2,")


def test_added_removed_and_replaced_entries(write_variant: WriteVariant) -> None:
    path = write_variant(
        HEADER
        + "add:\n  actions:\n    pass_turn: {effect: pass, ends_turn: true}\n"
        + "  state:\n    game:\n      passes: {type: int, initial: 0}\n"
        + "remove: [triggers.three_in_a_row]\n"
        + 'replace:\n  scoring:\n    score: "1"\n'
    )
    changes = _changes(str(path))
    assert changes[("actions", "pass_turn")].kind == "added"
    assert changes[("actions", "pass_turn")].new_at == f"{path}:5"
    assert changes[("state", "game.passes")].kind == "added"
    removed = changes[("triggers", "three_in_a_row")]
    assert (removed.kind, removed.old_at) == ("removed", base_line("three_in_a_row:"))
    scoring = changes[("scoring", "scoring")]
    assert scoring.kind == "changed"
    assert scoring.new_at == f"{path}:11"
    assert "-score: 1 if game.winner == player else 0\n+score: 1\n" in scoring.diff


def test_each_change_names_who_wrote_the_entry_on_the_new_side(write_variant: WriteVariant) -> None:
    """From the composed model's origins: the variant that added an entry or set one of its keys."""
    path = write_variant(
        HEADER
        + "add:\n  actions:\n    pass_turn: {effect: pass, ends_turn: true}\n"
        + "set:\n  components.cell.b2.column: 7\n"
        + "remove: [triggers.three_in_a_row]\n"
    )
    changes = _changes(str(path))
    assert changes[("actions", "pass_turn")].origin == f"variant {path}"
    assert changes[("components", "cell.b2.column")].origin == f"variant {path}"
    assert changes[("triggers", "three_in_a_row")].origin is None
    assert changes[("actions", "pass_turn")].to_json()["origin"] == f"variant {path}"


def test_players_range_change_is_listed(ttt_copy: Path, write_variant: WriteVariant) -> None:
    path = write_variant(HEADER + "players: {min: 3, max: 4}\nset:\n  components.cell.b2.row: 1\n")
    result = diff.diff_sides(diff.Side(str(ttt_copy)), diff.Side(str(ttt_copy), variants=[str(path)]))
    (change,) = [c for c in result.changes if c.name == "players"]
    assert (change.old, change.new) == ({"min": 2, "max": 4}, {"min": 3, "max": 4})


def test_against_compares_two_variants(capsys: pytest.CaptureFixture[str]) -> None:
    out = _run(["tic_tac_toe", "--variant", "misere", "--against", "--variant", "no_diagonals"], capsys)
    assert out.startswith("--- tic_tac_toe + variant misere")
    assert "+++ tic_tac_toe + variant no_diagonals" in out
    assert "three_in_a_row" in out and "LINES" in out
    assert "4 changed, 0 added, 0 removed" in out


def test_a_variant_compared_with_itself_shows_no_differences(capsys: pytest.CaptureFixture[str]) -> None:
    out = _run(["tic_tac_toe", "--variant", "misere", "--against", "--variant", "misere"], capsys)
    assert "no differences" in out


def test_json_output_names_both_sides_and_each_change(capsys: pytest.CaptureFixture[str]) -> None:
    out = _run(["tic_tac_toe", "--variant", "misere", "--json"], capsys)
    data = json.loads(out)
    assert data["left"]["variants"] == [] and data["right"]["variants"] == ["misere"]
    assert data["left"]["fingerprint"] != data["right"]["fingerprint"]
    assert data["variants"][0]["variant"] == "misere"
    change = data["changes"][0]
    assert [c["name"] for c in data["changes"]] == [
        "three_in_a_row",
        "winner_has_a_line",
        "line_owner_is_winner",
    ]
    assert change["section"] == "triggers" and change["change"] == "changed"
    assert change["new"]["effect"] == "game.winner = next_player(me)"
    assert change["new_at"] == "rulesets/tic_tac_toe/variants/misere.yaml:10"


def test_json_flag_after_against(capsys: pytest.CaptureFixture[str]) -> None:
    out = _run(["tic_tac_toe", "--against", "--variant", "misere", "--json"], capsys)
    assert json.loads(out)["right"]["variants"] == ["misere"]


def test_nothing_to_compare_is_a_usage_error() -> None:
    parser = argparse.ArgumentParser()
    diff.add_parser(parser.add_subparsers(dest="command"))
    with pytest.raises(UsageError, match="nothing to compare"):
        diff.run(parser.parse_args(["diff", "tic_tac_toe"]))


def test_unknown_argument_after_against() -> None:
    parser = argparse.ArgumentParser()
    diff.add_parser(parser.add_subparsers(dest="command"))
    with pytest.raises(UsageError, match="unknown arguments after --against: --colour"):
        diff.run(parser.parse_args(["diff", "tic_tac_toe", "--against", "--colour"]))


def test_a_changed_constant_lists_the_rules_that_use_it(capsys: pytest.CaptureFixture[str]) -> None:
    out = _run(["el_capitan", "--variant", "rich_start"], capsys)
    assert "      used by: invariant money_conserved, state player.money (initial)\n" in out


def test_a_wrapped_function_lists_its_users_through_other_functions(
    write_ruleset: Callable[..., Path], write_variant: WriteVariant
) -> None:
    directory = write_ruleset(
        """
ruleset: impact
title: Impact
players: {min: 2, max: 2}
constants: {BASE: 10}
state:
  player:
    money: {type: int}
functions:
  amount: {params: {p: player}, body: BASE + seat(p)}
  doubled: {params: {p: player}, body: 2 * amount(p)}
actions:
  pay:
    doc: Pay everybody.
    effect: |
      for p in players:
          p.money += doubled(p)
  wait: {doc: Nothing., effect: pass}
flow:
  - turn: {player: player_at(1)}
"""
    )
    variant = write_variant(
        "variant: house\nruleset: impact\n"
        "replace: {functions: {amount: {params: {p: player}, body: original(p) + 1}}}\n"
        "adjust: {constants.BASE: old * 2}\n"
    )
    result = diff.diff_sides(diff.Side(str(directory)), diff.Side(str(directory), variants=[str(variant)]))
    changes = {(c.section, c.name): c for c in result.changes}
    assert changes[("functions", "amount")].used_by == ["function doubled", "action pay (via doubled)"]
    assert changes[("constants", "BASE")].used_by == [
        "function amount (via amount__original)",
        "function doubled (via amount)",
        "function amount__original",
        "action pay (via doubled)",
    ]
    assert "used_by" in result.to_json()["changes"][0]


IMPACT_RULES = """
ruleset: impact2
title: Impact of components, events and removals
players: {min: 2, max: 2}
components:
  card:
    attributes: {rank: int, colour: str}
    items:
      - {id: c1, rank: 1, colour: red}
      - {id: c2, rank: 2, colour: blue}
state:
  player:
    money: {type: int}
events:
  paid: {p: player}
functions:
  best: "max(c.rank for c in cards)"
  bonus: {params: {p: player}, body: "seat(p)"}
  first_bonus: "bonus(player_at(1))"
actions:
  pay:
    doc: Pay the best rank and the first card's colour length.
    effect: |
      me.money += best() + len(cards.c1.colour)
      emit paid(p=me)
  wait: {doc: Nothing., effect: pass}
triggers:
  thanks:
    after: paid
    effect: p.money += 1
  after_wait:
    after: wait
    effect: me.money += first_bonus()
flow:
  - turn: {player: player_at(1), actions: [pay, wait]}
"""


def _impact(
    write_ruleset: Callable[..., Path], write_variant: WriteVariant, ops: str
) -> dict[str, diff.Change]:
    directory = write_ruleset(IMPACT_RULES)
    variant = write_variant("variant: house\nruleset: impact2\n" + ops)
    result = diff.diff_sides(diff.Side(str(directory)), diff.Side(str(directory), variants=[str(variant)]))
    return {f"{c.section} {c.name}": c for c in result.changes}


def test_a_changed_component_attribute_lists_the_rules_that_read_it(
    write_ruleset: Callable[..., Path], write_variant: WriteVariant
) -> None:
    changes = _impact(write_ruleset, write_variant, "set: {components.card.c2.rank: 9}\n")
    assert changes["components card.c2.rank"].used_by == ["function best", "action pay (via best)"]


def test_a_removed_function_lists_the_rules_that_used_it_before(
    write_ruleset: Callable[..., Path], write_variant: WriteVariant, capsys: pytest.CaptureFixture[str]
) -> None:
    ops = 'remove: [functions.bonus]\nreplace: {functions: {first_bonus: "1"}}\n'
    changes = _impact(write_ruleset, write_variant, ops)
    removed = changes["functions bonus"]
    assert removed.kind == "removed"
    assert removed.used_by == ["function first_bonus", "trigger after_wait (via first_bonus)"]
    assert changes["functions first_bonus"].used_by == ["trigger after_wait"]
    text = diff.render(
        diff.RulesDiff(diff.Side("a"), diff.Side("b"), "0", "1", [removed, changes["functions first_bonus"]])
    )
    assert "      was used by: function first_bonus, trigger after_wait (via first_bonus)\n" in text


def test_a_removed_component_lists_the_rules_that_read_it_or_its_collection(
    write_ruleset: Callable[..., Path], write_variant: WriteVariant
) -> None:
    changes = _impact(write_ruleset, write_variant, "remove: [components.card.c2]\n")
    assert changes["components card.c2"].used_by == ["function best", "action pay"]  # both read cards
    by_id = _impact(write_ruleset, write_variant, "set: {components.card.c1.colour: green}\n")
    assert by_id["components card.c1.colour"].used_by == ["action pay"]


def test_changed_attribute_declarations_list_the_readers_of_those_attributes(
    write_ruleset: Callable[..., Path], write_variant: WriteVariant
) -> None:
    changes = _impact(write_ruleset, write_variant, 'set: {components.card.attributes.colour: "str?"}\n')
    assert changes["components card.attributes"].used_by == ["action pay"]


def test_events_and_actions_list_who_emits_them_and_who_listens(
    write_ruleset: Callable[..., Path], write_variant: WriteVariant
) -> None:
    ops = (
        "replace: {events: {paid: {p: player, amount: int}}, actions: {wait: {doc: Still., effect: pass}}}\n"
    )
    ops += "set: {actions.pay.effect: 'emit paid(p=me, amount=1)'}\n"
    changes = _impact(write_ruleset, write_variant, ops)
    assert changes["events paid"].used_by == ["action pay", "trigger thanks"]
    assert changes["actions wait"].used_by == ["trigger after_wait", "flow"]


@pytest.mark.parametrize("operation", ["set", "adjust"])
def test_a_list_item_set_by_index_is_credited_to_the_variant_not_the_module(
    operation: str, write_variant: WriteVariant
) -> None:
    """Setting one item of a list a module wrote (``harbor_costs.1``): the new value (a plain
    number, with no position of its own) is located in the variant that set it."""
    value = "2" if operation == "set" else '"old + 1"'
    path = write_variant(
        "variant: house\nruleset: el_capitan\n"
        + f"{operation}:\n  components.city.items.lisboa.harbor_costs.1: {value}\n"
    )
    left = diff.Side("el_capitan", modules=["lisboa"])
    right = diff.Side("el_capitan", modules=["lisboa"], variants=[str(path)])
    changes = {(c.section, c.name): c for c in diff.diff_sides(left, right).changes}
    change = changes[("components", "city.lisboa.harbor_costs")]
    assert (change.old, change.new) == ([0, 1], [0, 2])
    assert change.new_at == f"{path}:4"
    module = Path(__file__).resolve().parents[2] / "rulesets/el_capitan/modules/lisboa.yaml"
    line = next(n for n, t in enumerate(module.read_text().splitlines(), 1) if "harbor_costs:" in t)
    assert change.old_at is not None and change.old_at.endswith(f"modules/lisboa.yaml:{line}")
