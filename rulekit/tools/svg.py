"""A :class:`~rulekit.tools.view.Picture` as a standalone SVG document (no dependencies).

Every shape carries ``class="layer-NAME"``; a shape with a ``ref`` carries
``data-ref="..."`` (the value in the action notation, e.g. ``b2``) so a web page
can match it with the legal actions, and ``data-action="NAME ..."`` when the view
says which actions a click on it may play.  Layer errors are drawn in red at the
bottom and kept in an XML comment.

Every text and attribute value is escaped with :func:`markupsafe.escape` (the escaping of
rulekit's HTML templates, :mod:`rulekit.tools.html`), element and attribute names are fixed
here, and colours that are not ``#rgb``/``#rrggbb``/a CSS name/``none`` are never written: text
from a ruleset can make neither an element, an event handler, nor a link in a picture.
"""

from __future__ import annotations

import json
import re
from typing import Any

from markupsafe import escape

from rulekit.tools.view import Picture, Shape

FONT = "DejaVu Sans, Verdana, Arial, sans-serif"
ERROR_LINE = 14


_COLOUR = re.compile(r"#[0-9a-fA-F]{3,8}|[a-z]{3,20}")


def quoteattr(value: Any) -> str:
    """An attribute value, escaped and in double quotes."""
    return f'"{escape(str(value))}"'


def safe_colour(value: Any, default: str = "none") -> str:
    """``value`` if it is a colour (``#rgb``, ``#rrggbb``, a CSS name or ``none``), else ``default``:
    no ``url(...)`` paint reference or other text ever reaches a fill or stroke."""
    text = str(value)
    return text if _COLOUR.fullmatch(text) else default


def _num(value: float) -> str:
    text = f"{value:.2f}".rstrip("0").rstrip(".")
    return "0" if text == "-0" else text


def _common(shape: Shape) -> str:
    props = shape.props
    parts = [f"class={quoteattr('layer-' + shape.layer)}"]
    if props.get("ref") is not None:
        parts.append(f"data-ref={quoteattr(str(props['ref']))}")
        if props.get("action"):  # which actions a click may play: only for a shape one can click
            parts.append(f"data-action={quoteattr(str(props['action']))}")
    if props.get("bind"):  # what a click chooses, {target: value} (docs/viewer.md#play-by-clicks)
        parts.append(f"data-bind={quoteattr(json.dumps(props['bind'], sort_keys=True))}")
    if props.get("faded"):
        parts.append('opacity="0.45"')
    return " ".join(parts)


def _paint(shape: Shape) -> str:
    props = shape.props
    fill, stroke = safe_colour(props.get("fill", "none")), safe_colour(props.get("stroke", "none"))
    return f"fill={quoteattr(fill)} stroke={quoteattr(stroke)}"


def _title(shape: Shape) -> str:
    title = shape.props.get("title")
    return f"<title>{escape(str(title))}</title>" if title else ""


def shape_svg(shape: Shape) -> str:
    """One shape as an SVG element."""
    p = shape.props
    common = _common(shape)
    title = _title(shape)
    if shape.kind == "rect":
        head = (
            f'<rect {common} x="{_num(p["x"])}" y="{_num(p["y"])}" width="{_num(max(0, p["w"]))}" '
            f'height="{_num(max(0, p["h"]))}" rx="{_num(p.get("rx", 0))}" {_paint(shape)}'
        )
    elif shape.kind == "circle":
        head = (
            f'<circle {common} cx="{_num(p["x"])}" cy="{_num(p["y"])}" r="{_num(max(0, p["r"]))}" '
            f"{_paint(shape)}"
        )
    elif shape.kind == "polygon":
        points = " ".join(f"{_num(x)},{_num(y)}" for x, y in p["points"])
        head = f'<polygon {common} points="{points}" {_paint(shape)}'
    elif shape.kind == "line":
        head = (
            f'<line {common} x1="{_num(p["x1"])}" y1="{_num(p["y1"])}" x2="{_num(p["x2"])}" '
            f'y2="{_num(p["y2"])}" stroke={quoteattr(safe_colour(p.get("stroke", "#333")))} '
            f'stroke-width="{_num(p.get("width", 1))}"'
        )
    elif shape.kind == "text":
        weight = ' font-weight="bold"' if p.get("bold") else ""
        return (
            f'<text {common} x="{_num(p["x"])}" y="{_num(p["y"])}" font-size="{_num(p.get("size", 12))}" '
            f"text-anchor={quoteattr(p.get('anchor', 'start'))} "
            f"fill={quoteattr(safe_colour(p.get('fill', '#222')))}{weight}>"
            f"{title}{escape(str(p['text']))}</text>"
        )
    else:
        raise ValueError(f"unknown shape kind {shape.kind!r}")
    return f"{head}>{title}</{shape.kind}>" if title else f"{head}/>"


LEGEND_ROW = 20


def legend_svg(picture: Picture, top: float) -> tuple[list[str], int]:
    """The picture's legend (a swatch and a text per entry, in rows as wide as the picture)
    from ``top`` down, as SVG elements in one group, and the height it takes."""
    if not picture.legend:
        return [], 0
    items: list[str] = []
    x, y = 6.0, top + 4
    for entry in picture.legend:
        text = entry.text[:60]
        width = 22 + 7 * len(text)
        if x > 6 and x + width > picture.width:
            x, y = 6.0, y + LEGEND_ROW
        colour = quoteattr(safe_colour(entry.colour, "#333333"))
        if entry.shape == "circle":
            items.append(f'<circle cx="{_num(x + 6)}" cy="{_num(y + 8)}" r="6" fill={colour} stroke="#333"/>')
        elif entry.shape == "line":
            items.append(
                f'<line x1="{_num(x)}" y1="{_num(y + 8)}" x2="{_num(x + 12)}" y2="{_num(y + 8)}" '
                f'stroke={colour} stroke-width="3"/>'
            )
        elif entry.shape == "card":
            items.append(
                f'<rect x="{_num(x + 2)}" y="{_num(y + 1)}" width="9" height="14" rx="2" '
                f'fill={colour} stroke="#333"/>'
            )
        else:
            items.append(
                f'<rect x="{_num(x)}" y="{_num(y + 2)}" width="12" height="12" fill={colour} stroke="#333"/>'
            )
        items.append(
            f'<text x="{_num(x + 17)}" y="{_num(y + 12)}" font-size="11" fill="#222">{escape(text)}</text>'
        )
        x += width
    height = int(y + LEGEND_ROW - top)
    return ['<g id="legend">', *items, "</g>"], height


def svg_parts(picture: Picture, *, caption: str | None = None) -> list[str]:
    """The SVG document in pieces: the opening, one piece per layer group, the closing.

    Joined with newlines they are :func:`to_svg`; pictures of successive states share most
    pieces, which the HTML replay stores once.
    """
    legend, legend_height = legend_svg(picture, picture.height)
    extra = ERROR_LINE * len(picture.errors) + (18 if caption else 0) + legend_height
    width, height = picture.width, picture.height + extra
    head = "\n".join(
        [
            f'<svg xmlns="http://www.w3.org/2000/svg" width="{width}" height="{height}" '
            f'viewBox="0 0 {width} {height}" font-family="{FONT}" role="img">',
            f"<title>{escape(picture.title)}</title>",
            f'<rect class="background" x="0" y="0" width="{width}" height="{height}" '
            f"fill={quoteattr(safe_colour(picture.background, '#ffffff'))}/>",
        ]
    )
    parts = [head]
    group: list[str] = []
    current = None
    for shape in picture.shapes:
        if shape.layer != current:
            if current is not None:
                parts.append("\n".join([*group, "</g>"]))
            group = [f"<g id={quoteattr('layer-' + shape.layer)}>"]
            current = shape.layer
        group.append(shape_svg(shape))
    if current is not None:
        parts.append("\n".join([*group, "</g>"]))
    tail: list[str] = legend
    y = picture.height + legend_height
    if caption:
        y += 14
        tail.append(
            f'<text class="caption" x="6" y="{y}" font-size="12" fill="#333">{escape(caption)}</text>'
        )
    for error in picture.errors:
        y += ERROR_LINE
        tail.append(
            f'<text class="view-error" x="6" y="{y - 3}" font-size="11" fill="#c00">{escape(error)}</text>'
        )
    tail.append("</svg>")
    parts.append("\n".join(tail))
    return parts


def to_svg(picture: Picture, *, caption: str | None = None) -> str:
    """The picture as an SVG document (UTF-8 text, ends with a newline)."""
    return "\n".join(svg_parts(picture, caption=caption)) + "\n"
