"""The documented built-in functions of the DSL: signatures for the checker,
implementations for compiled rules.

Pure built-ins take and return values.  Effect built-ins (``effect=True``)
change the state; their ``field`` parameters must be written as a field
reference (``game.deck``, ``me.hand``) and receive the field's key.
Lists are tuples at run time and are never mutated in place.
"""

from __future__ import annotations

from rulekit.runtime import geometry as _geometry  # noqa: F401 - registers the square-grid built-ins
from rulekit.runtime import grid_queries as _grid_queries  # noqa: F401 - registers cells_where, cells_of_kind
from rulekit.runtime import tiles as _tiles  # noqa: F401 - registers the tile-grid built-ins
from rulekit.runtime.builtins import arithmetic as arithmetic  # registers its family
from rulekit.runtime.builtins import effects as effects
from rulekit.runtime.builtins import lists as lists
from rulekit.runtime.builtins import players as players
from rulekit.runtime.builtins import text as text
from rulekit.runtime.builtins.effects import VALUE_EFFECTS as VALUE_EFFECTS
from rulekit.runtime.builtins.players import PLAYER_BUILTINS as PLAYER_BUILTINS
from rulekit.runtime.registry import BUILTINS as BUILTINS  # the catalogue, filled by every family
from rulekit.runtime.registry import Builtin as Builtin
