"""``rulekit serve`` facing hostile requests: tokens, seats, body and depth limits, no tracebacks,
and a log that is never overwritten (docs/security.md, "serve")."""

from __future__ import annotations

import asyncio
import json
from pathlib import Path
from typing import Any

import pytest

from rulekit.cli import main
from rulekit.limits import LIMITS
from rulekit.tools import serve
from rulekit.tools.serve import MAX_BODY, TOKEN_HEADER, Session, make_app
from tests.hostile.web_requests import client, new_session
from tests.view.conftest import need_web


@pytest.fixture
def session(tmp_path: Path) -> Session:
    need_web()
    return new_session(tmp_path)


def _act(test_client: Any, token: str | None, body: Any, raw: bytes | None = None) -> Any:
    headers = {"Content-Type": "application/json"}
    if token is not None:
        headers[TOKEN_HEADER] = token
    content = raw if raw is not None else json.dumps(body).encode()
    return test_client.post("/api/act", headers=headers, content=content)


def test_every_request_without_a_valid_token_is_refused_403(session: Session) -> None:
    test_client = client(session)
    real = session.seat_tokens[0]
    for token in (None, "", "guess", real[:-1], real + "x", real.upper()):
        headers = {} if token is None else {TOKEN_HEADER: token}
        query = "" if token is None else f"?token={token}"
        assert test_client.get("/" + query).status_code == 403
        assert test_client.get("/api/state", headers=headers).status_code == 403
        assert _act(test_client, token, {"action": "guard(P2, priest)"}).status_code == 403
    assert session.state.moves() == 0


def test_a_seat_token_opens_the_page_and_shows_and_plays_only_its_seat(session: Session) -> None:
    test_client = client(session)
    p1, p2 = session.seat_tokens[0], session.seat_tokens[1]
    assert test_client.get(f"/?token={p1}").status_code == 200
    assert test_client.get("/api/state", headers={TOKEN_HEADER: p1}).json()["seat"] == "P1"
    assert test_client.get("/api/state", headers={TOKEN_HEADER: p2}).json()["seat"] == "P2"
    refused = test_client.get("/api/state?seat=P2", headers={TOKEN_HEADER: p1})
    assert refused.status_code == 403 and "P1's" in refused.json()["error"]
    legal = session.game.action_to_string(session.state.legal_actions()[0])
    assert session.state.current_player() == 0
    # P2's token may not act for P1 (whose turn it is), nor P1's name P2
    assert _act(test_client, p2, {"action": legal, "seat": "P1"}).status_code == 403
    assert _act(test_client, p1, {"action": legal, "seat": "P2"}).status_code == 403
    assert session.state.moves() == 0
    assert _act(test_client, p1, {"action": legal}).json() == {"ok": True}


def test_the_session_token_watches_as_a_spectator_and_cannot_act(session: Session) -> None:
    test_client = client(session)
    token = session.session_token
    snap = test_client.get("/api/state", headers={TOKEN_HEADER: token}).json()
    assert snap["seat"] is None and snap["legal"] == []
    assert snap["scores"] == [None, None]  # Royal Letter's scores are the hidden hands
    assert test_client.get("/api/state?seat=P1", headers={TOKEN_HEADER: token}).status_code == 403
    legal = session.game.action_to_string(session.state.legal_actions()[0])
    assert _act(test_client, token, {"action": legal, "seat": "P1"}).status_code == 403
    assert session.state.moves() == 0


def test_json_nested_deeper_than_the_limit_is_answered_400(session: Session) -> None:
    test_client = client(session)
    for depth in (LIMITS.max_depth + 1, 3_000, 100_000):
        raw = b"[" * depth if depth == 100_000 else b"[" * depth + b"]" * depth
        if len(raw) > MAX_BODY:
            raw = b"[" * min(depth, MAX_BODY)
        answer = _act(test_client, session.seat_tokens[0], None, raw)
        assert answer.status_code == 400, depth
        assert f"deeper than {LIMITS.max_depth}" in answer.json()["error"]


def test_a_hundred_thousand_brackets_within_a_larger_cap_are_400_not_500(
    session: Session, monkeypatch: pytest.MonkeyPatch
) -> None:
    """The finding itself: 100,000 nested '[' (a body the cap alone would not stop)."""
    monkeypatch.setattr(serve, "MAX_BODY", 1_000_000)
    monkeypatch.setattr(serve.read_body, "__defaults__", (1_000_000,))
    answer = _act(client(session), session.seat_tokens[0], None, b"[" * 100_000)
    assert answer.status_code == 400 and "deeper than" in answer.json()["error"]


def test_text_that_is_not_unicode_is_answered_400(session: Session) -> None:
    test_client = client(session)
    token = session.seat_tokens[0]
    for raw in (
        b'{"action": "\\ud800"}',  # a lone surrogate from an escape
        b'{"action": "guard(P2, priest)", "seat": "\\udfff"}',
        b'{"action": "\xed\xa0\x80"}',  # a surrogate as UTF-8 bytes
        b'{"action": "\xff"}',
    ):
        answer = _act(test_client, token, None, raw)
        assert answer.status_code == 400, raw
        assert "Unicode" in answer.json()["error"] or "UTF-8" in answer.json()["error"]
    assert session.state.moves() == 0


def _asgi_post(app: Any, token: str, chunks: int, chunk: bytes, length: int | None) -> tuple[int, int]:
    """POST a streamed body of ``chunks`` pieces straight to the ASGI app; returns the status
    and how many pieces the app read."""
    read = 0
    messages: list[dict[str, Any]] = []

    async def receive() -> dict[str, Any]:
        nonlocal read
        if read >= chunks:
            return {"type": "http.disconnect"}
        read += 1
        return {"type": "http.request", "body": chunk, "more_body": read < chunks}

    async def send(message: dict[str, Any]) -> None:
        messages.append(message)

    headers = [
        (b"host", b"127.0.0.1"),
        (b"content-type", b"application/json"),
        (TOKEN_HEADER.lower().encode(), token.encode()),
    ]
    if length is not None:
        headers.append((b"content-length", str(length).encode()))
    scope = {
        "type": "http",
        "asgi": {"version": "3.0"},
        "http_version": "1.1",
        "method": "POST",
        "scheme": "http",
        "path": "/api/act",
        "raw_path": b"/api/act",
        "query_string": b"",
        "root_path": "",
        "headers": headers,
        "client": ("127.0.0.1", 5000),
        "server": ("127.0.0.1", 8000),
    }
    asyncio.run(app(scope, receive, send))
    start = next(m for m in messages if m["type"] == "http.response.start")
    return int(start["status"]), read


def test_a_40_megabyte_body_is_refused_413_without_being_read(session: Session) -> None:
    app = make_app(session)
    token = session.seat_tokens[0]
    piece = b"x" * 65_536
    chunks = 40 * 1024 * 1024 // len(piece)
    status, read = _asgi_post(app, token, chunks, piece, None)  # streamed, no Content-Length
    assert status == 413
    assert read <= MAX_BODY // len(piece) + 1 < chunks
    status, read = _asgi_post(app, token, chunks, piece, chunks * len(piece))
    assert (status, read) == (413, 0)  # a declared length over the cap: nothing is read


def test_an_unexpected_error_is_a_short_500_with_the_traceback_on_the_server_only(
    session: Session, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    def broken(seat: int | None) -> dict[str, Any]:
        raise KeyError("secret detail")

    monkeypatch.setattr(session, "snapshot", broken)
    answer = client(session).get("/api/state", headers={TOKEN_HEADER: session.seat_tokens[0]})
    assert answer.status_code == 500
    assert "Traceback" not in answer.text and "secret detail" not in answer.text
    assert answer.json() == {"ok": False, "error": "internal error (the server's output says more)"}
    assert "Traceback" in capsys.readouterr().err


class _NoServer:
    def run(self, sockets: Any) -> None:
        for sock in sockets:
            sock.close()


def test_an_existing_log_is_never_overwritten(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    need_web()
    monkeypatch.setattr(serve, "make_server", lambda app: _NoServer())
    kept = tmp_path / "mine.jsonl"
    kept.write_text("precious\n", encoding="utf-8")
    assert main(["serve", "tic_tac_toe", "--port", "0", "--log", str(kept)]) == 1
    assert kept.read_text(encoding="utf-8") == "precious\n"
    assert "exists; serve never overwrites a log" in capsys.readouterr().err
    # the default name: the next free one is taken and printed
    monkeypatch.chdir(tmp_path)
    (tmp_path / "game.jsonl").write_text("earlier game\n", encoding="utf-8")
    assert main(["serve", "tic_tac_toe", "--port", "0"]) == 0
    out = capsys.readouterr().out
    assert (tmp_path / "game.jsonl").read_text(encoding="utf-8") == "earlier game\n"
    assert "log: game-2.jsonl" in out
    assert json.loads((tmp_path / "game-2.jsonl").read_text().splitlines()[0])["ruleset"] == "tic_tac_toe"


def test_a_refused_log_closes_the_socket_serve_had_bound(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    need_web()
    monkeypatch.setattr(serve, "make_server", lambda app: _NoServer())
    bound: list[Any] = []
    real_bind = serve.bind

    def bind(port: int) -> Any:
        bound.append(real_bind(port))
        return bound[-1]

    monkeypatch.setattr(serve, "bind", bind)
    kept = tmp_path / "mine.jsonl"
    kept.write_text("precious\n", encoding="utf-8")
    assert main(["serve", "tic_tac_toe", "--port", "0", "--log", str(kept)]) == 1
    assert "exists; serve never overwrites a log" in capsys.readouterr().err
    assert len(bound) == 1 and bound[0].fileno() == -1  # closed, not left to the garbage collector


def test_serve_prints_one_address_per_seat_with_its_token(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    need_web()
    monkeypatch.setattr(serve, "make_server", lambda app: _NoServer())
    log = tmp_path / "t.jsonl"
    assert main(["serve", "tic_tac_toe", "--port", "0", "--human", "1,2", "--log", str(log)]) == 0
    lines = capsys.readouterr().out.splitlines()
    seed = json.loads(log.read_text(encoding="utf-8").splitlines()[0])["seed"]
    assert lines[-1] == f"the game's seed was {seed} (serve it again with --seed {seed})"  # once it stops
    urls = [line.split(": ", 1)[1] for line in lines[1:-1]]
    assert [line.split(":")[0].strip() for line in lines[1:3]] == ["P1", "P2"]
    tokens = [url.split("?token=")[1] for url in urls]
    assert len(set(tokens)) == 3 and all(len(token) >= 40 for token in tokens)
