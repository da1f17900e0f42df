"""rulekit serve: undo in games against bots (off in rated play), several people with a token
each, and the hotseat (every person on one device, in turn)."""

from __future__ import annotations

import argparse
import json
from pathlib import Path
from typing import Any

import pytest

from rulekit.load import load_game
from rulekit.tools.bots import make_bots
from rulekit.tools.log import replay
from rulekit.tools.serve import TOKEN_HEADER, BadRequest, Session, make_app, session_from_args
from tests.view.conftest import need_web, web_client


def _session(tmp_path: Path, ruleset: str, humans: set[int], players: int = 2, **options: Any) -> Session:
    game = load_game(ruleset, players)
    return Session(game, 7, humans, make_bots(game, "random", 3), str(tmp_path / "game.jsonl"), **options)


def _play_first(session: Session, seat: int) -> str:
    action = session.snapshot(seat)["legal"][0]["text"]
    assert session.act(seat, action) == {"ok": True}
    return action


def _client(session: Session) -> Any:
    need_web()
    return web_client(make_app(session))


def _post(client: Any, path: str, body: dict[str, Any], token: str) -> Any:
    return client.post(
        path, content=json.dumps(body), headers={TOKEN_HEADER: token, "Content-Type": "application/json"}
    )


def test_undo_takes_back_the_seats_last_action_and_the_bots_replies(tmp_path: Path) -> None:
    """Royal Letter deals and draws by chance: the same seed gives the very state she acted in."""
    session = _session(tmp_path, "royal_letter", {0})
    _play_first(session, 0)
    before = session.state.state_hash()
    moves = session.state.moves()
    shown = session.snapshot(0)
    _play_first(session, 0)
    assert session.state.moves() > moves + 1  # her action and a bot's reply
    count = session.state.moves() - moves
    assert session.undoable(0) == count
    assert session.undo(0) == {"ok": True, "undone": count}
    assert session.state.state_hash() == before and session.state.moves() == moves
    assert session.snapshot(0)["legal"] == shown["legal"]
    assert replay(tmp_path / "game.jsonl").state_hash() == before  # the log is the new game's


def test_undo_counts_what_it_took_back(tmp_path: Path) -> None:
    session = _session(tmp_path, "tic_tac_toe", {0})
    _play_first(session, 0)
    _play_first(session, 0)
    assert session.undoable(0) == 2  # her place and the bot's
    assert session.undo(0) == {"ok": True, "undone": 2}
    assert [p for p, _ in session.recorder.actions] == [0, 1]


def test_undo_with_nothing_of_ones_own_to_take_back_is_a_conflict(tmp_path: Path) -> None:
    session = _session(tmp_path, "tic_tac_toe", {1})  # the bot opens
    assert session.state.moves() == 1 and session.undoable(1) is None
    with pytest.raises(BadRequest) as refused:
        session.undo(1)
    assert refused.value.status == 409
    assert session.state.moves() == 1


def test_undo_never_takes_back_another_persons_action(tmp_path: Path) -> None:
    session = _session(tmp_path, "tic_tac_toe", {0, 1})
    _play_first(session, 0)
    _play_first(session, 1)
    assert session.undoable(0) is None and session.undoable(1) == 1
    with pytest.raises(BadRequest) as refused:
        session.undo(0)
    assert refused.value.status == 409


def test_rated_play_has_no_undo(tmp_path: Path) -> None:
    session = _session(tmp_path, "tic_tac_toe", {0}, rated=True)
    _play_first(session, 0)
    moves = session.state.moves()
    assert session.snapshot(0)["undo"] is False and session.snapshot(0)["rated"] is True
    with pytest.raises(BadRequest) as refused:
        session.undo(0)
    assert refused.value.status == 403
    assert session.state.moves() == moves


def test_undo_over_http_answers_403_when_rated_and_acts_for_the_tokens_seat_only(tmp_path: Path) -> None:
    (tmp_path / "rated").mkdir()
    rated = _session(tmp_path / "rated", "tic_tac_toe", {0}, rated=True)
    client = _client(rated)
    _play_first(rated, 0)
    answer = _post(client, "/api/undo", {"seat": "P1"}, rated.seat_tokens[0])
    assert answer.status_code == 403 and "rated" in answer.json()["error"]
    free = _session(tmp_path, "tic_tac_toe", {0, 1})
    client = _client(free)
    _play_first(free, 0)
    second = free.seat_tokens[1]
    answer = _post(client, "/api/undo", {"seat": "P1"}, second)
    assert answer.status_code == 403 and "P2's" in answer.json()["error"]
    assert _post(client, "/api/undo", {"seat": "P1"}, free.session_token).status_code == 403
    assert free.state.moves() == 1
    answer = _post(client, "/api/undo", {"seat": "P1"}, free.seat_tokens[0])
    assert answer.status_code == 200 and answer.json() == {"ok": True, "undone": 1}
    assert free.state.moves() == 0


def test_a_second_persons_token_neither_sees_nor_plays_the_first_seat(tmp_path: Path) -> None:
    session = _session(tmp_path, "royal_letter", {0, 1})
    client = _client(session)
    second = session.seat_tokens[1]
    assert session.seat_tokens[0] != second
    seen = client.get("/api/state?seat=P1", headers={TOKEN_HEADER: second})
    assert seen.status_code == 403
    assert client.get("/api/log?seat=P1", headers={TOKEN_HEADER: second}).status_code == 403
    seat = session.state.current_player()
    other = 1 - seat
    action = session.snapshot(seat)["legal"][0]["text"]
    answer = _post(client, "/api/act", {"action": action, "seat": f"P{seat + 1}"}, session.seat_tokens[other])
    assert answer.status_code == 403
    mine = client.get("/api/state", headers={TOKEN_HEADER: second}).json()
    assert mine["seat"] == "P2"
    p1_hand = [line for line in mine["svg"].splitlines() if "layer-hands" in line]
    assert p1_hand  # the hands are drawn, the other's face down (tests/property/test_no_leak.py)


def test_human_is_given_repeated_or_comma_separated(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.chdir(tmp_path)
    for index, humans in enumerate((["1", "2"], ["1,2"])):
        args = argparse.Namespace(
            ruleset="tic_tac_toe",
            modules=[],
            variants=[],
            players=None,
            human=humans,
            seed=1,
            bot="random",
            log=f"g{index}.jsonl",
            rated=False,
            hotseat=False,
        )
        session = session_from_args(args)
        assert session.humans == {0, 1} and set(session.seat_tokens) == {0, 1}
        assert len(set(session.seat_tokens.values())) == 2


def test_serve_takes_repeated_humans_the_hotseat_and_rated_play_from_the_command_line(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    from rulekit.cli import build_parser

    monkeypatch.chdir(tmp_path)
    parser, _ = build_parser()
    args = parser.parse_args(
        ["serve", "royal_letter", "--human", "1", "--human", "2", "--hotseat", "--rated"]
    )
    session = session_from_args(args)
    assert session.humans == {0, 1} and session.rated and session.hotseat_token is not None
    assert session.seat_tokens == {}
    plain = session_from_args(parser.parse_args(["serve", "royal_letter", "--log", "b.jsonl"]))
    assert plain.humans == {0} and not plain.rated and plain.hotseat_token is None


def test_the_hotseat_shows_the_seat_on_turn_after_a_pass_screen(tmp_path: Path) -> None:
    session = _session(tmp_path, "royal_letter", {0, 1}, hotseat=True)
    assert session.seat_tokens == {} and session.hotseat_token is not None
    urls = session.urls(8000)
    assert [who for who, _ in urls] == ["hotseat", "watch"]
    client = _client(session)
    token = {TOKEN_HEADER: session.hotseat_token}
    first = session.state.current_player()
    passing = client.get("/api/state", headers=token).json()
    assert passing == {"hotseat": True, "pass_to": f"P{first + 1}"}  # no view before the pass
    other = 1 - first
    assert client.get(f"/api/state?seat=P{other + 1}", headers=token).status_code == 403
    shown = client.get(f"/api/state?seat=P{first + 1}", headers=token).json()
    assert shown["seat"] == f"P{first + 1}" and shown["your_turn"] and shown["hotseat"]
    action = shown["legal"][0]["text"]
    wrong = _post(client, "/api/act", {"action": action, "seat": f"P{other + 1}"}, session.hotseat_token)
    assert wrong.status_code == 403
    assert _post(
        client, "/api/act", {"action": action, "seat": f"P{first + 1}"}, session.hotseat_token
    ).json() == {"ok": True}
    assert not session.state.is_terminal() and session.state.current_player() == other
    passing = client.get("/api/state", headers=token).json()
    assert passing == {"hotseat": True, "pass_to": f"P{other + 1}"}
    assert client.get(f"/api/state?seat=P{first + 1}", headers=token).status_code == 403


def test_a_seat_token_is_not_the_hotseats(tmp_path: Path) -> None:
    session = _session(tmp_path, "tic_tac_toe", {0})
    assert session.hotseat_token is None
    assert [who for who, _ in session.urls(8000)] == ["P1", "watch"]


def test_the_served_log_names_the_rules_applied_as_the_seat_may_know_them(tmp_path: Path) -> None:
    """Goofspiel's bids are face down until both are in: the other seat's log shows neither the
    card nor the rule of a pending bid; a resolved round names the rule, with its table entry."""
    session = _session(tmp_path, "goofspiel", {0, 1})
    _play_first(session, 0)
    _play_first(session, 1)
    pending = _play_first(session, 0)
    mine, theirs = session.snapshot(0), session.snapshot(1)
    assert mine["log"][-1]["text"] == pending and theirs["log"][-1]["text"] != pending
    assert not any(key.startswith("action:") for key in theirs["log"][-1]["fired"])
    assert "action:bid" in theirs["log"][1]["fired"]
    assert (
        theirs["rules"]["action:bid"]["kind"] == "action" and theirs["rules"]["action:bid"]["name"] == "bid"
    )
    assert set(theirs["rules"]) == {key for entry in theirs["log"] for key in entry["fired"]}
