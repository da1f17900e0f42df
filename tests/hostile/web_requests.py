"""Hostile HTTP requests to ``rulekit serve``'s application, sent through Starlette's TestClient.

Shared by ``test_web_serve.py`` and the fuzzer's ``web`` case kind (:mod:`tests.hostile.fuzzing`):
:func:`hostile_request` makes one request from a random generator (bad or missing tokens, bad
JSON, deep nesting, text that is not Unicode, bodies past the cap, odd headers and paths);
:func:`send` sends it and says what came back.  A 5xx answer, or an exception escaping the
application, is an internal error.
"""

from __future__ import annotations

import json
import random
from pathlib import Path
from typing import Any

from attrs import frozen

from rulekit.load import load_game
from rulekit.tools.bots import FirstLegalBot
from rulekit.tools.serve import MAX_BODY, TOKEN_HEADER, Session, make_app
from tests.view.conftest import web_client

BASE_URL = "http://127.0.0.1"


def new_session(
    work: Path, ruleset: str = "royal_letter", humans: frozenset[int] = frozenset({0, 1})
) -> Session:
    """A two-player game with both seats played by people (every token can act), logged in ``work``."""
    game = load_game(ruleset, 2)
    return Session(game, 0, set(humans), [FirstLegalBot(), FirstLegalBot()], str(work / f"{ruleset}.jsonl"))


def client(session: Session) -> Any:
    """A TestClient for the session's app on a host name the app accepts."""
    return web_client(make_app(session), BASE_URL)


@frozen
class Request:
    """One HTTP request: method, path (with its query), headers, body bytes."""

    method: str
    path: str
    headers: dict[str, str]
    body: bytes


_PATHS = [
    "/",
    "/api/state",
    "/api/act",
    "/api/act/",
    "/api/undo",
    "/api/choose",
    "/api/state?seat=P2",
    "/api/state?seat=P1",
    "/api/state?seat=%ED%A0%80",
    "/api/state?seat=" + "9" * 400,
    "/api/state?seat=P0",
    "/?token=%00",
    "/?token=" + "A" * 5000,
    "//api/state",
    "/api/../api/state",
    "/%2e%2e/etc/passwd",
    "/api/state?" + "&".join(f"k{i}=v" for i in range(300)),
    "/nothing",
]

_METHODS = ["GET", "GET", "POST", "POST", "POST", "PUT", "DELETE", "HEAD", "OPTIONS", "PATCH"]

_CONTENT_TYPES = [
    "application/json",
    "application/json; charset=utf-8",
    "application/JSON",
    "text/plain",
    "multipart/form-data; boundary=x",
    "",
    "application/json\x7f",
]


def _token(session: Session, rng: random.Random) -> str | None:
    seats = list(session.seat_tokens.values())
    real = rng.choice([*seats, session.session_token])
    return rng.choice(
        [
            *[real] * 10,
            None,
            "",
            real[:-1],
            real + "x",
            real.upper(),
            "x" * rng.choice([1, 43, 10_000]),
            "é" + real,
            " " + real,
        ]
    )


def _body(session: Session, rng: random.Random) -> bytes:
    state = session.state
    legal = []
    if not state.is_terminal():
        legal = [session.game.action_to_string(a) for a in state.legal_actions()]
    action = rng.choice([*legal[:5], "guard(P2, priest)", "x" * 600, "", "((((", "\x00"])
    seat = rng.choice([None, "P1", "P2", "P3", "p2", 1, -1, 1e300, [], {}, "\ud800", True])
    choices: list[Any] = [
        {"action": action, "seat": seat},
        {"action": action},
        {"ref": rng.choice(["P1", "guard_1", "", "x" * 600])},
        {"action": 5},
        [action],
        "action",
        None,
        {"action": {"nested": [1, 2]}},
        {"choices": [{"guard.target": rng.choice(["P2", "P9", "x" * 600]), "action": action}], "seat": seat},
        {"choices": [{"discard.card": "guard_1"}] * rng.choice([1, 17])},
        {"choices": [{"": ""}, {"action": None}]},
        {"choices": "guard"},
    ]
    value = rng.choice(choices)
    text = json.dumps(value)
    kind = rng.randrange(12)
    if kind == 0:
        return b"[" * rng.choice([50, 101, 3_000, 100_000])
    if kind == 1:
        return b'{"action": "\\ud800", "seat": "P1"}'  # a lone surrogate from an escape
    if kind == 2:
        return b'{"action": "\xed\xa0\x80"}'  # a surrogate encoded as UTF-8 bytes: not UTF-8
    if kind == 3:
        return b"x" * (MAX_BODY + rng.choice([1, 1000]))
    if kind == 4:
        return bytes(rng.randrange(256) for _ in range(rng.randrange(64)))
    if kind == 5:
        return ('{"a":' * 200 + "1" + "}" * 200).encode()
    if kind == 6:
        return text[: rng.randrange(len(text) + 1)].encode()
    if kind == 7:
        return b'{"action": 1e999999, "seat": -0}'
    return text.encode()


def hostile_request(session: Session, rng: random.Random) -> Request:
    """A random request, mostly well-formed enough to reach the application's own checks."""
    headers: dict[str, str] = {}
    token = _token(session, rng)
    if token is not None:
        name = rng.choice([TOKEN_HEADER] * 6 + [TOKEN_HEADER.lower(), "X-Token", "Authorization"])
        headers[name] = token
    path = rng.choice(_PATHS)
    if token is not None and rng.random() < 0.2:
        path += ("&" if "?" in path else "?") + "token=" + token
    usual = "POST" if path.startswith(("/api/act", "/api/undo", "/api/choose")) else "GET"
    method = usual if rng.random() < 0.8 else rng.choice(_METHODS)
    body = b""
    if method in ("POST", "PUT", "PATCH") or rng.random() < 0.1:
        body = _body(session, rng)
        headers["Content-Type"] = rng.choice(_CONTENT_TYPES)
    if rng.random() < 0.2:
        headers["Origin"] = rng.choice(["http://127.0.0.1:1", "http://attacker.example", "null", "\x01"])
    if rng.random() < 0.1:
        headers["Host"] = rng.choice(["127.0.0.1", "localhost:99999", "attacker.example", ""])
    if rng.random() < 0.1:
        headers["Content-Length"] = rng.choice(["-1", "abc", str(10**30), "0"])
    if rng.random() < 0.1:
        headers["Transfer-Encoding"] = "chunked"
    return Request(method, path, headers, body)


@frozen
class Answer:
    """What came back: the status (0 when an exception escaped the application) and the body."""

    status: int
    body: str
    escaped: str | None = None

    @property
    def internal(self) -> bool:
        return self.escaped is not None or self.status >= 500


def send(test_client: Any, request: Request) -> Answer:
    """Send ``request``; an exception escaping the application is an internal error."""
    import httpx

    try:  # the client itself may refuse to build it (a header it cannot encode): never sent
        built = test_client.build_request(
            request.method, request.path, headers=request.headers, content=request.body
        )
    except (UnicodeEncodeError, httpx.LocalProtocolError, httpx.InvalidURL) as error:
        return Answer(0, f"not sent: {error}")
    try:
        response = test_client.send(built)
    except Exception as error:  # the judge must catch everything the application lets out
        return Answer(0, "", f"{type(error).__name__}: {error}")
    return Answer(response.status_code, response.text[:2000])
