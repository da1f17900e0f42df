"""``check --all-combinations``: allowed module combinations are checked and played."""

from __future__ import annotations

from collections.abc import Callable
from pathlib import Path

from rulekit.tools.combinations import allowed_combinations, check_all_combinations, run_all_combinations

WriteVariant = Callable[..., Path]


def test_constraints_decide_the_allowed_combinations(ttt_copy: Path) -> None:
    combos = {c.modules: c.players for c in allowed_combinations(str(ttt_copy))}
    assert combos == {
        (): (2, 3, 4),
        ("big",): (3, 4),
        ("quiet",): (2, 3, 4),
        ("needs_quiet", "quiet"): (2, 3, 4),
    }


def test_variant_constraints_narrow_the_combinations(ttt_copy: Path, write_variant: WriteVariant) -> None:
    path = write_variant(
        "variant: house\nruleset: tic_tac_toe\nrequires: [quiet]\nplayers: {min: 2, max: 3}\n"
        "set:\n  components.cell.b2.row: 1\n"
    )
    combos = {c.modules: c.players for c in allowed_combinations(str(ttt_copy), [str(path)])}
    assert combos == {("quiet",): (2, 3), ("needs_quiet", "quiet"): (2, 3)}


def test_every_allowed_combination_is_played(ttt_copy: Path) -> None:
    results = check_all_combinations(str(ttt_copy), max_actions=50)
    assert len(results) == 3 + 2 + 3 + 3
    assert all(r.ok for r in results), [r.problems for r in results]
    assert all(r.actions > 0 for r in results)


def test_a_variant_breaking_an_invariant_fails(write_variant: WriteVariant) -> None:
    path = write_variant(
        # a turn never ends, so the first player marks twice in a row
        "variant: house\nruleset: tic_tac_toe\nset:\n  actions.place.ends_turn: false\n"
    )
    lines: list[str] = []
    assert run_all_combinations("tic_tac_toe", [str(path)], out=lines.append) == 1
    assert lines[0].startswith("FAIL (no modules); 2 players:")
    assert "after 2 actions" in lines[0]
    assert "invariant 'marks_balanced' does not hold" in lines[0]
    assert lines[-1] == "1 module combinations, 1 games: 0 ok, 1 failed"


def test_shipped_tic_tac_toe_variants_pass_all_combinations() -> None:
    lines: list[str] = []
    assert run_all_combinations("tic_tac_toe", ["no_diagonals", "misere"], out=lines.append) == 0


def test_malformed_players_fail_the_combination_with_the_loader_message(ttt_copy: Path) -> None:
    """players: {min: two} is reported by the loader for the combination, not a crash."""
    rules = ttt_copy / "ruleset.yaml"
    rules.write_text(rules.read_text().replace("players: {min: 2, max: 4}", "players: {min: two, max: 4}"))
    results = check_all_combinations(str(ttt_copy), max_actions=5)
    assert results and not any(r.ok for r in results)
    assert "players.min must be a whole number of at least 1 (got 'two')" in results[0].problems[0]
