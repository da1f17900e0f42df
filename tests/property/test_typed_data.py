"""Rules data is checked against its declared type: a value of the wrong type given to any component
attribute of a shipped ruleset is reported by the loader, at a position, naming the attribute."""

from __future__ import annotations

from functools import cache
from typing import Any

import pytest
from hypothesis import given
from hypothesis import strategies as st

from rulekit.errors import RulesetError
from rulekit.rules.compose import compose, load_source
from rulekit.rules.loader import build_model
from rulekit.rules.records import type_names
from rulekit.rules.values import Declared, parse_declared
from rulekit.rules.yaml_source import LocDict

RULESETS = ("tic_tac_toe", "connect_four", "el_caballero", "el_capitan", "royal_letter")


_source = cache(load_source)


@cache
def _attributes(ruleset: str) -> list[tuple[str, int, str, Declared]]:
    """(kind, item index, attribute, declared type) of every item attribute of a ruleset."""
    data = compose(_source(ruleset), [])
    kinds = data.get("components") or {}
    names = type_names(data.get("records"), frozenset(kinds), data.get("enums"))
    found = []
    for kind, spec in kinds.items():
        attributes = spec.get("attributes") or {}
        for index, _item in enumerate(spec.get("items") or []):
            for name, text in attributes.items():
                found.append((str(kind), index, str(name), parse_declared(text, names)))
    return found


def _wrong(declared: Declared) -> st.SearchStrategy[Any]:
    """Values that are not of the declared type (whatever its inner types)."""
    name = declared.type.name
    if name == "int":
        return st.sampled_from(["six", "3", True, 2.5, [1]])
    if name == "bool":
        return st.sampled_from(["false", "yes", 0, 1, [True]])
    if name == "str":
        return st.sampled_from([3, True, [1], {"a": 1}])
    if name in ("player", "owner"):
        return st.sampled_from([0, 1, "p1", "P0", "P99", True])
    if name == "entity":
        return st.sampled_from(["no_such_id", 3, [1]])
    if name == "enum":
        return st.sampled_from(["no_such_value", 3, True, [1]])
    if name == "list":
        return st.sampled_from([3, "x", True])
    return st.nothing()  # any, map, tuple: every value fits


@pytest.mark.parametrize("ruleset", RULESETS)
@given(data=st.data())
def test_a_wrongly_typed_attribute_value_is_reported_where_it_is_written(
    ruleset: str, data: st.DataObject
) -> None:
    candidates = [a for a in _attributes(ruleset) if a[3].type.name not in ("any", "map", "tuple", "record")]
    if not candidates:
        pytest.skip(f"{ruleset} has no typed attributes")
    kind, index, attribute, declared = data.draw(st.sampled_from(candidates))
    value = data.draw(_wrong(declared))
    composed = compose(_source(ruleset), [])  # a fresh copy
    item: LocDict = composed["components"][kind]["items"][index]
    item[attribute] = value
    kept = ("players", "constants", "components", "enums", "records")
    for section in [k for k in composed if k not in kept]:
        del composed[section]  # the DSL sections play no part here (and take long to parse)
    with pytest.raises(RulesetError) as caught:
        build_model(composed, "")
    about = [d for d in caught.value.diagnostics if f": {attribute} " in d.message]
    assert about, f"{kind}.{attribute} = {value!r} was not reported: {caught.value}"
    assert all(d.span is not None and d.span.line >= 1 for d in about)
