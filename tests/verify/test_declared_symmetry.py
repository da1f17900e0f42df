"""Declared symmetries (``symmetries:``, ``engine:declared-symmetry``): worked out when the rules
load (errors located), and checked by verify, which finds rules that are not symmetric under a
symmetry the author declared -- a line missing from a table of lines, one column treated apart."""

from __future__ import annotations

import shutil
from collections.abc import Callable
from pathlib import Path

import pytest

from rulekit.engine.game import Action, Game
from rulekit.errors import RulesetError
from rulekit.load import load_program
from rulekit.tools.verify import VerifyOptions, format_counterexample, verify
from rulekit.tools.verify.declared import SymmetryRelabeller

ROOT = Path(__file__).resolve().parents[2]

GRID = """\
ruleset: grid
players: {min: 2, max: 2}
constants:
  SIZE: 3
components:
  cell:
    attributes: {x: int, y: int}
    generate:
      for: {x: "range(0, SIZE)", y: "range(0, SIZE)"}
      id: "c{x}{y}"
state:
  game:
    board: {type: "map[tuple, player]"}
    moves: {type: int}
  cell:
    mark: {type: "player?"}
actions:
  mark:
    params:
      cell: "[c for c in cells if c.mark == none]"
    effect: |
      cell.mark = me
      game.board = put(game.board, (cell.x, cell.y), me)
      game.moves += 1
    ends_turn: true
flow:
  - repeat:
      until: game.moves >= 6
      steps:
        - turn: player_at(1 + game.moves % 2)
scoring:
  score: "count(c for c in cells if c.mark == player and c.x == 0)"
symmetries:
  SYMMETRY
"""
FLIP_ROWS = """flip:
    doc: rows mirrored
    components: {cell: {y: "SIZE - 1 - y"}}
    points: {x: x, y: "SIZE - 1 - y"}"""


def _grid(write_ruleset: Callable[..., Path], symmetry: str, text: str = GRID) -> Path:
    return write_ruleset(text.replace("SYMMETRY", symmetry))


def _load_error(write_ruleset: Callable[..., Path], symmetry: str) -> str:
    with pytest.raises(RulesetError) as caught:
        load_program(str(_grid(write_ruleset, symmetry)))
    return str(caught.value)


def test_a_declared_symmetry_is_worked_out_into_a_permutation_when_the_rules_load(
    write_ruleset: Callable[..., Path],
) -> None:
    symmetry = load_program(str(_grid(write_ruleset, FLIP_ROWS))).rules.symmetries["flip"]
    assert symmetry.mapping["c00"] == "c02" and symmetry.mapping["c02"] == "c00"
    assert symmetry.mapping["c11"] == "c11"
    assert sorted(symmetry.mapping.values()) == sorted(symmetry.mapping)


@pytest.mark.parametrize(
    ("symmetry", "expected"),
    [
        ("bad:\n    components: {card: {x: x}}", "no component kind 'card'"),
        ("bad:\n    components: {cell: {z: x}}", "'z' is not an attribute of cell"),
        ("bad:\n    components: {cell: {x: 'SIZ - x'}}", "'SIZ' is neither a whole-number constant"),
        ("bad:\n    points: {x: 'game.moves'}", "reads the state"),
        ("bad:\n    doc: nothing", "map some components or points"),
    ],
)
def test_a_wrong_declaration_is_an_error_at_its_position(
    write_ruleset: Callable[..., Path], symmetry: str, expected: str
) -> None:
    message = _load_error(write_ruleset, symmetry)
    assert expected in message
    assert "ruleset.yaml:" in message  # located


@pytest.mark.parametrize(
    ("symmetry", "expected"),
    [
        (
            "bad:\n    components: {cell: {x: 'x + 1'}}",
            "the image of cell 'c20' has x 3, and no cell has these",
        ),
        ("bad:\n    components: {cell: {x: '0'}}", "both go to 'c00': not a permutation"),
    ],
)
def test_items_that_do_not_map_as_declared_load_and_verify_reports_the_broken_claim(
    write_ruleset: Callable[..., Path], tmp_path: Path, symmetry: str, expected: str
) -> None:
    """A variant that moves a cell makes a declared symmetry false: the rules still play."""
    folder = _grid(write_ruleset, symmetry)
    declared = load_program(str(folder)).rules.symmetries["bad"]
    assert declared.problem is not None and expected in declared.problem
    result = verify(VerifyOptions(str(folder), examples=5, out=tmp_path))
    example = result.counterexample
    assert example is not None and example.key == "engine:declared-symmetry", example
    assert expected in example.message and "ruleset.yaml:" in example.message


def test_states_and_actions_are_relabelled_components_and_positions_alike(
    write_ruleset: Callable[..., Path],
) -> None:
    program = load_program(str(_grid(write_ruleset, FLIP_ROWS)))
    relabeller = SymmetryRelabeller(program, program.rules.symmetries["flip"])
    state = Game(program, 2).new_initial_state(1)
    state.apply_action(Action("mark", ("c10",)))
    fields = relabeller.state(state.fields)
    assert fields is not None
    assert fields[("game", "board")] == {(1, 2): 0}
    assert fields[("c12", "mark")] == 0 and fields[("c10", "mark")] is None
    assert relabeller.action(Action("mark", ("c21",))) == Action("mark", ("c21",))
    assert relabeller.action(Action("mark", ("c20",))) == Action("mark", ("c22",))


def test_rules_symmetric_under_the_declaration_pass_and_are_checked(
    write_ruleset: Callable[..., Path],
) -> None:
    result = verify(VerifyOptions(str(_grid(write_ruleset, FLIP_ROWS)), examples=30, out=None))
    assert result.ok, format_counterexample(result.counterexample)  # type: ignore[arg-type]
    assert result.stats.counts.get("declared_symmetry", 0) > 0


def test_a_rule_that_treats_one_row_apart_breaks_the_declared_symmetry(
    write_ruleset: Callable[..., Path], tmp_path: Path
) -> None:
    one_row_apart = GRID.replace("      game.moves += 1\n", "      game.moves += 1 if cell.y != 0 else 2\n")
    result = verify(
        VerifyOptions(str(_grid(write_ruleset, FLIP_ROWS, one_row_apart)), examples=30, out=tmp_path)
    )
    example = result.counterexample
    assert example is not None and example.key == "engine:declared-symmetry", example
    assert "game.moves" in example.message and "'flip'" in example.message
    assert len(example.actions) <= 2


def test_a_wrong_claim_is_found_too(write_ruleset: Callable[..., Path], tmp_path: Path) -> None:
    """Columns are not alike here (the score counts column 0): mirroring them is refuted."""
    claim = 'mirror:\n    components: {cell: {x: "SIZE - 1 - x"}}\n    points: {x: "SIZE - 1 - x", y: y}'
    result = verify(VerifyOptions(str(_grid(write_ruleset, claim)), examples=30, out=tmp_path))
    example = result.counterexample
    assert example is not None and example.key == "engine:declared-symmetry", example
    assert "standings" in example.message


def test_tic_tac_toe_with_a_diagonal_missing_breaks_its_declared_symmetry(tmp_path: Path) -> None:
    """An edit the rules' own checks cannot see: they read the same table of lines."""
    folder = tmp_path / "tic_tac_toe"
    shutil.copytree(
        ROOT / "rulesets" / "tic_tac_toe", folder, ignore=shutil.ignore_patterns("scenarios", "variants")
    )
    text = (folder / "ruleset.yaml").read_text(encoding="utf-8")
    (folder / "ruleset.yaml").write_text(text.replace("      - [c1, b2, a3]\n", "", 1), encoding="utf-8")
    result = verify(VerifyOptions(str(folder), examples=200, out=tmp_path / "out"))
    example = result.counterexample
    assert example is not None and example.key == "engine:declared-symmetry", example
    assert "game.winner" in example.message
    assert len(example.actions) <= 9


@pytest.mark.parametrize(
    "ruleset",
    [
        "tic_tac_toe",
        "connect_four",
        pytest.param("othello", marks=pytest.mark.slow),
        pytest.param("hex", marks=pytest.mark.slow),
        pytest.param("breakthrough", marks=pytest.mark.slow),
    ],
)
def test_the_shipped_board_symmetries_hold(ruleset: str) -> None:
    result = verify(VerifyOptions(ruleset, examples=6, out=None))
    assert result.ok, format_counterexample(result.counterexample)  # type: ignore[arg-type]
    assert load_program(ruleset).rules.symmetries
    assert result.stats.counts.get("declared_symmetry", 0) > 0
