"""Benchmark: random playouts per CPU second, what one action costs, and OpenSpiel alongside.

``rulekit bench RULESET`` measures one configuration; ``rulekit bench --all`` every
bundled ruleset at every player count (and, for a ruleset with modules, also with all
of them).  Figures are CPU time of the measuring process (``time.process_time``), so
other programs on a shared machine disturb them less than wall-clock time would; they
are still noisy, which is why OpenSpiel's games run in the same process, in rounds that
alternate with ours, and every ratio is given as min/median/max over the rounds.

A ruleset with an OpenSpiel counterpart names it in an ``openspiel.json`` next to its
``ruleset.yaml`` (ruleset metadata: the engine names no game)::

    {"python": "python_tic_tac_toe", "cpp": "tic_tac_toe"}

with, where the two games need choosing, OpenSpiel's game ``params``, and the rulekit
``players`` and ``variants`` (variant names, or ``param:NAME=VALUE`` settings) that play the
same game; ``conformance`` names the test that plays both in lockstep.  ``rulekit bench
--all`` measures that configuration against each counterpart in interleaved rounds and
prints both games' CPU time per random playout and their ratio.  Rulesets without one print
no ratio.
"""

from rulekit.tools.bench.command import add_arguments, check_arguments, run_command
from rulekit.tools.bench.measure import (
    Case,
    Row,
    all_cases,
    measure,
    measure_game,
    run_case,
    run_cases,
    sample_states,
)
from rulekit.tools.bench.playouts import (
    BenchResult,
    Counterpart,
    bench_openspiel,
    bench_rulekit,
    load_openspiel,
    openspiel_counterpart,
    openspiel_counterparts,
    openspiel_installed,
    openspiel_note,
    random_playouts,
)
from rulekit.tools.bench.report import FIGURES, SMALLER_IS_BETTER, compare, format_table, to_json, write_json

__all__ = [
    "FIGURES",
    "SMALLER_IS_BETTER",
    "BenchResult",
    "Case",
    "Counterpart",
    "Row",
    "add_arguments",
    "all_cases",
    "bench_openspiel",
    "bench_rulekit",
    "check_arguments",
    "compare",
    "format_table",
    "load_openspiel",
    "measure",
    "measure_game",
    "openspiel_counterpart",
    "openspiel_counterparts",
    "openspiel_installed",
    "openspiel_note",
    "random_playouts",
    "run_case",
    "run_cases",
    "run_command",
    "sample_states",
    "to_json",
    "write_json",
]
