"""What a game did at each decision, for ``rulekit analyze``: who decided, how many legal
actions they had, and the scores before every action and at the end.

A :class:`Tracer` wraps a game's bots: before a bot chooses, it notes the decision (the
bot lists the legal actions anyway; the scores are computed once more), so the game played
is the same with or without it.  Only analysing runs trace; ``simulate`` never pays for it.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

from attrs import frozen

from rulekit.engine.game import Action, State
from rulekit.errors import RuleEvaluationError
from rulekit.tools.bots import Bot


@frozen
class GameTrace:
    """One game's decisions: ``deciders[i]`` chose among ``legal[i]`` actions when the scores
    were ``scores[i]``; ``scores`` has one more entry, the scores where the game stopped.  A
    score the rules cannot compute in the middle of a game (a score meant for the end) is None
    there: no one leads at that point."""

    deciders: tuple[int, ...]
    legal: tuple[int, ...]
    scores: tuple[tuple[int, ...] | None, ...]

    def to_json(self) -> dict[str, Any]:
        return {
            "deciders": list(self.deciders),
            "legal": list(self.legal),
            "scores": [None if s is None else list(s) for s in self.scores],
        }

    @classmethod
    def from_json(cls, data: Any, players: int, length: int) -> GameTrace:
        """Read a trace back, checking it against the game's player count and length.

        Raises:
            ValueError: not a trace of such a game (the message says what is wrong).
        """
        if not isinstance(data, dict) or set(data) != {"deciders", "legal", "scores"}:
            raise ValueError("not a trace (an object with deciders, legal and scores)")
        deciders, legal, scores = data["deciders"], data["legal"], data["scores"]
        for name, values in (("deciders", deciders), ("legal", legal)):
            if not isinstance(values, list) or len(values) != length:
                raise ValueError(f"{name}: not a list of {length} entries (the game's length)")
            if not all(type(v) is int for v in values):
                raise ValueError(f"{name}: not all whole numbers")
        if not all(0 <= d < players for d in deciders):
            raise ValueError(f"deciders: a seat outside 0-{players - 1}")
        if not all(n >= 1 for n in legal):
            raise ValueError("legal: a decision without legal actions")
        if not isinstance(scores, list) or len(scores) != length + 1:
            raise ValueError(f"scores: not a list of {length + 1} entries")
        for row in scores:
            if row is None:
                continue
            if not isinstance(row, list) or len(row) != players or not all(type(v) is int for v in row):
                raise ValueError(f"scores: an entry that is neither null nor {players} whole numbers")
        return cls(
            tuple(deciders), tuple(legal), tuple(None if row is None else tuple(row) for row in scores)
        )


class _Traced:
    """A bot that tells the tracer of each decision before it chooses."""

    def __init__(self, bot: Bot, tracer: Tracer) -> None:
        self.bot = bot
        self.tracer = tracer

    def choose(self, state: State) -> Action:
        self.tracer.note(state)
        return self.bot.choose(state)


class Tracer:
    """Records a game's :class:`GameTrace` through its bots (:attr:`bots` replaces them)."""

    def __init__(self, bots: Sequence[Bot]) -> None:
        self.bots: list[Bot] = [_Traced(bot, self) for bot in bots]
        self._deciders: list[int] = []
        self._legal: list[int] = []
        self._scores: list[tuple[int, ...] | None] = []

    def note(self, state: State) -> None:
        self._deciders.append(state.current_player())
        self._legal.append(len(state.legal_actions()))
        self._scores.append(scores_or_none(state))

    def finish(self, state: State) -> GameTrace:
        """The trace, ``state`` being where the game stopped."""
        return GameTrace(tuple(self._deciders), tuple(self._legal), (*self._scores, scores_or_none(state)))


def scores_or_none(state: State) -> tuple[int, ...] | None:
    """The scores now, or None where the score rule fails (the game itself goes on)."""
    try:
        return tuple(state.scores())
    except RuleEvaluationError:
        return None
