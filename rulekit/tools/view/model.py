"""What a compiled view is, and what drawing a state with it gives: a picture of plain shapes."""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

from attrs import field, frozen

from rulekit.dsl.types import Type
from rulekit.rules import view as v

Fn = Callable[..., Any]


@frozen
class CompiledAttr:
    """An attribute ready to evaluate: a constant or a compiled expression and its type."""

    name: str
    kind: str
    fn: Fn | None
    constant: Any
    type_: Type


@frozen
class CompiledLayer:
    decl: v.LayerDecl
    each: CompiledAttr | None
    when: CompiledAttr | None
    attrs: dict[str, CompiledAttr]
    card: str | None = None  # with ``shape: card``: the kind whose card template draws the items


@frozen
class CompiledCard:
    """A card template: its attributes compiled with the card as their one parameter."""

    decl: v.CardDecl
    attrs: dict[str, CompiledAttr]


@frozen
class CompiledView:
    decl: v.ViewDecl
    width: CompiledAttr
    height: CompiledAttr
    layers: tuple[CompiledLayer, ...]
    cards: dict[str, CompiledCard] = field(factory=dict)


@frozen
class Shape:
    """One drawn element: ``kind`` is rect, circle, text, line or polygon; ``props`` its SVG data."""

    kind: str
    layer: str
    props: dict[str, Any]


@frozen
class Picture:
    """A drawn state: canvas size, background, shapes in drawing order, any layer errors and
    the legend (swatches with their texts, drawn under the picture)."""

    width: int
    height: int
    background: str
    shapes: tuple[Shape, ...]
    errors: tuple[str, ...]
    title: str
    legend: tuple[v.LegendEntry, ...] = ()
