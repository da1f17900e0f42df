"""Whatever a rule raises while an action is applied, the state is exactly as it was before."""

from __future__ import annotations

from typing import Any

import pytest

from rulekit.errors import RuleEvaluationError
from rulekit.load import load_game


@pytest.mark.parametrize(
    "error",
    [NameError("v_x"), MemoryError(), RecursionError("deep"), AttributeError("x"), KeyboardInterrupt()],
    ids=lambda e: type(e).__name__,
)
def test_any_exception_inside_a_rule_leaves_the_state_unchanged(
    monkeypatch: pytest.MonkeyPatch, error: BaseException
) -> None:
    """An effect that changes fields and then raises leaves no trace; Ctrl-C still propagates."""
    game = load_game("tic_tac_toe", 2)
    state = game.new_initial_state(1)
    state.apply_action("place(a1)")
    before, legal = state.state_hash(), state.legal_action_strings()
    compiled = game.program.actions["place"]
    original = compiled.effect
    assert original is not None

    def half_done(F: dict[Any, Any], R: Any, me: int, *args: Any) -> None:
        original(F, R, me, *args)
        F[("game", "winner")] = me
        raise error

    monkeypatch.setattr(compiled, "effect", half_done)
    expected = KeyboardInterrupt if isinstance(error, KeyboardInterrupt) else RuleEvaluationError
    with pytest.raises(expected):
        state.apply_action("place(b2)")
    assert state.state_hash() == before
    assert state.legal_action_strings() == legal
    assert state.value("b2", "mark") is None
