"""Writing action logs: the header, one line per action with the state's digest, the final hash."""

from __future__ import annotations

import json
from collections.abc import Iterator, Sequence
from pathlib import Path
from typing import Any

from attrs import define, field

from rulekit.engine.chance import apply_with_chance
from rulekit.engine.game import Action, Game, State
from rulekit.tools.files import LineSink, atomic_write_text

LOG_VERSION = 1

#: Hex digits of the state hash kept per action line: enough to notice a changed outcome.
DIGEST_LENGTH = 12


def state_digest(state: State) -> str:
    """The short digest of ``state`` written on each action line (``"h"``)."""
    return state.state_hash()[:DIGEST_LENGTH]


def action_line(player: int, text: str, digest: str | None, chance: Sequence[int] = ()) -> str:
    """One action line of a log; ``digest`` is the state after it (None: not recorded);
    ``chance`` the outcome index of each chance step the action drew (written when any)."""
    entry: dict[str, Any] = {"player": player_text(player), "action": text}
    if chance:
        entry["chance"] = list(chance)
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
        # the seed deals every hidden card again: this log is the referee's, not a seat's
        "referee": True,
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
    _chances: list[tuple[int, ...]] = field(factory=list, init=False, repr=False)
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
        drawn = apply_with_chance(state, action)
        digest = state_digest(state) if self.digests or self._sink is not None else None
        self.actions.append((player, text))
        self._outcomes.append(digest)
        self._chances.append(drawn)
        if self._sink is not None:
            self._sink.write_line(action_line(player, text, digest, drawn))

    def close(self, *, final_hash: bool = True) -> None:
        """Finish the streamed log (with the final hash unless the game was cut short)."""
        sink, self._sink = self._sink, None
        if sink is not None:
            try:
                if final_hash:
                    sink.write_line(json.dumps({"final_hash": self.state.state_hash()}))
            finally:
                sink.close()

    def played(self) -> list[tuple[str, tuple[int, ...]]]:
        """Each action's text with the outcomes its chance steps took (a seat's log is made
        from these: :mod:`rulekit.tools.log.seat`)."""
        chances = [()] * (len(self.actions) - len(self._chances)) + self._chances
        return [(text, drawn) for (_, text), drawn in zip(self.actions, chances, strict=True)]

    def header(self) -> dict[str, Any]:
        return make_header(self.game, self.seed, source=self.source)

    def lines(self, *, final_hash: bool = True) -> Iterator[str]:
        """The log as JSON Lines (without line ends)."""
        yield json.dumps(self.header())
        # Actions given when the recorder was made have no digest: pad in front.
        outcomes = [None] * (len(self.actions) - len(self._outcomes)) + self._outcomes
        chances = [()] * (len(self.actions) - len(self._chances)) + self._chances
        for (player, text), digest, drawn in zip(self.actions, outcomes, chances, strict=True):
            yield action_line(player, text, digest, drawn)
        if final_hash:
            yield json.dumps({"final_hash": self.state.state_hash()})

    def write(self, path: str | Path, *, final_hash: bool = True) -> None:
        atomic_write_text(path, "".join(line + "\n" for line in self.lines(final_hash=final_hash)))


def write_actions(path: str | Path, header: dict[str, Any], actions: Sequence[tuple[int, str]]) -> None:
    """Write a log from a header and (player, action text) pairs, without a final hash."""
    lines = [json.dumps(header)]
    lines.extend(action_line(p, a, None) for p, a in actions)
    atomic_write_text(path, "".join(line + "\n" for line in lines))
