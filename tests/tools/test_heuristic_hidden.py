"""The heuristic bot rates actions on what its player can see, never on the hidden state."""

from __future__ import annotations

from pathlib import Path

import pytest

from rulekit.engine.game import State
from rulekit.errors import UsageError
from rulekit.load import load_game
from rulekit.tools.bots import HeuristicBot, make_bot, make_bots, play_game

ROYAL_LETTER = Path(__file__).resolve().parents[2] / "rulesets" / "royal_letter"


def _guard_turns(players: int, seeds: range) -> list[State]:
    """Fresh states where P1 holds a Guard and the other players hold cards of two kinds."""
    game = load_game(str(ROYAL_LETTER), players)
    found = []
    for seed in seeds:
        state = game.new_initial_state(seed)
        hands = [state.fields[(p, "hand")][0] for p in (1, 2)]
        if any(a.name == "guard" for a in state.legal_actions()) and hands[0][:4] != hands[1][:4]:
            found.append(state)
    assert found, "no seed deals P1 a Guard"
    return found


def _hands_swapped(state: State, a: int, b: int) -> State:
    """A copy of ``state`` in which players ``a`` and ``b`` hold each other's hand."""
    other = state.clone()
    fields = other.fields
    fields[(a, "hand")], fields[(b, "hand")] = fields[(b, "hand")], fields[(a, "hand")]
    return other


def test_hidden_hands_do_not_change_the_heuristic_choice() -> None:
    """P1 cannot tell which of P2 and P3 holds which card, so neither can its bot's Guard guess."""
    for state in _guard_turns(3, range(40)):
        swapped = _hands_swapped(state, 1, 2)
        assert state.view(0) == swapped.view(0)
        for seed in range(3):
            real = HeuristicBot(seed).choose(state)
            other = HeuristicBot(seed).choose(swapped)
            assert real == other, f"P1's bot reads the hidden hands: {real} but {other}"


def test_with_nothing_hidden_the_heuristic_bot_rates_the_real_state(monkeypatch: pytest.MonkeyPatch) -> None:
    """Perfect information: no determinization is drawn, the game is as before."""
    import rulekit.tools.bots

    def refuse(*_: object) -> State:
        raise AssertionError("determinized a perfect-information state")

    monkeypatch.setattr(rulekit.tools.bots, "determinize", refuse)
    game = load_game(str(Path(__file__).resolve().parents[2] / "rulesets" / "connect_four"), 2)
    played = play_game(game, 1, make_bots(game, "heuristic:samples=4,random", 1))
    assert played.finished


def test_the_samples_option_sets_the_determinizations() -> None:
    bot = make_bot("heuristic:samples=3")
    assert isinstance(bot, HeuristicBot) and bot.samples == 3
    with pytest.raises(UsageError, match="must be positive"):
        make_bot("heuristic:samples=0")


def test_each_determinized_world_is_listed_once_not_once_per_action(monkeypatch: pytest.MonkeyPatch) -> None:
    """Every action is tried on a clone of each world; the clones share the world's listing
    (``State.legal_actions`` lists, the flow lists the children on its own)."""
    import rulekit.engine.game

    listed = []
    real = rulekit.engine.game.list_legal

    def counting(state: State) -> list[object]:
        listed.append(state)
        return real(state)

    state = _guard_turns(3, range(40))[0]
    state.legal_actions()
    tried = len(state.legal_actions())
    assert tried > 1
    monkeypatch.setattr(rulekit.engine.game, "list_legal", counting)
    HeuristicBot(0, samples=4).choose(state)
    assert len(listed) == 4, f"{len(listed)} listings for 4 worlds and {tried} actions"
