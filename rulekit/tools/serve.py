"""``rulekit serve``: play a game in the browser against bots, on 127.0.0.1 only.

One game per server.  People play the seats given with ``--human``; bots the
others, right after each human action.  The page shows the picture of the state
as the seat on turn may see it, the legal actions as a list and as clickable
shapes of the picture (shapes whose ``ref`` is an argument of a legal action),
and explains a rejected attempt with the rule's message and citation.  The log
is written as JSON Lines after every action, so it replays with ``rulekit replay``.

Needs the ``web`` extra (Starlette and uvicorn): ``pip install 'rulekit[web]'``.
"""

from __future__ import annotations

import argparse
import socket
import threading
from typing import Any
from urllib.parse import urlsplit

from rulekit.engine.game import Action, Game, State
from rulekit.engine.values import format_value
from rulekit.errors import Diagnostic, IllegalActionError, RuleEvaluationError, RulekitError, UsageError
from rulekit.load import load_program
from rulekit.tools.bots import Bot, make_bots
from rulekit.tools.files import atomic_write_text
from rulekit.tools.html import new_nonce, policy, render
from rulekit.tools.log import GameRecorder
from rulekit.tools.options import module_names, parse_seat
from rulekit.tools.render import describe_decision
from rulekit.tools.svg import to_svg
from rulekit.tools.view import compile_view, draw

MAX_ACTION_TEXT = 500
MAX_BOT_ACTIONS = 100_000
ALLOWED_HOSTS = ["127.0.0.1", "localhost"]


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
    ) -> None:
        if not humans:
            raise UsageError(Diagnostic("serve needs at least one seat played by a person (--human)"))
        self.recorder = GameRecorder(game.new_initial_state(seed), seed, source)
        self.humans = humans
        self.bots = bots
        self.log_path = log_path
        self.lock = threading.Lock()
        self.fired: dict[int, list[str]] = {}
        self._play_bots()
        self._save()

    @property
    def state(self) -> State:
        return self.recorder.state

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
        self.fired[len(self.recorder.actions)] = fired

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
                    raise IllegalActionError(state.explain(action))
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
                return {"ok": False, "error": _message(IllegalActionError(state.explain(action)))}
            return {"ok": False, "error": f"no action can be taken with {ref} now"}

    # -------------------------------------------------------------- show
    def seat_to_show(self, requested: int | None) -> int:
        """The seat whose picture is shown: the one asked for, else the person on turn, else the first."""
        if requested is not None:
            return requested
        state = self.state
        if not state.is_terminal() and state.current_player() in self.humans:
            return state.current_player()
        return min(self.humans)

    def snapshot(self, requested: int | None = None) -> dict[str, Any]:
        """What the page shows for a seat: the picture, the legal actions if it is her turn, the log."""
        with self.lock:
            state = self.state
            seat = self.seat_to_show(requested)
            picture = draw(state, seat)
            deciding = None if state.is_terminal() else state.current_player()
            legal = []
            if deciding == seat and seat in self.humans:
                for action in state.legal_actions():
                    text = self.game.action_to_string(action)
                    legal.append({"text": text, "name": action.name, "refs": self._refs(action)})
            actions = self.recorder.actions
            log = [
                {"n": n, "player": f"P{p + 1}", "text": text, "fired": self.fired.get(n, [])}
                for n, (p, text) in enumerate(actions, start=1)
            ][-200:]
            return {
                "seat": f"P{seat + 1}",
                "humans": [f"P{h + 1}" for h in sorted(self.humans)],
                "svg": to_svg(picture),
                "legal": legal,
                "your_turn": bool(legal),
                "decision": describe_decision(state),
                "terminal": state.is_terminal(),
                "standings": [[f"P{p + 1}", list(key)] for p, key in state.standings()]
                if state.is_terminal()
                else [],
                "scores": state.scores(),
                "moves": state.moves(),
                "log": log,
                "log_file": self.log_path,
                "errors": list(picture.errors),
            }

    def _refs(self, action: Action) -> list[str]:
        types = self.game.program.actions[action.name].param_types
        return [format_value(arg, ty) for arg, ty in zip(action.args, types, strict=False)]


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


def _seat_param(value: Any, players: int) -> int | None:
    if value in (None, ""):
        return None
    raw = str(value).removeprefix("P").removeprefix("p")
    if not raw.isdigit() or not 1 <= int(raw) <= players:
        raise ValueError(f"no seat {value!r}")
    return int(raw) - 1


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

    def index(request: Request) -> Response:
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

    def state(request: Request) -> Response:
        try:
            seat = _seat_param(request.query_params.get("seat"), players)
        except ValueError as error:
            return JSONResponse({"error": str(error)}, status_code=400)
        if seat is not None and seat not in session.humans:
            # a bot's seat sees its own hidden cards: the person at the page may not
            return JSONResponse(
                {"error": f"P{seat + 1} is played by a bot: only the seats of people are shown"},
                status_code=403,
            )
        return JSONResponse(session.snapshot(seat), headers={"Cache-Control": "no-store"})

    async def act(request: Request) -> Response:
        # Another site's page can post to 127.0.0.1 too: only JSON (which browsers send across
        # sites only after a CORS preflight this server never allows) from no or a local origin.
        if request.headers.get("content-type", "").split(";")[0].strip() != "application/json":
            return JSONResponse(
                {"ok": False, "error": "send JSON (Content-Type: application/json)"}, status_code=415
            )
        origin = urlsplit(request.headers.get("origin", "")).hostname
        if origin is not None and origin not in ALLOWED_HOSTS:
            return JSONResponse(
                {"ok": False, "error": "requests from other sites are refused"}, status_code=403
            )
        try:
            body = await request.json()
            seat = _seat_param(body.get("seat"), players)
            text = body.get("action")
            ref = body.get("ref")
        except (ValueError, AttributeError) as error:
            return JSONResponse({"ok": False, "error": f"bad request: {error}"}, status_code=400)
        if seat is None:
            seat = session.seat_to_show(None)
        if isinstance(text, str):
            return JSONResponse(session.act(seat, text))
        if isinstance(ref, str) and len(ref) <= MAX_ACTION_TEXT:
            return JSONResponse(session.explain_ref(seat, ref))
        return JSONResponse({"ok": False, "error": "send {action: TEXT} or {ref: TEXT}"}, status_code=400)

    return Starlette(
        routes=[
            Route("/", index),
            Route("/api/state", state),
            Route("/api/act", act, methods=["POST"]),
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


def session_from_args(args: argparse.Namespace) -> Session:
    modules = module_names(args.modules)
    program = load_program(args.ruleset, modules, args.variants, players=args.players)
    compile_view(program)
    count = args.players if args.players is not None else program.rules.min_players
    game = Game(program, count)
    humans = {parse_seat(s.strip(), count, "--human") for s in str(args.human).split(",") if s.strip()}
    bots = make_bots(game, args.bot, args.seed)
    source = None
    if "/" in args.ruleset:
        from rulekit.rules.compose import find_ruleset

        source = str(find_ruleset(args.ruleset).resolve())
    return Session(game, args.seed, humans, bots, args.log, source)


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
    session = session_from_args(args)
    sock = bind(args.port)
    port = sock.getsockname()[1]
    print(
        f"{session.game.program.rules.title}: open http://127.0.0.1:{port}/ (Ctrl-C stops; log: {args.log})"
    )
    server = make_server(make_app(session))
    server.run(sockets=[sock])
    return 0
