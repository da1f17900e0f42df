"""The registry of DSL built-in functions: what a built-in is and how a module adds one.

Each family of built-ins (the modules of :mod:`rulekit.runtime.builtins`,
:mod:`rulekit.runtime.geometry`, :mod:`rulekit.runtime.tiles`) registers its functions here
with :func:`register`; nothing in this module knows any built-in, so a family needs no other
family to register (importing :mod:`rulekit.runtime.builtins` registers them all).
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from functools import partial
from typing import Any

from attrs import field, frozen

from rulekit.dsl.types import Type

ReturnRule = Type | Callable[[Sequence[Type]], Type]


@frozen
class Builtin:
    """A built-in: its name, parameter types, result type, docs and implementation."""

    name: str
    params: tuple[tuple[str, Type], ...]
    returns: ReturnRule
    doc: str
    impl: Callable[..., Any]
    effect: bool = False
    optional: int = 0  # how many trailing params may be left out
    variadic: bool = False
    fields: tuple[int, ...] = ()  # indexes of params passed as field keys
    example: str = ""
    #: For text parameters that name one of a fixed set: parameter index -> the names (checked
    #: at load time when the argument is a literal).
    choices: dict[int, tuple[str, ...]] = field(factory=dict)
    #: A check of the argument types beyond each parameter's own: (argument index, problem) or None.
    check: Callable[[Sequence[Type]], tuple[int, str] | None] | None = None
    #: ``(index, period, every)``: the answer depends on the int parameter ``index`` only
    #: modulo ``period``, and ``every(other arguments...)`` (that parameter left out) returns
    #: the ``period`` answers for 0, 1, ... at once, failing exactly when some single call
    #: would.  The planner asks it once per loop over that parameter (docs/architecture.md).
    cyclic: tuple[int, int, Callable[..., Sequence[Any]]] | None = None
    #: Keeps its answers (per grid and argument), so asking again costs a look-up: the
    #: planner computes a rules function around it again rather than memoizing it.
    remembers: bool = False
    #: ``impl`` (and ``cyclic``'s ``every``) take the program's
    #: :class:`~rulekit.runtime.memory.Memory` first: call them through :meth:`bind`.
    memory: bool = False

    def bind(self, memory: Any) -> Callable[..., Any]:
        """The implementation the generated code of a program with ``memory`` calls."""
        return partial(self.impl, memory) if self.memory else self.impl

    def bind_every(self, memory: Any) -> Callable[..., Sequence[Any]] | None:
        """``cyclic``'s ``every``, as :meth:`bind` gives ``impl``; None if not cyclic."""
        if self.cyclic is None:
            return None
        every = self.cyclic[2]
        return partial(every, memory) if self.memory else every

    def result_type(self, args: Sequence[Type]) -> Type:
        if isinstance(self.returns, Type):
            return self.returns
        return self.returns(args)


BUILTINS: dict[str, Builtin] = {}


def register(
    name: str,
    params: Sequence[tuple[str, Type]],
    returns: ReturnRule,
    doc: str,
    *,
    effect: bool = False,
    optional: int = 0,
    variadic: bool = False,
    fields: tuple[int, ...] = (),
    example: str = "",
    choices: dict[int, tuple[str, ...]] | None = None,
    check: Callable[[Sequence[Type]], tuple[int, str] | None] | None = None,
    cyclic: tuple[int, int, Callable[..., Sequence[Any]]] | None = None,
    remembers: bool = False,
    memory: bool = False,
) -> Callable[[Callable[..., Any]], Callable[..., Any]]:
    """Decorate an implementation to register it as the built-in ``name``.

    Raises:
        ValueError: another built-in already has that name (a second registration would
            silently replace the first).
    """

    def decorate(fn: Callable[..., Any]) -> Callable[..., Any]:
        if name in BUILTINS:
            raise ValueError(f"built-in {name!r} is registered twice")
        BUILTINS[name] = Builtin(
            name,
            tuple(params),
            returns,
            doc,
            fn,
            effect,
            optional,
            variadic,
            fields,
            example,
            choices or {},
            check,
            cyclic,
            remembers,
            memory,
        )
        return fn

    return decorate
