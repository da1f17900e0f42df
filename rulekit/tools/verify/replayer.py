"""What shrinking needs to replay candidates: a game that starts and steps, raising on failure."""

from __future__ import annotations

from typing import Protocol

from rulekit.compiler.program import Program
from rulekit.engine.game import Action, State


class Replayer(Protocol):
    """Plays candidate games, checking after every action (the verify ``Checker``, or the
    side-by-side player of differential verification).

    ``step`` raises ``PropertyFailure`` when a check fails; its ``key`` says which (a
    candidate is kept only if it fails with the key of the failure being shrunk).
    """

    program: Program

    def start(self, players: int, seed: int) -> State:
        """A new game (checked right after setup)."""
        ...

    def step(self, state: State, action: Action) -> None:
        """Apply one legal action to ``state`` and check."""
        ...

    def work(self) -> int:
        """The rules' steps charged so far in its games: what shrinking's budget counts."""
        ...
