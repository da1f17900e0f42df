"""What a name is: the one definition shared by the grammar's NAME, the loader and the code generator."""

from __future__ import annotations

import re
from typing import Any

#: ASCII letters, digits and ``_``, not starting with a digit (the grammar's NAME token).
NAME = re.compile(r"[A-Za-z_][A-Za-z0-9_]*")


def is_name(text: Any) -> bool:
    """Whether ``text`` is a whole name: no trailing newline, no other character (``fullmatch``)."""
    return isinstance(text, str) and NAME.fullmatch(text) is not None
