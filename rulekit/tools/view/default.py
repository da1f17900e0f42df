"""The default view: a picture drawn from the state model for a ruleset without a ``view``.

It reads the state exactly as an authored view does, through the engine's information model
(:func:`masked_fields`; what the seat may not see is masked before anything is drawn), and
draws each ``game`` and ``turn`` field, then each player's fields, then the scores as the seat
may know them (:func:`known_scores`):

* a map whose keys are pairs of whole numbers (``map[tuple, X]``): a grid, one cell per
  position, spanning the keys and the ``x``/``y`` attributes of the components (a board's
  squares); a player's piece is a disc of the player's colour, another value its text;
* a list of whole numbers: a track of numbered boxes (piles, houses);
* any other list (cards, components): a hand, one card per item with its name; an item the
  seat may not see is a face-down card, so a hidden hand shows as a count;
* a map of another kind: its entries as text (``hidden`` when the seat may not see it);
* any other value: ``name: value`` (``hidden`` when the seat may not see it; a player in
  its colour).

Component fields are not drawn.  Every text goes through :mod:`rulekit.tools.svg` (escaped);
the picture is bounded (:data:`MAX_ITEMS` items a field, :data:`MAX_CELLS` cells a grid).
"""

from __future__ import annotations

from typing import Any

from rulekit.dsl.types import Type
from rulekit.engine.game import State
from rulekit.engine.information import known_scores, masked_fields, unseen
from rulekit.engine.values import format_value
from rulekit.rules.view import LegendEntry
from rulekit.tools.view.model import Picture, Shape

#: Player colours, in seat order (repeated beyond six).
COLOURS = ("#c0392b", "#2471a3", "#1e8449", "#b9770e", "#7d3c98", "#117a65")
WIDTH = 640
MARGIN = 12
LINE = 20
CELL = 28
CARD_W, CARD_H = 66, 30
#: A component drawn as a card: taller, its name on top and its attributes below.
COMPONENT_H = 58
#: Attribute values that colour a component's card (a band at its top): CSS colour names.
CARD_COLOURS = frozenset(
    ("red", "green", "blue", "yellow", "white", "black", "orange", "purple", "pink", "brown", "grey", "gray")
)
#: The most items of one list drawn (the rest are counted), and cells of one grid.
MAX_ITEMS = 60
MAX_CELLS = 40 * 40
HIDDEN = "hidden"


class _Sketch:
    """Lays shapes out top to bottom."""

    def __init__(self, state: State, seat: int | None) -> None:
        self.state = state
        self.seat = seat
        self.fields = masked_fields(state, seat)
        self.unseen = unseen(state, seat)
        self.rules = state.game.program.rules
        self.y = MARGIN
        self.width = WIDTH
        self.shapes: list[Shape] = []

    # -- shapes
    def add(self, kind: str, layer: str, **props: Any) -> None:
        self.shapes.append(Shape(kind, layer, props))

    def text(self, layer: str, x: float, y: float, text: str, **props: Any) -> None:
        props.setdefault("size", 13)
        props.setdefault("fill", "#222222")
        props.setdefault("anchor", "start")
        props.setdefault("bold", False)
        self.add("text", layer, x=x, y=y, text=text[:120], **props)

    def heading(self, text: str, colour: str = "#222222") -> None:
        self.y += 6
        self.text("headings", MARGIN, self.y + 14, text, size=15, bold=True, fill=colour)
        self.y += LINE + 4

    def colour(self, player: int) -> str:
        return COLOURS[player % len(COLOURS)]

    # -- fields
    def field(self, owner: Any, name: str, type_: Type) -> None:
        key = (owner, name)
        if key not in self.fields:
            return
        value = self.fields[key]
        hidden = key in self.unseen
        layer = f"{owner}.{name}" if isinstance(owner, str) else f"P{owner + 1}.{name}"
        if isinstance(value, tuple) and type_.name == "list":
            self.sequence(layer, name, value, type_)
        elif isinstance(value, dict) and _is_grid(type_) and all(_is_point(k) for k in value):
            self.grid(layer, name, value, type_, hidden)
        else:
            shown = HIDDEN if hidden else self.value_text(value, type_)
            fill = (
                self.colour(value)
                if _is_player(type_) and isinstance(value, int) and not hidden
                else "#222222"
            )
            self.text(layer, MARGIN + 8, self.y + 14, f"{name}: ", size=13)
            self.text(layer, MARGIN + 8 + 7.5 * (len(name) + 2), self.y + 14, shown, size=13, fill=fill)
            self.y += LINE

    def value_text(self, value: Any, type_: Type) -> str:
        if value is None:
            return "none"
        if isinstance(value, dict) and not value:
            return "{}"
        try:
            return format_value(value, type_)
        except Exception:  # a value the formatter does not know: its plain text
            return str(value)

    def sequence(self, layer: str, name: str, items: tuple[Any, ...], type_: Type) -> None:
        element = type_.element or Type("any")
        numbers = element.name == "int"
        faces = sum(1 for item in items if item is None)
        label = f"{name}: {len(items)}" + (f" ({faces} face down)" if faces and not numbers else "")
        self.text(layer, MARGIN + 8, self.y + 14, label, size=13)
        self.y += LINE
        per_row = max(1, (self.width - 2 * MARGIN) // (CARD_W + 4))
        shown = items[:MAX_ITEMS]
        components = self.component_values(element)
        height = COMPONENT_H if components is not None else CARD_H
        for index, item in enumerate(shown):
            x = MARGIN + 8 + (index % per_row) * (CARD_W + 4)
            y = self.y + (index // per_row) * (height + 4)
            if item is None:  # not seen: a face-down card (or box)
                self.add("rect", layer, x=x, y=y, w=CARD_W, h=height, rx=4, fill="#7f8c8d", stroke="#34495e")
                self.text(layer, x + CARD_W / 2, y + height / 2 + 5, "?", anchor="middle", fill="#ffffff")
                continue
            if components is not None:
                self.card(layer, x, y, self.value_text(item, element), components.get(item, {}))
                continue
            text = self.value_text(item, element)
            fill = self.colour(item) if _is_player(element) and isinstance(item, int) else "#fdfefe"
            self.add(
                "rect", layer, x=x, y=y, w=CARD_W, h=CARD_H, rx=4, fill=fill, stroke="#34495e", title=text
            )
            self.text(layer, x + CARD_W / 2, y + CARD_H / 2 + 4, text[:10], size=11, anchor="middle")
        rows = (len(shown) + per_row - 1) // per_row
        self.y += rows * (height + 4)
        if len(items) > MAX_ITEMS:
            self.text(layer, MARGIN + 8, self.y + 12, f"... and {len(items) - MAX_ITEMS} more", size=11)
            self.y += LINE - 4
        self.y += 4 if items else 0

    def component_values(self, element: Type) -> dict[Any, dict[str, Any]] | None:
        """The attributes of each component of ``element``'s kind, by id (None: no component kind)."""
        kind = self.rules.kinds.get(element.kind or "") if element.name == "entity" else None
        if kind is None:
            return None
        return {item.id: dict(item.values) for item in kind.items}

    def card(self, layer: str, x: float, y: float, name: str, values: dict[str, Any]) -> None:
        """A component face up, drawn from its fields: its name on top, a band of its colour
        (an attribute whose value is a colour name), up to three attributes below."""
        lines = [f"{key} {value}" for key, value in values.items() if isinstance(value, int | str)][:3]
        tip = name + "".join(f" · {line}" for line in lines)
        self.add(
            "rect",
            layer,
            x=x,
            y=y,
            w=CARD_W,
            h=COMPONENT_H,
            rx=4,
            fill="#fdfefe",
            stroke="#34495e",
            title=tip,
        )
        colour = next((str(v) for v in values.values() if isinstance(v, str) and v in CARD_COLOURS), None)
        if colour is not None:
            self.add("rect", layer, x=x + 3, y=y + 3, w=CARD_W - 6, h=5, rx=1, fill=colour, stroke="#34495e")
        self.text(layer, x + CARD_W / 2, y + 20, name[:11], size=10, anchor="middle", bold=True)
        for number, line in enumerate(lines):
            self.text(layer, x + CARD_W / 2, y + 33 + number * 10, line[:12], size=9, anchor="middle")

    def grid(self, layer: str, name: str, cells: dict[Any, Any], type_: Type, hidden: bool) -> None:
        if hidden:
            self.text(layer, MARGIN + 8, self.y + 14, f"{name}: {HIDDEN}", size=13)
            self.y += LINE
            return
        points = [k for k in cells if _is_point(k)] + self.board_points()
        self.text(layer, MARGIN + 8, self.y + 14, f"{name}:", size=13)
        self.y += LINE
        if not points:
            return
        xs, ys = [p[0] for p in points], [p[1] for p in points]
        left, top = min(xs), min(ys)
        columns, rows = max(xs) - left + 1, max(ys) - top + 1
        if columns * rows > MAX_CELLS:
            self.text(layer, MARGIN + 8, self.y + 14, f"{len(cells)} entries on a grid too large to draw")
            self.y += LINE
            return
        size = max(12, min(CELL, (self.width - 2 * MARGIN - 16) // columns))
        x0, y0 = MARGIN + 8, self.y
        element = type_.element or Type("any")
        for row in range(rows):
            for column in range(columns):
                x, y = x0 + column * size, y0 + row * size
                self.add("rect", layer, x=x, y=y, w=size, h=size, rx=0, fill="#f4f1e8", stroke="#95a5a6")
                value = cells.get((column + left, row + top))
                if value is None:
                    continue
                if _is_player(element) and isinstance(value, int):
                    self.add(
                        "circle",
                        layer,
                        x=x + size / 2,
                        y=y + size / 2,
                        r=size * 0.38,
                        fill=self.colour(value),
                        stroke="#222222",
                    )
                else:
                    text = self.value_text(value, element)
                    self.text(
                        layer, x + size / 2, y + size / 2 + 4, text[:3], size=10, anchor="middle", title=text
                    )
        self.y += rows * size + 8

    def board_points(self) -> list[tuple[int, int]]:
        """The ``(x, y)`` of every component with whole-number ``x`` and ``y`` attributes."""
        points = []
        for kind in self.rules.kinds.values():
            for item in kind.items:
                x: Any = item.values.get("x")
                y: Any = item.values.get("y")
                if _is_point((x, y)):
                    points.append((x, y))
        return points

    # -- the whole picture
    def draw(self) -> Picture:
        rules = self.rules
        self.text("title", MARGIN, self.y + 16, rules.title, size=17, bold=True)
        self.y += LINE + 8
        for scope in ("game", "turn"):
            for name, decl in rules.fields.get(scope, {}).items():
                self.field(scope, name, decl.declared.type)
        players = self.state.game.num_players
        scores = known_scores(self.state, self.seat)
        for player in range(players):
            you = " (you)" if player == self.seat else ""
            score = scores[player]
            self.heading(f"P{player + 1}{you} · score {'?' if score is None else score}", self.colour(player))
            for name, decl in rules.fields.get("player", {}).items():
                self.field(player, name, decl.declared.type)
        return Picture(
            self.width, int(self.y + MARGIN), "#ffffff", tuple(self.shapes), (), rules.title, self.legend()
        )

    def legend(self) -> tuple[LegendEntry, ...]:
        """The players' colours: the default view's legend."""
        players = self.state.game.num_players
        return tuple(
            LegendEntry(self.colour(p), "circle", f"P{p + 1}" + (" (you)" if p == self.seat else ""))
            for p in range(players)
        )


def _is_point(key: Any) -> bool:
    return (
        isinstance(key, tuple)
        and len(key) == 2
        and all(isinstance(v, int) and not isinstance(v, bool) for v in key)
    )


def _is_grid(type_: Type) -> bool:
    return type_.name == "map" and (type_.key is None or type_.key.name in ("tuple", "any"))


def _is_player(type_: Type) -> bool:
    return type_.name == "player"


def default_picture(state: State, seat: int | None = None) -> Picture:
    """The default picture of ``state`` as ``seat`` (None: a spectator) may see it."""
    return _Sketch(state, seat).draw()
