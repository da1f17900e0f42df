"""``verify --variant V --differential``: the same games under the base rules and the variant."""

from __future__ import annotations

from pathlib import Path

import pytest

from rulekit.tools.verify import VerifyOptions, main
from rulekit.tools.verify.differential import differential


def _options(variant: str, **kwargs: object) -> VerifyOptions:
    return VerifyOptions("tic_tac_toe", variants=(variant,), examples=30, out=None, **kwargs)  # type: ignore[arg-type]


def test_an_undeclared_change_is_the_first_divergence_with_both_values() -> None:
    result = differential(_options("misere"))
    divergence = result.divergence
    assert divergence is not None
    assert divergence.fields and divergence.fields[0][0] == "game.winner"
    base, variant = divergence.fields[0][1], divergence.fields[0][2]
    assert base != variant
    assert len(divergence.actions) >= 5  # a line needs at least five marks


def test_a_declared_change_is_not_a_divergence() -> None:
    result = differential(_options("misere"), allow=["game.winner"])
    assert result.divergence is None
    assert result.allowed_seen == {"game.winner"}


def test_a_variant_that_changes_what_is_legal_is_reported(tmp_path: Path) -> None:
    variant = tmp_path / "no_centre.yaml"
    variant.write_text(
        "variant: no_centre\nruleset: tic_tac_toe\nset:\n"
        '  actions.place.params.cell: "[c for c in cells if c.mark == none and c != cells.b2]"\n',
        encoding="utf-8",
    )
    result = differential(_options(str(variant)))
    assert result.divergence is not None
    assert "legal" in result.divergence.what and "place(b2)" in result.divergence.what + " ".join(
        result.divergence.actions
    )


def test_cli_needs_a_variant_and_reports_the_divergence(capsys: pytest.CaptureFixture[str]) -> None:
    assert main(["tic_tac_toe", "--differential", "--quiet"]) == 2
    assert main(["tic_tac_toe", "--variant", "misere", "--differential", "--quiet"]) == 1
    out = capsys.readouterr().out
    assert "misere changes more than declared" in out and "game.winner: base" in out
    assert main(["tic_tac_toe", "--variant", "misere", "--differential", "--allow", "game.winner"]) == 0
    assert "changes nothing but what it declares" in capsys.readouterr().out


def test_a_divergence_is_shortened_by_the_verify_shrinker_to_a_minimal_game() -> None:
    from rulekit.load import load_program
    from rulekit.tools.verify.differential import (
        DIVERGES,
        DivergenceFailure,
        FieldMatcher,
        SideBySide,
        shorten,
    )
    from rulekit.tools.verify.shrink import find_failure

    base = load_program("tic_tac_toe")
    variant = load_program("tic_tac_toe", (), ("misere",))
    matcher = FieldMatcher(base, ())
    # a long-winded game: P1 completes a1-a2-a3 with the ninth mark
    marks = ["b1", "b2", "c2", "c1", "a1", "c3", "a2", "b3", "a3"]
    texts = [f"place({m})" for m in marks]
    side = SideBySide(base, variant, matcher, set())
    failure = find_failure(side, 2, 3, texts, DIVERGES)
    assert isinstance(failure, DivergenceFailure) and len(failure.history) == 9
    result = differential(_options("misere"))
    shortened = shorten(base, variant, failure.divergence, matcher, result, 20.0, 2)
    assert len(shortened.actions) == 5  # the fewest marks that complete a line
    again = find_failure(
        SideBySide(base, variant, matcher, set()), 2, shortened.seed, shortened.actions, DIVERGES
    )
    assert isinstance(again, DivergenceFailure)
