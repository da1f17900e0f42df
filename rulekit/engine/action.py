"""Actions: an immutable ``(name, args)`` pair, and the fast constructor listings use."""

from __future__ import annotations

import types
from collections.abc import Callable
from typing import Any, cast

from rulekit.engine.values import format_value


class Action(tuple[str, tuple[Any, ...]]):
    """An action with its arguments, e.g. ``place(b2)``: an immutable ``(name, args)`` pair.

    A tuple underneath, so that listing legal actions builds each one without running Python
    code (:data:`make_action`) and comparing or hashing actions runs no Python code either: a
    tile-laying game lists dozens of actions per decision.
    """

    __slots__ = ()

    def __new__(cls, name: str, args: tuple[Any, ...] = ()) -> Action:
        return tuple.__new__(cls, (name, args))

    def __getnewargs__(self) -> tuple[str, tuple[Any, ...]]:
        return (self[0], self[1])

    @property
    def name(self) -> str:
        return self[0]

    @property
    def args(self) -> tuple[Any, ...]:
        return self[1]

    def __repr__(self) -> str:
        return f"Action(name={self[0]!r}, args={self[1]!r})"

    def __str__(self) -> str:
        name, args = self
        return name + ("(" + ", ".join(format_value(a) for a in args) + ")" if args else "")


#: ``make_action((name, args))``: an :class:`Action` without running Python code (what the
#: planned enumerators call for each legal candidate): ``tuple.__new__`` bound to ``Action``.
#: A bound method rather than ``functools.partial(tuple.__new__, Action)``: the same object
#: for ~25 ns (~13%) less per action (see docs/performance.md, "Actions and applying them").
make_action = cast("Callable[[tuple[str, tuple[Any, ...]]], Action]", types.MethodType(tuple.__new__, Action))
