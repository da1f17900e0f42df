"""Rulesets as OpenSpiel games, checked by OpenSpiel's own tests and bots."""

from __future__ import annotations

from typing import Any

import pytest

from tests.ecosystem.extras import require

pyspiel = require("pyspiel", "openspiel")
np = require("numpy", "openspiel")

from open_spiel.python.algorithms import ismcts, mcts  # noqa: E402

from rulekit import openspiel as rk  # noqa: E402
from rulekit.errors import RulekitError, RulesetError  # noqa: E402

ALL_TILES = ["porto", "lisboa", "islas_canarias"]
GameType = pyspiel.GameType


def _play(game: Any, bots: list[Any], seed: int = 0) -> Any:
    """Play a whole game with one bot per seat; chance outcomes from a seeded generator."""
    rng = np.random.RandomState(seed)
    state = game.new_initial_state()
    while not state.is_terminal():
        if state.is_chance_node():
            actions, probs = zip(*state.chance_outcomes(), strict=True)
            state.apply_action(int(rng.choice(actions, p=probs)))
        else:
            state.apply_action(bots[state.current_player()].step(state))
    return state


def _mcts_bots(game: Any, simulations: int, seed: int = 0) -> list[Any]:
    rng = np.random.RandomState(seed)
    evaluator = mcts.RandomRolloutEvaluator(n_rollouts=1, random_state=rng)
    return [
        mcts.MCTSBot(game, 2.0, simulations, evaluator, random_state=rng, solve=False)
        for _ in range(game.num_players())
    ]


def _ismcts_bots(game: Any, simulations: int, seed: int = 0) -> list[Any]:
    rng = np.random.RandomState(seed)
    evaluator = mcts.RandomRolloutEvaluator(n_rollouts=1, random_state=rng)
    return [
        ismcts.ISMCTSBot(game, evaluator, 2.0, simulations, random_state=rng)
        for _ in range(game.num_players())
    ]


# ---------------------------------------------------------------- registration and types
def test_register_returns_the_loaded_game_and_load_game_finds_it_by_name() -> None:
    """register() returns the game; pyspiel.load_game then finds it by name with modules."""
    game = rk.register("el_capitan", players=4, modules=["porto"])
    assert game.get_type().short_name == "rulekit_el_capitan"
    assert game.num_players() == 4
    again = pyspiel.load_game("rulekit_el_capitan(players=4,modules=porto+lisboa)")
    assert again.get_parameters()["modules"] == "porto+lisboa"
    # The Lisboa tile adds a city: the sail_route action gets more targets.
    assert again.num_distinct_actions() > game.num_distinct_actions()


def test_a_deterministic_perfect_information_game_is_declared_so() -> None:
    """Tic-tac-toe has no RNG and no hidden field: deterministic, perfect information, zero-sum."""
    kind = rk.register("tic_tac_toe").get_type()
    assert kind.dynamics == GameType.Dynamics.SEQUENTIAL
    assert kind.chance_mode == GameType.ChanceMode.DETERMINISTIC
    assert kind.information == GameType.Information.PERFECT_INFORMATION
    assert kind.utility == GameType.Utility.ZERO_SUM
    assert kind.reward_model == GameType.RewardModel.TERMINAL


@pytest.mark.parametrize(("players", "utility"), [(2, "ZERO_SUM"), (3, "GENERAL_SUM")])
def test_hidden_decks_and_shuffles_make_a_stochastic_imperfect_information_game(
    players: int, utility: str
) -> None:
    """Shuffles make one explicit chance node over the seeds; hidden decks make imperfect information."""
    game = rk.register("el_caballero", players=players)
    kind = game.get_type()
    assert kind.chance_mode == GameType.ChanceMode.EXPLICIT_STOCHASTIC
    assert kind.information == GameType.Information.IMPERFECT_INFORMATION
    assert kind.utility == getattr(GameType.Utility, utility)
    assert (game.min_utility(), game.max_utility()) == (-1.0, 1.0)
    state = game.new_initial_state()
    assert state.is_chance_node()
    outcomes = state.chance_outcomes()
    assert len(outcomes) == game.max_chance_outcomes()
    assert sum(p for _, p in outcomes) == pytest.approx(1.0)


def test_bad_modules_are_a_ruleset_error() -> None:
    """An unknown module is the usual RulesetError, not an OpenSpiel crash."""
    with pytest.raises(RulesetError):
        rk.register("el_capitan", players=3, modules=["atlantis"])


# ---------------------------------------------------------------- OpenSpiel's own checks
FAST_SIMS = [
    ("tic_tac_toe", 2, [], 20),
    ("el_capitan", 2, ALL_TILES, 1),
    ("el_caballero", 2, [], 1),
]


@pytest.mark.parametrize(("ruleset", "players", "modules", "sims"), FAST_SIMS, ids=lambda v: str(v))
def test_random_sim_test_passes_with_serialization(
    ruleset: str, players: int, modules: list[str], sims: int
) -> None:
    """OpenSpiel's random_sim_test passes, serialization checks on."""
    game = rk.register(ruleset, players=players, modules=modules)
    pyspiel.random_sim_test(game, num_sims=sims, serialize=True, verbose=False)


SLOW_SIMS = [("el_capitan", n, ALL_TILES) for n in (2, 3, 4, 5)] + [
    ("el_caballero", n, []) for n in (2, 3, 4)
]


@pytest.mark.slow
@pytest.mark.parametrize(("ruleset", "players", "modules"), SLOW_SIMS, ids=lambda v: str(v))
def test_random_sim_test_passes_for_every_player_count(
    ruleset: str, players: int, modules: list[str]
) -> None:
    """OpenSpiel's random_sim_test passes at every player count, all tiles."""
    game = rk.register(ruleset, players=players, modules=modules)
    pyspiel.random_sim_test(game, num_sims=2, serialize=True, verbose=False)


@pytest.mark.slow
@pytest.mark.parametrize("modules", [[], ["porto"], ["lisboa"], ["islas_canarias"]], ids=str)
def test_random_sim_test_passes_for_each_tile(modules: list[str]) -> None:
    """OpenSpiel's random_sim_test passes with each expansion tile alone."""
    game = rk.register("el_capitan", players=3, modules=modules)
    pyspiel.random_sim_test(game, num_sims=1, serialize=True, verbose=False)


# ---------------------------------------------------------------- the declared bounds hold
def _check_random_games_against_the_bounds(game: Any, games: int, seed: int = 0) -> int:
    """Play random games (chance by its probabilities); every bound the GameInfo declares
    holds at every node, and each game ends by the rules, not the horizon; the longest game."""
    rng = np.random.RandomState(seed)
    longest = 0
    for _ in range(games):
        state, moves = game.new_initial_state(), 0
        while not state.is_terminal():
            if state.is_chance_node():
                outcomes, probabilities = zip(*state.chance_outcomes(), strict=True)
                assert len(outcomes) <= game.max_chance_outcomes()
                assert all(0 <= o < game.max_chance_outcomes() for o in outcomes)
                assert sum(probabilities) == pytest.approx(1.0)
                state.apply_action(int(rng.choice(outcomes, p=probabilities)))
            else:
                legal = state.legal_actions()
                assert legal and all(0 <= a < game.num_distinct_actions() for a in legal)
                state.apply_action(int(rng.choice(legal)))
                moves += 1
        assert state.engine_state.is_terminal(), "the horizon ended a game, not the rules"
        assert moves <= game.max_game_length()
        chance_nodes = sum(1 for item in state.full_history() if item.player == pyspiel.PlayerId.CHANCE)
        assert chance_nodes <= game.max_chance_nodes_in_history()
        assert len(state.history()) <= game.max_history_length()
        returns = state.returns()
        assert all(game.min_utility() <= r <= game.max_utility() for r in returns)
        if game.get_type().utility == GameType.Utility.ZERO_SUM:
            assert sum(returns) == 0
        longest = max(longest, moves)
    return longest


@pytest.mark.parametrize(
    ("ruleset", "players", "modules", "games"),
    [("tic_tac_toe", 2, [], 20), ("el_capitan", 2, ALL_TILES, 3), ("el_caballero", 2, [], 2)],
    ids=["tic_tac_toe", "el_capitan", "el_caballero"],
)
def test_random_games_stay_within_the_declared_bounds(
    ruleset: str, players: int, modules: list[str], games: int
) -> None:
    """Actions, chance outcomes, game length and returns stay within what GameInfo declares."""
    game = rk.register(ruleset, players=players, modules=modules)
    assert _check_random_games_against_the_bounds(game, games) > 0


BOUNDS = (
    [("el_capitan", n, ALL_TILES) for n in (2, 3, 4, 5)]
    + [("el_caballero", n, []) for n in (2, 3, 4)]
    + [("pig", 2, []), ("connect_four", 2, []), ("royal_letter", 2, []), ("royal_letter", 4, [])]
)


@pytest.mark.slow
@pytest.mark.parametrize(("ruleset", "players", "modules"), BOUNDS, ids=str)
def test_many_random_games_stay_within_the_declared_bounds_at_every_player_count(
    ruleset: str, players: int, modules: list[str]
) -> None:
    """Twenty random games of each shipped ruleset and player count: the bounds hold, and the
    longest game is far below the horizon (a fifth of it), so the horizon never shapes play."""
    game = rk.register(ruleset, players=players, modules=modules)
    assert _check_random_games_against_the_bounds(game, 20) < game.max_game_length() // 5


def test_past_max_chance_nodes_the_state_s_rng_draws_and_the_bound_holds() -> None:
    """With max_chance_nodes=4, a game of Pig has four chance nodes (the seed and three rolls),
    then its rolls come from the state's RNG: the declared bound holds and the game ends."""
    game = rk.register("pig", players=2, max_chance_nodes=4)
    assert game.max_chance_nodes_in_history() == 4
    assert game.max_move_number() == game.max_game_length() + 4
    assert rk.register("tic_tac_toe").max_chance_nodes_in_history() == 0
    rng = np.random.RandomState(2)
    state = game.new_initial_state()
    while not state.is_terminal():
        if state.is_chance_node():
            state.apply_action(int(rng.choice([a for a, _ in state.chance_outcomes()])))
        else:
            state.apply_action(int(rng.choice(state.legal_actions())))
    chance = [item for item in state.full_history() if item.player == pyspiel.PlayerId.CHANCE]
    assert len(chance) == 4
    assert state.engine_state.is_terminal()
    moves = len(state.full_history()) - 4
    assert moves > 10  # many rolls after the fourth chance node


# ---------------------------------------------------------------- actions, horizon, serialization
def test_the_same_integer_is_the_same_move_in_every_state() -> None:
    """An integer names the same move in every state of a game."""
    game = rk.register("el_capitan", players=3, modules=ALL_TILES)
    meaning: dict[int, str] = {}
    rng = np.random.RandomState(5)
    state = game.new_initial_state()
    state.apply_action(5)
    for _ in range(60):
        for action in state.legal_actions():
            text = state.action_to_string(state.current_player(), action)
            assert meaning.setdefault(action, text) == text
        state.apply_action(int(rng.choice(state.legal_actions())))


def test_the_horizon_ends_a_game_as_a_draw() -> None:
    """A game that reaches max_moves ends there with all returns 0."""
    game = rk.register("el_capitan", players=2, max_moves=12)
    assert game.max_game_length() == 12
    state = game.new_initial_state()
    state.apply_action(0)
    rng = np.random.RandomState(0)
    while not state.is_terminal():
        state.apply_action(int(rng.choice(state.legal_actions())))
    assert len([h for h in state.full_history() if h.player >= 0]) == 12
    assert state.returns() == [0.0, 0.0]


def test_serialize_game_and_state_round_trips_mid_game() -> None:
    """A serialized mid-game state deserializes equal and continues identically."""
    game = rk.register("el_caballero", players=3)
    state = game.new_initial_state()
    state.apply_action(17)
    rng = np.random.RandomState(1)
    for _ in range(25):
        state.apply_action(int(rng.choice(state.legal_actions())))
    text = pyspiel.serialize_game_and_state(game, state)
    game2, state2 = pyspiel.deserialize_game_and_state(text)
    assert str(game2) == str(game)
    assert str(state2) == str(state)
    assert state2.history() == state.history()
    # The RNG travels with the state: both continue identically.
    for _ in range(25):
        action = int(rng.choice(state.legal_actions()))
        state.apply_action(action)
        state2.apply_action(action)
    assert str(state2) == str(state)


def test_a_game_pickles_and_unpickles_in_a_fresh_process_as_the_same_game() -> None:
    """OpenSpiel's own checks pickle the game; the registered class is made at run time, so a
    game is pickled as the registration that makes it (a fresh process registers it again)."""
    import pickle
    import subprocess
    import sys

    game = rk.register("pig", players=3, max_moves=40)
    assert str(pickle.loads(pickle.dumps(game))) == str(game)
    state = game.new_initial_state()
    copy = pickle.loads(pickle.dumps(state))
    assert str(copy) == str(state)
    script = "import pickle, sys; print(pickle.loads(sys.stdin.buffer.read()))"
    done = subprocess.run(
        [sys.executable, "-c", script], input=pickle.dumps(game), capture_output=True, check=True
    )
    assert done.stdout.decode().strip() == str(game)


# ---------------------------------------------------------------- information
def test_observations_and_information_states_hide_the_decks() -> None:
    """A resampled state differs in its decks but not in any player's observation or information state."""
    game = rk.register("el_capitan", players=3, modules=ALL_TILES)
    state = game.new_initial_state()
    state.apply_action(3)
    rng = np.random.RandomState(2)
    for _ in range(20):
        state.apply_action(int(rng.choice(state.legal_actions())))
    for player in range(3):
        sample = state.resample_from_infostate(player, pyspiel.UniformProbabilitySampler(0.0, 1.0))
        assert str(sample) != str(state)  # the decks differ...
        assert sample.observation_string(player) == state.observation_string(player)
        assert sample.observation_tensor(player) == state.observation_tensor(player)
        assert sample.information_state_string(player) == state.information_state_string(player)
        assert sample.information_state_tensor(player) == state.information_state_tensor(player)
    assert "hidden(" in state.observation_string(0)
    assert len(state.observation_tensor(0)) == game.observation_tensor_size()


def test_the_information_state_keeps_the_moves_but_not_the_seed() -> None:
    """The information state lists the players' moves and not the chance outcome."""
    game = rk.register("el_caballero", players=2)
    state = game.new_initial_state()
    state.apply_action(1234)
    rng = np.random.RandomState(3)
    for _ in range(6):
        state.apply_action(int(rng.choice(state.legal_actions())))
    moves = [str(h.action) for h in state.full_history() if h.player >= 0]
    assert state.information_state_string(1).splitlines()[-1] == "history=" + " ".join(moves)
    assert "1234" not in state.information_state_string(1).splitlines()[-1]


# ---------------------------------------------------------------- OpenSpiel's bots
def test_mcts_plays_tic_tac_toe_to_the_end() -> None:
    """OpenSpiel's MCTSBot plays tic-tac-toe to the end."""
    game = rk.register("tic_tac_toe")
    state = _play(game, _mcts_bots(game, simulations=30))
    assert state.is_terminal()
    assert sum(state.returns()) == 0


@pytest.mark.parametrize("ruleset", ["el_capitan", "el_caballero"])
def test_mcts_and_ismcts_choose_legal_moves(ruleset: str) -> None:
    """OpenSpiel's MCTS and IS-MCTS bots choose legal moves in both games."""
    game = rk.register(ruleset, players=2)
    state = game.new_initial_state()
    state.apply_action(9)
    for bot in (_mcts_bots(game, 2)[0], _ismcts_bots(game, 2)[0]):
        for _ in range(3):
            action = bot.step(state)
            assert action in state.legal_actions()
            state.apply_action(action)


@pytest.mark.slow
@pytest.mark.parametrize(("ruleset", "modules"), [("el_capitan", ALL_TILES), ("el_caballero", [])])
def test_mcts_plays_a_complete_game(ruleset: str, modules: list[str]) -> None:
    """OpenSpiel's MCTSBot plays a whole game through the adapter to the rules' end."""
    game = rk.register(ruleset, players=2, modules=modules)
    state = _play(game, _mcts_bots(game, simulations=2))
    assert state.engine_state.is_terminal()  # the rules ended it, not the horizon
    assert sorted(state.returns()) in ([-1.0, 1.0], [0.0, 0.0])


@pytest.mark.slow
@pytest.mark.parametrize(("ruleset", "modules"), [("el_capitan", ALL_TILES), ("el_caballero", [])])
def test_ismcts_plays_a_complete_game(ruleset: str, modules: list[str]) -> None:
    """OpenSpiel's ISMCTSBot plays a whole game through the adapter to the rules' end."""
    game = rk.register(ruleset, players=2, modules=modules)
    state = _play(game, _ismcts_bots(game, simulations=2))
    assert state.engine_state.is_terminal()  # the rules ended it, not the horizon
    assert sorted(state.returns()) in ([-1.0, 1.0], [0.0, 0.0])


# ---------------------------------------------------------------- any ruleset, variants
SECRET_RULES = """
ruleset: secret_count
title: Secret count
players: {min: 2, max: 3}
state:
  game:
    mover: "player?"
  player:
    secret: {type: int, visibility: owner}
actions:
  bump:
    params: {by: "between(1, 2)"}
    effect: me.secret += by
    ends_turn: true
flow:
  - repeat:
      until: sum(p.secret for p in players) >= 6
      steps:
        - for_each: {in: players, as: mover, steps: [{turn: game.mover}]}
scoring:
  score: player.secret
"""


def test_a_ruleset_directory_becomes_a_game_that_passes_the_checks(write_ruleset: Any) -> None:
    """A ruleset directory registers; owner-visible fields mean imperfect information; checks pass."""
    game = rk.register(str(write_ruleset(SECRET_RULES, name="secret_count")), players=3)
    kind = game.get_type()
    assert kind.short_name == "rulekit_secret_count"
    assert kind.chance_mode == GameType.ChanceMode.DETERMINISTIC
    assert kind.information == GameType.Information.IMPERFECT_INFORMATION
    assert kind.utility == GameType.Utility.GENERAL_SUM
    assert game.num_distinct_actions() == 2  # bump(1), bump(2)
    pyspiel.random_sim_test(game, num_sims=5, serialize=True, verbose=False)


def test_another_directory_under_a_registered_name_is_refused(write_ruleset: Any) -> None:
    """A second ruleset directory cannot take a registered OpenSpiel name."""
    rk.register("tic_tac_toe")
    impostor = write_ruleset(SECRET_RULES.replace("secret_count", "tic_tac_toe"), name="tic_tac_toe")
    with pytest.raises(RulekitError, match="already knows rulekit_tic_tac_toe"):
        rk.register(str(impostor), players=2)


def test_variants_are_a_game_parameter() -> None:
    """Variants are a game parameter and change the game."""
    plain = rk.register("el_capitan", players=2)
    varied = rk.register("el_capitan", players=2, variants=["rich_start"])
    assert varied.get_parameters()["variants"] == "rich_start"
    one, two = plain.new_initial_state(), varied.new_initial_state()
    one.apply_action(0)
    two.apply_action(0)
    assert one.observation_string(0) != two.observation_string(0)


def test_the_information_state_tensor_is_the_observation_then_the_moves() -> None:
    """The information-state tensor is the observation, then each move's integer + 1."""
    game = rk.register("tic_tac_toe", max_moves=9)
    state = game.new_initial_state()
    for action in (4, 0, 8):
        state.apply_action(action)
    tensor = state.information_state_tensor(1)
    size = game.observation_tensor_size()
    assert len(tensor) == game.information_state_tensor_size() == size + 9
    assert tensor[:size] == state.observation_tensor(1)
    assert tensor[size:] == [5.0, 1.0, 9.0] + [0.0] * 6


def test_a_bad_parameter_in_a_game_string_is_a_rulekit_error() -> None:
    """pyspiel.load_game with a wrong player count or module raises rulekit's own error."""
    rk.register("tic_tac_toe")
    with pytest.raises(RulekitError, match="for 2-2 players, not 3"):
        pyspiel.load_game("rulekit_tic_tac_toe(players=3)")
    with pytest.raises(RulesetError, match="unknown module 'atlantis'"):
        pyspiel.load_game("rulekit_tic_tac_toe(modules=atlantis)")


# ---------------------------------------------------------------- chance nodes from chance steps
def _after_setup(game: Any) -> Any:
    state = game.new_initial_state()
    state.apply_action(0)  # the setup's seed
    return state


def test_a_roll_becomes_a_chance_node_with_the_die_s_probabilities() -> None:
    """Pig's roll: the player's move, then a chance node of six faces at 1/6 each."""
    game = rk.register("pig", players=2)
    state = _after_setup(game)
    roll = next(a for a in state.legal_actions() if state.action_to_string(a) == "roll")
    state.apply_action(roll)
    assert state.is_chance_node()
    assert state.chance_outcomes() == [(i, pytest.approx(1 / 6)) for i in range(6)]
    assert state.action_to_string(pyspiel.PlayerId.CHANCE, 4) == "roll(6) = 5"
    state.apply_action(4)
    assert not state.is_chance_node()
    engine = state.engine_state
    assert engine.value("game", "last_roll") == 5 and engine.value("turn", "total") == 5


def test_a_pending_chance_node_survives_clone_and_serialization() -> None:
    game = rk.register("pig", players=2)
    state = _after_setup(game)
    state.apply_action(next(a for a in state.legal_actions() if state.action_to_string(a) == "roll"))
    for copy in (state.clone(), game.deserialize_state(state.serialize())):
        assert copy.is_chance_node() and len(copy.chance_outcomes()) == 6
        copy.apply_action(0)  # a 1: the turn is lost
        assert copy.engine_state.value("turn", "total") == 0 and copy.current_player() == 1


PEEK_RULES = """
ruleset: peek_note
title: Peek
players: {min: 2, max: 2}
state:
  game:
    secret: {type: int, initial: 7, visibility: hidden}
    peeks: {type: int}
actions:
  peek:
    doc: Look at the secret number (only you learn it).
    effect: |
      tell(me, concat("the secret is ", game.secret))
      game.peeks += 1
    ends_turn: true
flow:
  - repeat:
      until: game.peeks >= 2
      steps:
        - turn: {player: player_at(1)}
"""


def test_a_note_told_to_p1_is_not_in_p2_s_openspiel_observations(write_ruleset: Any) -> None:
    """Two states that differ only in a private note to P1 look identical to P2."""
    game = rk.register(str(write_ruleset(PEEK_RULES, name="peek_note")), players=2)
    told = game.new_initial_state()
    told.apply_action(told.legal_actions()[0])
    untold = told.clone()
    untold.engine_state.fields[("_", "told")] = ()
    assert "the secret is 7" in told.observation_string(0)
    assert "the secret is 7" not in untold.observation_string(0)
    assert told.observation_string(1) == untold.observation_string(1)
    assert told.observation_tensor(1) == untold.observation_tensor(1)
    assert told.information_state_string(1) == untold.information_state_string(1)
    pyspiel.random_sim_test(game, num_sims=3, serialize=True, verbose=False)


def test_the_engine_carries_out_each_move_and_each_chance_outcome_once(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    """No move is applied twice (a probe, then for real): one engine apply per OpenSpiel apply."""
    from rulekit.engine.game import State

    calls: list[str] = []
    apply = State._apply

    def counted(self: State, action: Any) -> None:
        calls.append(action[0])
        apply(self, action)

    monkeypatch.setattr(State, "_apply", counted)
    game = rk.register("pig", players=2)
    state = _after_setup(game)
    rng = np.random.RandomState(4)
    for _ in range(40):
        if state.is_terminal():
            break
        calls.clear()
        if state.is_chance_node():
            state.apply_action(int(rng.choice([a for a, _ in state.chance_outcomes()])))
        else:
            state.apply_action(int(rng.choice(state.legal_actions())))
        assert len(calls) == 1


def _redealt(state: Any, player: int) -> Any:
    """A clone of ``state`` that differs only in what ``player`` may not see: the components
    of every list hidden from them (hidden fields, other players' owner fields) pooled by
    type and dealt back in reverse order, the same sizes; a hidden number plus one."""
    other = state.clone()
    engine = other.engine_state
    slots: dict[str, list[tuple[Any, str]]] = {}
    for scope, fields in engine.game.program.rules.fields.items():
        for name, decl in fields.items():
            if decl.visibility == "public" or (decl.visibility == "owner" and scope != "player"):
                continue
            for owner in engine.game.owners(scope):
                if decl.visibility == "owner" and owner == player:
                    continue
                if type(engine.fields[(owner, name)]) is int:
                    engine.fields[(owner, name)] += 1
                elif isinstance(engine.fields[(owner, name)], tuple):
                    slots.setdefault(str(decl.declared), []).append((owner, name))
    for places in slots.values():
        pool = [item for place in places for item in engine.fields[place]][::-1]
        for place in places:
            size = len(engine.fields[place])
            engine.fields[place], pool = tuple(pool[:size]), pool[size:]
    engine.refresh()
    return other


@pytest.mark.parametrize(
    ("ruleset", "players", "modules"),
    [("el_capitan", 3, ALL_TILES), ("el_caballero", 3, []), ("royal_letter", 4, [])],
    ids=["el_capitan", "el_caballero", "royal_letter"],
)
def test_states_differing_only_in_what_a_player_may_not_see_look_identical_to_them(
    ruleset: str, players: int, modules: list[str]
) -> None:
    """Hidden decks and other players' hands changed: that player's observation and
    information state (strings and tensors) are unchanged; the owner of a hand sees it."""
    game = rk.register(ruleset, players=players, modules=modules)
    state = game.new_initial_state()
    state.apply_action(11)
    rng = np.random.RandomState(6)
    for _ in range(3):
        if not state.is_terminal():
            state.apply_action(int(rng.choice(state.legal_actions())))
    assert not state.is_chance_node() and not state.is_terminal()
    for player in range(players):
        other = _redealt(state, player)
        assert str(other) != str(state)  # they do differ...
        assert other.observation_string(player) == state.observation_string(player)
        assert other.observation_tensor(player) == state.observation_tensor(player)
        assert other.information_state_string(player) == state.information_state_string(player)
        assert other.information_state_tensor(player) == state.information_state_tensor(player)
        if ruleset == "royal_letter":  # ...and a hand's owner sees the difference
            owner = (player + 1) % players
            assert other.observation_string(owner) != state.observation_string(owner)
            assert other.observation_tensor(owner) != state.observation_tensor(owner)


def test_resampling_deals_an_opponent_s_hand_again_and_keeps_what_the_player_sees() -> None:
    """IS-MCTS samples: in two-player royal_letter the opponent's one-card hand takes other
    values (it is pooled with the deck), and each sample looks the same to the player."""
    game = rk.register("royal_letter", players=2)
    state = game.new_initial_state()
    state.apply_action(5)
    player = state.current_player()
    opponent = 1 - player
    real = state.engine_state.fields[(opponent, "hand")]
    sampler = pyspiel.UniformProbabilitySampler(0.0, 1.0)
    hands = set()
    for _ in range(20):
        sample = state.resample_from_infostate(player, sampler)
        hands.add(sample.engine_state.fields[(opponent, "hand")])
        assert sample.information_state_string(player) == state.information_state_string(player)
        assert sample.observation_tensor(player) == state.observation_tensor(player)
        assert sample.legal_actions() == state.legal_actions()
    assert len(hands) > 1 and all(len(hand) == len(real) for hand in hands)
