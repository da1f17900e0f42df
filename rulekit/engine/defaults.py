"""The value a field holds before its declared initial value (if any) is run."""

from __future__ import annotations

from typing import Any

from rulekit.dsl import types as t


def field_default(type_: t.Type, optional: bool) -> Any:
    """The zero of a field's type: 0, false, "", an empty list or map; none if optional (``T?``)."""
    if optional:
        return None
    if type_ == t.INT:
        return 0
    if type_ == t.BOOL:
        return False
    if type_ == t.STR:
        return ""
    if type_.is_list or type_ == t.TUPLE:
        return ()
    if type_.is_map:
        return {}
    return None
