"""``rulekit simulate``: many seeded bot games, and what they say about the balance between seats.

Plays ``--games`` games (game *i* with seed ``--seed`` + *i*, bots from :func:`make_bots`,
so game *i* is ``rulekit play --seed S+i``) and reports, per seat, the win rate with a
95% Wilson interval and the mean score with a 95% interval, and for all games how many
finished, their length, the mean winning score, how often first place was shared, the
speed, and a balance figure.  ``--against`` plays the same seeds with another
configuration and prints both side by side with the differences.

    rulekit simulate tic_tac_toe --games 500 --against --variant misere
    rulekit simulate my_game --players 4 --games 100 --against --variant house_rule.yaml

Everything but the timing is a function of the arguments: the same command prints the
same report.  ``--json`` prints the same figures for tools.
"""

from rulekit.tools.simulate.command import (
    add_parser,
    add_run_options,
    check_run_options,
    configs_from_args,
    run,
)
from rulekit.tools.simulate.intervals import Z95, intervals_overlap, mean_interval, wilson_interval
from rulekit.tools.simulate.play import (
    Config,
    Difference,
    SeatResult,
    Simulation,
    differences,
    simulate,
    summarize,
)
from rulekit.tools.simulate.report import finite_json, render, to_json

__all__ = [
    "Z95",
    "Config",
    "Difference",
    "SeatResult",
    "Simulation",
    "add_parser",
    "add_run_options",
    "check_run_options",
    "configs_from_args",
    "differences",
    "finite_json",
    "intervals_overlap",
    "mean_interval",
    "render",
    "run",
    "simulate",
    "summarize",
    "to_json",
    "wilson_interval",
]
