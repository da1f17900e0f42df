"""The default view: a ruleset without a ``view`` is drawn from its state model (boards as grids,
lists of numbers as tracks, hands as cards or face-down counts by the information model, the
scores), by render, replay --html and serve alike, through the escaping SVG writer."""

from __future__ import annotations

import random
import xml.etree.ElementTree as ET
from collections.abc import Callable
from pathlib import Path

from rulekit.cli import main
from rulekit.engine.game import State
from rulekit.load import load_game
from rulekit.tools.seat_view import seat_view
from rulekit.tools.svg import to_svg
from rulekit.tools.view import draw
from rulekit.tools.view.default import default_picture

PEEK = str(Path(__file__).resolve().parents[1] / "data" / "peek")
SVG = "{http://www.w3.org/2000/svg}"


def _played(ruleset: str, players: int, moves: int, seed: int = 1) -> State:
    state = load_game(ruleset, players).new_initial_state(seed)
    rng = random.Random(seed)
    for _ in range(moves):
        if state.is_terminal():
            break
        state.apply_action(rng.choice(state.legal_actions()))
    return state


def _texts(svg: str) -> list[str]:
    return [t.text or "" for t in ET.fromstring(svg).iter(f"{SVG}text")]


def test_a_ruleset_without_a_view_is_drawn_by_the_default_view() -> None:
    state = _played(PEEK, 2, 2)
    assert state.game.program.rules.view is None
    picture = draw(state, 0)
    assert picture.errors == ()
    texts = _texts(to_svg(picture))
    assert texts[0] == "Peek"
    assert any(t.startswith("P1 (you) · score") for t in texts)
    assert any(t.startswith("table: ") for t in texts)


def test_a_hand_a_seat_may_not_see_is_face_down_cards_and_one_it_may_see_shows_its_cards() -> None:
    state = _played(PEEK, 2, 2)
    own, other = state.value(0, "hand"), state.value(1, "hand")
    texts = _texts(to_svg(default_picture(state, 0)))
    # P1's hand is visible to the others only: P1 sees a count of face-down cards
    assert f"hand: {len(own)} ({len(own)} face down)" in texts
    elsewhere = {*other, *state.value(0, "secret"), *state.value("game", "table")}
    assert all(str(card) not in texts for card in own if card not in elsewhere)
    # P2's hand is shown to P1 card by card
    assert all(str(card) in texts for card in other)
    # and P2 sees the reverse
    texts = _texts(to_svg(default_picture(state, 1)))
    assert all(str(card) in texts for card in own)
    assert f"hand: {len(other)} ({len(other)} face down)" in texts


def test_the_deck_nobody_sees_is_a_count_for_a_spectator_too() -> None:
    state = _played(PEEK, 3, 0)
    deck = state.value("game", "deck")
    texts = _texts(to_svg(default_picture(state, None)))
    assert f"deck: {len(deck)} ({len(deck)} face down)" in texts
    assert not any(str(card) in texts for card in deck)


def test_a_board_is_a_grid_with_a_disc_of_the_players_colour_per_stone() -> None:
    state = _played("hex", 2, 9)
    picture = default_picture(state, None)
    board = [s for s in picture.shapes if s.layer == "game.board"]
    assert sum(s.kind == "rect" for s in board) == 11 * 11
    discs = [s for s in board if s.kind == "circle"]
    stones = state.value("game", "board")
    assert len(discs) == len(stones) == 9
    assert {d.props["fill"] for d in discs} == {"#c0392b", "#2471a3"}


def test_a_list_of_numbers_is_a_track_of_numbered_boxes() -> None:
    state = _played("nim", 2, 0)
    piles = [s for s in default_picture(state, None).shapes if s.layer == "game.piles"]
    assert [s.props["text"] for s in piles if s.kind == "text"] == ["piles: 4", "1", "3", "5", "7"]


def test_scores_a_seat_may_not_know_show_as_a_question_mark(write_ruleset: Callable[..., Path]) -> None:
    directory = write_ruleset(
        "ruleset: sealed\nplayers: {min: 2, max: 2}\nstate:\n  player:\n"
        "    secret: {type: int, initial: 5, visibility: owner}\n"
        "actions:\n  go: {ends_turn: true}\nflow:\n  - turn: player_at(1)\n"
        "scoring:\n  score: player.secret\n"
    )
    state = load_game(str(directory), 2).new_initial_state(0)
    texts = _texts(to_svg(default_picture(state, 0)))
    assert "P1 (you) · score 5" in texts and "P2 · score ?" in texts
    assert texts.count("hidden") == 1  # P2's secret


def test_text_from_the_rules_is_escaped(write_ruleset: Callable[..., Path]) -> None:
    directory = write_ruleset(
        'ruleset: hostile\ntitle: "<script>alert(1)</script>"\nplayers: {min: 1, max: 1}\n'
        "state:\n  game:\n    note: {type: str, initial: \"'<img src=x onerror=alert(1)>'\"}\n"
        "actions:\n  go: {ends_turn: true}\nflow:\n  - turn: player_at(1)\n"
    )
    svg = to_svg(default_picture(load_game(str(directory), 1).new_initial_state(0)))
    assert "<script" not in svg and "<img" not in svg
    assert "&lt;script&gt;" in svg and "&lt;img src=x" in svg


def test_serve_and_replay_html_draw_a_ruleset_without_a_view(tmp_path: Path) -> None:
    state = _played(PEEK, 2, 3)
    assert seat_view(state, 1).svg().startswith("<svg ")
    log, page = tmp_path / "game.jsonl", tmp_path / "game.html"
    assert main(["play", PEEK, "--quiet", "--seed", "2", "--log", str(log)]) == 0
    assert main(["replay", str(log), "--ruleset", PEEK, "--html", str(page), "--seat", "P1"]) == 0
    assert "P1 (you) \\u00b7 score" in page.read_text(encoding="utf-8")  # the pictures as JSON
