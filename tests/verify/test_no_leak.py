"""``engine:no_leak``: verify finds a rule that shows a seat what it cannot see."""

from __future__ import annotations

from pathlib import Path

from rulekit.tools.verify import VerifyOptions, format_counterexample, verify

PEEK = Path(__file__).resolve().parents[1] / "data" / "peek"

#: An author's mistake: the secret card copied into a field everyone sees, the card kept.
BOAST = """\
  boast:
    doc: "Tell the table how strong your secret is (the mistake: the card itself is shown)."
    effect: game.boasted = first(me.secret)
    ends_turn: true
"""


def _peek_with(tmp_path: Path, action: str, state: str = "") -> Path:
    text = (PEEK / "ruleset.yaml").read_text(encoding="utf-8")
    text = text.replace("ruleset: peek", "ruleset: peek_planted").replace(
        "actions:\n", "actions:\n" + action, 1
    )
    text = text.replace("  game:\n", "  game:\n" + state, 1)
    folder = tmp_path / "peek_planted"
    folder.mkdir()
    (folder / "ruleset.yaml").write_text(text, encoding="utf-8")
    return folder


def _verify(ruleset: Path | str, out: Path) -> object:
    return verify(VerifyOptions(ruleset=str(ruleset), examples=60, max_actions=100, out=out, coverage=False))


def test_a_hidden_card_copied_into_a_public_field_is_a_no_leak_counterexample(tmp_path: Path) -> None:
    ruleset = _peek_with(tmp_path, BOAST, '    boasted: {type: "card?"}\n')
    result = _verify(ruleset, tmp_path / "out")
    example = result.counterexample  # type: ignore[attr-defined]
    assert example is not None
    assert example.key == "engine:no_leak", format_counterexample(example)
    assert "game.boasted" in example.message
    assert [a.split("(")[0] for _, a in example.actions][-1] == "boast"


def test_legal_actions_that_name_a_players_unseen_hand_are_a_no_leak_counterexample(tmp_path: Path) -> None:
    """Discarding a card by name from a hand you cannot see (visibility others): the offered
    actions tell you the hand."""
    discard = (
        "  discard:\n    params:\n      card: me.hand\n"
        "    effect: move(card, me.hand, game.table)\n    ends_turn: true\n"
    )
    result = _verify(_peek_with(tmp_path, discard), tmp_path / "out")
    example = result.counterexample  # type: ignore[attr-defined]
    assert example is not None
    assert example.key == "engine:no_leak"
    assert "legal actions depend on what" in example.message


def test_the_test_ruleset_with_a_reveal_and_a_condition_has_no_leak(tmp_path: Path) -> None:
    result = _verify(PEEK, tmp_path / "out")
    assert result.ok, format_counterexample(result.counterexample)  # type: ignore[attr-defined]
