"""Fireworks (rulesets/fireworks): a cooperative game whose hands only the others see.

Every hand is ``others``-visible: its holder does not see it, so what she may know of it (and
what her bots sample) must not be the real hand more often than chance, and the game must
pass the OpenSpiel and PettingZoo adapters' own tests as a cooperative (IDENTICAL) game.
"""

from __future__ import annotations

import math
import random
import warnings
from collections import Counter
from pathlib import Path
from typing import Any

import pytest

from rulekit.engine import information
from rulekit.engine.game import State
from rulekit.load import load_game
from rulekit.tools import mcts
from rulekit.tools.bots import make_bots, play_game
from tests.ecosystem.extras import require

RULESET = str(Path(__file__).resolve().parents[2] / "rulesets" / "fireworks")
CARDS = 50


def _places(state: State, players: int) -> list[str]:
    fields = state.fields
    piles = [fields[("game", name)] for name in ("deck", "fireworks", "discards")]
    piles += [fields[(p, name)] for p in range(players) for name in ("hand", "known")]
    return sorted(card for pile in piles for card in pile)


@pytest.mark.parametrize("players", [2, 3, 4, 5])
def test_random_games_end_by_the_rules_with_every_card_kept(players: int) -> None:
    game = load_game(RULESET, players)
    for seed in range(3):
        played = play_game(game, seed, make_bots(game, "random", seed), 2000)
        state = played.state
        fields = state.fields
        assert played.finished
        assert len(_places(state, players)) == CARDS == len(set(_places(state, players)))
        ended = (
            fields[("game", "fuses")] == 0
            or fields[("game", "turns_left")] == 0
            or len(fields[("game", "fireworks")]) == 25
        )
        assert ended
        shared = 0 if fields[("game", "fuses")] == 0 else len(fields[("game", "fireworks")])
        assert state.scores() == [shared] * players
        assert state.returns() == [shared / 25] * players


@pytest.mark.parametrize(("players", "size"), [(2, 5), (3, 5), (4, 4), (5, 4)])
def test_hands_hold_five_cards_with_two_or_three_players_and_four_with_more(players: int, size: int) -> None:
    state = load_game(RULESET, players).new_initial_state(1)
    assert [len(state.value(p, "hand")) for p in range(players)] == [size] * players
    assert len(state.value("game", "deck")) == CARDS - size * players


def test_a_seat_sees_every_hand_but_its_own() -> None:
    state = load_game(RULESET, 3).new_initial_state(4)
    assert state.view(0)["P1.hand"] == {"hidden": 5}
    assert state.view(0)["P2.hand"] == list(state.value(1, "hand"))
    assert state.view(None)["P2.hand"] == {"hidden": 5}  # a spectator sees what all players see


def test_mcts_samples_of_its_own_hand_are_not_its_real_hand_more_often_than_chance(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    """The bot's own hand is dealt again in each sample: a sampled position holds a card like
    the real one (same colour and number) about as often as a random unseen card would."""
    game = load_game(RULESET, 2)
    state = game.new_initial_state(5)
    me = state.current_player()
    samples: list[State] = []  # copies: the search plays on from each sample
    real_determinize = mcts.determinize

    def recording(s: State, player: int | None, rng: random.Random, **kw: Any) -> State:
        sample = real_determinize(s, player, rng, **kw)
        samples.append(sample.clone())
        return sample

    monkeypatch.setattr(mcts, "determinize", recording)
    mcts.MctsBot(3, iterations=300).choose(state)
    assert len(samples) == 300
    hand = state.value(me, "hand")
    pool = Counter(_kind(c) for c in (*state.value("game", "deck"), *hand))  # what she cannot see
    unseen = sum(pool.values())
    chance = sum(pool[_kind(card)] for card in hand) / (unseen * len(hand))  # per position
    trials = len(samples) * len(hand)
    alike = sum(
        _kind(a) == _kind(b)
        for sample in samples
        for a, b in zip(sample.value(me, "hand"), hand, strict=True)
    )
    spread = 4 * math.sqrt(chance * (1 - chance) / trials)
    assert abs(alike / trials - chance) <= spread, (alike / trials, chance)
    assert sum(sample.value(me, "hand") == hand for sample in samples) <= 1  # the whole hand: ~never
    other = 1 - me
    assert all(sample.value(other, "hand") == state.value(other, "hand") for sample in samples)  # seen


def _kind(card: str) -> str:
    """A card's colour and number (its id without the copy letter)."""
    return card.rstrip("abc")


def test_the_resample_of_a_seat_keeps_the_cards_it_knows_and_the_marks() -> None:
    game = load_game(RULESET, 2)
    state = game.new_initial_state(2)
    target = state.value(1, "hand")[0]
    colour = target.split("_")[0]
    number = int(target.split("_")[1][0])
    state.apply_action(game.parse_action(f"hint_colour(P2, {colour})"))
    mine = state.value(0, "hand")[0]
    state.apply_action(game.parse_action(f"hint_number(P1, {mine.split('_')[1][0]})"))
    state.apply_action(game.parse_action(f"hint_number(P2, {number})"))
    assert target in state.value(1, "known")
    for n in range(10):
        sample = information.determinize(state, 1, random.Random(n))
        assert sample.value(1, "known") == state.value(1, "known")
        assert sample.value(1, "colour_marks") == state.value(1, "colour_marks")


def _hinted(tmp_path: Path | None) -> tuple[State, tuple[int, ...]]:
    """P1 tells P2 a colour; the state, and P2's colour marks."""
    ruleset = RULESET
    if tmp_path is not None:  # the same rules without the hand's sample: condition
        text = (Path(RULESET if "/" in RULESET else f"rulesets/{RULESET}") / "ruleset.yaml").read_text()
        start = text.index("      # what the hints told her")
        end = text.index("      doc:", start)
        (tmp_path / "ruleset.yaml").write_text(text[:start] + text[end:], encoding="utf-8")
        ruleset = str(tmp_path)
    game = load_game(ruleset, 2)
    state = game.new_initial_state(4)
    colour = state.value(1, "hand")[-1].split("_")[0]
    state.apply_action(game.parse_action(f"hint_colour(P2, {colour})"))
    return state, state.value(1, "colour_marks")


def _broken_hints(state: State, marks: tuple[int, ...], samples: int = 60) -> int:
    """How many of P2's resamples of her own hand put a card of another colour where a hint
    told her the colour."""
    colours = ["red", "yellow", "green", "blue", "white"]
    told = {i: colours[m - 1] for i, m in enumerate(marks) if m}
    assert told
    broken = 0
    for n in range(samples):
        hand = information.determinize(state, 1, random.Random(n)).value(1, "hand")
        broken += any(hand[i].split("_")[0] != colour for i, colour in told.items())
    return broken


def test_a_resample_of_a_hand_keeps_what_the_hints_told_of_each_card(tmp_path: Path) -> None:
    """The hand's ``sample:`` condition: every determinization of P2's own hand has the hinted
    colour where the hint put its mark; without the condition most do not."""
    state, marks = _hinted(None)
    assert _broken_hints(state, marks) == 0
    state, marks = _hinted(tmp_path)
    assert _broken_hints(state, marks) > 20


# ------------------------------------------------------------------ the adapters


def test_openspiel_sees_a_cooperative_imperfect_information_game() -> None:
    pyspiel = require("pyspiel", "openspiel")
    from rulekit import openspiel as rk

    game = rk.register(RULESET, players=3)
    kind = game.get_type()
    assert kind.utility == pyspiel.GameType.Utility.IDENTICAL
    assert kind.information == pyspiel.GameType.Information.IMPERFECT_INFORMATION
    assert (game.min_utility(), game.max_utility()) == (-1.0, 1.0)


@pytest.mark.parametrize("players", [2, 5])
def test_openspiel_random_sim_test_passes(players: int) -> None:
    pyspiel = require("pyspiel", "openspiel")
    from rulekit import openspiel as rk

    pyspiel.random_sim_test(rk.register(RULESET, players=players), num_sims=2, serialize=True, verbose=False)


def test_pettingzoo_api_test_passes() -> None:
    require("pettingzoo", "pettingzoo")
    from pettingzoo.test import api_test

    from rulekit import pettingzoo as rkz

    with warnings.catch_warnings():
        warnings.simplefilter("ignore", UserWarning)  # dict observations, all-zero masks of waiting agents
        api_test(rkz.env(RULESET, players=3), num_cycles=40)


def _ismcts_game(simulations: int, moves: int | None) -> Any:
    """OpenSpiel's ISMCTSBot in every seat of a 2-player game through the adapter, ``moves``
    moves (None: to the end); the OpenSpiel state."""
    require("pyspiel", "openspiel")
    np = require("numpy", "openspiel")
    from open_spiel.python.algorithms import ismcts
    from open_spiel.python.algorithms import mcts as spiel_mcts

    from rulekit import openspiel as rk

    game = rk.register(RULESET, players=2)
    rng = np.random.RandomState(0)
    evaluator = spiel_mcts.RandomRolloutEvaluator(n_rollouts=1, random_state=rng)
    bots = [ismcts.ISMCTSBot(game, evaluator, 2.0, simulations, random_state=rng) for _ in range(2)]
    state = game.new_initial_state()
    played = 0
    while not state.is_terminal() and (moves is None or played < moves):
        if state.is_chance_node():
            actions, probs = zip(*state.chance_outcomes(), strict=True)
            state.apply_action(int(rng.choice(actions, p=probs)))
            continue
        action = bots[state.current_player()].step(state)
        assert action in state.legal_actions()
        state.apply_action(action)
        played += 1
    return state


def test_openspiels_ismcts_bot_chooses_legal_moves() -> None:
    state = _ismcts_game(simulations=4, moves=4)
    assert state.engine_state.moves() == 4


@pytest.mark.slow
def test_openspiels_ismcts_bot_plays_a_whole_game() -> None:
    state = _ismcts_game(simulations=3, moves=None)
    assert state.engine_state.is_terminal()  # the rules ended it, not the horizon
    returns = state.returns()
    assert returns[0] == returns[1] and -1.0 <= returns[0] <= 1.0  # one shared result
