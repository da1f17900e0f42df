"""Compile a ruleset's ``view`` and draw a state as a list of shapes.

:func:`compile_view` type-checks every expression of the view against the
ruleset (errors at their file:line:col); :func:`draw` evaluates it for a state
as one seat (or a spectator) may see it and returns a :class:`Picture`: plain
shapes with pixel coordinates, turned into SVG by :mod:`rulekit.tools.svg`.

What the viewer may not see is masked before any expression runs: a hidden
list keeps its length but every element reads as ``none``, a hidden map is
empty and any other hidden value is ``none`` (see ``State.view``).
"""

from rulekit.tools.view.compilation import compile_view
from rulekit.tools.view.drawing import MAX_SHAPES, caption, draw, masked_fields
from rulekit.tools.view.model import CompiledAttr, CompiledLayer, CompiledView, Picture, Shape

__all__ = [
    "MAX_SHAPES",
    "CompiledAttr",
    "CompiledLayer",
    "CompiledView",
    "Picture",
    "Shape",
    "caption",
    "compile_view",
    "draw",
    "masked_fields",
]
