"""What verify reports and saves for a failure, on planted bugs in copies of the small shipped
rulesets: the same counterexample for any number of workers, a property over a turn whose
counterexample replays, a field holding a map, and saved scenarios that fail until the rules
are fixed."""

from __future__ import annotations

import shutil
from pathlib import Path

import attrs
import pytest

from rulekit.tools.verify import VerifyOptions, format_counterexample, verify

ROOT = Path(__file__).resolve().parents[2]

#: Pig with a property over a turn: only the player whose turn it was banks points.
ONLY_THE_PLAYER_BANKS = """
properties:
  only_the_player_banks:
    over: turn
    holds: "all(after(p.banked) == before(p.banked) for p in players if p != before(game.current))"
    message: only the player whose turn it was banks points
"""
#: The planted bug: holding banks the turn's total for the next player.
BANKS_FOR_THE_NEXT = (
    "    effect: |\n      me.banked += turn.total",
    "    effect: |\n      next_player(me).banked += turn.total",
)


def copy_ruleset(tmp_path: Path, name: str, *replacements: tuple[str, str], append: str = "") -> Path:
    """A copy of a shipped ruleset in ``tmp_path/name`` with text replaced (each must occur)."""
    directory = tmp_path / name
    # without its scenarios and its mined properties: they would report the edit first
    shutil.copytree(
        ROOT / "rulesets" / name, directory, ignore=shutil.ignore_patterns("scenarios", "properties.yaml")
    )
    path = directory / "ruleset.yaml"
    text = path.read_text(encoding="utf-8").replace("include: [properties.yaml]\n", "")
    for old, new in replacements:
        assert old in text, old
        text = text.replace(old, new)
    path.write_text(text + append, encoding="utf-8")
    return directory


def test_a_property_over_a_turn_is_reported_with_the_same_actions_for_any_number_of_workers(
    tmp_path: Path,
) -> None:
    """Issue #27: with workers the replayed counterexample of a property over a turn did not fail
    again (exit 3); now --workers 1 and 2 report the same shrunk counterexample."""
    directory = copy_ruleset(tmp_path, "pig", BANKS_FOR_THE_NEXT, append=ONLY_THE_PLAYER_BANKS)
    options = VerifyOptions(str(directory), examples=40, out=None, coverage=False)
    one, two = (verify(attrs.evolve(options, workers=n)).counterexample for n in (1, 2))
    assert one is not None and two is not None
    assert one.key == two.key == "property:only_the_player_banks"
    assert one.actions == two.actions and (one.players, one.seed) == (two.players, two.seed)
    assert one.actions[-1][1] == "hold"  # the turn ends with the hold that banked for another


def test_a_property_over_a_turn_fails_again_when_exactly_its_actions_are_replayed(tmp_path: Path) -> None:
    """The turn is checked after the action that ends it, not before the next one: the
    history of the failure is a game that fails again."""
    from rulekit.load import load_program
    from rulekit.tools.verify import Checker
    from rulekit.tools.verify.options import Stats
    from rulekit.tools.verify.shrink import find_failure

    directory = copy_ruleset(tmp_path, "pig", BANKS_FOR_THE_NEXT, append=ONLY_THE_PLAYER_BANKS)
    checker = Checker(load_program(str(directory)), Stats())
    key = "property:only_the_player_banks"
    for seed in range(20):  # a roll that is not a 1, then hold
        failure = find_failure(checker, 2, seed, ["roll", "hold"], key)
        if failure is not None:
            break
    assert failure is not None
    assert [text for _, text in failure.history] == ["roll", "hold"]
    again = find_failure(checker, 2, failure.seed, [text for _, text in failure.history], key)
    assert again is not None and len(again.history) == 2


MAPS = """
ruleset: maps
players: {min: 2, max: 2}
state:
  game:
    n: {type: int}
    who: {type: player, initial: "player_at(1)"}
  player:
    stock: {type: map, initial: "{}"}
  turn:
    seen: {type: map, initial: "{}"}
actions:
  take:
    params: {k: "[1, 2, 3]"}
    effect: |
      me.stock = put(me.stock, k, k)
      turn.seen = put(turn.seen, k, true)
      game.n += 1
    ends_turn: true
flow:
  - repeat:
      until: game.n >= 10
      steps:
        - for_each:
            in: players
            as: who
            steps:
              - turn: game.who
"""


@pytest.mark.parametrize("workers", [1, 2])
def test_a_player_or_turn_field_holding_a_map_is_explored_with_aliasing(
    workers: int, write_ruleset: object
) -> None:
    """Issue #27: a non-empty map in the deciding player's or the turn's fields crashed the
    aliasing games (unhashable type: 'dict') once more than one action was legal."""
    from rulekit.engine.game import Game
    from rulekit.load import load_program
    from rulekit.tools.verify.explore import held_values

    directory = write_ruleset(MAPS)  # type: ignore[operator]
    result = verify(VerifyOptions(str(directory), examples=30, out=None, workers=workers))
    assert result.ok, format_counterexample(result.counterexample)  # type: ignore[arg-type]
    assert result.stats.games == 30 and result.stats.actions == 300
    state = Game(load_program(str(directory)), 2).new_initial_state(0)
    state.apply_action(state.game.parse_action("take(2)"))
    state.apply_action(state.game.parse_action("take(3)"))  # P1 again, her stock a non-empty map
    assert state.fields[(0, "stock")] and 0 not in held_values(state)


#: Pig with a postcondition on holding: she banks exactly the turn's total.
HOLD_ENSURES = (
    "    ends_turn: true\n\ntriggers:",
    "    ends_turn: true\n    ensures:\n"
    '      - holds: "after(me.banked) == before(me.banked) + before(turn.total)"\n'
    "        message: holding banks the turn's total\n\ntriggers:",
)
#: The planted bug: holding banks one point too many.
BANKS_ONE_MORE = ("      me.banked += turn.total\n", "      me.banked += turn.total + 1\n")
#: The planted bug: holding banks nothing, so nobody ever wins (pig played to 20 points).
BANKS_NOTHING = ("      me.banked += turn.total\n", "      me.banked += 0\n")
TO_TWENTY = ("  GOAL: 100 ", "  GOAL: 20 ")


def _saved_scenario(tmp_path: Path, buggy: Path, **options: object) -> Path:
    out = tmp_path / "out"
    result = verify(VerifyOptions(str(buggy), examples=40, out=out, coverage=False, **options))  # type: ignore[arg-type]
    example = result.counterexample
    assert example is not None
    return next(p for p in example.files if p.suffix == ".yaml")


def _passes_on(scenario: Path, buggy: Path, fixed: Path) -> bool:
    """Whether the saved scenario passes when its ruleset is ``fixed`` instead of ``buggy``."""
    from rulekit.tools.scenario import run_scenario

    text = scenario.read_text(encoding="utf-8")
    assert str(buggy) in text
    moved = scenario.with_name("fixed.yaml")
    moved.write_text(text.replace(str(buggy), str(fixed)), encoding="utf-8")
    return run_scenario(moved).passed


@pytest.mark.parametrize("kind", ["over_a_turn", "ensures"])
def test_the_scenario_saved_for_a_property_fails_until_the_rules_are_fixed(kind: str, tmp_path: Path) -> None:
    """Issue #27: the scenario of a property failure had no expectation and passed with the bug
    planted; it now names the property in expect_properties."""
    from rulekit.tools.scenario import run_scenario

    if kind == "over_a_turn":
        buggy = copy_ruleset(tmp_path / "bug", "pig", BANKS_FOR_THE_NEXT, append=ONLY_THE_PLAYER_BANKS)
        fixed = copy_ruleset(tmp_path / "fix", "pig", append=ONLY_THE_PLAYER_BANKS)
        key = "only_the_player_banks"
    else:
        buggy = copy_ruleset(tmp_path / "bug", "pig", HOLD_ENSURES, BANKS_ONE_MORE)
        fixed = copy_ruleset(tmp_path / "fix", "pig", HOLD_ENSURES)
        key = "hold.ensures[1]"
    scenario = _saved_scenario(tmp_path, buggy)
    assert f"expect_properties:\n- {key}\n" in scenario.read_text(encoding="utf-8")
    failed = run_scenario(scenario)
    assert not failed.passed and f"property '{key}' fails after hold" in failed.failures[0]
    assert _passes_on(scenario, buggy, fixed)


def test_the_scenario_saved_for_a_game_that_never_ends_expects_it_to_end(tmp_path: Path) -> None:
    """Issue #27: the scenario of a game still running at --max-actions said it would fail until
    the rules were fixed, and passed on the unfixed rules; now it expects the game over."""
    from rulekit.tools.scenario import run_scenario

    buggy = copy_ruleset(tmp_path / "bug", "pig", TO_TWENTY, BANKS_NOTHING)
    fixed = copy_ruleset(tmp_path / "fix", "pig", TO_TWENTY)
    scenario = _saved_scenario(tmp_path, buggy, max_actions=300)
    text = scenario.read_text(encoding="utf-8")
    assert "expect_terminal: true" in text and text.count("may_reject: true") == 300
    failed = run_scenario(scenario)
    assert not failed.passed and "terminal" in failed.failures[0]
    assert _passes_on(scenario, buggy, fixed)


def test_a_scenario_checks_a_property_it_names_over_its_actions(tmp_path: Path) -> None:
    """expect_properties in a hand-written scenario: an unknown name is an error at its line."""
    from rulekit.tools.scenario import run_scenario

    buggy = copy_ruleset(tmp_path, "pig", HOLD_ENSURES, BANKS_ONE_MORE)
    scenario = buggy / "scenarios" / "hold.yaml"
    scenario.parent.mkdir(exist_ok=True)
    scenario.write_text(
        "scenario: holding banks the total\nexpect_properties:\n  - hold.ensures[1]\n"
        "actions:\n  - event: rolled(face=3)\n  - hold\n",
        encoding="utf-8",
    )
    result = run_scenario(scenario)
    assert not result.passed and "property 'hold.ensures[1]' fails after hold" in result.failures[0]
    assert "hold.yaml:6:5" in result.failures[0] and "after(me.banked) = 4" in result.failures[0]
    scenario.write_text(scenario.read_text().replace("- hold.ensures[1]", "- hold.ensure[1]"))
    result = run_scenario(scenario)
    assert "hold.yaml:3:3: error: expect_properties: no property 'hold.ensure[1]'" in result.failures[0]


def test_the_shrunk_counterexample_does_not_depend_on_a_slow_wall_clock(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """Issue #27: shrinking's budget was wall time, so on a loaded machine (where ten seconds
    pass between two looks at the clock, and each step costs more CPU) it stopped early with a
    longer counterexample; its budget is now work (the rules' steps)."""
    import time

    buggy = copy_ruleset(tmp_path, "pig", HOLD_ENSURES, BANKS_ONE_MORE)
    options = VerifyOptions(str(buggy), examples=20, out=None, coverage=False, shrink_seconds=30.0)
    idle = verify(options).counterexample
    wall = iter(range(0, 10**9, 10))
    cpu = time.process_time
    monkeypatch.setattr(time, "perf_counter", lambda: float(next(wall)))
    monkeypatch.setattr(time, "process_time", lambda: 2 * cpu())
    loaded = verify(options).counterexample
    assert idle is not None and loaded is not None
    assert idle.original_length == loaded.original_length > 2
    assert [text for _, text in idle.actions] == [text for _, text in loaded.actions] == ["roll", "hold"]
    assert "1-minimal" in loaded.shrink_note


def test_a_failed_property_shows_the_values_each_comparison_compared(tmp_path: Path) -> None:
    """Issue #27: a property failure showed only true/false per part of an 'and'; now each
    comparison is shown with its operands side by side (as pytest shows a failed assert)."""
    import re

    total = "sum(p.banked for p in players)"
    ensures = (
        HOLD_ENSURES[0],
        HOLD_ENSURES[1].replace(
            "after(me.banked) == before(me.banked) + before(turn.total)",
            "after(me.banked) >= before(me.banked) and "
            f"after({total}) == before({total}) + before(turn.total)",
        ),
    )
    buggy = copy_ruleset(tmp_path, "pig", ensures, BANKS_ONE_MORE)
    result = verify(VerifyOptions(str(buggy), examples=20, out=None, coverage=False))
    example = result.counterexample
    assert example is not None and example.key == "property:hold.ensures[1]"
    text = format_counterexample(example)
    assert re.search(r"after\(me\.banked\) >= before\(me\.banked\) is true: (\d+) >= \d+\n", text)
    compared = re.search(
        rf"after\({re.escape(total)}\) == before\({re.escape(total)}\) \+ before\(turn\.total\) "
        r"is false: (\d+) == (\d+)\n",
        text,
    )
    assert compared is not None, text
    assert int(compared.group(1)) == int(compared.group(2)) + 1  # the point too many
    assert f"before({total}) + before(turn.total) = {compared.group(2)}" in text


def test_the_work_shrinking_counts_is_the_same_in_every_replay_of_a_game() -> None:
    """Shrinking's budget counts the rules' steps its replays charge: the same for the same game."""
    from rulekit.load import load_program
    from rulekit.tools.verify import Checker
    from rulekit.tools.verify.options import Stats
    from rulekit.tools.verify.shrink import play_sequence

    program = load_program("tic_tac_toe")
    texts = ["place(a1)", "place(b1)", "place(a2)", "place(b2)"]
    first, second = Checker(program, Stats()), Checker(program, Stats())
    play_sequence(first, 2, 0, texts)
    play_sequence(second, 2, 0, texts)
    once = first.work()
    assert once > 0 and second.work() == once
    play_sequence(first, 2, 0, texts)  # cheaper the second time (the engine keeps some results)
    play_sequence(second, 2, 0, texts)
    assert once < first.work() == second.work() <= 2 * once
