"""The options shared by the commands: --with lists, and the words after --against."""

from __future__ import annotations

import pytest

from rulekit.errors import UsageError
from rulekit.tools.options import module_names, parse_against


def test_repeated_and_comma_separated_modules_are_one_list() -> None:
    """``--with a,b --with c`` and stray spaces or commas give a, b, c."""
    assert module_names(["a,b", " c ", ",", ""]) == ["a", "b", "c"]
    assert module_names(None) == []


def test_the_words_after_against_name_the_other_side() -> None:
    """A ruleset, modules, variants and --json may follow --against."""
    other = parse_against("diff", ["el_capitan", "--with", "lisboa,porto", "--variant", "a.yaml", "--json"])
    assert other.ruleset == "el_capitan"
    assert module_names(other.modules) == ["lisboa", "porto"]
    assert other.variants == ["a.yaml"]
    assert other.json


def test_other_options_after_against_are_a_usage_error_with_the_hint() -> None:
    """An option that belongs before --against is named, with the command's hint."""
    with pytest.raises(UsageError) as caught:
        parse_against("simulate", ["--games=9"], hint="put the other options before it")
    assert "unknown arguments after --against: --games=9" in caught.value.render()
    assert "hint: put the other options before it" in caught.value.render()
