"""Draw a state for a seat (or a spectator) with a compiled view: what the seat may not see is
masked first, then every layer is evaluated into shapes with pixel coordinates."""

from __future__ import annotations

from typing import Any

from rulekit.engine.game import State
from rulekit.engine.information import masked_fields
from rulekit.engine.values import format_value
from rulekit.rules import view as v
from rulekit.tools.view.compilation import compile_view
from rulekit.tools.view.default import default_picture
from rulekit.tools.view.model import CompiledAttr, CompiledLayer, CompiledView, Picture, Shape

MAX_SHAPES = 20_000
#: The largest width or height a view may give (pixels), and the size drawn when it fails.
MAX_SIZE = 100_000
FALLBACK_SIZE = 400


class _Drawer:
    def __init__(self, state: State, view: CompiledView, seat: int | None) -> None:
        self.state = state
        self.view = view
        self.seat = seat
        self.F = masked_fields(state, seat)
        self.R = state.game.runtime
        self.me = seat
        self.over = state.is_terminal()  # the view's name game_over (compilation.VIEW_NAMES)
        self.shapes: list[Shape] = []
        self.errors: list[str] = []
        decl = view.decl
        self.palette = decl.palette
        self.players = tuple(self.colour_text(c) for c in decl.players)

    # -- values
    def value(self, attr: CompiledAttr | None, *args: Any, default: Any = None) -> Any:
        if attr is None:
            return default
        if attr.fn is None:
            return attr.constant
        return attr.fn(self.F, self.R, self.me, self.over, *args)

    def colour_text(self, text: str) -> str:
        return self.palette.get(text, text)

    def colour(self, attr: CompiledAttr | None, *args: Any, default: str = "none") -> str:
        if attr is None:
            return default
        return self.to_colour(self.value(attr, *args))

    def to_colour(self, value: Any) -> str:
        if value is None:
            return "none"
        if isinstance(value, bool):
            raise ValueError(f"{value} is not a colour")
        if isinstance(value, int):
            if value == -1:
                return "#888888"
            if 0 <= value < self.state.game.num_players:
                return self.players[value % len(self.players)]
            raise ValueError(f"{value} is not a player (colours are a str, a player or none)")
        text = self.colour_text(str(value))
        seat = v.PLAYER_COLOUR.match(text)
        if seat and 1 <= int(text[1:]) <= self.state.game.num_players:
            return self.players[(int(text[1:]) - 1) % len(self.players)]
        if not v.COLOUR_TEXT.match(text) and text != "none":
            raise ValueError(f"{text!r} is not a colour (#rgb, #rrggbb, a CSS name or a palette name)")
        return text

    def text(self, attr: CompiledAttr | None, *args: Any) -> str:
        value = self.value(attr, *args)
        if value is None or attr is None:
            return ""
        if isinstance(value, str):
            return value
        return format_value(value, attr.type_)

    def number(self, attr: CompiledAttr | None, *args: Any, default: float = 0) -> float:
        value = self.value(attr, *args, default=default)
        if isinstance(value, bool) or not isinstance(value, int | float):
            raise ValueError(f"'{attr.name if attr else '?'}' gave {value!r}, not a number")
        return value

    def ref(self, attr: CompiledAttr | None, *args: Any) -> str | None:
        if attr is None:
            return None
        value = self.value(attr, *args)
        return None if value is None else format_value(value, attr.type_)

    def binds(self, attr: CompiledAttr | None, ref: str | None, *args: Any) -> dict[str, str] | None:
        """What a click on the shape chooses: binding target -> value in the action notation
        (a target whose value is none is left out; None when nothing is bound)."""
        if attr is None:
            return None
        found: dict[str, str] = {}
        for target, fn, type_ in attr.constant:
            if fn is None:
                value = ref
            else:
                raw = fn(self.F, self.R, self.me, self.over, *args)
                value = None if raw is None else format_value(raw, type_)
            if value is not None:
                found[target] = value
        return found or None

    def actions(self, attr: CompiledAttr | None) -> str | None:
        return None if attr is None else " ".join(attr.constant)

    def size(self, attr: CompiledAttr | None, name: str) -> int:
        """The picture's width or height; one that fails or is not a sensible number is
        reported among the picture's errors and drawn at :data:`FALLBACK_SIZE`."""
        self.R.reset_steps()  # an evaluation of its own, with a whole budget
        try:
            value = self.number(attr)
            if not 1 <= value <= MAX_SIZE:
                raise ValueError(f"{value!r} is not from 1 to {MAX_SIZE}")
            return int(value)
        except Exception as error:  # the size must never break the picture
            self.errors.append(f"the view's {name}: {type(error).__name__}: {error}")
            return FALLBACK_SIZE

    # -- layers
    def draw(self) -> Picture:
        view = self.view
        width = self.size(view.width, "width")
        height = self.size(view.height, "height")
        for layer in view.layers:
            decl = layer.decl
            if decl.seat and self.seat is None:
                continue
            self.R.reset_steps()  # each layer gets the rules' step budget: a view never hangs
            try:
                elements: Any = [()] if layer.each is None else [(e,) for e in self.value(layer.each)]
                for args in elements:
                    if layer.when is not None and not self.value(layer.when, *args):
                        continue
                    self.shape(layer, args)
                    if len(self.shapes) > MAX_SHAPES:
                        raise ValueError(f"more than {MAX_SHAPES} shapes")
            except Exception as error:  # a layer must never break the picture
                where = f" at {decl.span}" if decl.span else ""
                self.errors.append(f"layer '{decl.name}'{where}: {type(error).__name__}: {error}")
        title = self.state.game.program.rules.title
        return Picture(
            width,
            height,
            self.colour_text(view.decl.background),
            tuple(self.shapes),
            tuple(self.errors),
            title,
            self.legend(),
        )

    def legend(self) -> tuple[v.LegendEntry, ...]:
        """The view's legend with its colours resolved; an entry for a seat the game does not
        have (P4 of three players) is left out."""
        entries = []
        for entry in self.view.decl.legend:
            try:
                colour = self.to_colour(entry.colour)
            except ValueError:
                continue
            if v.PLAYER_COLOUR.match(entry.colour) and colour == entry.colour:
                continue  # P4 in a game of three: no such seat
            entries.append(v.LegendEntry(colour, entry.shape, entry.text))
        return tuple(entries)

    def add(self, kind: str, layer: str, **props: Any) -> None:
        self.shapes.append(Shape(kind, layer, {k: p for k, p in props.items() if p is not None}))

    def shape(self, layer: CompiledLayer, args: tuple[Any, ...]) -> None:
        kind = layer.decl.shape.kind
        a = layer.attrs
        name = layer.decl.name
        if kind in ("track", "stack"):
            self.sequence(layer, args)
            return
        common: dict[str, Any] = {
            "title": self.text(a.get("title"), *args) or None,
            "faded": bool(self.value(a.get("faded"), *args, default=False)),
            "ref": self.ref(a.get("ref"), *args),
            "action": self.actions(a.get("action")),
        }
        common["bind"] = self.binds(a.get("bind"), common["ref"], *args)
        if kind == "rect":
            x, y = self.number(a["x"], *args), self.number(a["y"], *args)
            w, h = self.number(a["w"], *args), self.number(a["h"], *args)
            self.add(
                "rect",
                name,
                x=x,
                y=y,
                w=w,
                h=h,
                rx=self.number(a.get("rx"), *args),
                fill=self.colour(a.get("fill"), *args, default="#ffffff"),
                stroke=self.colour(a.get("stroke"), *args, default="#333333"),
                **common,
            )
            self.label(layer, args, x + w / 2, y + h / 2)
        elif kind == "circle":
            x, y = self.number(a["x"], *args), self.number(a["y"], *args)
            self.add(
                "circle",
                name,
                x=x,
                y=y,
                r=self.number(a["r"], *args),
                fill=self.colour(a.get("fill"), *args, default="#ffffff"),
                stroke=self.colour(a.get("stroke"), *args, default="#333333"),
                **common,
            )
            self.label(layer, args, x, y)
        elif kind == "text":
            self.add(
                "text",
                name,
                x=self.number(a["x"], *args),
                y=self.number(a["y"], *args),
                text=self.text(a["text"], *args),
                size=self.number(a.get("size"), *args, default=12),
                fill=self.colour(a.get("fill"), *args, default="#222222"),
                anchor=self.value(a.get("anchor"), default="start"),
                bold=bool(self.value(a.get("bold"), *args, default=False)),
                title=common["title"],
                faded=common["faded"],
            )
        elif kind == "line":
            self.add(
                "line",
                name,
                x1=self.number(a["x1"], *args),
                y1=self.number(a["y1"], *args),
                x2=self.number(a["x2"], *args),
                y2=self.number(a["y2"], *args),
                stroke=self.colour(a.get("stroke"), *args, default="#333333"),
                width=self.number(a.get("width"), *args, default=1),
                faded=common["faded"],
            )
        elif kind == "tile":
            self.tile(layer, args, common)

    def label(self, layer: CompiledLayer, args: tuple[Any, ...], x: float, y: float) -> None:
        a = layer.attrs
        text = self.text(a.get("label"), *args)
        if not text:
            return
        size = self.number(a.get("label_size"), *args, default=12)
        self.add(
            "text",
            layer.decl.name,
            x=x,
            y=y + size * 0.35,
            text=text,
            size=size,
            fill=self.colour(a.get("label_fill"), *args, default="#222222"),
            anchor="middle",
            bold=False,
        )

    def tile(self, layer: CompiledLayer, args: tuple[Any, ...], common: dict[str, Any]) -> None:
        """A square tile: four triangles coloured by its sides as printed, turned by ``rotation``."""
        a = layer.attrs
        x, y, size = self.number(a["x"], *args), self.number(a["y"], *args), self.number(a["size"], *args)
        sides = list(self.value(a["sides"], *args))
        if len(sides) != 4:
            raise ValueError(f"a tile has 4 sides (north, east, south, west), not {len(sides)}")
        rotation = int(self.number(a.get("rotation"), *args, default=0))
        cx, cy = x + size / 2, y + size / 2
        corners = [(x, y), (x + size, y), (x + size, y + size), (x, y + size)]
        for side in range(4):
            printed = sides[(side - rotation) % 4]
            (ax, ay), (bx, by) = corners[side], corners[(side + 1) % 4]
            fill = self.to_colour(printed)
            self.add(
                "polygon",
                layer.decl.name,
                points=((ax, ay), (bx, by), (cx, cy)),
                fill=fill,
                stroke=fill,  # hides the hairline seams between the triangles
                faded=common["faded"],
            )
        centre = a.get("centre")
        if centre is not None:
            self.add(
                "circle",
                layer.decl.name,
                x=cx,
                y=cy,
                r=size * 0.22,
                fill=self.colour(centre, *args),
                stroke="none",
                faded=common["faded"],
            )
        self.add(
            "rect",
            layer.decl.name,
            x=x,
            y=y,
            w=size,
            h=size,
            rx=0,
            fill="none",
            stroke=self.colour(a.get("stroke"), *args, default="#333333"),
            **common,
        )
        self.label(layer, args, cx, cy)

    def sequence(self, layer: CompiledLayer, args: tuple[Any, ...]) -> None:
        """A track or a stack: one small shape per item, laid out along a path."""
        a = layer.attrs
        kind = layer.decl.shape.kind
        x0, y0 = self.number(a["x"], *args), self.number(a["y"], *args)
        items = list(self.value(a["items"], *args))
        path = self.value(a.get("path"), default="stack" if kind == "stack" else "row")
        size = self.number(a.get("size"), *args, default=16)
        step = self.number(a.get("step"), *args, default=size + 4)
        across = max(1, int(self.number(a.get("across"), *args, default=max(1, len(items)))))
        dx = self.number(a.get("dx"), *args, default=4)
        dy = self.number(a.get("dy"), *args, default=-4)
        form = self.value(a.get("shape"), default="rect")
        if form == "card" and layer.card is not None:
            self.cards(layer, args, items, path, (x0, y0), across)
            return
        rx = self.number(a.get("rx"), *args, default=2)
        for index, item in enumerate(items):
            col, row = _place(path, index, len(items), across)
            if path == "stack":
                cx, cy = x0 + index * dx, y0 + index * dy
            else:
                cx, cy = x0 + col * step, y0 + row * step
            item_args = (*args, item, index)
            props: dict[str, Any] = {
                "fill": self.colour(a.get("fill"), *item_args, default="#ffffff"),
                "stroke": self.colour(a.get("stroke"), *item_args, default="#333333"),
                "title": self.text(a.get("title"), *item_args) or None,
                "faded": bool(self.value(a.get("faded"), *item_args, default=False)),
                "ref": self.ref(a.get("ref"), *item_args),
                "action": self.actions(a.get("action")),
            }
            props["bind"] = self.binds(a.get("bind"), props["ref"], *item_args)
            if form == "circle":
                self.add("circle", layer.decl.name, x=cx + size / 2, y=cy + size / 2, r=size / 2, **props)
            else:
                self.add("rect", layer.decl.name, x=cx, y=cy, w=size, h=size, rx=rx, **props)
            text = self.text(a.get("label"), *item_args)
            if text:
                label_size = self.number(a.get("label_size"), *args, default=max(7, size * 0.55))
                self.add(
                    "text",
                    layer.decl.name,
                    x=cx + size / 2,
                    y=cy + size / 2 + label_size * 0.35,
                    text=text,
                    size=label_size,
                    fill=self.colour(a.get("label_fill"), *item_args, default="#222222"),
                    anchor="middle",
                    bold=False,
                )

    # -- cards (the view's ``cards`` templates)
    def cards(
        self,
        layer: CompiledLayer,
        args: tuple[Any, ...],
        items: list[Any],
        path: str,
        origin: tuple[float, float],
        across: int,
    ) -> None:
        """A track or stack of ``shape: card``: each item drawn by its kind's card template, face
        down where the seat may not see it (a masked item reads ``none``)."""
        a = layer.attrs
        assert layer.card is not None
        template = self.view.cards[layer.card]
        t = template.attrs
        w = self.number(t.get("w"), default=40)
        h = self.number(t.get("h"), default=56)
        step = self.number(a.get("step"), *args, default=w + 4)
        dx = self.number(a.get("dx"), *args, default=4)
        dy = self.number(a.get("dy"), *args, default=-4)
        name = layer.decl.name
        for index, item in enumerate(items):
            col, row = _place(path, index, len(items), across)
            if path == "stack":
                x, y = origin[0] + index * dx, origin[1] + index * dy
            else:
                x, y = origin[0] + col * step, origin[1] + row * (h + 6)
            item_args = (*args, item, index)
            own: dict[str, Any] = {
                "ref": self.ref(a.get("ref"), *item_args),
                "action": self.actions(a.get("action")),
                "faded": bool(self.value(a.get("faded"), *item_args, default=False)),
            }
            own["bind"] = self.binds(a.get("bind"), own["ref"], *item_args)
            stroke = self.colour(a.get("stroke"), *item_args) if "stroke" in a else None
            if item is None:
                self.add(
                    "rect", name, x=x, y=y, w=w, h=h, rx=4,
                    fill=self.colour(t.get("back"), default="#5d6d7e"),
                    stroke=stroke or self.colour(t.get("stroke"), default="#333333"),
                    title=self.text(a.get("title"), *item_args) or "a face-down card",
                    **own,
                )  # fmt: skip
                self.add(
                    "line",
                    name,
                    x1=x + 5,
                    y1=y + 5,
                    x2=x + w - 5,
                    y2=y + h - 5,
                    stroke="#ffffff",
                    width=1,
                    faded=True,
                )
                continue
            fill = (
                self.colour(a["fill"], *item_args)
                if "fill" in a
                else self.colour(t.get("fill"), item, default="#fffdf7")
            )
            ink = self.colour(t.get("ink"), item, default="#222222")
            heading = self.text(t.get("title"), item)
            value = self.text(a["label"], *item_args) if "label" in a else self.text(t.get("value"), item)
            lines = [str(line) for line in self.value(t.get("lines"), item, default=())]
            tip = self.text(a.get("title"), *item_args) or " · ".join(
                p for p in (heading, value, *lines) if p
            )
            self.add(
                "rect", name, x=x, y=y, w=w, h=h, rx=4, fill=fill,
                stroke=stroke or self.colour(t.get("stroke"), item, default="#333333"),
                title=tip or None, **own,
            )  # fmt: skip
            small = max(7.0, min(11.0, w / 5))  # texts shrink to fit the card's width, not below 6
            if heading:
                self.add(
                    "text",
                    name,
                    x=x + w / 2,
                    y=y + small + 2,
                    text=heading,
                    size=_fit(heading, w, small),
                    fill=ink,
                    anchor="middle",
                    bold=True,
                )
            if value:
                big = _fit(value, w, max(9.0, min(w, h) * 0.42))
                self.add(
                    "text",
                    name,
                    x=x + w / 2,
                    y=y + h / 2 + big * 0.35,
                    text=value,
                    size=big,
                    fill=ink,
                    anchor="middle",
                    bold=False,
                )
            for number, line in enumerate(lines[-3:][::-1]):
                self.add(
                    "text",
                    name,
                    x=x + w / 2,
                    y=y + h - 3 - number * (small + 1),
                    text=line,
                    size=_fit(line, w, small),
                    fill=ink,
                    anchor="middle",
                    bold=False,
                )


def _fit(text: str, width: float, size: float) -> float:
    """A font size at most ``size`` at which ``text`` fits a card ``width`` wide (not below 6)."""
    return max(6.0, min(size, (width - 6) / (0.62 * max(1, len(text)))))


def _place(path: str, index: int, count: int, across: int) -> tuple[int, int]:
    """Column and row of item ``index`` of ``count`` along a path."""
    if path == "row":
        return index, 0
    if path == "column":
        return 0, index
    if path == "grid":
        return index % across, index // across
    if path == "u":  # down the left leg, along the bottom, up the right leg
        leg = min(across, (count + 1) // 2)
        bottom = count - 2 * leg
        if index < leg:
            return 0, index
        if index < leg + bottom:
            return index - leg + 1, leg - 1
        return bottom + 1, leg - 1 - (index - leg - bottom)
    return 0, 0  # stack: offsets are applied by the caller


def caption(state: State, seat: int | None = None) -> str:
    """The line under a picture: how far the game is, whose view it is."""
    text = f"after {state.moves()} actions" + (" · game over" if state.is_terminal() else "")
    return text + ("" if seat is None else f" · as seen by P{seat + 1}")


def draw(state: State, seat: int | None = None) -> Picture:
    """The picture of ``state`` as ``seat`` may see it (``None``: a spectator): the ruleset's
    view, or the default view (:mod:`rulekit.tools.view.default`) when it has none.

    Raises:
        RulesetError: the ruleset's view does not compile.
    """
    view = compile_view(state.game.program)
    if view is None:
        return default_picture(state, seat)
    return _Drawer(state, view, seat).draw()
