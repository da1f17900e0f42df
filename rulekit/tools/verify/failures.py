"""What a failed check raises, and the engine properties every ruleset must have."""

from __future__ import annotations

from collections.abc import Callable, Sequence
from typing import Any

from rulekit.compiler.program import CompiledInvariant
from rulekit.engine.game import State
from rulekit.errors import RulekitError, Span

# ------------------------------------------------------------------ failures


class PropertyFailure(Exception):
    """An invariant or engine property failed; raised while a game runs.

    ``key`` identifies *what* failed (e.g. ``invariant:marks_balanced``); shrinking
    keeps a candidate only if it fails with the same key. A subclass per key is
    raised, so a caller (e.g. a hypothesis test) can tell failures apart by type.
    """

    def __init__(
        self,
        key: str,
        message: str,
        *,
        span: Span | None = None,
        state: State | None = None,
        history: Sequence[tuple[int, str]] = (),
        players: int = 0,
        seed: int = 0,
        invariant: CompiledInvariant | None = None,
        details: Sequence[str] = (),
        explain: Callable[[], list[str]] | None = None,
    ) -> None:
        super().__init__(f"{key}: {message}")
        self.key = key
        self.message = message
        self.span = span
        self.state = state
        self.history = list(history)
        self.players = players
        self.seed = seed
        self.invariant = invariant
        self.details = list(details)
        #: Computes the lines that explain the failure, put before ``details`` when first
        #: asked for (:meth:`explained`): shrinking raises many failures and reports one.
        self.explain = explain

    def explained(self) -> list[str]:
        """The lines that explain the failure (the values compared) and its details."""
        if self.explain is not None:
            explain, self.explain = self.explain, None
            self.details = [*explain(), *self.details]
        return self.details


_FAILURE_CLASSES: dict[str, type[PropertyFailure]] = {}


def failure_class(key: str) -> type[PropertyFailure]:
    cls = _FAILURE_CLASSES.get(key)
    if cls is None:
        safe = "".join(ch if ch.isalnum() else "_" for ch in key)
        cls = type(f"Violation_{safe}", (PropertyFailure,), {})
        _FAILURE_CLASSES[key] = cls
    return cls


def fail(key: str, message: str, **kwargs: Any) -> PropertyFailure:
    return failure_class(key)(key, message, **kwargs)


class NotReplayable(Exception):
    """A candidate action sequence is not playable (an action is illegal or the game ended)."""


#: Engine properties, by key, as printed in reports.
ENGINE_PROPERTIES = {
    "setup": "the initial state can be set up",
    "legal-applies": "every offered legal action applies without error",
    "rejected-unchanged": "a rejected action is refused and leaves the state unchanged",
    "clone-independent": "a clone is independent of its original",
    "json-roundtrip": "the JSON round trip is exact",
    "replay": "replaying the log gives the same state hash",
    "view-hidden": "a player's view does not change when only what the player cannot see changes",
    "no_leak": (
        "an action shows no seat what it cannot see: its legal actions do not depend on it, and no "
        "field everyone sees comes to hold an item still hidden from the seat"
    ),
    "terminal": "a finished game has no decision and can be scored",
    "seat-blind-returns": (
        "a finished game's returns depend on the standings, not on the seats: players tied on "
        "score and tie-breaks get equal returns, and a better standing never a lower return"
    ),
    "seat-symmetry": (
        "in rules that single out no seat, rotating the seats in a state and an action rotates "
        "the legal actions, the state after and the final standings the same way"
    ),
    "component-symmetry": (
        "components of one kind with equal data that no rule tells apart, relabelled in a state "
        "and an action, relabel the legal actions, the state after and leave the final standings"
    ),
    "declared-symmetry": (
        "each symmetry the rules declare (symmetries:), relabelling a state and an action, "
        "relabels the legal actions, the state after and leaves the final standings"
    ),
    "outcome": (
        "a finished game's scores and returns are those its scoring declares, recomputed from the "
        "scoring's expressions and the declared outcome"
    ),
    "scenarios-generalised": (
        "each scenario of the ruleset, run from a state reached in play where its given holds "
        "(with the seats rotated in seat-symmetric rules), changes what it measures as from its "
        "own set-up and keeps its absolute expectations where what they read is unchanged"
    ),
    "scenarios-rotated": (
        "in rules that single out no seat, each scenario replayed with the seats rotated rotates "
        "the outcome of every step, who decides, every field and the final standings"
    ),
    "state-values": "state values are immutable JSON-able values (int, bool, str, none, tuple, map)",
    "ends": "every game ends within the action limit (--max-actions)",
}


def key_text(key: tuple[Any, str]) -> str:
    owner, name = key
    if isinstance(owner, int) and not isinstance(owner, bool):
        return f"P{owner + 1}.{name}"
    return f"{owner}.{name}"


def describe_error(error: BaseException) -> str:
    if isinstance(error, RulekitError):
        parts = []
        for d in error.diagnostics:
            parts.append(f"{d.message}" + (f" ({d.span})" if d.span else ""))
        return "; ".join(parts)
    if isinstance(error, PropertyFailure):
        return error.message
    return f"{type(error).__name__}: {error}"


MISSING = object()
