"""The registry of DSL built-in functions: what a built-in is and how a module adds one.

Each family of built-ins (the modules of :mod:`rulekit.runtime.builtins`,
:mod:`rulekit.runtime.geometry`, :mod:`rulekit.runtime.tiles`) registers its functions here
with :func:`register`; nothing in this module knows any built-in, so a family needs no other
family to register (importing :mod:`rulekit.runtime.builtins` registers them all).
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
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
        )
        return fn

    return decorate
