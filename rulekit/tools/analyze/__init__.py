"""``rulekit analyze``: game metrics from seeded bot games (docs/balance.md, "Game metrics").

The games are played by the runner (:mod:`rulekit.tools.runner`) with tracing on: each
decision's player, legal-action count and the scores before it (:mod:`rulekit.tools.trace`).
:mod:`.metrics` computes each metric from plain data, :mod:`.figures` all of them from the
games, :mod:`.report` renders Markdown, HTML and plots; ``rulekit balance`` uses the same
for its base and variant side by side.
"""

from rulekit.tools.analyze.command import add_parser, play_traced, run
from rulekit.tools.analyze.figures import analyze

__all__ = ["add_parser", "analyze", "play_traced", "run"]
