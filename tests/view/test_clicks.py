"""Actions built by clicks: a view's ``bind:``/``controls:`` checked like the rest of the view, the
shapes' ``data-bind``, and what ``/api/choose`` answers from the legal-action listing."""

from __future__ import annotations

import json
import re
import urllib.error
import urllib.request
from collections.abc import Callable
from pathlib import Path
from typing import Any

import pytest

from rulekit.errors import RulesetError
from rulekit.load import load_game, load_program
from rulekit.tools.bots import FirstLegalBot, RandomBot
from rulekit.tools.serve import TOKEN_HEADER, Session
from rulekit.tools.svg import to_svg
from rulekit.tools.view import compile_view, draw

BASE = """\
ruleset: pic
players: {min: 2, max: 2}
state:
  game:
    n: {type: int}
actions:
  go:
    params: {k: "between(1, 3)"}
    effect: game.n += k
    ends_turn: true
flow:
  - turn: player_at(1)
"""
HEAD = "view:\n  width: 10\n  height: 10\n  layers:\n"
Writer = Callable[..., Path]


def _errors(path: Path) -> str:
    with pytest.raises(RulesetError) as caught:
        compile_view(load_program(str(path)))
    return caught.value.render()


def test_a_binding_to_an_unknown_action_or_parameter_is_located_with_a_hint(write_ruleset: Writer) -> None:
    layers = (
        "    - rect: {x: 1, y: 1, w: 2, h: 2, ref: game.n, bind: [goo.k]}\n"
        "    - rect: {x: 1, y: 1, w: 2, h: 2, ref: game.n, bind: go.kk}\n"
    )
    text = _errors(write_ruleset(BASE + HEAD + layers))
    assert re.search(r"ruleset\.yaml:17:\d+: error: binds unknown action 'goo'", text)
    assert "did you mean 'go'?" in text
    assert re.search(
        r"ruleset\.yaml:18:\d+: error: action 'go' has no parameter 'kk' \(its parameters: k\)", text
    )
    assert "did you mean 'k'?" in text


def test_a_control_for_an_unknown_parameter_and_a_bind_without_ref_are_errors(write_ruleset: Writer) -> None:
    view = HEAD.replace("  layers:\n", "  controls: {go.j: 'how many'}\n  layers:\n")
    text = _errors(
        write_ruleset(BASE + view + "    - rect: {x: 1, y: 1, w: 2, h: 2, ref: game.n, bind: go.k}\n")
    )
    assert re.search(r"ruleset\.yaml:16:\d+: error: action 'go' has no parameter 'j'", text)
    text = _errors(write_ruleset(BASE + HEAD + "    - rect: {x: 1, y: 1, w: 2, h: 2, bind: go.k}\n"))
    assert "'bind' without expressions binds the shape's 'ref': give it one" in text


def test_a_bound_shape_carries_what_a_click_chooses(write_ruleset: Writer) -> None:
    layer = "    - rect: {x: 1, y: 1, w: 2, h: 2, bind: {go.k: 'game.n + 2', action: \"'go'\"}}\n"
    program = load_program(str(write_ruleset(BASE + HEAD + layer)))
    svg = to_svg(draw(load_game_of(program).new_initial_state(0), 0))
    found = re.search(r'data-bind="([^"]*)"', svg)
    assert found is not None
    assert json.loads(found.group(1).replace("&#34;", '"')) == {"action": "go", "go.k": "2"}


def load_game_of(program: Any) -> Any:
    from rulekit.engine.game import Game

    return Game(program, 2)


def _session(tmp_path: Path, ruleset: str, players: int, bots: list[Any] | None = None) -> Session:
    bots = bots or [FirstLegalBot() for _ in range(players)]
    return Session(load_game(ruleset, players), 1, {0}, bots, str(tmp_path / "game.jsonl"))


def test_clicks_narrow_the_legal_actions_to_one_which_is_then_played_at_once(tmp_path: Path) -> None:
    session = _session(tmp_path, "el_caballero", 3)
    assert session.choose(0, [{"play_power.value": "7"}])["auto"] is True
    session.act(0, "play_power(7)")
    legal = session.state.legal_action_strings()
    first = session.choose(0, [])
    assert first["choices"] == [] and first["preview"] is None
    assert {c["text"] for c in first["candidates"]} == set(legal)
    card = first["open"]["place_area.card"][0]
    answer = session.choose(0, [{"place_area.card": card}])
    texts = [a for a in legal if a.startswith(f"place_area({card},")]
    assert [c["text"] for c in answer["candidates"]] == texts
    assert answer["rules"][0]["action"] == "place_area" and answer["rules"][0]["cite"] == "§6.2, §3.3"
    rotation = answer["controls"][0]
    assert rotation["target"] == "place_area.rotation" and rotation["label"].startswith("turn the card")
    cell = answer["candidates"][0]["pairs"]["place_area.cell"]
    partial = session.choose(0, [{"place_area.card": card}, {"place_area.cell": cell}])
    assert partial["preview"]["text"] == answer["candidates"][0]["text"]
    assert "<svg" in partial["preview"]["svg"] and partial["complete"] in (None, partial["preview"]["text"])
    values = [c["pairs"]["place_area.rotation"] for c in partial["candidates"]]
    done = session.choose(
        0, [{"place_area.card": card}, {"place_area.cell": cell}, {"place_area.rotation": values[-1]}]
    )
    assert done["complete"] == f"place_area({card}, {cell}, {values[-1]})" and done["auto"] is True


def test_a_click_that_fits_no_legal_action_is_refused_with_the_rule_and_its_citation(tmp_path: Path) -> None:
    bots: list[Any] = [RandomBot(i) for i in range(3)]
    session = _session(tmp_path, "el_caballero", 3, bots)
    mine = RandomBot(9)
    for _ in range(7):  # seed 1, these bots: a state where a display card does not fit a free cell
        session.act(0, session.game.action_to_string(mine.choose(session.state)))
    answer = session.choose(0, [{"place_area.card": "land_06"}, {"place_area.cell": "(-1, -1)"}])
    assert answer["ok"] is True and answer["choices"] == [{"place_area.card": "land_06"}]
    assert (
        "every edge shared with an area card must match, land to land and water to water [§3.3]"
        in (answer["refused"])
    )
    assert "turn_actions.yaml:" in answer["refused"]


def test_a_click_of_the_same_kind_replaces_the_earlier_choice(tmp_path: Path) -> None:
    session = _session(tmp_path, "el_caballero", 3)
    session.act(0, "play_power(7)")
    card = "corner_01"
    cells = session.choose(0, [{"place_area.card": card}])["open"]["place_area.cell"]
    assert len(cells) >= 2
    answer = session.choose(
        0, [{"place_area.card": card}, {"place_area.cell": cells[0]}, {"place_area.cell": cells[1]}]
    )
    assert answer["replaced"] is True
    assert answer["choices"] == [{"place_area.card": card}, {"place_area.cell": cells[1]}]


def test_a_click_on_a_taken_cell_is_refused_and_only_the_seat_on_turn_builds(tmp_path: Path) -> None:
    session = Session(
        load_game("tic_tac_toe", 2), 0, {0, 1}, [FirstLegalBot()] * 2, str(tmp_path / "t.jsonl")
    )
    session.act(0, "place(a1)")
    refused = session.choose(1, [{"place.cell": "a1"}])["refused"]
    assert refused.startswith("place(a1) is not legal: a1 is not a possible 'cell' now")
    assert "[Rules: a turn]" in refused
    assert session.choose(0, []) == {"ok": False, "error": "it is not your turn"}


def _post(url: str, body: Any, token: str, content_type: str = "application/json") -> tuple[int, Any]:
    data = body if isinstance(body, bytes) else json.dumps(body).encode()
    headers = {"Content-Type": content_type, TOKEN_HEADER: token}
    request = urllib.request.Request(url + "api/choose", data=data, headers=headers, method="POST")
    try:
        with urllib.request.urlopen(request, timeout=10) as response:
            return response.status, json.loads(response.read())
    except urllib.error.HTTPError as error:
        return error.code, json.loads(error.read())


def test_the_choose_endpoint_answers_a_seat_and_refuses_everything_else_with_4xx(
    tmp_path: Path, serve: Callable[[Any], str]
) -> None:
    session = _session(tmp_path, "tic_tac_toe", 2)
    url = serve(session)
    token = session.seat_tokens[0]
    status, answer = _post(url, {"choices": [{"place.cell": "b2"}]}, token)
    assert status == 200 and answer["complete"] == "place(b2)"
    assert _post(url, {"choices": []}, "wrong")[0] == 403
    assert _post(url, {"choices": []}, session.session_token)[0] == 403  # a spectator cannot act
    assert _post(url, {"choices": [], "seat": "P2"}, token)[0] == 403
    assert _post(url, {"choices": []}, token, "text/plain")[0] == 415
    for bad in (
        [],
        {"choices": "b2"},
        {"choices": [{}]},
        {"choices": [{"place.cell": 3}]},
        {"choices": [{"place.cell": "x" * 501}]},
        {"choices": [{"place.cell": "b2"}] * 17},
        {"choices": [{f"t{i}": "v" for i in range(33)}]},
    ):
        status, answer = _post(url, bad, token)
        assert status == 400 and answer["ok"] is False, bad
    assert _post(url, b'{"choices": [{"place.cell": "\\ud800"}]}', token)[0] == 400
    status, answer = _post(url, {"choices": [{"nonsense.x": "y", "action": "jump"}]}, token)
    assert status == 200 and "no legal action can be built with y, jump now" in answer["refused"]


def test_a_module_labels_the_controls_of_its_actions(write_ruleset: Writer) -> None:
    module = (
        "module: extra\nactions:\n  more:\n    params: {m: 'between(1, 2)'}\n    effect: game.n += m\n"
        "extend:\n  view:\n    controls: {more.m: 'how much more'}\n"
    )
    path = write_ruleset(BASE + HEAD + "    - rect: {x: 1, y: 1, w: 2, h: 2}\n", modules={"extra": module})
    view = compile_view(load_program(str(path), ["extra"]))
    assert view is not None and view.decl.controls["more.m"].label == "how much more"
    bad = module.replace("controls: {more.m: 'how much more'}", "controls: [more.m]")
    path = write_ruleset(BASE + HEAD + "    - rect: {x: 1, y: 1, w: 2, h: 2}\n", modules={"extra": bad})
    with pytest.raises(RulesetError, match="extend of 'view' takes"):
        load_program(str(path), ["extra"])


def test_choices_that_no_longer_fit_the_state_are_dropped(tmp_path: Path) -> None:
    """A page that still holds the clicks of an earlier turn gets a fresh start, not a dead end."""
    session = _session(tmp_path, "tic_tac_toe", 2)
    session.act(0, "place(b2)")  # the bot took a1
    answer = session.choose(0, [{"place.cell": "b2"}, {"place.cell": "a1"}])
    assert answer["choices"] == [] and "a1 is not a possible 'cell' now" in answer["refused"]
    assert len(answer["candidates"]) == len(session.state.legal_actions())
