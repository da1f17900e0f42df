"""The action notation: values print in a form that reads back as the same value."""

from __future__ import annotations

import pytest

from rulekit.dsl import types as t
from rulekit.engine.values import NotationError, coerce, format_value, parse_action_text


@pytest.mark.parametrize(
    ("value", "type_", "text"),
    [
        ((11,), t.list_of(t.INT), "[11]"),
        ((), t.list_of(t.INT), "[]"),
        ((0, 1), t.list_of(t.PLAYER), "[P1, P2]"),
        ((1, 2), t.TUPLE, "(1, 2)"),
        ((3,), t.TUPLE, "(3,)"),
    ],
)
def test_a_list_parameter_prints_as_typed_back(value: tuple[int, ...], type_: t.Type, text: str) -> None:
    assert format_value(value, type_) == text
    name, args = parse_action_text(f"advance({text})")
    assert name == "advance"
    assert coerce(args[0], type_) == value


def test_old_tuple_notation_of_a_list_still_reads() -> None:
    assert coerce(parse_action_text("advance((11,))")[1][0], t.list_of(t.INT)) == (11,)


def test_an_unclosed_bracket_is_explained() -> None:
    with pytest.raises(NotationError, match="a '\\[' is never closed"):
        parse_action_text("advance([11")
    with pytest.raises(NotationError, match="expected ',' or '\\]'"):
        parse_action_text("advance([11 12])")
