"""SVG output: well-formed XML with the expected elements, and byte-for-byte golden pictures.

Update the golden files after an intended change with ``pytest tests/view --update-goldens``
and look at them (any browser opens an SVG) before committing.
"""

from __future__ import annotations

import xml.etree.ElementTree as ET
from collections.abc import Callable
from pathlib import Path

import pytest

from rulekit.engine.game import State
from rulekit.load import load_game
from rulekit.tools.bots import FirstLegalBot
from rulekit.tools.svg import to_svg
from rulekit.tools.view import caption, draw

GOLDEN = Path(__file__).parent / "golden"
SVG = "{http://www.w3.org/2000/svg}"


def _played(ruleset: str, players: int, actions: int, modules: tuple[str, ...] = (), seed: int = 3) -> State:
    state = load_game(ruleset, players, modules).new_initial_state(seed)
    bot = FirstLegalBot()
    for _ in range(actions):
        if state.is_terminal():
            break
        state.apply_action(bot.choose(state))
    return state


SHAPES = str(Path(__file__).parent / "data" / "shapes")
# The games' pictures are taken right after set-up, so that a change to a game's rules rarely
# changes them; the shapes ruleset draws every kind of shape once.
CASES = {
    "shapes": lambda: (_played(SHAPES, 2, 0), None),
    "tic_tac_toe_after_4": lambda: (_played("tic_tac_toe", 2, 4), None),
    "el_capitan_3p": lambda: (_played("el_capitan", 3, 0), None),
    "el_capitan_with_modules": lambda: (
        _played("el_capitan", 2, 0, ("porto", "lisboa", "islas_canarias")),
        None,
    ),
    "el_caballero_as_p1": lambda: (_played("el_caballero", 3, 0), 0),
}


def _svg(case: str) -> str:
    state, seat = CASES[case]()
    return to_svg(draw(state, seat), caption=caption(state, seat))


@pytest.mark.parametrize("case", sorted(CASES))
def test_svg_matches_its_golden_file(case: str, update_goldens: bool) -> None:
    text = _svg(case)
    path = GOLDEN / f"{case}.svg"
    if update_goldens:
        path.write_text(text, encoding="utf-8")
    assert path.read_text(encoding="utf-8") == text, f"{path} differs; see the module docstring"


@pytest.mark.parametrize("case", sorted(CASES))
def test_svg_is_well_formed_xml_with_a_layer_group_per_drawn_layer(case: str) -> None:
    root = ET.fromstring(_svg(case))
    assert root.tag == f"{SVG}svg"
    groups = [g.get("id") for g in root.iter(f"{SVG}g") if g.get("id") != "legend"]
    assert groups and all(g and g.startswith("layer-") for g in groups)
    assert len(groups) == len(set(groups))
    assert root.find(f"{SVG}text[@class='view-error']") is None


def test_tic_tac_toe_svg_has_nine_cells_and_the_marks_of_the_state() -> None:
    state = _played("tic_tac_toe", 2, 4)
    root = ET.fromstring(to_svg(draw(state)))
    cells = root.findall(f".//{SVG}rect[@class='layer-cells']")
    assert sorted(c.get("data-ref") or "" for c in cells) == sorted(
        ["a1", "b1", "c1", "a2", "b2", "c2", "a3", "b3", "c3"]
    )
    marks = [t.text for t in root.findall(f".//{SVG}text[@class='layer-marks']")]
    marked = [
        c
        for c in ("a1", "b1", "c1", "a2", "b2", "c2", "a3", "b3", "c3")
        if state.value(c, "mark") is not None
    ]
    assert len(marks) == len(marked) == 4


def test_el_capitan_svg_draws_every_city_with_its_track_harbor_and_fortresses() -> None:
    state = _played("el_capitan", 3, 25, ("porto",))
    root = ET.fromstring(to_svg(draw(state)))
    cities = root.findall(f".//{SVG}rect[@class='layer-cities']")
    assert len(cities) == 10
    assert len(root.findall(f".//{SVG}rect[@class='layer-tracks']")) == 13 * 10
    harbors = root.findall(f".//{SVG}circle[@class='layer-harbors']")
    assert len(harbors) == 9 * 2 + 3  # Porto has three harbor spaces
    route_cards = root.findall(f".//{SVG}rect[@class='layer-route_cards']")
    assert [c.get("data-ref") for c in route_cards] == list(state.value("game", "route_display"))


def test_the_pirate_ship_is_drawn_only_with_islas_canarias() -> None:
    with_pirate = ET.fromstring(to_svg(draw(_played("el_capitan", 2, 5, ("islas_canarias",)))))
    without = ET.fromstring(to_svg(draw(_played("el_capitan", 2, 5))))
    assert len(with_pirate.findall(f".//{SVG}circle[@class='layer-pirate']")) == 1
    assert without.findall(f".//{SVG}circle[@class='layer-pirate']") == []


def test_el_caballero_shows_the_own_hand_only_in_the_seats_picture() -> None:
    state = _played("el_caballero", 3, 30)
    mine = ET.fromstring(to_svg(draw(state, 0)))
    spectator = ET.fromstring(to_svg(draw(state, None)))
    hand = [r.get("data-ref") for r in mine.findall(f".//{SVG}rect[@class='layer-own_hand']")]
    assert hand == [str(v) for v in state.value(0, "hand")]
    assert spectator.findall(f".//{SVG}rect[@class='layer-own_hand']") == []
    caballeros = mine.findall(f".//{SVG}rect[@class='layer-caballero_cards']")
    on_map = [r for r in state.value("game", "map").values() if r["kind"] == "caballero"]
    assert len(caballeros) == len(on_map)


MARKUP = """\
ruleset: markup
title: "A <b>bold</b> & \\"quoted\\" title"
players: {min: 2, max: 2}
state:
  game:
    n: {type: int}
actions:
  go: {effect: game.n += 1, ends_turn: true}
flow:
  - turn: player_at(1)
view:
  width: 100
  height: 50
  layers:
    - name: words
      text: {x: 1, y: 20, text: "'<script>alert(1)</script> & \\"q\\"'", title: "'a </title> title'"}
    - name: box
      rect: {x: 1, y: 30, w: 9, h: 9, ref: "'\\"><img src=x>'", label: "'<&>'"}
"""


def test_text_from_the_rules_is_escaped_in_the_svg(write_ruleset: Callable[..., Path]) -> None:
    """Markup in titles, texts, labels and refs stays text: the SVG parses and shows it as written."""
    state = load_game(str(write_ruleset(MARKUP)), 2).new_initial_state(0)
    text = to_svg(draw(state), caption="<caption> & more")
    root = ET.fromstring(text)
    assert root.find(f"{SVG}script") is None and "<script>" not in text and "<img" not in text
    words = root.find(f".//{SVG}text[@class='layer-words']")
    assert words is not None
    assert "".join(words.itertext()).endswith('<script>alert(1)</script> & "q"')
    assert words.find(f"{SVG}title") is not None and words.find(f"{SVG}title").text == "a </title> title"
    box = root.find(f".//{SVG}rect[@class='layer-box']")
    assert box is not None and "><img src=x>" in (box.get("data-ref") or "")  # an attribute value
    assert (
        root.find(f"{SVG}title") is not None
        and root.find(f"{SVG}title").text == 'A <b>bold</b> & "quoted" title'
    )
