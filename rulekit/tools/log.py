"""Action logs (JSON Lines) and replay.

A log is a header line, one line per action and optionally a final hash::

    {"rulekit_log": 1, "ruleset": "tic_tac_toe", "modules": [], "variants": [],
     "fingerprint": "…", "players": 2, "seed": 7}
    {"player": "P1", "action": "place(b2)", "h": "3f0c9a1e5b7d"}
    {"player": "P2", "action": "place(a1)", "h": "a41b0e6c92f3"}
    {"final_hash": "…"}

``h`` is the digest of the state after the action (:func:`state_digest`); logs
written before it existed have none and stay valid.  Replaying loads the same
ruleset with the same modules and variants, refuses if the composed rules
changed (their fingerprint differs), re-applies every action, checks each
digest and the final state hash.
"""

from __future__ import annotations

import json
import re
from collections.abc import Callable, Iterator, Sequence
from pathlib import Path
from typing import Any

from attrs import define, field

from rulekit.dsl.names import is_name
from rulekit.engine.game import Action, Game, State
from rulekit.errors import Diagnostic, IllegalActionError, ReplayError, RuleEvaluationError, Span, printable
from rulekit.limits import LIMITS
from rulekit.load import load_program
from rulekit.rules.compose import available_rulesets, bundled_ruleset_dirs, load_source
from rulekit.rules.variants import shipped_variants
from rulekit.tools.files import LineSink, atomic_write_text

LOG_VERSION = 1

#: Hex digits of the state hash kept per action line: enough to notice a changed outcome.
DIGEST_LENGTH = 12
_DIGEST = re.compile(f"[0-9a-f]{{{DIGEST_LENGTH}}}")


def state_digest(state: State) -> str:
    """The short digest of ``state`` written on each action line (``"h"``)."""
    return state.state_hash()[:DIGEST_LENGTH]


def action_line(player: int, text: str, digest: str | None) -> str:
    """One action line of a log; ``digest`` is the state after it (None: not recorded)."""
    entry: dict[str, str] = {"player": player_text(player), "action": text}
    if digest is not None:
        entry["h"] = digest
    return json.dumps(entry)


def player_text(player: int) -> str:
    """A player as written in logs and scenarios: ``P1``, ``P2``..."""
    return f"P{player + 1}"


def make_header(game: Game, seed: int, *, source: str | None = None) -> dict[str, Any]:
    """The header line of a log of ``game`` started with ``seed``.

    ``source`` is the ruleset directory when it was given as a path rather than
    a bundled name; replay tries it before the name.
    """
    rules = game.program.rules
    header: dict[str, Any] = {
        "rulekit_log": LOG_VERSION,
        "ruleset": rules.name,
        "modules": list(rules.modules),
        "variants": [{"path": path, "fingerprint": print_} for path, print_ in rules.variants],
        "fingerprint": game.program.fingerprint,
        "semantics": game.program.semantic_fingerprint,
        "players": game.num_players,
        "seed": seed,
    }
    if source is not None:
        header["source"] = source
    return header


@define
class GameRecorder:
    """Wraps a :class:`State` and records every action applied through it.

    With ``log_path``, the log is also streamed to a file as the game goes (see
    :class:`~rulekit.tools.files.LineSink`); :meth:`close` finishes it.  With
    ``digests`` (the default) each action's line carries the digest of the state
    after it; a caller that never writes the log may turn that off to save the hashing.
    """

    state: State
    seed: int
    source: str | None = None
    actions: list[tuple[int, str]] = field(factory=list)
    log_path: str | Path | None = None
    digests: bool = True
    _outcomes: list[str | None] = field(factory=list, init=False, repr=False)
    _sink: LineSink | None = field(default=None, init=False, repr=False)

    def __attrs_post_init__(self) -> None:
        if self.log_path is not None:
            self._sink = LineSink(self.log_path)
            self._sink.write_line(json.dumps(self.header()))

    @property
    def game(self) -> Game:
        return self.state.game

    def apply_action(self, action: Action | str) -> None:
        """Apply an action to the state (atomically) and record it if it was legal."""
        state = self.state
        if isinstance(action, str):
            action = state.game.parse_action(action)
        player = state.current_player()
        text = state.game.action_to_string(action)
        state.apply_action(action)
        digest = state_digest(state) if self.digests or self._sink is not None else None
        self.actions.append((player, text))
        self._outcomes.append(digest)
        if self._sink is not None:
            self._sink.write_line(action_line(player, text, digest))

    def close(self, *, final_hash: bool = True) -> None:
        """Finish the streamed log (with the final hash unless the game was cut short)."""
        sink, self._sink = self._sink, None
        if sink is not None:
            try:
                if final_hash:
                    sink.write_line(json.dumps({"final_hash": self.state.state_hash()}))
            finally:
                sink.close()

    def header(self) -> dict[str, Any]:
        return make_header(self.game, self.seed, source=self.source)

    def lines(self, *, final_hash: bool = True) -> Iterator[str]:
        """The log as JSON Lines (without line ends)."""
        yield json.dumps(self.header())
        # Actions given when the recorder was made have no digest: pad in front.
        outcomes = [None] * (len(self.actions) - len(self._outcomes)) + self._outcomes
        for (player, text), digest in zip(self.actions, outcomes, strict=True):
            yield action_line(player, text, digest)
        if final_hash:
            yield json.dumps({"final_hash": self.state.state_hash()})

    def write(self, path: str | Path, *, final_hash: bool = True) -> None:
        atomic_write_text(path, "".join(line + "\n" for line in self.lines(final_hash=final_hash)))


@define
class GameLog:
    """A log read back from a file: header, actions (with their line numbers), final hash."""

    path: str
    header: dict[str, Any]
    actions: list[tuple[int, str, str]]  # (line, player text, action text)
    final_hash: str | None = None
    final_line: int = 0
    #: Where the log breaks off in the middle of a line (a game cut short), if it does.
    truncated: Span | None = None
    #: The state digest recorded after each action, by line number (older logs have none).
    digests: dict[int, str] = field(factory=dict)


def read_log(path: str | Path) -> GameLog:
    """Read a JSON Lines log.

    Raises:
        ReplayError: the file is missing or not a rulekit log (with the line).
    """
    name = str(path)
    header: dict[str, Any] | None = None
    actions: list[tuple[int, str, str]] = []
    final_hash = None
    final_line = 0
    truncated = None
    digests: dict[int, str] = {}
    for number, line, complete in _lines(path, name):
        if not line.strip():
            continue
        where = Span(name, number, 1)
        try:
            entry = _json_line(line, where)
        except ReplayError:
            if complete or header is None:
                raise
            truncated = where  # the last line was cut off (a killed game): replay what came before
            break
        if not isinstance(entry, dict):
            raise ReplayError(Diagnostic("each log line must be a JSON object", where))
        if header is None:
            version = entry.get("rulekit_log")
            if type(version) is not int or version != LOG_VERSION:
                raise ReplayError(
                    Diagnostic(
                        'not a rulekit log: the first line must be a header with "rulekit_log": 1', where
                    )
                )
            missing = [k for k in ("ruleset", "fingerprint", "players", "seed") if k not in entry]
            if missing:
                raise ReplayError(Diagnostic(f"the log header lacks {', '.join(missing)}", where))
            _check_header(entry, where)
            header = entry
        elif "final_hash" in entry:
            final_hash = str(entry["final_hash"])
            final_line = number
        elif isinstance(entry.get("action"), str):
            actions.append((number, str(entry.get("player", "")), entry["action"]))
            if "h" in entry:
                digest = entry["h"]
                if not isinstance(digest, str) or not _DIGEST.fullmatch(digest):
                    raise ReplayError(
                        Diagnostic(
                            f'the action\'s state digest "h" must be {DIGEST_LENGTH} lowercase hex '
                            f"digits, not {json.dumps(digest)[:40]}",
                            where,
                        )
                    )
                digests[number] = digest
        else:
            raise ReplayError(
                Diagnostic(
                    'expected an action line {"player": ..., "action": ...} or {"final_hash": ...}', where
                )
            )
    if header is None:
        raise ReplayError(Diagnostic(f"log '{name}' is empty", Span(name, 1, 1)))
    return GameLog(name, header, actions, final_hash, final_line, truncated, digests)


def _lines(path: str | Path, name: str) -> Iterator[tuple[int, str, bool]]:
    """(line number, text, ends with a newline) of each line, refusing overlong lines."""
    limit = LIMITS.max_line_bytes
    try:
        with open(path, "rb") as stream:
            for number, raw in enumerate(iter(lambda: stream.readline(limit + 1), b""), start=1):
                complete = raw.endswith(b"\n")
                if len(raw) > limit and not (complete and len(raw) == limit + 1):
                    raise ReplayError(
                        Diagnostic(
                            f"line longer than {limit} bytes",
                            Span(name, number, 1),
                            hint="see docs/security.md for the limit and how to raise it",
                        )
                    )
                try:
                    text = raw.decode("utf-8")
                except UnicodeDecodeError as error:
                    raise ReplayError(
                        Diagnostic(
                            "the log is not UTF-8 text (a rulekit log is JSON Lines)",
                            Span(name, number, error.start + 1),
                        )
                    ) from None
                yield number, text.rstrip("\r\n"), complete
    except OSError as error:
        raise ReplayError(Diagnostic(f"cannot read log '{name}': {error.strerror}")) from None


def _json_line(line: str, where: Span) -> Any:
    """One JSON value; nesting beyond the depth limit and oversized numbers are refused."""
    depth = 0
    deepest = 0
    for char in line:  # brackets inside strings count too: a bound, not a parse
        if char in "[{":
            depth += 1
            deepest = max(deepest, depth)
        elif char in "]}":
            depth -= 1
    if deepest > LIMITS.max_depth:
        raise ReplayError(Diagnostic(f"JSON nested more than {LIMITS.max_depth} levels deep", where))
    try:
        return json.loads(line)
    except json.JSONDecodeError as error:
        raise ReplayError(
            Diagnostic(f"not JSON: {error.msg}", Span(where.file, where.line, error.colno))
        ) from None
    except (ValueError, RecursionError) as error:  # e.g. an integer beyond Python's digit limit
        raise ReplayError(Diagnostic(f"cannot read this line: {error}", where)) from None


def _is_int(value: Any) -> bool:
    return isinstance(value, int) and not isinstance(value, bool)


def _is_variant_list(value: Any) -> bool:
    return isinstance(value, list) and all(
        isinstance(e, dict) and isinstance(e.get("path"), str) for e in value
    )


#: What each header entry must be, in words, and the check for it.
_HEADER_TYPES: dict[str, tuple[str, Callable[[Any], bool]]] = {
    "ruleset": ("a string", lambda v: isinstance(v, str)),
    "fingerprint": ("a string", lambda v: isinstance(v, str)),
    "semantics": ("a string", lambda v: isinstance(v, str)),
    "players": ("an integer", _is_int),
    "seed": ("an integer", _is_int),
    "source": ("a string", lambda v: isinstance(v, str)),
    "modules": ("a list of strings", lambda v: isinstance(v, list) and all(isinstance(m, str) for m in v)),
    "variants": ('a list of {"path": ..., "fingerprint": ...}', _is_variant_list),
}


def _check_header(header: dict[str, Any], where: Span) -> None:
    """Refuse a header whose entries have the wrong JSON types (a damaged or hand-edited log)."""
    for key, (expected, ok) in _HEADER_TYPES.items():
        if key in header and not ok(header[key]):
            shown = json.dumps(header[key])
            raise ReplayError(Diagnostic(f"the log header's {key!r} must be {expected}, not {shown}", where))


def load_game_for(
    log: GameLog,
    ruleset: str | None = None,
    variants: Sequence[str] | None = None,
    *,
    force: bool = False,
) -> Game:
    """The game a log was recorded with, refusing if the rules changed in what decides play.

    ``ruleset`` overrides where the rules are looked up (a name or directory),
    ``variants`` the variant files named in the log.  Rules changed only in wording
    (docs, messages, panels: the log's ``semantics`` fingerprint still matches)
    are accepted; ``force`` accepts any change.

    Raises:
        ReplayError: the rules' fingerprint differs from the one in the log.
        RulesetError: the ruleset cannot be found or loaded.
    """
    header = log.header
    head = Span(log.path, 1, 1)
    where = ruleset if ruleset is not None else _bundled(header, head)
    modules = [str(m) for m in header.get("modules") or ()]
    if variants is None:
        variants = _shipped_variants(header, where, head)
    players = header["players"]
    if not 1 <= players <= 1000:
        raise ReplayError(Diagnostic(f"the log header's 'players' is out of range: {players}", head))
    shown_modules = f" with modules {', '.join(modules)}" if modules else ""

    def same_rules(fingerprint: str, variant_prints: tuple[tuple[str, str], ...], semantics: str) -> None:
        # Checked before anything is compiled: a log for other rules never reaches the compiler.
        if force or rules_match(header, fingerprint, semantics):
            return
        recorded = [v for v in header.get("variants") or () if isinstance(v, dict)]
        changed = [
            f"variant {path} changed (fingerprint {entry.get('fingerprint')} in the log, {now} now)"
            for (path, now), entry in zip(variant_prints, recorded, strict=False)
            if str(entry.get("fingerprint")) != now
        ]
        raise ReplayError(
            Diagnostic(
                f"the rules changed since this game was logged: the log has fingerprint "
                f"{header['fingerprint']}, but {header['ruleset']}{shown_modules} now has fingerprint "
                f"{fingerprint}" + "".join(f"; {c}" for c in changed),
                head,
                hint="replay with the rules the game was played with (e.g. the same rulekit/ruleset "
                "version), or replay --force to find the first action whose outcome differs",
            )
        )

    program = load_program(where, modules, variants, players=players, before_compile=same_rules)
    return Game(program, players)


def rules_match(header: dict[str, Any], fingerprint: str, semantics: str) -> bool:
    """The log's rules and these play the same: equal fingerprints, or equal semantic ones."""
    if fingerprint == header["fingerprint"]:
        return True
    return "semantics" in header and semantics == header["semantics"]


def _bundled(header: dict[str, Any], head: Span) -> str:
    """The bundled ruleset a header names; rules from anywhere else need --ruleset."""
    name = header["ruleset"]
    source = header.get("source")
    if source is not None or not is_name(name) or name not in available_rulesets():
        shown = json.dumps(source if source is not None else name)
        raise ReplayError(
            Diagnostic(
                f"this game was played with the rules at {shown}, not a bundled ruleset",
                head,
                hint="rulekit loads rules only from where you name them: "
                f"rulekit replay LOG --ruleset {printable(source or name)}",
            )
        )
    # The bundled directory itself, so that a directory of that name where rulekit runs is not used.
    return next(str(d / name) for d in bundled_ruleset_dirs() if (d / name / "ruleset.yaml").is_file())


def _shipped_variants(header: dict[str, Any], ruleset: str, head: Span) -> list[str]:
    """The header's variants, each of which must be shipped with the ruleset (else: --variant)."""
    refs = [str(v["path"]) for v in header.get("variants") or ()]
    if not refs:
        return []
    shipped = shipped_variants(load_source(ruleset))
    result = []
    for ref in refs:
        path = Path(ref)
        stem = path.stem if path.suffix in (".yaml", ".yml") else path.name
        if stem not in shipped or not ("/" not in ref or path.parent.name == "variants"):
            raise ReplayError(
                Diagnostic(
                    f"the log names the variant {json.dumps(ref)}, which is not shipped with the ruleset",
                    head,
                    hint="rulekit loads rules only from where you name them: add --variant for each variant",
                )
            )
        result.append(str(shipped[stem]))
    return result


def replay(path: str | Path, *, ruleset: str | None = None, variants: Sequence[str] | None = None) -> State:
    """Replay a log and return the final state.

    Raises:
        ReplayError: the rules changed, an action is not legal, a line names the
            wrong player, or the final hash differs.
    """
    log = read_log(path)
    game = load_game_for(log, ruleset, variants)
    return replay_actions(game, log)


def apply_logged(state: State, where: Span, player: str, text: str) -> None:
    """Apply one logged action (``player`` plays ``text``; the line at ``where``).

    Raises:
        ReplayError: the game is over, another player decides, or the action is refused.
    """
    if state.is_terminal():
        raise ReplayError(Diagnostic(f"the game is already over before {text}", where))
    deciding = player_text(state.current_player())
    if player and player != deciding:
        raise ReplayError(
            Diagnostic(f"the log says {player} plays {text}, but {deciding} decides now", where)
        )
    try:
        state.apply_action(text)
    except (IllegalActionError, RuleEvaluationError) as error:
        reason = "; ".join(d.message for d in error.diagnostics)
        raise ReplayError(Diagnostic(f"cannot replay {text}: {reason}", where)) from None


def outcome_differs(state: State, log: GameLog, number: int) -> str | None:
    """Why the state after the action on line ``number`` is not the one logged (None: it is,
    or the line has no digest)."""
    logged = log.digests.get(number)
    if logged is None:
        return None
    digest = state_digest(state)
    if digest == logged:
        return None
    return f"has another outcome: the state after it has digest {digest}, the log says {logged}"


def replay_actions(game: Game, log: GameLog) -> State:
    """Apply a log's actions to a fresh state of ``game`` and check the final hash."""
    state = game.new_initial_state(int(log.header["seed"]))
    for index, (number, player, text) in enumerate(log.actions):
        where = Span(log.path, number, 1)
        apply_logged(state, where, player, text)
        problem = outcome_differs(state, log, number)
        if problem is not None:
            raise ReplayError(
                Diagnostic(f"action {index + 1} ({player} {text}) {problem}".replace("( ", "("), where)
            )
    if log.final_hash is not None and state.state_hash() != log.final_hash:
        raise ReplayError(
            Diagnostic(
                f"the replayed game ends in state {state.state_hash()}, but the log says {log.final_hash}",
                Span(log.path, log.final_line, 1),
            )
        )
    return state


def write_actions(path: str | Path, header: dict[str, Any], actions: Sequence[tuple[int, str]]) -> None:
    """Write a log from a header and (player, action text) pairs, without a final hash."""
    lines = [json.dumps(header)]
    lines.extend(action_line(p, a, None) for p, a in actions)
    atomic_write_text(path, "".join(line + "\n" for line in lines))
