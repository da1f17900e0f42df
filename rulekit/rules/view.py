"""The ``view`` section: how a state is drawn as a picture, as data.

A view is a canvas and a list of layers drawn in order.  A layer draws one
shape, once or once per element of a list (``each``/``as``); every attribute of
a shape is a literal or a DSL expression, compiled and type-checked later
against the ruleset (see :mod:`rulekit.tools.view`)::

    view:
      width: 320
      height: 320
      players: ["#c0392b", "#2471a3"]          # a colour per seat
      layers:
        - each: cells
          as: c
          rect: {x: "c.column * 100 + 10", y: "c.row * 100 + 10", w: 96, h: 96,
                 fill: "#fdfaf2", label: "'X' if c.mark == player_at(1) else ''", ref: c}

This module only checks the shape of the section (keys, shapes, literal values,
names) and reports every problem at its position; it knows no game.
"""

from __future__ import annotations

import re
from typing import Any

from attrs import field, frozen

from rulekit.errors import DiagnosticBag, Span, did_you_mean
from rulekit.rules.schema import check_keys
from rulekit.rules.yaml_source import LocDict, LocList, span_of

# What an attribute holds; decides which literals are allowed and, later, its DSL type.
NUM = "number"
COLOUR = "colour"
TEXT = "text"
BOOL = "bool"
LIST = "list"
REF = "ref"
CHOICE = "choice"

ACTION = "action"
BIND = "bind"
#: The binding target that stands for the action's name (any other target is ``ACTION.PARAM``).
ACTION_TARGET = "action"
_COMMON = {
    "fill": COLOUR,
    "stroke": COLOUR,
    "title": TEXT,
    "faded": BOOL,
    "ref": REF,
    "action": ACTION,
    "bind": BIND,
}
_LABEL = {"label": TEXT, "label_size": NUM, "label_fill": COLOUR}
_SEQUENCE = {
    "x": NUM,
    "y": NUM,
    "items": LIST,
    "as": CHOICE,
    "path": CHOICE,
    "across": NUM,
    "step": NUM,
    "dx": NUM,
    "dy": NUM,
    "shape": CHOICE,
    "size": NUM,
    "rx": NUM,
    **_COMMON,
    **_LABEL,
}
#: Each shape's attributes and their kinds.
SHAPES: dict[str, dict[str, str]] = {
    "rect": {"x": NUM, "y": NUM, "w": NUM, "h": NUM, "rx": NUM, **_COMMON, **_LABEL},
    "circle": {"x": NUM, "y": NUM, "r": NUM, **_COMMON, **_LABEL},
    "text": {
        "x": NUM,
        "y": NUM,
        "text": TEXT,
        "size": NUM,
        "fill": COLOUR,
        "anchor": CHOICE,
        "bold": BOOL,
        "title": TEXT,
        "faded": BOOL,
    },
    "line": {"x1": NUM, "y1": NUM, "x2": NUM, "y2": NUM, "stroke": COLOUR, "width": NUM, "faded": BOOL},
    "tile": {
        "x": NUM,
        "y": NUM,
        "size": NUM,
        "sides": LIST,
        "rotation": NUM,
        "centre": COLOUR,
        **_COMMON,
        **_LABEL,
    },
    "track": _SEQUENCE,
    "stack": _SEQUENCE,
}
REQUIRED: dict[str, tuple[str, ...]] = {
    "rect": ("x", "y", "w", "h"),
    "circle": ("x", "y", "r"),
    "text": ("x", "y", "text"),
    "line": ("x1", "y1", "x2", "y2"),
    "tile": ("x", "y", "size", "sides"),
    "track": ("x", "y", "items"),
    "stack": ("x", "y", "items"),
}
CHOICES: dict[str, tuple[str, ...]] = {
    "anchor": ("start", "middle", "end"),
    "path": ("row", "column", "grid", "u", "stack"),
    "shape": ("rect", "circle", "card"),
}
#: A card template's attributes (``cards: {KIND: {...}}``): each sees the card (named by ``as``,
#: default ``card``); a track or stack with ``shape: card`` draws its items with it.
CARD: dict[str, str] = {
    "w": NUM,
    "h": NUM,
    "title": TEXT,
    "value": TEXT,
    "lines": LIST,
    "fill": COLOUR,
    "stroke": COLOUR,
    "ink": COLOUR,
    "back": COLOUR,
}
#: A legend entry's keys: a swatch (its colour and shape) and a text, all literals.
LEGEND_SHAPES = ("square", "circle", "card", "line")
#: Attributes of a track or stack evaluated once per item (they see the item and ``index``).
PER_ITEM = frozenset({"fill", "stroke", "title", "faded", "ref", "label", "label_fill", "bind"})

_LAYER_KEYS = ("name", "each", "as", "when", "seat", "doc", *SHAPES)
_VIEW_KEYS = (
    "width",
    "height",
    "background",
    "players",
    "palette",
    "cards",
    "legend",
    "layers",
    "controls",
    "doc",
)
_IDENT = re.compile(r"^[A-Za-z_][A-Za-z0-9_]*$")
#: A binding target: ``action`` (the action's name) or ``ACTION.PARAM``.
_TARGET = re.compile(r"^[A-Za-z_][A-Za-z0-9_]*(\.[A-Za-z_][A-Za-z0-9_]*)?$")
#: A literal colour: #rgb, #rrggbb (or with alpha), or a CSS colour name.
COLOUR_TEXT = re.compile(r"^(#[0-9a-fA-F]{3,8}|[a-z]{3,20})$")
#: A seat's colour by the seat's name: P1, P2...
PLAYER_COLOUR = re.compile(r"^P[0-9]{1,2}$")
DEFAULT_PLAYER_COLOURS = ("#c0392b", "#2471a3", "#229954", "#d68910", "#7d3c98", "#17a589")


@frozen
class Attr:
    """One attribute: a literal value, or DSL text (``source`` keeps its position)."""

    name: str
    kind: str
    literal: Any = None
    source: Any = None  # the located string of a DSL expression
    span: Span | None = None

    @property
    def is_expr(self) -> bool:
        return self.source is not None


@frozen
class ShapeDecl:
    """A shape and its attributes; ``item`` names the element of a track's or stack's items."""

    kind: str
    attrs: dict[str, Attr]
    item: str
    span: Span | None


@frozen
class LayerDecl:
    """A layer: a shape drawn once, or once per element of ``each`` (bound to ``var``)."""

    name: str
    each: Attr | None
    var: str
    when: Attr | None
    seat: bool
    shape: ShapeDecl
    span: Span | None


@frozen
class CardDecl:
    """How a component of ``kind`` is drawn as a card; ``var`` names the card in its attributes."""

    kind: str
    var: str
    attrs: dict[str, Attr]
    span: Span | None


@frozen
class LegendEntry:
    """One line of the legend: a swatch (``colour``, ``shape``) and its ``text``."""

    colour: str
    shape: str
    text: str


@frozen
class ViewDecl:
    """A whole ``view`` section."""

    width: Attr
    height: Attr
    background: str
    players: tuple[str, ...]
    palette: dict[str, str]
    layers: tuple[LayerDecl, ...]
    span: Span | None
    cards: dict[str, CardDecl] = field(factory=dict)
    legend: tuple[LegendEntry, ...] = ()
    #: labels of the controls for binding targets no shape stands for (docs/rules-format.md#view)
    controls: dict[str, Control] = field(factory=dict)


@frozen
class Binding:
    """One target a shape binds: its value is the DSL text ``source``, or the shape's ``ref``
    when ``source`` is None."""

    target: str
    source: Any
    span: Span | None


@frozen
class Control:
    """A control of the served page for a binding target: its label, where it is declared."""

    target: str
    label: str
    span: Span | None


def _where(value: Any, parent: LocDict, key: str) -> Span | None:
    return span_of(value) or parent.key_spans.get(key) or parent.span


def _colour_literal(text: str, palette: dict[str, str]) -> bool:
    if text in palette or text == "none" or PLAYER_COLOUR.match(text):
        return True
    return bool(COLOUR_TEXT.match(text)) and text.startswith("#")


def _attr(
    name: str, kind: str, value: Any, parent: LocDict, palette: dict[str, str], bag: DiagnosticBag
) -> Attr | None:
    span = _where(value, parent, name)
    if kind == BIND:
        return _bind(name, value, parent, span, bag)
    if kind == ACTION:
        names = value if isinstance(value, list) else [value]
        if not names or not all(isinstance(n, str) and _IDENT.match(n) for n in names):
            bag.error(f"'{name}' names the actions a click on this shape may play: NAME or [NAME, ...]", span)
            return None
        return Attr(name, kind, tuple(str(n) for n in names), span=span)
    if kind == CHOICE:
        if name == "as":
            if not isinstance(value, str) or not _IDENT.match(value):
                bag.error(f"'as' must name the item (letters, digits, _), not {value!r}", span)
                return None
            return Attr(name, kind, str(value), span=span)
        options = CHOICES[name]
        if value not in options:
            bag.error(
                f"'{name}' must be one of {', '.join(options)}, not {value!r}",
                span,
                hint=did_you_mean(str(value), options),
            )
            return None
        return Attr(name, kind, str(value), span=span)
    if isinstance(value, bool):
        if kind != BOOL:
            bag.error(f"'{name}' is a {kind}, not true/false", span)
            return None
        return Attr(name, kind, value, span=span)
    if isinstance(value, int | float):
        if kind not in (NUM, TEXT):
            bag.error(f"'{name}' is a {kind}, not a number", span)
            return None
        return Attr(name, kind, value, span=span)
    if isinstance(value, LocList):
        if kind != LIST or not all(isinstance(v, str | int) for v in value):
            bag.error(f"'{name}' takes a DSL expression here, not a YAML list", span)
            return None
        return Attr(name, kind, tuple(str(v) if isinstance(v, str) else v for v in value), span=span)
    if isinstance(value, str):
        if kind == COLOUR and _colour_literal(str(value), palette):
            return Attr(name, kind, str(value), span=span)
        if kind == COLOUR and value.startswith("#"):  # not an expression either: # starts a comment
            bag.error(f"'{name}' must be a colour #rgb or #rrggbb (or an expression), not {value!r}", span)
            return None
        if not value.strip():
            bag.error(f"'{name}' is empty", span)
            return None
        return Attr(name, kind, source=value, span=span)
    bag.error(f"'{name}' must be a literal or a DSL expression (a string)", span)
    return None


def _bind(name: str, value: Any, parent: LocDict, span: Span | None, bag: DiagnosticBag) -> Attr | None:
    """``bind: TARGET``, ``[TARGET, ...]`` (their value: the shape's ``ref``) or
    ``{TARGET: EXPRESSION, ...}``; a target is ``action`` or ``ACTION.PARAM``."""
    wrong = f"'{name}' is TARGET, [TARGET, ...] or {{TARGET: EXPRESSION}}; a target is ACTION.PARAM or action"
    bindings: list[Binding] = []
    if isinstance(value, str):
        value = [value]
    if isinstance(value, list):
        for entry in value:
            if not isinstance(entry, str) or not _TARGET.match(entry):
                bag.error(wrong, span_of(entry) or span)
                return None
            bindings.append(Binding(str(entry), None, span_of(entry) or span))
        if "ref" not in parent:
            bag.error(f"'{name}' without expressions binds the shape's 'ref': give it one", span)
            return None
    elif isinstance(value, LocDict):
        for target, source in value.items():
            where = value.key_spans.get(target) or span
            if not isinstance(target, str) or not _TARGET.match(target):
                bag.error(wrong, where)
                return None
            if not isinstance(source, str) or not source.strip():
                bag.error(f"'{name}' gives '{target}' a DSL expression (a string)", span_of(source) or where)
                return None
            bindings.append(Binding(str(target), source, where))
    else:
        bag.error(wrong, span)
        return None
    if not bindings:
        bag.error(f"'{name}' binds nothing", span)
        return None
    return Attr(name, BIND, tuple(bindings), span=span)


def _controls(raw: Any, parent: LocDict, bag: DiagnosticBag) -> dict[str, Control]:
    """``controls: {TARGET: LABEL}``: the labels of the page's controls for targets no shape binds."""
    span = _where(raw, parent, "controls")
    if not isinstance(raw, LocDict):
        bag.error("controls maps binding targets to labels: {place.rotation: 'turn the card'}", span)
        return {}
    found: dict[str, Control] = {}
    for target, label in raw.items():
        where = raw.key_spans.get(target) or span
        if not isinstance(target, str) or not _TARGET.match(target):
            bag.error(f"a control's target is ACTION.PARAM or action, not {target!r}", where)
        elif not isinstance(label, str) or not label.strip():
            bag.error(f"the control '{target}' needs a label (text)", span_of(label) or where)
        else:
            found[str(target)] = Control(str(target), str(label), where)
    return found


def _shape(
    kind: str, raw: Any, parent: LocDict, palette: dict[str, str], bag: DiagnosticBag
) -> ShapeDecl | None:
    span = _where(raw, parent, kind)
    if not isinstance(raw, LocDict):
        bag.error(f"a {kind} is a mapping of its attributes", span)
        return None
    allowed = SHAPES[kind]
    check_keys(raw, (*allowed, "doc"), kind, bag)
    attrs: dict[str, Attr] = {}
    for name, value in raw.items():
        if name in allowed:
            attr = _attr(str(name), allowed[name], value, raw, palette, bag)
            if attr is not None:
                attrs[str(name)] = attr
    for name in REQUIRED[kind]:
        if name not in raw:
            bag.error(f"a {kind} needs '{name}'", span)
    item = str(attrs["as"].literal) if "as" in attrs else "item"
    return ShapeDecl(kind, attrs, item, span)


def _layer(
    raw: Any, index: int, parent: Any, palette: dict[str, str], bag: DiagnosticBag
) -> LayerDecl | None:
    span = span_of(raw) or span_of(parent)
    if not isinstance(raw, LocDict):
        bag.error("a view layer is a mapping: {each: ..., as: ..., rect: {...}}", span)
        return None
    check_keys(raw, _LAYER_KEYS, "view layer", bag)
    shapes = [k for k in raw if k in SHAPES]
    if len(shapes) != 1:
        bag.error(f"a view layer draws exactly one of: {', '.join(SHAPES)}", span)
        return None
    name = str(raw.get("name") or f"layer{index + 1}")
    if not _IDENT.match(name):
        where = _where(raw.get("name"), raw, "name")
        bag.error(f"a layer name is letters, digits and _, not {name!r}", where)
    each = None
    if "each" in raw:
        each = _attr("each", LIST, raw["each"], raw, palette, bag)
    var = raw.get("as", "it")
    if not isinstance(var, str) or not _IDENT.match(var):
        bag.error(f"'as' must name the element (letters, digits, _), not {var!r}", _where(var, raw, "as"))
        var = "it"
    elif "as" in raw and "each" not in raw:
        bag.error("'as' names the element of 'each'; this layer has no 'each'", _where(var, raw, "as"))
    when = _attr("when", BOOL, raw["when"], raw, palette, bag) if "when" in raw else None
    seat = raw.get("seat", False)
    if not isinstance(seat, bool):
        bag.error("'seat' is true or false", _where(seat, raw, "seat"))
        seat = False
    shape = _shape(shapes[0], raw[shapes[0]], raw, palette, bag)
    if shape is None:
        return None
    if shape.item == str(var) and shape.kind in ("track", "stack"):
        bag.error(f"the items of a {shape.kind} need another name than the layer's '{var}'", shape.span)
    return LayerDecl(name, each, str(var), when, seat, shape, span)


def _cards(raw: Any, parent: LocDict, palette: dict[str, str], bag: DiagnosticBag) -> dict[str, CardDecl]:
    """``cards: {KIND: {w, h, title, value, lines, fill, stroke, ink, back, as}}``."""
    if not isinstance(raw, LocDict):
        bag.error(
            "cards maps a component kind to its card: {card: {title: ..., value: ...}}",
            _where(raw, parent, "cards"),
        )
        return {}
    found: dict[str, CardDecl] = {}
    for kind, template in raw.items():
        where = _where(template, raw, kind)
        if not isinstance(kind, str) or not _IDENT.match(kind) or not isinstance(template, LocDict):
            bag.error(f"a card is KIND: {{title: ..., value: ...}}, not {kind!r}", where)
            continue
        check_keys(template, (*CARD, "as", "doc"), "card", bag)
        var = template.get("as", "card")
        if not isinstance(var, str) or not _IDENT.match(var):
            bag.error(
                f"'as' must name the card (letters, digits, _), not {var!r}", _where(var, template, "as")
            )
            var = "card"
        attrs = {}
        for size in ("w", "h"):
            if size in template and (
                isinstance(template[size], bool) or not isinstance(template[size], int | float)
            ):
                bag.error(f"a card's '{size}' is a number of pixels", _where(template[size], template, size))
        for name, value in template.items():
            if name in ("w", "h") and not isinstance(value, int | float):
                continue
            if name in CARD:
                attr = _attr(str(name), CARD[name], value, template, palette, bag)
                if attr is not None:
                    attrs[str(name)] = attr
        found[kind] = CardDecl(kind, str(var), attrs, where)
    return found


def _legend(
    raw: Any, parent: LocDict, palette: dict[str, str], bag: DiagnosticBag
) -> tuple[LegendEntry, ...]:
    """``legend: [{colour: P1, shape: circle, text: "P1's warehouses"}, ...]`` (literals only)."""
    if not isinstance(raw, list):
        bag.error("legend is a list of {colour, shape, text}", _where(raw, parent, "legend"))
        return ()
    entries = []
    for item in raw:
        where = span_of(item) or _where(raw, parent, "legend")
        if not isinstance(item, LocDict):
            bag.error("a legend entry is {colour: ..., shape: ..., text: ...}", where)
            continue
        check_keys(item, ("colour", "shape", "text"), "legend entry", bag)
        colour, shape, text = item.get("colour", "#333333"), item.get("shape", "square"), item.get("text")
        if not isinstance(colour, str) or not (_colour_literal(colour, palette) or COLOUR_TEXT.match(colour)):
            bag.error(
                f"a legend colour is #rgb, #rrggbb, a CSS or palette name or P1.., not {colour!r}", where
            )
            continue
        if shape not in LEGEND_SHAPES:
            hint = did_you_mean(str(shape), LEGEND_SHAPES)
            bag.error(f"a legend shape is one of {', '.join(LEGEND_SHAPES)}, not {shape!r}", where, hint=hint)
            continue
        if not isinstance(text, str | int) or isinstance(text, bool) or not str(text).strip():
            bag.error("a legend entry needs a text", where)
            continue
        entries.append(LegendEntry(str(colour), str(shape), str(text)))
    return tuple(entries)


def parse_view(raw: Any, bag: DiagnosticBag, fallback: Span | None = None) -> ViewDecl | None:
    """Check a ``view`` section's structure; every problem goes into ``bag`` at its position.

    Returns None when there is no view (or it is too broken to use).
    """
    if raw is None:
        return None
    if not isinstance(raw, LocDict):
        bag.error("view must be a mapping: {width, height, layers: [...]}", span_of(raw, fallback))
        return None
    check_keys(raw, _VIEW_KEYS, "view", bag)
    palette: dict[str, str] = {}
    raw_palette = raw.get("palette") or LocDict()
    if not isinstance(raw_palette, LocDict):
        bag.error("palette maps names to colours: {land: '#9bc27a'}", _where(raw_palette, raw, "palette"))
    else:
        for name, colour in raw_palette.items():
            where = _where(colour, raw_palette, name)
            if not isinstance(name, str) or not _IDENT.match(name):
                bag.error(f"a palette name is letters, digits and _, not {name!r}", where)
            elif not isinstance(colour, str) or not COLOUR_TEXT.match(colour):
                bag.error(f"palette colour '{name}' must be #rgb, #rrggbb or a CSS name: {colour!r}", where)
            else:
                palette[name] = str(colour)
    players = raw.get("players", list(DEFAULT_PLAYER_COLOURS))
    if not isinstance(players, list) or not players:
        bag.error("players is a list of colours, one per seat", _where(players, raw, "players"))
        players = list(DEFAULT_PLAYER_COLOURS)
    for colour in players:
        if not isinstance(colour, str) or not (colour in palette or COLOUR_TEXT.match(colour)):
            where = span_of(colour) or _where(players, raw, "players")  # a number has no span
            bag.error(f"a player colour must be #rgb, #rrggbb or a CSS name, not {colour!r}", where)
    background = raw.get("background", "#ffffff")
    if not isinstance(background, str) or not (background in palette or COLOUR_TEXT.match(background)):
        bag.error(f"background must be a colour, not {background!r}", _where(background, raw, "background"))
        background = "#ffffff"
    sizes = []
    for key in ("width", "height"):
        attr = _attr(key, NUM, raw[key], raw, palette, bag) if key in raw else None
        if key not in raw:
            bag.error(f"view needs '{key}' (pixels)", raw.span)
        sizes.append(attr or Attr(key, NUM, 100))
    layers: list[LayerDecl] = []
    raw_layers = raw.get("layers") or []
    if not isinstance(raw_layers, list):
        bag.error("layers must be a list", _where(raw_layers, raw, "layers"))
        raw_layers = []
    for index, entry in enumerate(raw_layers):
        layer = _layer(entry, index, raw_layers, palette, bag)
        if layer is not None:
            layers.append(layer)
    names = [layer.name for layer in layers]
    for layer in layers:
        if names.count(layer.name) > 1 and names.index(layer.name) != layers.index(layer):
            bag.error(f"duplicate layer name '{layer.name}'", layer.span)
    cards = _cards(raw["cards"], raw, palette, bag) if "cards" in raw else {}
    legend = _legend(raw["legend"], raw, palette, bag) if "legend" in raw else ()
    controls = _controls(raw["controls"], raw, bag) if "controls" in raw else {}
    return ViewDecl(
        sizes[0],
        sizes[1],
        str(background),
        tuple(str(p) for p in players),
        palette,
        tuple(layers),
        raw.span,
        cards,
        legend,
        controls,
    )
