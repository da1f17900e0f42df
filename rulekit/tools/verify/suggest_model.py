"""What ``verify --suggest`` records of a game (:class:`Step`) and proposes (:class:`Suggestion`)."""

from __future__ import annotations

from typing import Any

from attrs import define


@define
class Suggestion:
    """One likely property: where it goes, its condition and what backs it."""

    action: str | None  # None: a property over every action (or turn)
    holds: str
    message: str
    support: int
    over: str = "action"  # of a property (action None): over every action or every turn
    #: What kind of relation: amount, one-of, sign, set, who, transfer, conserved, frame, monotonic,
    #: range, set-once, per-turn, every-amount, every-none (a trigger's, over every player),
    #: decider, end-values, end-sum, end-named, end-order, end-tiebreak, end-score, visibility,
    #: fires-at (when a trigger fires); a conditional relation is "if-" and the kind of the
    #: relation it implies.
    relation: str = ""
    #: A ``visibility`` expectation: who may see the field ``holds`` names, at most.
    seen_by: str = ""
    #: A postcondition of this trigger (``action`` is then None): checked after each firing.
    trigger: str | None = None


@define
class Step:
    """One action watched: its kind, who took it, its arguments, the observables before and
    after (by (owner, key))."""

    name: str
    me: int
    args: tuple[Any, ...]
    before: dict[tuple[Any, str], Any]
    after: dict[tuple[Any, str], Any]
    players: int
    #: When this action ended a turn (as verify's properties over a turn count turns): the
    #: observables at that turn's start and how many actions it had.
    turn: tuple[dict[tuple[Any, str], Any], int] | None = None
    #: Who decides after the action (``None``: the game is over).
    next: int | None = None


@define(frozen=True)
class Signature:
    """What a trigger's postconditions have bound, in place of an action's: its parameters
    (the action's or the event's), their types, and whether ``me`` is (a trigger of an action)."""

    params: tuple[str, ...]
    param_types: tuple[Any, ...]
    me: bool
    #: How its applications are named in a suggestion's message.
    what: str = "firings"
