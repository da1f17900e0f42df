"""Scopes of code generation: what a name means where it is used (:class:`Symbol`) and
the names visible to a snippet (:class:`Context`)."""

from __future__ import annotations

from collections.abc import Iterator
from contextlib import contextmanager

from attrs import frozen

from rulekit.compiler import emit
from rulekit.dsl.types import Type


@frozen
class Symbol:
    """What a name means where it is used, its type and its Python spelling."""

    kind: str  # local, const, collection, special
    type: Type
    code: str


class Context:
    """Names visible to a snippet: locals in nested scopes, plus what the rule allows."""

    def __init__(self, *, me: bool = True, effects: bool = False) -> None:
        self.scopes: list[dict[str, Symbol]] = [{}]
        self.me = me
        self.effects = effects

    def lookup(self, name: str) -> Symbol | None:
        for scope in reversed(self.scopes):
            if name in scope:
                return scope[name]
        return None

    def bind(self, name: str, type_: Type) -> str:
        code = emit.name("v_", name)
        self.scopes[-1][name] = Symbol("local", type_, code)
        return code

    @contextmanager
    def nested(self) -> Iterator[None]:
        self.scopes.append({})
        try:
            yield
        finally:
            self.scopes.pop()

    def local_names(self) -> list[str]:
        return [n for scope in self.scopes for n in scope]
