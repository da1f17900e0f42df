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
    shutil.copytree(ROOT / "rulesets" / name, directory)
    path = directory / "ruleset.yaml"
    text = path.read_text(encoding="utf-8")
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
