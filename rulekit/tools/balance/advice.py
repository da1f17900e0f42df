"""What to try when a balance run did not reach the change: other bots, more players, other
modules, more games, and a search for the states where the rule applies."""

from __future__ import annotations

import math

from rulekit.engine.game import Game
from rulekit.errors import RulekitError
from rulekit.rules.compose import load_source
from rulekit.tools.balance.compare import Balance
from rulekit.tools.balance.strength import all_random
from rulekit.tools.evaluation import has_evaluation


def suggestions(result: Balance, game: Game) -> list[str]:
    """Settings that may reach the changed rules, as Markdown lines (the run's own ones
    excluded); empty when the run reached them."""
    if result.reached():
        return []
    rules = game.program.rules
    found: list[str] = []
    if all_random(result):
        if has_evaluation(game):
            found.append(
                "bots that play to win: `--bots heuristic` (rates actions with the ruleset's "
                "`bots.evaluate`) or `--bots mcts:iterations=200`"
            )
        else:
            found.append(
                "bots that search: `--bots mcts:iterations=200` (the ruleset has no `bots.evaluate`)"
            )
    else:
        found.append(
            "other bots: random bots, alone or mixed in (`--bots random`, `--bots "
            + ",".join(["heuristic"] + ["random"] * (result.players - 1))
            + "`), try actions that these bots never choose; `--bots mcts:iterations=400` plans further ahead"
        )
    if result.players < rules.max_players:
        found.append(f"more players: `--players {rules.max_players}` (this run: {result.players})")
    try:
        modules = [m for m in load_source(result.a.ruleset).modules if m not in result.a.modules]
    except RulekitError:  # advice only: a ruleset that cannot be re-read gets none
        modules = []
    if modules:
        found.append(
            "a module that brings the rule into play: " + ", ".join(f"`--with {m}`" for m in sorted(modules))
        )
    short = [games for _, games in result.unreached()]
    if result.differing() < result.min_reached:
        short.append(result.differing())
    seen = min(short, default=0)
    if seen > 0 and result.games:
        wanted = math.ceil(result.games * result.min_reached / seen)
        found.append(
            f"more games: at the rate seen, `--games {wanted}` would reach it in about {result.min_reached}"
        )
    variants = " ".join(f"--variant {v}" for v in result.b.variants)
    modules_option = f" --with {','.join(result.b.modules)}" if result.b.modules else ""
    found.append(
        "a search for the states where it applies: "
        f"`rulekit verify {result.a.ruleset}{modules_option} {variants}` lists the rules that never "
        "fired; a scenario (`rulekit scenario`) plays the rule in a state you set up"
    )
    return found
