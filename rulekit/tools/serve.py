"""``rulekit serve``: play a game in the browser against bots, on 127.0.0.1 only.

One game per server.  People play the seats given with ``--human``; bots the
others, right after each human action.  The page shows the picture of the state
as the seat on turn may see it, the legal actions as a list and as clickable
shapes of the picture (shapes whose ``ref`` is an argument of a legal action),
and explains a rejected attempt with the rule's message and citation.  The log
is written as JSON Lines after every action, so it replays with ``rulekit replay``.

Every request carries a token (docs/security.md): one per seat played by a person, which
shows that seat's view and acts for it alone, and one for the session, which watches as a
spectator and cannot act.  Bodies are read as a stream and refused past :data:`MAX_BODY`
bytes; JSON nested deeper than ``LIMITS.max_depth`` or holding text that is not Unicode is
answered 400; anything unexpected is a short 500 (the traceback goes to the server's stderr).

Needs the ``web`` extra (Starlette and uvicorn): ``pip install 'rulekit[web]'``.
"""

from __future__ import annotations

import argparse
import json
import os
import secrets
import socket
import sys
import threading
import traceback
from collections.abc import Awaitable, Callable
from typing import Any
from urllib.parse import urlsplit

from rulekit.engine.game import Action, Game, State
from rulekit.engine.information import HIDDEN_CHOICE, known_fired, seat_explanation, seat_history
from rulekit.engine.values import format_value
from rulekit.errors import Diagnostic, IllegalActionError, RuleEvaluationError, RulekitError, UsageError
from rulekit.limits import LIMITS, json_too_deep
from rulekit.load import load_program
from rulekit.tools.bots import Bot, make_bots
from rulekit.tools.clicks import MAX_CHOICES, MAX_TARGETS, Choice, choose, plays_by_clicks
from rulekit.tools.files import atomic_write_text
from rulekit.tools.html import new_nonce, policy, render
from rulekit.tools.log import GameRecorder
from rulekit.tools.log.seat import seat_log_lines, seat_name
from rulekit.tools.options import game_seed, module_names, parse_seat
from rulekit.tools.replay_html import rule_table
from rulekit.tools.seat_view import seat_view
from rulekit.tools.view import compile_view

MAX_ACTION_TEXT = 500
MAX_BOT_ACTIONS = 100_000
MAX_BODY = 16 * 1024  # bytes of a request body: an action is at most MAX_ACTION_TEXT characters
ALLOWED_HOSTS = ["127.0.0.1", "localhost"]
TOKEN_HEADER = "X-Rulekit-Token"
DEFAULT_LOG = "game.jsonl"
SPECTATOR = -1  # who a session token is: it watches, it never acts
HOTSEAT = -2  # who the hotseat token is: every human seat, one at a time, on one device


class Session:
    """One game: the state with its recorder, who plays which seat, and where the log goes."""

    def __init__(
        self,
        game: Game,
        seed: int,
        humans: set[int],
        bots: list[Bot],
        log_path: str,
        source: str | None = None,
        *,
        rated: bool = False,
        hotseat: bool = False,
    ) -> None:
        if not humans:
            raise UsageError(Diagnostic("serve needs at least one seat played by a person (--human)"))
        self.seed = seed
        self.source = source
        self.recorder = GameRecorder(game.new_initial_state(seed), seed, source)
        self.humans = humans
        self.rated = rated  # rated play: no undo
        self.session_token = secrets.token_urlsafe(32)
        # hotseat: one token for every human seat on one device; otherwise one token per seat
        self.hotseat_token = secrets.token_urlsafe(32) if hotseat else None
        self.seat_tokens = {} if hotseat else {seat: secrets.token_urlsafe(32) for seat in sorted(humans)}
        self.bots = bots
        self.log_path = log_path
        self.lock = threading.Lock()
        self.fired: dict[int, list[str]] = {}
        self._play_bots()
        self._save()

    @property
    def state(self) -> State:
        return self.recorder.state

    def who(self, token: str | None) -> int | None:
        """The seat a token is for, :data:`SPECTATOR` for the session's, None for no valid token
        (every token is compared in constant time)."""
        if not token:
            return None
        given = token.encode("utf-8", "replace")
        found = None
        if secrets.compare_digest(given, self.session_token.encode()):
            found = SPECTATOR
        for seat, expected in self.seat_tokens.items():
            if secrets.compare_digest(given, expected.encode()):
                found = seat
        if self.hotseat_token is not None and secrets.compare_digest(given, self.hotseat_token.encode()):
            found = HOTSEAT
        return found

    def urls(self, port: int) -> list[tuple[str, str]]:
        """What to open: one address per seat played by a person (or the hotseat's one for all
        of them), then the spectator's."""
        base = f"http://127.0.0.1:{port}/?token="
        found = [(f"P{seat + 1}", base + token) for seat, token in self.seat_tokens.items()]
        if self.hotseat_token is not None:
            found.append(("hotseat", base + self.hotseat_token))
        return [*found, ("watch", base + self.session_token)]

    @property
    def game(self) -> Game:
        return self.recorder.game

    # -------------------------------------------------------------- play
    def _apply(self, action: Action) -> None:
        runtime = self.game.runtime
        fired: list[str] = []
        previous = runtime.fired
        runtime.fired = fired.append
        try:
            self.recorder.apply_action(action)
        finally:
            runtime.fired = previous
        self.fired[len(self.recorder.actions)] = fired  # heard per seat: see snapshot

    def _play_bots(self) -> None:
        state = self.state
        for _ in range(MAX_BOT_ACTIONS):
            if state.is_terminal() or state.current_player() in self.humans:
                return
            self._apply(self.bots[state.current_player()].choose(state))

    def _save(self) -> None:
        atomic_write_text(self.log_path, "".join(line + "\n" for line in self.recorder.lines()))

    def act(self, seat: int, text: str) -> dict[str, Any]:
        """Apply the action ``text`` for ``seat``; a rejection says why (the rule and its citation)."""
        with self.lock:
            state = self.state
            if len(text) > MAX_ACTION_TEXT:
                return {"ok": False, "error": f"an action is at most {MAX_ACTION_TEXT} characters"}
            if state.is_terminal():
                return {"ok": False, "error": "the game is over"}
            if seat not in self.humans:
                return {"ok": False, "error": f"P{seat + 1} is played by a bot, not by a person"}
            if seat != state.current_player():
                return {
                    "ok": False,
                    "error": f"it is P{state.current_player() + 1}'s turn, not P{seat + 1}'s",
                }
            try:
                action = self.game.parse_action(text.strip())
                if action not in state.legal_actions():
                    raise IllegalActionError(seat_explanation(state, action, seat))
                self._apply(action)
            except (IllegalActionError, RuleEvaluationError) as error:
                return {"ok": False, "error": _message(error)}
            try:
                self._play_bots()
            except RuleEvaluationError as error:  # a mistake in the rules, met by a bot's action
                return {
                    "ok": False,
                    "error": f"your action was played, but a bot's failed: {_message(error)}",
                }
            finally:
                self._save()
            return {"ok": True}

    def explain_ref(self, seat: int, ref: str) -> dict[str, Any]:
        """Why nothing can be done with a clicked shape: the first one-argument action's explanation."""
        with self.lock:
            state = self.state
            if state.is_terminal() or seat != state.current_player():
                return {"ok": False, "error": "it is not your turn"}
            for name in state.allowed_action_names():
                if len(self.game.program.actions[name].params) != 1:
                    continue
                try:
                    action = self.game.parse_action(f"{name}({ref})")
                except IllegalActionError:
                    continue
                return {
                    "ok": False,
                    "error": _message(IllegalActionError(seat_explanation(state, action, seat))),
                }
            return {"ok": False, "error": f"no action can be taken with {ref} now"}

    # -------------------------------------------------------------- undo
    def undoable(self, seat: int | None) -> int | None:
        """How many actions an undo by ``seat`` takes back (its last action and the bots'
        replies after it), None when it cannot undo: rated play, no action of its own yet, or
        another person played after it."""
        if self.rated or seat is None or seat not in self.humans:
            return None
        actions = self.recorder.actions
        for index in range(len(actions) - 1, -1, -1):
            player = actions[index][0]
            if player == seat:
                return len(actions) - index
            if player in self.humans:
                return None
        return None

    def undo(self, seat: int) -> dict[str, Any]:
        """Take back ``seat``'s last action: a new game with the same seed from the log without
        that action and the bots' replies after it (so the state is the one the seat acted in).

        Raises:
            BadRequest: 403 in rated play, 409 when there is nothing of the seat's to take back.
        """
        with self.lock:
            if self.rated:
                raise BadRequest(403, "this game is rated: no undo")
            count = self.undoable(seat)
            if count is None:
                raise BadRequest(409, f"P{seat + 1} has no action of its own to take back (after the bots')")
            kept = self.recorder.actions[:-count]
            game = self.game
            self.recorder = GameRecorder(game.new_initial_state(self.seed), self.seed, self.source)
            self.fired = {}
            for _player, text in kept:  # the same seed: every chance step falls as before
                self._apply(game.parse_action(text))
            self._save()
            return {"ok": True, "undone": count}

    # -------------------------------------------------------------- hotseat
    def hotseat_seat(self) -> int | None:
        """The seat the hotseat device shows: the person on turn (None: nobody, as a spectator)."""
        state = self.state
        if state.is_terminal():
            return None
        player = state.current_player()
        return player if player in self.humans else None

    # -------------------------------------------------------------- clicks
    def choose(self, seat: int, choices: list[Choice]) -> dict[str, Any]:
        """An action built by clicks (:mod:`rulekit.tools.clicks`): what ``choices`` (the last
        one the click) leave of the seat's legal actions, or why the click is refused."""
        with self.lock:
            state = self.state
            if state.is_terminal():
                return {"ok": False, "error": "the game is over"}
            if seat not in self.humans or seat != state.current_player():
                return {"ok": False, "error": "it is not your turn"}
            try:
                answer = choose(state, seat, choices, compile_view(self.game.program))
            except RuleEvaluationError as error:
                return {"ok": False, "error": _message(error)}
            if "refused" in answer:
                answer["refused"] = _message(IllegalActionError(answer["refused"]))
            return {"ok": True, **answer}

    @property
    def clickable(self) -> bool:
        """Whether the view binds actions to its shapes or controls (else the page plays by the list)."""
        return plays_by_clicks(compile_view(self.game.program))

    # -------------------------------------------------------------- show
    def snapshot(self, seat: int | None) -> dict[str, Any]:
        """What the page shows ``seat`` (None: a spectator): its view (:func:`seat_view`), the
        legal actions if it is her turn, the log of actions."""
        with self.lock:
            state = self.state
            legal = []
            if not state.is_terminal() and seat == state.current_player() and seat in self.humans:
                for action in state.legal_actions():
                    text = self.game.action_to_string(action)
                    legal.append({"text": text, "name": action.name, "refs": self._refs(action)})
            actions = self.recorder.actions
            # another seat's pending choice in a simultaneous step shows as HIDDEN_CHOICE
            texts = seat_history(state, [text for _, text in actions], seat)
            log = [
                {
                    "n": n,
                    "player": f"P{p + 1}",
                    "text": text,
                    "fired": _heard(state, self.fired.get(n, []), seat, text),
                }
                for n, ((p, _), text) in enumerate(zip(actions, texts, strict=True), start=1)
            ][-200:]
            return {
                **seat_view(state, seat).payload(),
                "humans": [f"P{h + 1}" for h in sorted(self.humans)],
                "legal": legal,
                "your_turn": bool(legal),
                "log": log,
                "rules": _rules_heard(self.game, log),
                "log_file": self.log_path,
                "undo": self.undoable(seat) is not None,
                "rated": self.rated,
                "hotseat": self.hotseat_token is not None,
                "clicks": self.clickable,
            }

    def seat_log(self, seat: int | None) -> str:
        """The log of what ``seat`` (None: a spectator) saw so far (:mod:`rulekit.tools.log.seat`);
        the file at ``log_path`` is the referee's, with the seed."""
        with self.lock:
            recorder = self.recorder
            lines = seat_log_lines(self.game, recorder.seed, recorder.played(), seat)
            return "".join(line + "\n" for line in lines)

    def _refs(self, action: Action) -> list[str]:
        types = self.game.program.actions[action.name].param_types
        return [format_value(arg, ty) for arg, ty in zip(action.args, types, strict=False)]


def _heard(state: State, fired: list[str], seat: int | None, text: str) -> list[str]:
    """The rules an action set off as ``seat`` may know them (``known_fired``); for another
    seat's face-down choice, not even which action it was."""
    heard = known_fired(state, fired, seat)
    return [key for key in heard if key.startswith("trigger:")] if text == HIDDEN_CHOICE else heard


def _rules_heard(game: Game, log: list[dict[str, Any]]) -> dict[str, dict[str, str]]:
    """The rule table (kind, name, citation, description; as the replay page's) of the rules
    in the seat's log: the log lists only what the seat may know (``known_fired``)."""
    keys = {key for entry in log for key in entry["fired"]}
    table = rule_table(game)
    return {key: table[key] for key in sorted(keys) if key in table}


def _choices(body: Any) -> list[Choice]:
    """``{choices: [{TARGET: VALUE, ...}, ...]}``: the clicks of a partial action.

    Raises:
        BadRequest: 400 for anything else, or more than the limits allow.
    """
    shape = "send {choices: [{TARGET: VALUE}, ...]}"
    raw = body.get("choices") if isinstance(body, dict) else None
    if not isinstance(raw, list) or len(raw) > MAX_CHOICES:
        raise BadRequest(400, f"{shape} (at most {MAX_CHOICES} choices)")
    choices: list[Choice] = []
    for choice in raw:
        if not isinstance(choice, dict) or not 0 < len(choice) <= MAX_TARGETS:
            raise BadRequest(400, f"{shape}: a choice has 1 to {MAX_TARGETS} targets")
        for target, value in choice.items():
            if not isinstance(value, str) or len(target) > MAX_ACTION_TEXT or len(value) > MAX_ACTION_TEXT:
                raise BadRequest(400, f"{shape}: targets and values are texts of at most {MAX_ACTION_TEXT}")
        choices.append({str(t): v for t, v in choice.items()})
    return choices


def _message(error: RulekitError) -> str:
    parts = []
    for diagnostic in error.diagnostics:
        text = diagnostic.message
        if diagnostic.span is not None:
            text += f" (rule at {diagnostic.span})"
        if diagnostic.hint:
            text += f"; {diagnostic.hint}"
        parts.append(text)
    return "; ".join(parts)


class BadRequest(Exception):
    """A request refused with an HTTP status and a message for the client."""

    def __init__(self, status: int, message: str) -> None:
        super().__init__(message)
        self.status = status


def _seat_param(value: Any, players: int) -> int | None:
    if value in (None, ""):
        return None
    raw = str(value).removeprefix("P").removeprefix("p")
    if not raw.isdigit() or not 1 <= int(raw) <= players:
        raise BadRequest(400, f"no seat {str(value)[:40]!r}")
    return int(raw) - 1


def _check_text(value: Any) -> None:
    """Refuse text that is not Unicode (a lone surrogate, as from a ``\\ud800`` escape)."""
    stack = [value]
    while stack:
        item = stack.pop()
        if isinstance(item, str):
            try:
                item.encode("utf-8")
            except UnicodeEncodeError:
                raise BadRequest(400, "the request holds text that is not valid Unicode") from None
        elif isinstance(item, list):
            stack.extend(item)
        elif isinstance(item, dict):
            stack.extend(item.keys())
            stack.extend(item.values())


def parse_body(raw: bytes) -> Any:
    """A request body as JSON: UTF-8, nested at most ``LIMITS.max_depth`` deep, all text Unicode.

    Raises:
        BadRequest: 400 with what is wrong.
    """
    try:
        text = raw.decode("utf-8")
    except UnicodeDecodeError as error:
        raise BadRequest(400, f"the body is not UTF-8 (byte {error.start})") from None
    if json_too_deep(text, LIMITS.max_depth):
        raise BadRequest(400, f"the JSON nests deeper than {LIMITS.max_depth} levels")
    try:
        value = json.loads(text)
    except ValueError as error:
        raise BadRequest(400, f"the body is not JSON: {error}") from None
    _check_text(value)
    return value


async def read_body(request: Any, cap: int = MAX_BODY) -> bytes:
    """The body of ``request``, read as a stream and refused past ``cap`` bytes (the rest is
    never read).

    Raises:
        BadRequest: 413 past the cap (a Content-Length over it is refused before reading).
    """
    too_big = BadRequest(413, f"a request body is at most {cap} bytes")
    length = request.headers.get("content-length")
    if length is not None and (not length.strip().isdigit() or int(length) > cap):
        if not length.strip().isdigit():
            raise BadRequest(400, "a bad Content-Length")
        raise too_big
    chunks: list[bytes] = []
    size = 0
    async for chunk in request.stream():
        size += len(chunk)
        if size > cap:
            raise too_big
        chunks.append(chunk)
    return b"".join(chunks)


Handler = Callable[[Any], Awaitable[Any]]


def make_app(session: Session) -> Any:
    """The Starlette application serving one session."""
    from starlette.applications import Starlette
    from starlette.middleware import Middleware
    from starlette.middleware.trustedhost import TrustedHostMiddleware
    from starlette.requests import Request
    from starlette.responses import HTMLResponse, JSONResponse, Response
    from starlette.routing import Route

    title = session.game.program.rules.title
    players = session.game.num_players
    no_store = {"Cache-Control": "no-store"}

    def guarded(handler: Handler) -> Handler:
        """Refusals as their status with a JSON message; anything unexpected as a short 500,
        its traceback to the server's stderr only."""

        async def run(request: Request) -> Response:
            try:
                return await handler(request)
            except BadRequest as refused:
                return JSONResponse({"ok": False, "error": str(refused)}, status_code=refused.status)
            except Exception:
                traceback.print_exc(file=sys.stderr)
                return JSONResponse(
                    {"ok": False, "error": "internal error (the server's output says more)"},
                    status_code=500,
                )

        return run

    def authenticate(token: str | None) -> int:
        seat = session.who(token)
        if seat is None:
            raise BadRequest(403, "a valid token is needed: open the address rulekit serve printed")
        return seat

    def asked_seat(value: Any, who: int) -> int | None:
        """The seat a request is for: its token's, and no other (None: a spectator)."""
        asked = _seat_param(value, players)
        if who == HOTSEAT:  # one device for every person: only the seat on turn is shown
            on_turn = session.hotseat_seat()
            if asked is not None and asked != on_turn:
                shown = "nobody's" if on_turn is None else f"P{on_turn + 1}'s"
                raise BadRequest(403, f"the hotseat shows only the seat on turn ({shown}), not P{asked + 1}")
            return asked
        if who == SPECTATOR:
            if asked is not None:
                raise BadRequest(403, "the session's token watches as a spectator: it shows no seat")
            return None
        if asked is not None and asked != who:
            raise BadRequest(403, f"this token is P{who + 1}'s: it neither shows nor plays P{asked + 1}")
        return who

    async def index(request: Request) -> Response:
        authenticate(request.query_params.get("token"))
        # a fresh nonce per response: the page's one script and one style run, nothing else
        nonce = new_nonce()
        source = f"'nonce-{nonce}'"
        return HTMLResponse(
            render("serve.html", title=title, nonce=nonce),
            headers={
                "Cache-Control": "no-store",
                "Content-Security-Policy": policy(source, source, served=True),
                "X-Content-Type-Options": "nosniff",
                "Referrer-Policy": "no-referrer",
            },
        )

    async def state(request: Request) -> Response:
        who = authenticate(request.headers.get(TOKEN_HEADER))
        seat = asked_seat(request.query_params.get("seat"), who)
        on_turn = session.hotseat_seat()
        if who == HOTSEAT and seat is None and on_turn is not None:
            # the "pass the device" screen: no view until the next person says she holds it
            return JSONResponse({"hotseat": True, "pass_to": f"P{on_turn + 1}"}, headers=no_store)
        return JSONResponse(session.snapshot(seat), headers=no_store)

    async def seat_log(request: Request) -> Response:
        who = authenticate(request.headers.get(TOKEN_HEADER))
        seat = asked_seat(request.query_params.get("seat"), who)
        return Response(
            session.seat_log(seat),
            media_type="application/x-ndjson",
            headers={**no_store, "Content-Disposition": f'attachment; filename="{seat_name(seat)}.jsonl"'},
        )

    async def posted(request: Request) -> Any:
        """A POST's JSON body. Another site's page can post to 127.0.0.1 too: only JSON (which
        browsers send across sites only after a CORS preflight this server never allows) from
        no or a local origin."""
        if request.headers.get("content-type", "").split(";")[0].strip() != "application/json":
            raise BadRequest(415, "send JSON (Content-Type: application/json)")
        origin = urlsplit(request.headers.get("origin", "")).hostname
        if origin is not None and origin not in ALLOWED_HOSTS:
            raise BadRequest(403, "requests from other sites are refused")
        return parse_body(await read_body(request))

    async def act(request: Request) -> Response:
        who = authenticate(request.headers.get(TOKEN_HEADER))
        body = await posted(request)
        if not isinstance(body, dict):
            raise BadRequest(400, "send {action: TEXT} or {ref: TEXT}")
        seat = asked_seat(body.get("seat"), who)
        if seat is None:
            raise BadRequest(403, "the session's token watches as a spectator: it cannot act")
        text, ref = body.get("action"), body.get("ref")
        if isinstance(text, str):
            return JSONResponse(session.act(seat, text))
        if isinstance(ref, str) and len(ref) <= MAX_ACTION_TEXT:
            return JSONResponse(session.explain_ref(seat, ref))
        raise BadRequest(400, "send {action: TEXT} or {ref: TEXT}")

    async def undo(request: Request) -> Response:
        """Take back the seat's last action (403 in rated play, 409 with nothing to take back)."""
        who = authenticate(request.headers.get(TOKEN_HEADER))
        body = await posted(request)
        seat = asked_seat(body.get("seat") if isinstance(body, dict) else None, who)
        if seat is None:
            raise BadRequest(403, "the session's token watches as a spectator: it cannot undo")
        return JSONResponse(session.undo(seat))

    async def choose_route(request: Request) -> Response:
        """An action built by clicks: what the clicks so far leave of the seat's legal actions."""
        who = authenticate(request.headers.get(TOKEN_HEADER))
        if who == SPECTATOR:
            raise BadRequest(403, "the session's token watches as a spectator: it cannot act")
        body = await posted(request)
        choices = _choices(body)
        seat = asked_seat(body.get("seat"), who)
        if seat is None:
            raise BadRequest(403, "the session's token watches as a spectator: it cannot act")
        return JSONResponse(session.choose(seat, choices), headers=no_store)

    return Starlette(
        routes=[
            Route("/", guarded(index)),
            Route("/api/state", guarded(state)),
            Route("/api/log", guarded(seat_log)),
            Route("/api/act", guarded(act), methods=["POST"]),
            Route("/api/undo", guarded(undo), methods=["POST"]),
            Route("/api/choose", guarded(choose_route), methods=["POST"]),
        ],
        middleware=[Middleware(TrustedHostMiddleware, allowed_hosts=ALLOWED_HOSTS)],
    )


def bind(port: int) -> socket.socket:
    """A listening socket on 127.0.0.1 (port 0: any free port)."""
    sock = socket.socket(socket.AF_INET, socket.SOCK_STREAM)
    sock.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
    sock.bind(("127.0.0.1", port))
    sock.listen(64)
    return sock


def make_server(app: Any) -> Any:
    """A uvicorn server for ``app`` (quiet access log); run it on a socket from :func:`bind`."""
    import uvicorn

    config = uvicorn.Config(app, log_level="warning", access_log=False, lifespan="off")
    return uvicorn.Server(config)


def claim_log(path: str | None) -> str:
    """Create the log file, never over an existing one: a path given (``--log``) that exists is
    refused; without one, the first free name of ``game.jsonl``, ``game-2.jsonl`` ... is taken.
    The file is created exclusively, so no other process can slip one in between.

    Raises:
        RulekitError: the file given exists, or cannot be created (exit 1).
    """
    names = [path] if path is not None else [DEFAULT_LOG, *(f"game-{n}.jsonl" for n in range(2, 1000))]
    for name in names:
        try:
            os.close(os.open(name, os.O_WRONLY | os.O_CREAT | os.O_EXCL, 0o666))
        except FileExistsError:
            continue
        except OSError as error:
            raise RulekitError(Diagnostic(f"cannot create the log {name}: {error.strerror}")) from None
        return name
    if path is not None:
        raise RulekitError(
            Diagnostic(f"the log {path} exists; serve never overwrites a log", hint="give another --log")
        )
    raise RulekitError(Diagnostic("no free log name from game.jsonl to game-999.jsonl", hint="give --log"))


def session_from_args(args: argparse.Namespace) -> Session:
    modules = module_names(args.modules)
    program = load_program(args.ruleset, modules, args.variants, players=args.players)
    compile_view(program)
    count = args.players if args.players is not None else program.rules.min_players
    game = Game(program, count)
    given = args.human or ["1"]  # --human 1 --human 2, or --human 1,2
    humans = {parse_seat(s.strip(), count, "--human") for g in given for s in str(g).split(",") if s.strip()}
    seed = args.seed = game_seed(args.seed)
    bots = make_bots(game, args.bot, seed)
    source = None
    if "/" in args.ruleset:
        from rulekit.rules.compose import find_ruleset

        source = str(find_ruleset(args.ruleset).resolve())
    rated, hotseat = getattr(args, "rated", False), getattr(args, "hotseat", False)
    return Session(game, seed, humans, bots, claim_log(args.log), source, rated=rated, hotseat=hotseat)


def cmd_serve(args: argparse.Namespace) -> int:
    try:
        import starlette  # noqa: F401
        import uvicorn  # noqa: F401
    except ImportError:
        raise UsageError(
            Diagnostic(
                "rulekit serve needs the web extra (Starlette and uvicorn)",
                hint="pip install 'rulekit[web]'",
            )
        ) from None
    if not 0 <= args.port <= 65535:
        raise UsageError(Diagnostic("--port must be from 0 to 65535"))
    sock = bind(args.port)  # before the log is created: a port in use leaves no file behind
    with sock:  # closed however serve ends: a refused log or ruleset, Ctrl-C, the server stopping
        session = session_from_args(args)
        port = sock.getsockname()[1]
        title = session.game.program.rules.title
        print(f"{title} (log: {session.log_path}; Ctrl-C stops). Open, each in its own browser:")
        for who, url in session.urls(port):
            if who == "watch":
                print(f"  to watch (no seat, cannot act): {url}")
            elif who == "hotseat":
                print(f"  every person on one device, in turn (hotseat): {url}")
            else:
                print(f"  {who}: {url}")
        if session.rated:
            print("rated play: no undo")
        server = make_server(make_app(session))
        try:
            server.run(sockets=[sock])
        finally:  # only now: knowing the seed during play would tell the deal (the log holds it)
            print(f"the game's seed was {args.seed} (serve it again with --seed {args.seed})")
    return 0
