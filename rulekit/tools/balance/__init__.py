"""``rulekit balance``: does a house rule change how the game plays?  Paired, sequential.

Both sides, the base configuration (A) and the base with the variant (B), play the same
seeds with the same bots (common random numbers): game *i* of A and game *i* of B differ
only by the rule change, so every figure is compared *per seed* (a paired difference),
which removes most of the noise of the deal and of the bots' own randomness.

Figures, per side: win rate per seat (95% Wilson interval), scores, the winning margin
(first minus second score), game length, how often each action and trigger fired per
game.  Differences, B - A: the mean of the per-seed differences with its 95% interval
(normal approximation), and a verdict:

* ``*`` the 95% interval excludes 0 (significant on its own);
* ``**`` still significant after the Holm-Bonferroni correction over every difference in
  the report (so a report with many rows does not "find" chance differences).

Sequential test (early stopping).  The games are played in batches; after each batch
(each *look*), the primary question, "does the variant change any seat's win rate?", is
tested on the per-seat paired win-share differences with the Bonferroni-corrected
critical value ``z* = Φ⁻¹(1 - alpha / (2 · K · S))`` for K planned looks and S seats,
which keeps the chance of a false alarm over all looks and seats below alpha (a conservative
version of a Pocock design).  The run stops early when

* some seat's difference is beyond ``z*`` (the variant changes the balance), or
* every seat's ``z*``-interval lies inside ±``margin`` (no change bigger than the margin:
  the answer is clear the other way);

else it plays all the games.

Reach.  The report opens with what the variant changes (:mod:`.changes`, the computation of
``rulekit diff``), the bots' strength against random bots (:mod:`.strength`) and how often
each changed rule fired on each side.  Neither the sequential test's stop nor a verdict comes
before the variant made a difference in ``min_reached`` games and each rule it changes fired
in as many: until then the report says *no verdict*, names the rules, and suggests settings
that may reach them (:mod:`.advice`).
"""

from rulekit.tools.balance.changes import VariantChanges, Watched, variant_changes
from rulekit.tools.balance.command import add_parser, run
from rulekit.tools.balance.compare import Balance, run_balance
from rulekit.tools.balance.report import render_markdown, write_plots
from rulekit.tools.balance.stats import Paired, holm, margin, paired, win_shares
from rulekit.tools.balance.strength import bot_strength

__all__ = [
    "Balance",
    "Paired",
    "VariantChanges",
    "Watched",
    "add_parser",
    "bot_strength",
    "holm",
    "margin",
    "paired",
    "render_markdown",
    "run",
    "run_balance",
    "variant_changes",
    "win_shares",
    "write_plots",
]
