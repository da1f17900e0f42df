"""What to try when a balance run did not reach the change: other bots, more players, other
modules, more games, and a search for the states where the rule applies."""

from __future__ import annotations

import json
import math
import re

from rulekit.engine.game import Game
from rulekit.errors import RulekitError
from rulekit.rules.compose import load_source, plain_data
from rulekit.tools.balance.compare import Balance
from rulekit.tools.balance.strength import RANDOM_KINDS, all_random, seat_bots
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
        bot = next(b for b in seat_bots(result) if b.partition(":")[0] not in RANDOM_KINDS)
        mixed = ",".join([bot] + ["random"] * (result.players - 1))
        found.append(
            f"other bots: random bots, alone or mixed in (`--bots random`, `--bots {mixed}`), try "
            "actions that these bots never choose; `--bots mcts:iterations=400` plans further ahead"
        )
    if result.players < rules.max_players:
        found.append(f"more players: `--players {rules.max_players}` (this run: {result.players})")
    found += _modules(result)
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


def _modules(result: Balance) -> list[str]:
    """The modules not enabled whose text names a changed rule or the changed entry (a module
    that adds the action a changed trigger follows, or a city whose costs changed)."""
    names = {w.key.partition(":")[2] for w, _ in result.unreached()}
    if result.changes is not None:
        names |= {c.name.rpartition(".")[2] for c in result.changes.changes}
    try:
        source = load_source(result.a.ruleset)
    except RulekitError:  # advice only: a ruleset that cannot be re-read gets none
        return []
    enabled = set(result.a.modules)
    hits = []
    for name, module in sorted(source.modules.items()):
        if name in enabled or enabled & set(module.conflicts):
            continue
        text = json.dumps(plain_data(module.data))
        named = sorted(n for n in names if re.search(rf"\b{re.escape(n)}\b", text))
        if named:
            hits.append(f"`--with {name}` (names {', '.join(named)})")
    return ["a module that may bring it into play: " + ", ".join(hits)] if hits else []
