"""Modules and variants are one patch language: the same operations, order, errors and constraints;
a variant file is read once per load."""

from __future__ import annotations

from collections.abc import Callable
from pathlib import Path

import pytest

from rulekit import load
from rulekit.errors import RulesetError
from rulekit.load import load_game, load_program
from rulekit.rules import yaml_source

BASE = """\
ruleset: base
players: {min: 2, max: 4}
constants: {BONUS: 1}
state:
  game:
    n: {type: int}
actions:
  step:
    effect: game.n += BONUS
    ends_turn: true
flow:
  - repeat: {times: 2, steps: [{turn: player_at(1)}]}
scoring:
  score: game.n
"""
WriteRuleset = Callable[..., Path]


def _error(ruleset: Path, modules: list[str] = [], variants: list[str] = []) -> str:  # noqa: B006
    with pytest.raises(RulesetError) as caught:
        load_program(str(ruleset), modules, variants, players=2)
    return str(caught.value)


def _after_one_step(ruleset: str, modules: list[str], variants: list[str] = []) -> int:  # noqa: B006
    state = load_game(ruleset, 2, modules, variants).new_initial_state(0)
    state.apply_action("step")
    return int(state.value("game", "n"))


def test_a_module_uses_every_operation_a_variant_has(write_ruleset: WriteRuleset) -> None:
    module = """\
module: house
set: {constants.BONUS: 3}
adjust: {constants.BONUS: "old * 10"}
replace:
  actions:
    step: {effect: game.n += BONUS + 1, ends_turn: true}
add:
  constants: {EXTRA: 5}
"""
    ruleset = str(write_ruleset(BASE, {"house": module}))
    assert load_program(ruleset, ["house"], players=2).rules.constants["EXTRA"].value == 5
    assert _after_one_step(ruleset, ["house"]) == 31


def test_a_modules_operations_run_in_the_order_written(write_ruleset: WriteRuleset) -> None:
    first = 'module: first\nadjust: {constants.BONUS: "old * 10"}\nset: {constants.BONUS: 4}\n'
    second = 'module: second\nset: {constants.BONUS: 4}\nadjust: {constants.BONUS: "old * 10"}\n'
    ruleset = str(write_ruleset(BASE, {"first": first, "second": second}))
    assert load_program(ruleset, ["first"], players=2).rules.constants["BONUS"].value == 4
    assert load_program(ruleset, ["second"], players=2).rules.constants["BONUS"].value == 40


def test_a_variant_may_say_override_as_a_module_does(write_ruleset: WriteRuleset, tmp_path: Path) -> None:
    ruleset = write_ruleset(BASE)
    variant = tmp_path / "v.yaml"
    variant.write_text(
        "variant: v\nruleset: base\noverride:\n  actions:\n    step: {effect: game.n += 7, ends_turn: true}\n"
    )
    assert _after_one_step(str(ruleset), [], [str(variant)]) == 7


def test_a_module_and_a_variant_report_the_same_mistake_alike(
    write_ruleset: WriteRuleset, tmp_path: Path
) -> None:
    operation = "replace:\n  actions:\n    stpe: {effect: pass}\n"
    ruleset = write_ruleset(BASE, {"typo": "module: typo\ntitle: A typo\n" + operation})
    variant = tmp_path / "typo.yaml"
    variant.write_text("variant: typo\nruleset: base\n" + operation)
    from_module = _error(ruleset, ["typo"])
    from_variant = _error(ruleset, [], [str(variant)])
    for text, path in ((from_module, ruleset / "modules" / "typo.yaml"), (from_variant, variant)):
        assert f"{path}:5:5: error: cannot replace actions 'stpe': no such entry" in text
        assert "did you mean 'step'?" in text


def test_a_module_narrows_the_players_as_a_variant_does(write_ruleset: WriteRuleset) -> None:
    ruleset = write_ruleset(BASE, {"big": "module: big\nplayers: {min: 3, max: 4}\n"})
    program = load_program(str(ruleset), ["big"], players=3)
    assert (program.rules.min_players, program.rules.max_players) == (3, 4)


def test_a_module_requiring_no_module_of_the_ruleset_is_located(write_ruleset: WriteRuleset) -> None:
    ruleset = write_ruleset(BASE, {"needs": "module: needs\nrequires: [harbour]\n"})
    text = _error(ruleset, ["needs"])
    assert f"{ruleset / 'modules' / 'needs.yaml'}:2:12: error: module 'needs' requires 'harbour'" in text


def test_a_cold_load_reads_each_variant_file_once(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("RULEKIT_CACHE_DIR", str(tmp_path / "cache"))  # empty: a cold load
    monkeypatch.setattr(load, "_CACHE", {})
    monkeypatch.setattr(load, "_LOADED", {})
    variant = tmp_path / "misere.yaml"
    variant.write_text((Path(__file__).parents[2] / "rulesets/tic_tac_toe/variants/misere.yaml").read_text())
    parsed: list[str] = []
    parse = yaml_source.load_text

    def counting(text: str, file: str) -> object:
        parsed.append(file)
        return parse(text, file)

    monkeypatch.setattr(yaml_source, "load_text", counting)
    load_program("tic_tac_toe", [], [str(variant)], players=2)
    assert parsed.count(str(variant)) == 1
