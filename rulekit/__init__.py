"""rulekit: board-game rules as data. The front door is :mod:`rulekit.load` (``load_game``)."""
