"""Scenario files: rulebook examples as executable tests.

A scenario names a ruleset (or lives inside its directory), sets up a state by
path, applies actions in the log notation (some expected to be rejected) and
checks DSL expectations on the result.  See docs/cli.md for the format.

The package, one job per module: ``files`` (the format's keys, finding files),
``context`` (what a run shares), ``values`` (YAML values typed against the declared
field types), ``start``, ``steps`` (the ``actions:`` list), ``invariants``,
``expect`` (expectations; a false condition is explained by
:func:`rulekit.tools.verify.explain.explain_condition`) and ``run`` (the driver).
"""

from __future__ import annotations

from rulekit.load import load_program
from rulekit.tools.scenario.context import ScenarioFailure, ScenarioResult
from rulekit.tools.scenario.files import SCENARIO_KEYS, find_scenarios, ruleset_for
from rulekit.tools.scenario.run import run_paths, run_scenario

__all__ = [
    "SCENARIO_KEYS",
    "ScenarioFailure",
    "ScenarioResult",
    "find_scenarios",
    "load_program",
    "ruleset_for",
    "run_paths",
    "run_scenario",
]
