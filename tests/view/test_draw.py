"""Drawing a state: shapes follow the state, visibility is respected, a failing layer never breaks it."""

from __future__ import annotations

import random
from collections.abc import Callable
from pathlib import Path

import pytest

from rulekit.engine.game import State
from rulekit.load import load_game
from rulekit.tools.view import Picture, Shape, draw, masked_fields
from rulekit.tools.view.drawing import _place

HIDDEN = """\
ruleset: secret
players: {min: 2, max: 2}
state:
  game:
    deck: {type: "list[int]", initial: "[7, 8, 9]", visibility: hidden}
  player:
    hand: {type: "list[int]", visibility: owner, initial: "[seat(me) * 10, seat(me) * 10 + 1]"}
actions:
  go: {ends_turn: true}
flow:
  - turn: player_at(1)
view:
  width: 200
  height: 100
  layers:
    - name: hands
      each: players
      as: p
      track:
        x: 10
        y: "seat(p) * 30"
        items: p.hand
        as: v
        label: "'?' if v == none else v"
    - name: deck
      text: {x: 10, y: 90, text: "concat(len(game.deck), ' cards, top ', game.deck[0])"}
    - name: mine
      seat: true
      text: {x: 100, y: 90, text: "concat('I am ', player_name(me))"}
    - name: broken
      text: {x: 1, y: 1, text: "concat('', 10 // (len(game.deck) - 3))"}
"""


def _texts(picture: Picture, layer: str) -> list[str]:
    return [s.props["text"] for s in picture.shapes if s.layer == layer and s.kind == "text"]


def _state(write_ruleset: Callable[..., Path]) -> State:
    return load_game(str(write_ruleset(HIDDEN)), 2).new_initial_state(0)


def test_a_seat_sees_its_own_hidden_hand_and_only_the_size_of_the_others(
    write_ruleset: Callable[..., Path],
) -> None:
    state = _state(write_ruleset)
    assert _texts(draw(state, 0), "hands") == ["10", "11", "?", "?"]
    assert _texts(draw(state, 1), "hands") == ["?", "?", "20", "21"]
    assert _texts(draw(state, None), "hands") == ["?", "?", "?", "?"]


def test_a_hidden_list_keeps_its_length_but_not_its_contents(write_ruleset: Callable[..., Path]) -> None:
    assert _texts(draw(_state(write_ruleset), 0), "deck") == ["3 cards, top none"]


def test_seat_layers_are_drawn_only_in_a_seats_picture(write_ruleset: Callable[..., Path]) -> None:
    state = _state(write_ruleset)
    assert _texts(draw(state, 1), "mine") == ["I am P2"]
    assert _texts(draw(state, None), "mine") == []


def test_a_failing_layer_is_reported_and_the_rest_is_drawn(write_ruleset: Callable[..., Path]) -> None:
    picture = draw(_state(write_ruleset), 0)
    assert len(picture.errors) == 1
    assert "layer 'broken'" in picture.errors[0] and "ZeroDivisionError" in picture.errors[0]
    assert _texts(picture, "deck")


def test_tic_tac_toe_marks_follow_the_state_in_the_players_colours() -> None:
    state = load_game("tic_tac_toe", 2).new_initial_state(0)
    for action in ("place(a1)", "place(b2)", "place(c3)"):
        state.apply_action(action)
    picture = draw(state, None)
    marks: list[Shape] = [s for s in picture.shapes if s.layer == "marks"]
    assert [(s.props["text"], s.props["fill"]) for s in marks] == [
        ("X", "#c0392b"),
        ("O", "#2471a3"),
        ("X", "#c0392b"),
    ]
    cells = [s.props["ref"] for s in picture.shapes if s.layer == "cells"]
    assert cells == ["a1", "b1", "c1", "a2", "b2", "c2", "a3", "b3", "c3"]
    assert _texts(picture, "status") == ["P2 to play (O)"]


def test_a_u_track_goes_down_along_and_up() -> None:
    """13 spaces with legs of 5: down the left, 3 along the bottom, up the right."""
    places = [_place("u", i, 13, 5) for i in range(13)]
    assert places[:5] == [(0, 0), (0, 1), (0, 2), (0, 3), (0, 4)]
    assert places[5:8] == [(1, 4), (2, 4), (3, 4)]
    assert places[8:] == [(4, 4), (4, 3), (4, 2), (4, 1), (4, 0)]


def test_a_tile_turns_its_printed_sides_by_its_rotation() -> None:
    """The El Caballero start card is drawn as four triangles; a turned card moves its land side."""
    state = load_game("el_caballero", 2).new_initial_state(1)
    picture = draw(state, None)
    triangles = [s for s in picture.shapes if s.layer == "areas" and s.kind == "polygon"]
    assert len(triangles) == 4 * sum(1 for r in state.fields[("game", "map")].values() if r["kind"] == "area")


@pytest.mark.parametrize(
    ("ruleset", "players", "modules"),
    [
        ("tic_tac_toe", 2, ()),
        ("el_capitan", 2, ()),
        ("el_capitan", 4, ("porto", "lisboa", "islas_canarias")),
        ("el_caballero", 3, ()),
    ],
)
def test_shipped_views_draw_every_state_of_random_games_without_errors(
    ruleset: str, players: int, modules: tuple[str, ...]
) -> None:
    """Every seat's picture and the spectator's, every few actions of two random games."""
    game = load_game(ruleset, players, modules)
    for seed in (1, 2):
        state = game.new_initial_state(seed)
        rng = random.Random(seed)
        moves = 0
        while True:
            if moves % 23 == 0 or state.is_terminal():
                for seat in (None, *range(players)):
                    picture = draw(state, seat)
                    assert picture.errors == (), (seed, moves, seat)
                    assert picture.shapes
            if state.is_terminal() or moves >= 400:
                break
            state.apply_action(rng.choice(state.legal_actions()))
            moves += 1


@pytest.mark.parametrize("seat", [None, 0, 1])
def test_the_picture_masks_exactly_what_the_engines_view_hides(
    write_ruleset: Callable[..., Path], seat: int | None
) -> None:
    """masked_fields agrees with State.view: the same fields are hidden from the same seat."""
    state = _state(write_ruleset)
    masked = masked_fields(state, seat)
    view = state.view(seat)
    for (owner, name), value in state.fields.items():
        if owner == "_":
            continue
        key = f"P{owner + 1}.{name}" if isinstance(owner, int) else f"{owner}.{name}"
        hidden = isinstance(view[key], dict) and set(view[key]) == {"hidden"} and value != view[key]
        assert (masked[(owner, name)] != value) == hidden, key


def test_an_endless_view_expression_is_stopped_by_the_step_budget(write_ruleset: Callable[..., Path]) -> None:
    """A layer that loops too long is reported like any failing layer; the picture is still drawn."""
    text = HIDDEN.replace(
        "    - name: broken\n",
        "    - name: huge\n"
        '      text: {x: 1, y: 1, text: "count(j for i in between(0, 3000) for j in between(0, 3000))"}\n'
        "    - name: broken\n",
    )
    state = load_game(str(write_ruleset(text)), 2).new_initial_state(0)
    picture = draw(state, 0)
    assert any("layer 'huge'" in e and "steps" in e for e in picture.errors)
    assert _texts(picture, "deck")


def test_a_view_size_that_is_none_is_refused_at_check_and_never_breaks_a_drawing(tmp_path: Path) -> None:
    """Found by the security campaign: `height: none` passed the check, and `render` and
    `replay --html` then stopped with a traceback (exit 3)."""
    import shutil

    from rulekit.cli import main
    from rulekit.rules.compose import find_ruleset
    from rulekit.tools.view import compile_view
    from rulekit.tools.view.drawing import FALLBACK_SIZE, _Drawer

    copy = tmp_path / "ttt"
    shutil.copytree(find_ruleset("tic_tac_toe"), copy)
    rules = copy / "ruleset.yaml"
    rules.write_text(rules.read_text(encoding="utf-8").replace("  height: 362\n", "  height: none\n"))
    assert main(["render", str(copy), "-o", str(tmp_path / "x.svg")]) == 1
    # a size that fails when drawn is reported with the picture, which is drawn at a fallback size
    state = load_game("tic_tac_toe", 2).new_initial_state(0)
    view = compile_view(state.game.program)
    assert view is not None
    drawer = _Drawer(state, view, None)
    drawer.value = lambda attr, *args, default=None: None  # type: ignore[method-assign]
    assert drawer.size(view.height, "height") == FALLBACK_SIZE
    assert drawer.errors and "the view's height" in drawer.errors[0]
