"""MCTS iterations per CPU second: rulekit's MCTS bot on its Connect Four against OpenSpiel's
Python ``MCTSBot`` (``RandomRolloutEvaluator``, one rollout) on OpenSpiel's C++ game, in
rounds alternating in one process.  Usage (from the repository root; needs ``open_spiel``):

    python benchmarks/mcts.py                        # connect_four, 100 simulations, 5 rounds
    python benchmarks/mcts.py --simulations 400 --rounds 3 --games 1
    PYTHONPATH=/tmp/before python benchmarks/mcts.py # another source tree, same yardstick
    python benchmarks/mcts.py --profile              # cProfile of rulekit's side only

Each round, both sides search every position of the same ``--games`` uniformly random games
(the games' own moves are played, not the bots'; with ``--bots-play`` each side plays its
bots' moves instead), one bot per seat, so a bot meets the position after its own turn and
the opponent's (its tree kept from its last search holds it when it was explored);
``--simulations`` per decision, every roll-out to the end of the game with uniformly random actions
(rulekit: ``cutoff=0`` and no ``bots.weights``).  Only the bots' ``choose``/``mcts_search``
calls are timed (CPU time, ``time.process_time``); applying the chosen move is not.
OpenSpiel's iterations are read from its root's visit count (its solver may stop a search
early); rulekit's are the iterations its bot ran.  The ratio is rulekit / OpenSpiel per
round, printed with min/median/max.
"""

from __future__ import annotations

import argparse
import cProfile
import inspect
import pstats
import random
import statistics
import time
from collections.abc import Callable
from typing import Any

from rulekit.load import load_game
from rulekit.tools import mcts as rk_mcts


def rulekit_bot(seed: int, simulations: int, exploration: float) -> Any:
    """rulekit's MCTS bot with uniform roll-outs to the end (an older bot without the
    ``weighted`` option gets uniform roll-outs by patching its weighted choice)."""
    if "weighted" in inspect.signature(rk_mcts.MctsBot).parameters:
        return rk_mcts.MctsBot(
            seed, iterations=simulations, cutoff=0, exploration=exploration, weighted=False
        )
    rk_mcts.weighted_choice = lambda state, legal, rng, weighted=True: rng.choice(legal)
    return rk_mcts.MctsBot(seed, iterations=simulations, cutoff=0, exploration=exploration)


def random_games(cpp_name: str, games: int, seed: int) -> list[list[int]]:
    """The moves of ``games`` uniformly random games of the OpenSpiel game (its action ids:
    the column in Connect Four, ``a`` = 0), from seed ``seed``."""
    import pyspiel

    game = pyspiel.load_game(cpp_name)
    rng = random.Random(seed)
    found = []
    for _ in range(games):
        state = game.new_initial_state()
        moves = []
        while not state.is_terminal():
            moves.append(rng.choice(state.legal_actions()))
            state.apply_action(moves[-1])
        found.append(moves)
    return found


def run_rulekit(
    ruleset: str, simulations: int, games: list[list[int]] | int, seed: int, exploration: float
) -> tuple[int, float]:
    """Searches of rulekit's MCTS at every position of ``games`` (the moves of each; a
    number: that many games played by the bots themselves): (iterations, CPU seconds)."""
    game = load_game(ruleset, 2)
    iterations = 0
    spent = 0.0
    scripts = [None] * games if isinstance(games, int) else games
    for n, script in enumerate(scripts):
        state = game.new_initial_state(seed + n)
        bots = [rulekit_bot(seed * 1000 + n * 2 + p, simulations, exploration) for p in range(2)]
        taken = 0
        while not state.is_terminal():
            bot = bots[state.current_player()]
            searched = len(state.legal_actions()) > 1
            before = getattr(bot, "iterations_run", 0)
            start = time.process_time()
            action = bot.choose(state)
            spent += time.process_time() - start
            if hasattr(bot, "iterations_run"):
                iterations += bot.iterations_run - before
            elif searched:
                iterations += simulations
            if script is not None:  # the column, by its letter (Connect Four's a..g)
                action = game.parse_action(f"drop({'abcdefg'[script[taken]]})")
            state.apply_action(action)
            taken += 1
    return iterations, spent


def run_openspiel(
    cpp_name: str, simulations: int, games: list[list[int]] | int, seed: int, uct_c: float
) -> tuple[int, float]:
    """The same with OpenSpiel's ``MCTSBot`` on its C++ game."""
    import numpy as np
    import pyspiel
    from open_spiel.python.algorithms import mcts

    game = pyspiel.load_game(cpp_name)
    iterations = 0
    spent = 0.0
    scripts = [None] * games if isinstance(games, int) else games
    for n, script in enumerate(scripts):
        state = game.new_initial_state()
        bots = []
        for p in range(2):
            rng = np.random.RandomState(seed * 1000 + n * 2 + p)
            evaluator = mcts.RandomRolloutEvaluator(n_rollouts=1, random_state=rng)
            bots.append(mcts.MCTSBot(game, uct_c, simulations, evaluator, random_state=rng))
        taken = 0
        while not state.is_terminal():
            bot = bots[state.current_player()]
            start = time.process_time()
            root = bot.mcts_search(state)
            spent += time.process_time() - start
            iterations += root.explore_count
            state.apply_action(root.best_child().action if script is None else script[taken])
            taken += 1
    return iterations, spent


def main() -> None:
    parser = argparse.ArgumentParser(
        description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter
    )
    parser.add_argument("--ruleset", default="connect_four")
    parser.add_argument(
        "--openspiel", default="connect_four", help="the OpenSpiel game (C++) to compare with"
    )
    parser.add_argument("--simulations", type=int, default=100)
    parser.add_argument("--rounds", type=int, default=5)
    parser.add_argument("--games", type=int, default=2, help="whole games per side and round (default 2)")
    parser.add_argument("--seed", type=int, default=0)
    parser.add_argument("--c", type=float, default=0.7, help="rulekit's exploration constant (default 0.7)")
    parser.add_argument(
        "--uct-c", type=float, default=2.0, help="OpenSpiel's uct_c (default 2, its examples')"
    )
    parser.add_argument(
        "--bots-play",
        action="store_true",
        help="play the bots' own moves (default: both sides search the same random games' positions)",
    )
    parser.add_argument("--profile", action="store_true", help="profile rulekit's side once, no OpenSpiel")
    args = parser.parse_args()
    if args.profile:
        profile = cProfile.Profile()
        games = args.games if args.bots_play else random_games(args.openspiel, args.games, args.seed)
        profile.runcall(run_rulekit, args.ruleset, args.simulations, games, args.seed, args.c)
        pstats.Stats(profile).sort_stats("tottime").print_stats(25)
        return
    print(
        f"MCTS {args.ruleset} vs OpenSpiel {args.openspiel}: {args.simulations} simulations per decision, "
        f"1 random roll-out each, {args.games} games per side in {args.rounds} rounds"
    )
    ratios = []
    for r in range(args.rounds):
        games = args.games if args.bots_play else random_games(args.openspiel, args.games, args.seed + r)

        def rulekit_side(r: int = r, games: list[list[int]] | int = games) -> tuple[int, float]:
            return run_rulekit(args.ruleset, args.simulations, games, args.seed + r, args.c)

        def openspiel_side(r: int = r, games: list[list[int]] | int = games) -> tuple[int, float]:
            return run_openspiel(args.openspiel, args.simulations, games, args.seed + r, args.uct_c)

        sides: list[tuple[str, Callable[[], tuple[int, float]]]] = [
            ("rulekit", rulekit_side),
            ("openspiel", openspiel_side),
        ]
        if r % 2:
            sides.reverse()
        rates = {}
        for name, fn in sides:
            iterations, spent = fn()
            rates[name] = iterations / spent
        ratio = rates["rulekit"] / rates["openspiel"]
        ratios.append(ratio)
        print(
            f"round {r + 1}: rulekit {rates['rulekit']:8.0f} it/CPU-s   "
            f"OpenSpiel {rates['openspiel']:8.0f} it/CPU-s   ratio {ratio:.3f}"
        )
    print(
        f"ratio rulekit/OpenSpiel: median {statistics.median(ratios):.3f} "
        f"(min {min(ratios):.3f}, max {max(ratios):.3f})"
    )


if __name__ == "__main__":
    main()
