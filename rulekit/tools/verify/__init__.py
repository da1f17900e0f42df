"""``rulekit verify``: property-based verification of a ruleset.

Games are explored (see :mod:`.explore`) and after every action the checker
(:mod:`.checker`) tests

* every invariant declared in the rules (``invariants:``), and
* the engine properties that hold for every ruleset: an offered legal action
  applies without error; a rejected action leaves the state unchanged; a clone
  is independent of its original; the JSON round trip is exact; replaying the
  log gives the same state hash; a player's view does not change when only
  what that player cannot see changes.

On a violation the counterexample is written at once (:mod:`.counterexample`),
then shortened (:mod:`.shrink`) and rewritten as it improves, explained (the
invariant's file:line, message and the values of its parts, :mod:`.explain`)
and reported (:mod:`.report`) with the rules' coverage (:mod:`.coverage`).
:mod:`.command` ties these together for the command line.
"""

from rulekit.tools.verify.checker import Checker
from rulekit.tools.verify.command import VerifyResult, add_parser, main, run, verify
from rulekit.tools.verify.counterexample import Counterexample, scenario_text, write_counterexample
from rulekit.tools.verify.explain import explain_invariant, unparse
from rulekit.tools.verify.failures import ENGINE_PROPERTIES, PropertyFailure
from rulekit.tools.verify.options import Stats, VerifyOptions
from rulekit.tools.verify.report import format_counterexample
from rulekit.tools.verify.shrink import find_failure, minimize, play_sequence

__all__ = [
    "ENGINE_PROPERTIES",
    "Checker",
    "Counterexample",
    "PropertyFailure",
    "Stats",
    "VerifyOptions",
    "VerifyResult",
    "add_parser",
    "explain_invariant",
    "find_failure",
    "format_counterexample",
    "main",
    "minimize",
    "play_sequence",
    "run",
    "scenario_text",
    "unparse",
    "verify",
    "write_counterexample",
]
