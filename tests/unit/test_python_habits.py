"""Python habits and YAML flow collections get a hint naming the DSL's spelling, at the mistake.

Each case writes the tiny ruleset with one mistake and checks the diagnostic's file position
(where the mistake is written) and its hint.
"""

from __future__ import annotations

from collections.abc import Callable
from pathlib import Path

import pytest

from rulekit.errors import Diagnostic, RulekitError
from rulekit.load import load_program
from tests.tools.conftest import TINY

REQUIRE = '"me.coins >= amount"'
EFFECT = "transfer(amount, me, bank)"
REQUIREMENT = '      - if: "me.coins >= amount"\n        else: "not enough coins"\n        cite: "§1"\n'

#: (what to replace in TINY, its replacement, the mistake in it (where the caret must start), the hint)
CASES = {
    "True": (REQUIRE, '"me.coins >= amount or True"', "True", "write 'true'"),
    "False": (REQUIRE, '"me.coins >= amount and not False"', "False", "write 'false'"),
    "None": (REQUIRE, '"me.hand != None"', "None", "write 'none'"),
    "append": (EFFECT, "me.hand.append(amount)", "append", "append(me.hand, item)"),
    "count method": (REQUIRE, '"me.hand.count(amount) > 0"', "count", "count_of(me.hand, item)"),
    "!": (REQUIRE, '"!(me.coins < amount)"', "!", "write 'not x'"),
    "&&": (REQUIRE, '"me.coins >= amount && amount > 0"', "&&", "write 'and'"),
    "||": (REQUIRE, '"me.coins >= amount || amount > 0"', "||", "write 'or'"),
    "else if": (
        EFFECT,
        "|\n      if amount > 1:\n          transfer(amount, me, bank)\n"
        "      else if amount > 0:\n          pass",
        "else if",
        "write 'elif condition:'",
    ),
    "field without me.": (REQUIRE, '"coins >= amount"', "coins", "add 'me.': me.coins"),
    "game field without game.": (REQUIRE, '"round >= amount"', "round", "add 'game.': game.round"),
    "length(x)": (REQUIRE, '"length(me.hand) > 0"', "length(me.hand)", "len(items)"),
    "x.length": (REQUIRE, '"me.hand.length > 0"', "me.hand.length", "write len(me.hand)"),
    "count(list)": (REQUIRE, '"count(me.hand) > 0"', "count(me.hand)", "count_of(items, item)"),
    "max(a, b)": (REQUIRE, '"max(me.coins, 1) >= amount"', "max(me.coins, 1)", "greatest(a, b)"),
    "flow mapping": (
        REQUIREMENT,
        "      - {if: greatest(me.coins, amount) >= amount, else: not enough coins}\n",
        ", amount) >=",
        "quote this value, or use a block mapping",
    ),
    "flow sequence": (
        "    require:\n" + REQUIREMENT,
        "    require: [greatest(me.coins, amount) >= amount]\n",
        ", amount) >=",
        "quote this value, or use a block mapping",
    ),
}


def _position(text: str, offset: int) -> tuple[int, int]:
    before = text[:offset]
    return before.count("\n") + 1, offset - (before.rfind("\n") + 1) + 1


def _diagnostics(write_ruleset: Callable[..., Path], text: str) -> tuple[Path, tuple[Diagnostic, ...]]:
    directory = write_ruleset(text, name="habits")
    with pytest.raises(RulekitError) as caught:
        load_program(str(directory))
    return directory / "ruleset.yaml", caught.value.diagnostics


@pytest.mark.parametrize("case", CASES)
def test_a_python_habit_is_reported_at_the_mistake_with_the_dsl_spelling(
    case: str, write_ruleset: Callable[..., Path]
) -> None:
    old, new, mistake, hint = CASES[case]
    assert old in TINY
    text = TINY.replace(old, new, 1)
    file, diagnostics = _diagnostics(write_ruleset, text)
    line, column = _position(text, text.index(new) + new.index(mistake))
    first = diagnostics[0]
    assert first.span is not None
    assert (first.span.file, first.span.line, first.span.column) == (str(file), line, column), first.render()
    assert first.hint is not None and hint in first.hint, first.render()


def test_a_method_call_points_at_the_method_name(write_ruleset: Callable[..., Path]) -> None:
    """``me.hand.append(amount)``: the caret covers ``append``, not only the ``(`` lark refused."""
    text = TINY.replace(EFFECT, "me.hand.append(amount)", 1)
    _, diagnostics = _diagnostics(write_ruleset, text)
    span = diagnostics[0].span
    assert span is not None
    assert span.end_column - span.column == len("append")


def test_a_value_cut_at_a_comma_says_so_instead_of_an_unclosed_bracket(
    write_ruleset: Callable[..., Path],
) -> None:
    """The message names the cut; the rest of the value (read as a key) gets the same advice."""
    text = TINY.replace(
        REQUIREMENT, "      - {if: greatest(me.coins, amount) >= amount, else: too poor}\n", 1
    )
    _, diagnostics = _diagnostics(write_ruleset, text)
    assert diagnostics[0].message == "this value was cut at a ',' by YAML"
    assert "never closed" not in (diagnostics[0].hint or "")
    rest = diagnostics[1]
    assert rest.message == "unknown requirement key 'amount) >= amount'"
    assert rest.hint is not None and "quote that value, or use a block mapping" in rest.hint


def test_quoted_flow_values_and_block_mappings_load(write_ruleset: Callable[..., Path]) -> None:
    """What the hint advises works: the same requirement quoted in a flow mapping, or as a block."""
    quoted = TINY.replace(
        REQUIREMENT, '      - {if: "greatest(me.coins, amount) >= amount", else: too poor}\n', 1
    )
    load_program(str(write_ruleset(quoted, name="quoted")))
    block = TINY.replace(REQUIRE, "greatest(me.coins, amount) >= amount", 1)
    load_program(str(write_ruleset(block, name="block")))


def test_a_balanced_flow_value_with_a_syntax_error_keeps_its_own_message(
    write_ruleset: Callable[..., Path],
) -> None:
    """Only a value whose brackets YAML's ',' left open is blamed on the flow collection."""
    text = TINY.replace(REQUIREMENT, "      - {if: me.coins >= = amount, else: too poor}\n", 1)
    _, diagnostics = _diagnostics(write_ruleset, text)
    assert diagnostics[0].message == "unexpected '='"
    assert "block mapping" not in (diagnostics[0].hint or "")
