"""The view section is checked like the rest of the rules: structure and DSL types, every error located."""

from __future__ import annotations

from collections.abc import Callable
from pathlib import Path

import pytest

from rulekit.errors import RulesetError
from rulekit.load import load_program
from rulekit.tools.view import compile_view

BASE = """\
ruleset: pic
players: {min: 2, max: 2}
state:
  game:
    n: {type: int}
actions:
  go: {effect: game.n += 1, ends_turn: true}
flow:
  - turn: player_at(1)
"""


HEAD = "view:\n  width: 10\n  height: 10\n  layers:\n"
RECT = "    - rect: {x: 1, y: 1, w: 2, h: 2}\n"
Writer = Callable[..., Path]


def _errors(path: Path) -> str:
    with pytest.raises(RulesetError) as caught:
        compile_view(load_program(str(path)))
    return caught.value.render()


def test_a_view_layer_with_an_unknown_key_is_an_error_at_its_position(
    write_ruleset: Writer,
) -> None:
    """A misspelt key is reported at its line and column with the nearest name."""
    path = write_ruleset(BASE + HEAD + RECT + "      wehn: true\n")
    text = _errors(path)
    assert "ruleset.yaml:15:7: error: unknown view layer key 'wehn'" in text
    assert "did you mean 'when'?" in text


def test_a_layer_draws_exactly_one_shape(write_ruleset: Writer) -> None:
    path = write_ruleset(BASE + HEAD + RECT + "      circle: {x: 1, y: 1, r: 2}\n")
    assert "a view layer draws exactly one of: rect, circle, text, line, tile, track, stack" in _errors(path)


def test_missing_attributes_and_bad_choices_are_reported_together(write_ruleset: Writer) -> None:
    """All problems at once: a rect without h, a text with an unknown anchor."""
    path = write_ruleset(
        BASE + HEAD + "    - rect: {x: 1, y: 1, w: 2}\n"
        "    - text: {x: 1, y: 1, text: \"'a'\", anchor: centre}\n"
    )
    text = _errors(path)
    assert "a rect needs 'h'" in text
    assert "'anchor' must be one of start, middle, end, not 'centre'" in text


def test_an_expression_of_the_wrong_type_is_located_at_the_expression(
    write_ruleset: Writer,
) -> None:
    """x must be an int: a str expression is rejected where it is written."""
    path = write_ruleset(BASE + HEAD + "    - rect: {x: \"'left'\", y: 1, w: 2, h: 2}\n")
    text = _errors(path)
    assert "ruleset.yaml:14:17: error: 'x' must be an int, not str" in text


def test_an_unknown_name_in_a_view_expression_is_located(
    write_ruleset: Writer,
) -> None:
    path = write_ruleset(
        BASE + HEAD + '    - each: players\n      as: p\n      text: {x: 1, y: 1, text: "p.coins"}\n'
    )
    text = _errors(path)
    assert "ruleset.yaml:16:" in text
    assert "coins" in text


def test_the_element_name_is_bound_only_with_each(write_ruleset: Writer) -> None:
    path = write_ruleset(BASE + HEAD + "    - as: p\n      rect: {x: 1, y: 1, w: 2, h: 2}\n")
    assert "'as' names the element of 'each'; this layer has no 'each'" in _errors(path)


def test_a_ruleset_without_a_view_compiles_to_none(write_ruleset: Writer) -> None:
    assert compile_view(load_program(str(write_ruleset(BASE)))) is None


def test_a_module_extends_the_view_with_its_own_layers(write_ruleset: Writer) -> None:
    """extend: view: layers appends layers after the base view's, only when the module is on."""
    module = "module: extra\nextend:\n  view:\n    layers:\n"
    module += "      - name: more\n        circle: {x: 5, y: 5, r: 3}\n"
    path = write_ruleset(
        BASE + HEAD + "    - name: base\n      rect: {x: 1, y: 1, w: 2, h: 2}\n",
        modules={"extra": module},
    )
    plain = compile_view(load_program(str(path)))
    extended = compile_view(load_program(str(path), ["extra"]))
    assert plain is not None and extended is not None
    assert [layer.decl.name for layer in plain.layers] == ["base"]
    assert [layer.decl.name for layer in extended.layers] == ["base", "more"]


def test_a_module_cannot_extend_a_view_the_ruleset_does_not_have(write_ruleset: Writer) -> None:
    module = "module: extra\nextend:\n  view:\n    layers: []\n"
    path = write_ruleset(BASE, modules={"extra": module})
    with pytest.raises(RulesetError, match="cannot extend 'view': the ruleset has none"):
        load_program(str(path), ["extra"])


@pytest.mark.parametrize("ruleset", ["tic_tac_toe", "el_capitan", "el_caballero"])
def test_the_shipped_views_compile(ruleset: str) -> None:
    view = compile_view(load_program(ruleset))
    assert view is not None and len(view.layers) >= 3


def test_the_shipped_el_capitan_view_compiles_with_every_module() -> None:
    view = compile_view(load_program("el_capitan", ["porto", "lisboa", "islas_canarias"]))
    assert view is not None
    assert [layer.decl.name for layer in view.layers][-3:] == ["pirate", "pirate_targets", "pirate_cards"]


def test_a_shape_may_name_only_actions_of_the_ruleset(write_ruleset: Writer) -> None:
    """``action:`` limits what a click plays; a misspelt action is found with a hint."""
    path = write_ruleset(BASE + HEAD + "    - rect: {x: 1, y: 1, w: 2, h: 2, ref: game.n, action: goo}\n")
    text = _errors(path)
    assert "'action' names unknown action 'goo'" in text
    assert "did you mean 'go'?" in text


def test_a_bad_colour_is_named_at_its_position(write_ruleset: Writer) -> None:
    """A misspelt #colour is not read as an expression (# starts a comment); a player colour
    that is a number is reported at the players list."""
    view = HEAD.replace("  layers:\n", "  players: [red, 7]\n  layers:\n")
    path = write_ruleset(BASE + view + '    - rect: {x: 1, y: 1, w: 2, h: 2, fill: "#zzz"}\n')
    text = _errors(path)
    assert "ruleset.yaml:13:12: error: a player colour must be #rgb, #rrggbb or a CSS name, not 7" in text
    assert (
        "ruleset.yaml:15:44: error: 'fill' must be a colour #rgb or #rrggbb (or an expression), not '#zzz'"
        in text
    )
