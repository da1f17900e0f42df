"""rulekit serve: the game session behind the page, and its HTTP interface on 127.0.0.1."""

from __future__ import annotations

import json
import sys
import urllib.error
import urllib.request
from collections.abc import Callable
from pathlib import Path
from typing import Any

import pytest

from rulekit.cli import main
from rulekit.load import load_game
from rulekit.tools.bots import FirstLegalBot, make_bots
from rulekit.tools.log import replay
from rulekit.tools.serve import TOKEN_HEADER, Session
from tests.view.conftest import need_web


def _session(
    tmp_path: Path, ruleset: str = "tic_tac_toe", players: int = 2, humans: frozenset[int] = frozenset({0})
) -> Session:
    game = load_game(ruleset, players)
    bots: list[Any] = [FirstLegalBot() for _ in range(players)]
    return Session(game, 0, set(humans), bots, str(tmp_path / "game.jsonl"))


def test_a_human_action_is_answered_by_the_bots_and_logged(tmp_path: Path) -> None:
    session = _session(tmp_path)
    assert session.act(0, "place(b2)") == {"ok": True}
    assert session.state.value("b2", "mark") == 0
    assert session.state.value("a1", "mark") == 1  # the bot took the first free cell
    saved = (tmp_path / "game.jsonl").read_text(encoding="utf-8").splitlines()
    assert [json.loads(line).get("action") for line in saved[1:3]] == ["place(b2)", "place(a1)"]
    assert replay(tmp_path / "game.jsonl").state_hash() == session.state.state_hash()


def test_a_rejected_action_is_explained_with_the_rule_and_changes_nothing(tmp_path: Path) -> None:
    session = _session(tmp_path, "el_capitan", 2)
    before = session.state.state_hash()
    result = session.act(0, "take_loan(10)")
    assert result["ok"] is False
    assert "no loans in the first round of the game [§4.5, R1]" in result["error"]
    assert "ruleset.yaml:" in result["error"]
    assert session.state.state_hash() == before


def test_only_the_seat_on_turn_may_act_and_nonsense_is_refused(tmp_path: Path) -> None:
    session = _session(tmp_path, humans=frozenset({0, 1}))
    assert session.act(1, "place(a1)") == {"ok": False, "error": "it is P1's turn, not P2's"}
    assert "cannot read action" in session.act(0, "place(((")["error"]
    assert "unknown action 'jump'" in session.act(0, "jump")["error"]
    assert "at most 500 characters" in session.act(0, "x" * 501)["error"]


def test_clicking_a_taken_cell_explains_why_nothing_can_be_done_there(tmp_path: Path) -> None:
    session = _session(tmp_path)
    session.act(0, "place(b2)")
    result = session.explain_ref(0, "b2")
    assert "place(b2) is not legal: b2 is not a possible 'cell' now" in result["error"]


def test_the_snapshot_offers_the_legal_actions_with_their_board_refs(tmp_path: Path) -> None:
    session = _session(tmp_path)
    snap = session.snapshot(0)
    assert snap["your_turn"] is True and snap["seat"] == "P1"
    assert [a["text"] for a in snap["legal"]][:2] == ["place(a1)", "place(b1)"]
    assert snap["legal"][0]["refs"] == ["a1"]
    assert 'data-ref="a1"' in snap["svg"]


def test_two_people_each_see_their_own_view_and_options_in_turn(tmp_path: Path) -> None:
    """Two people, each at her own page: after P1 acts, P2 has the options and P1 none."""
    session = _session(tmp_path, "el_caballero", 2, frozenset({0, 1}))
    assert session.snapshot(0)["seat"] == "P1" and session.snapshot(1)["legal"] == []
    session.act(0, session.snapshot(0)["legal"][0]["text"])
    snap = session.snapshot(1)
    assert snap["seat"] == "P2" and snap["your_turn"] and not session.snapshot(0)["your_turn"]


def test_a_spectator_sees_no_hand_and_has_no_options(tmp_path: Path) -> None:
    session = _session(tmp_path, "royal_letter", 2)
    snap = session.snapshot(None)
    assert snap["seat"] is None and snap["legal"] == [] and snap["scores"] == [None, None]


def _get(url: str, token: str) -> Any:
    request = urllib.request.Request(url, headers={TOKEN_HEADER: token})
    with urllib.request.urlopen(request, timeout=10) as response:
        return json.loads(response.read())


def _post(url: str, body: dict[str, Any], token: str) -> Any:
    headers = {"Content-Type": "application/json", TOKEN_HEADER: token}
    request = urllib.request.Request(url, data=json.dumps(body).encode(), headers=headers, method="POST")
    with urllib.request.urlopen(request, timeout=10) as response:
        return json.loads(response.read())


def test_the_web_app_plays_a_whole_game_over_http(tmp_path: Path, serve: Callable[[Any], str]) -> None:
    """Starlette + uvicorn on a free port of 127.0.0.1: play until the end through the API."""
    game = load_game("tic_tac_toe", 2)
    session = Session(game, 0, {0}, make_bots(game, "random", 5), str(tmp_path / "web.jsonl"))
    url = serve(session)
    token = session.seat_tokens[0]
    with urllib.request.urlopen(f"{url}?token={token}", timeout=10) as response:
        page = response.read().decode()
    assert "<title>Tic-tac-toe · rulekit</title>" in page
    for _ in range(9):
        snap = _get(url + "api/state", token)
        if snap["terminal"]:
            break
        move = {"action": snap["legal"][0]["text"], "seat": "P1"}
        assert _post(url + "api/act", move, token) == {"ok": True}
    snap = _get(url + "api/state", token)
    assert snap["terminal"] and snap["standings"]
    assert replay(tmp_path / "web.jsonl").state_hash() == session.state.state_hash()


def test_the_web_app_answers_only_to_local_host_names(tmp_path: Path, serve: Callable[[Any], str]) -> None:
    """A page on another site cannot reach the game through DNS rebinding."""
    session = _session(tmp_path)
    url = serve(session)
    headers = {"Host": "attacker.example", TOKEN_HEADER: session.seat_tokens[0]}
    request = urllib.request.Request(url + "api/state", headers=headers)
    try:
        urllib.request.urlopen(request, timeout=10)
        raise AssertionError("a foreign Host header was accepted")
    except urllib.error.HTTPError as error:
        assert error.code == 400


def test_serve_without_the_web_extra_says_how_to_install_it(
    monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    monkeypatch.setitem(sys.modules, "starlette", None)  # import starlette now raises ImportError
    assert main(["serve", "tic_tac_toe", "--port", "0"]) == 2
    err = capsys.readouterr().err
    assert "rulekit serve needs the web extra (Starlette and uvicorn)" in err
    assert "pip install 'rulekit[web]'" in err


def test_serve_refuses_a_seat_that_does_not_exist(capsys: pytest.CaptureFixture[str], tmp_path: Path) -> None:
    need_web()
    assert main(["serve", "tic_tac_toe", "--human", "3", "--log", str(tmp_path / "x.jsonl")]) == 2
    assert "--human takes a seat from 1 to 2" in capsys.readouterr().err


def test_the_web_app_refuses_moves_posted_by_other_sites(tmp_path: Path, serve: Callable[[Any], str]) -> None:
    """A form on another site can post to 127.0.0.1: without JSON, or from a foreign origin, it is refused."""
    session = _session(tmp_path)
    url = serve(session) + "api/act"
    token = {TOKEN_HEADER: session.seat_tokens[0]}
    body = json.dumps({"action": "place(b2)", "seat": "P1"}).encode()
    attempts = [
        ({**token, "Content-Type": "text/plain"}, 415),
        ({**token, "Content-Type": "application/json", "Origin": "http://attacker.example"}, 403),
    ]
    for headers, code in attempts:
        request = urllib.request.Request(url, data=body, headers=headers, method="POST")
        try:
            urllib.request.urlopen(request, timeout=10)
            raise AssertionError(f"{headers} was accepted")
        except urllib.error.HTTPError as error:
            assert error.code == code
    assert session.state.moves() == 0
    local = {**token, "Content-Type": "application/json", "Origin": url.rsplit("/api", 1)[0]}
    request = urllib.request.Request(url, data=body, headers=local, method="POST")
    with urllib.request.urlopen(request, timeout=10) as response:
        assert json.loads(response.read()) == {"ok": True}


def test_the_page_shows_only_the_seat_of_its_token(tmp_path: Path, serve: Callable[[Any], str]) -> None:
    """A bot's seat sees its own hidden hand: asking for its picture is refused, acting for it too."""
    session = _session(tmp_path, "royal_letter", 3)
    url = serve(session)
    token = session.seat_tokens[0]
    assert _get(url + "api/state?seat=P1", token)["seat"] == "P1"
    for seat in ("P2", "P3"):
        try:
            _get(url + f"api/state?seat={seat}", token)
            raise AssertionError(f"the picture of {seat} (a bot) was shown")
        except urllib.error.HTTPError as error:
            assert error.code == 403
            assert f"neither shows nor plays {seat}" in json.loads(error.read())["error"]
    assert session.act(1, "discard") == {"ok": False, "error": "P2 is played by a bot, not by a person"}


FRAGILE = """\
ruleset: fragile
players: {min: 2, max: 2}
state:
  game:
    n: {type: int}
    m: {type: int}
actions:
  go:
    effect: |
      game.n += 1
      game.m = 10 // (2 - game.n)
    ends_turn: true
flow:
  - repeat:
      times: 5
      steps:
        - turn: player_at(1)
        - turn: player_at(2)
view:
  width: 50
  height: 20
  layers:
    - text: {x: 1, y: 15, text: game.n}
"""


def test_a_bots_action_that_breaks_a_rule_is_reported_not_a_server_error(
    tmp_path: Path, write_ruleset: Callable[..., Path]
) -> None:
    """The second 'go' divides by zero: the person is told, the log keeps what was played."""
    game = load_game(str(write_ruleset(FRAGILE)), 2)
    session = Session(game, 0, {0}, [FirstLegalBot(), FirstLegalBot()], str(tmp_path / "f.jsonl"))
    result = session.act(0, "go")
    assert result["ok"] is False
    assert result["error"].startswith("your action was played, but a bot's failed: ")
    assert "ZeroDivisionError" in result["error"]
    assert session.state.moves() == 1 and session.snapshot(0)["moves"] == 1
    saved = (tmp_path / "f.jsonl").read_text(encoding="utf-8").splitlines()
    assert [json.loads(line).get("action") for line in saved[1:2]] == ["go"]


def test_each_seat_downloads_the_log_of_what_it_saw_and_no_other(
    tmp_path: Path, serve: Callable[[Any], str]
) -> None:
    session = _session(tmp_path, "royal_letter", 2, humans=frozenset({0, 1}))
    url = serve(session)
    seat = session.state.current_player()
    action = session.snapshot(seat)["legal"][0]["text"]
    assert session.act(seat, action)["ok"] is True
    request = urllib.request.Request(url + "api/log", headers={TOKEN_HEADER: session.seat_tokens[seat]})
    with urllib.request.urlopen(request, timeout=10) as response:
        assert response.headers["Content-Type"].startswith("application/x-ndjson")
        lines = [json.loads(line) for line in response.read().decode().splitlines()]
    assert lines[0]["seat"] == f"P{seat + 1}" and "seed" not in lines[0]
    assert lines[1]["action"] == action and "saw" in lines[1]
    other = 1 - seat
    assert set(lines[1]["saw"][f"P{other + 1}.hand"]) == {"hidden"}
    referee = (tmp_path / "game.jsonl").read_text(encoding="utf-8").splitlines()
    assert json.loads(referee[0])["referee"] is True
    try:
        _get(url + f"api/log?seat=P{other + 1}", session.seat_tokens[seat])
        raise AssertionError("a seat downloaded another seat's log")
    except urllib.error.HTTPError as error:
        assert error.code == 403
