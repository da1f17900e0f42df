"""Cards drawn as cards from a view's ``cards:`` template (face down where the seat may not
see them), the ``legend:`` under the picture, and the default view's cards and legend."""

from __future__ import annotations

import xml.etree.ElementTree as ET
from collections.abc import Callable
from pathlib import Path

import pytest

from rulekit.engine.game import State
from rulekit.errors import RulesetError
from rulekit.load import load_game
from rulekit.tools.svg import to_svg
from rulekit.tools.view import Picture, draw

SVG = "{http://www.w3.org/2000/svg}"

CARDS = """\
ruleset: cards
players: {min: 2, max: 2}
components:
  card:
    attributes: {name: str, power: int, cost: int}
    items:
      - {id: ace, name: Ace, power: 11, cost: 3}
      - {id: two, name: Two, power: 2, cost: 1}
      - {id: six, name: Six, power: 6, cost: 2}
      - {id: ten, name: Ten, power: 10, cost: 4}
state:
  game:
    deck: {type: "list[card]", initial: "[cards.six]", visibility: hidden}
  player:
    hand:
      type: "list[card]"
      visibility: owner
      initial: "[cards.ace, cards.two] if seat(me) == 1 else [cards.ten]"
actions:
  go: {ends_turn: true}
flow:
  - turn: player_at(1)
view:
  width: 300
  height: 160
  cards:
    card: {w: 40, h: 50, title: card.name, value: card.power, lines: "[concat('cost ', card.cost)]",
           fill: "'#fdebd0' if card.power > 9 else '#ffffff'", back: "#123456"}
  legend:
    - {colour: P1, shape: circle, text: "the first player"}
    - {colour: P3, shape: circle, text: "a third player"}
    - {colour: "#123456", shape: card, text: "a card you cannot see"}
  layers:
    - name: hands
      each: players
      as: p
      track: {x: 10, y: "seat(p) * 60 - 50", items: p.hand, as: c, shape: card, step: 44, stroke: p, ref: c}
    - name: deck
      stack: {x: 200, y: 20, items: game.deck, as: c, shape: card}
"""


def _state(write_ruleset: Callable[..., Path], text: str = CARDS) -> State:
    return load_game(str(write_ruleset(text)), 2).new_initial_state(0)


def _layer(picture: Picture, layer: str, kind: str) -> list[dict[str, object]]:
    return [dict(s.props) for s in picture.shapes if s.layer == layer and s.kind == kind]


def test_a_seat_sees_its_own_cards_face_up_with_title_value_and_lines(
    write_ruleset: Callable[..., Path],
) -> None:
    picture = draw(_state(write_ruleset), 0)
    texts = [t["text"] for t in _layer(picture, "hands", "text")]
    assert texts == ["Ace", "11", "cost 3", "Two", "2", "cost 1"]  # P2's Ten is not among them
    frames = _layer(picture, "hands", "rect")
    assert [f["fill"] for f in frames] == ["#fdebd0", "#ffffff", "#123456"]  # the colour from a field
    assert [f["w"] for f in frames] == [40, 40, 40] and [f["h"] for f in frames] == [50, 50, 50]
    assert [f.get("ref") for f in frames] == ["ace", "two", None]


def test_cards_the_seat_may_not_see_are_face_down_and_tell_nothing(
    write_ruleset: Callable[..., Path],
) -> None:
    state = _state(write_ruleset)
    for seat, own in ((1, 1), (None, 0)):
        picture = draw(state, seat)
        texts = [str(t["text"]) for t in _layer(picture, "hands", "text")]
        assert texts == (["Ten", "10", "cost 4"] if own else [])
        backs = [f for f in _layer(picture, "hands", "rect") if f["fill"] == "#123456"]
        assert len(backs) == (2 if seat == 1 else 3) and all("ref" not in f for f in backs)
        svg = to_svg(picture)
        for secret in ("Ace", "Two", "cost 3", "Six") + (("Ten",) if seat is None else ()):
            assert secret not in svg
    deck = _layer(draw(state, 0), "deck", "rect")
    assert [f["fill"] for f in deck] == ["#123456"]  # the hidden deck: one card back


def test_the_legend_is_drawn_under_the_picture_without_seats_the_game_lacks(
    write_ruleset: Callable[..., Path],
) -> None:
    picture = draw(_state(write_ruleset), 0)
    assert [(e.shape, e.text) for e in picture.legend] == [
        ("circle", "the first player"),
        ("card", "a card you cannot see"),
    ]
    assert picture.legend[0].colour == "#c0392b"  # P1's colour, resolved
    root = ET.fromstring(to_svg(picture))
    group = next(g for g in root.iter(f"{SVG}g") if g.get("id") == "legend")
    assert [t.text for t in group.iter(f"{SVG}text")] == ["the first player", "a card you cannot see"]
    assert float(root.get("height") or 0) > picture.height  # the legend adds its rows
    assert all(float(t.get("y") or 0) > picture.height for t in group.iter(f"{SVG}text"))


def test_legend_text_is_escaped(write_ruleset: Callable[..., Path]) -> None:
    text = CARDS.replace('"the first player"', '"<script>alert(1)</script>"')
    svg = to_svg(draw(_state(write_ruleset, text), 0))
    assert "<script>" not in svg and "&lt;script&gt;" in svg


@pytest.mark.parametrize(
    ("change", "message"),
    [
        (("cards:\n    card:", "cards:\n    crad:"), "'crad' is no component kind"),
        (('back: "#123456"', 'bakc: "#123456"'), "unknown card key 'bakc'"),
        (
            ("items: game.deck, as: c, shape: card", "items: '[1, 2]', as: c, shape: card"),
            "shape: card draws",
        ),
        (("w: 40,", "w: 'card.power',"), "a card's 'w' is a number"),
        (('shape: card, text: "a card', 'shape: hexagon, text: "a card'), "a legend shape is one of"),
        (("colour: P1,", "colour: '#zz',"), "a legend colour"),
    ],
)
def test_bad_cards_and_legends_are_reported_at_their_position(
    write_ruleset: Callable[..., Path], change: tuple[str, str], message: str
) -> None:
    assert change[0] in CARDS
    with pytest.raises(RulesetError) as raised:
        state = _state(write_ruleset, CARDS.replace(*change))
        draw(state, 0)
    text = str(raised.value)
    assert message in text and "ruleset.yaml:" in text


DEFAULT = CARDS.split("view:")[0]


def test_the_default_view_draws_components_as_cards_from_their_fields_and_a_player_legend(
    write_ruleset: Callable[..., Path],
) -> None:
    state = _state(write_ruleset, DEFAULT)
    picture = draw(state, 0)
    texts = [str(t["text"]) for t in _layer(picture, "P1.hand", "text")]
    assert texts[:4] == ["hand: 2", "ace", "name Ace", "power 11"]
    assert "ten" not in " ".join(str(t["text"]) for s in ("P2.hand",) for t in _layer(picture, s, "text"))
    assert [e.text for e in picture.legend] == ["P1 (you)", "P2"]
    assert [e.colour for e in picture.legend] == ["#c0392b", "#2471a3"]


@pytest.mark.parametrize("ruleset", ["royal_letter", "kuhn_poker", "fireworks"])
def test_the_shipped_card_games_draw_their_hands_as_cards(ruleset: str) -> None:
    game = load_game(ruleset, 2)
    state = game.new_initial_state(3)
    while not state.is_terminal() and state.moves() < 2:
        state.apply_action(state.legal_actions()[0])
    picture = draw(state, 0)
    hands = _layer(picture, "hands", "rect")
    backs = [
        f
        for f in hands
        if f["w"] == hands[0]["w"] and f.get("title") in ("a hidden card", "a card you cannot see")
    ]
    assert hands and backs  # the other's (or, in Fireworks, one's own) cards are backs
    assert all(f["h"] > f["w"] for f in hands)  # cards, taller than wide: not the old square boxes
    assert not picture.errors
    assert picture.legend
