"""What the run-time helpers remember between calls, for one program.

Values are immutable, so what is derived from a big one (a map's size, a grid's frontier,
the cells a query finds) can be kept and reused while the very same object comes back.
Those memories belong to a program (:func:`rulekit.compiler.namespace.runtime_namespace`
makes one :class:`Memory` per generated module, ``P_memory``, and gives it to the built-ins
declared with ``memory=True``); they are made and dropped with it, never shared between
programs through module globals.
"""

from __future__ import annotations

from rulekit.runtime.grid_queries import GridQueries
from rulekit.runtime.lineage import Lineage
from rulekit.runtime.sizes import Sizes
from rulekit.runtime.tile_grid import TileMemory


class Memory:
    """One program's memories: the maps made by ``put``/``remove_key`` (:class:`Lineage`),
    sizes (:class:`Sizes`), grid queries (:class:`GridQueries`), tile grids
    (:class:`TileMemory`), and ``text_built``, the characters of text the text built-ins
    made (the engine reads it before and after an action to see how busy it was)."""

    __slots__ = ("grids", "lineage", "sizes", "text_built", "tiles")

    def __init__(self) -> None:
        self.lineage = Lineage()
        self.sizes = Sizes(self.lineage)
        self.grids = GridQueries(self.lineage)
        self.tiles = TileMemory(self.lineage)
        self.text_built = 0
