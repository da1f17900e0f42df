"""``rulekit replay --force``: replay a log with changed rules and find where play diverges.

The log's actions are applied to the current rules one by one, to the end or to
the first action that no longer replays (not legal now, decided by another player,
after the end, a rule that fails).  Each action line's state digest names the first
action whose outcome differs although it still replays; a log without digests
(written before them) can only tell by the final state hash.
"""

from __future__ import annotations

from collections.abc import Sequence
from pathlib import Path

from attrs import define

from rulekit.engine.game import State
from rulekit.errors import IllegalActionError, RuleEvaluationError
from rulekit.tools.log import load_game_for, outcome_differs, player_text, read_log, rules_match


@define
class ForcedReplay:
    """What a forced replay found: the state reached and the first difference, if any."""

    state: State
    replayed: int
    total: int
    rules_changed: bool
    #: The first action that could not be replayed (or another end), with the reason.
    difference: str | None = None
    #: The first action that replayed but left another state than logged.
    outcome: str | None = None

    @property
    def same(self) -> bool:
        return self.difference is None and self.outcome is None

    def report(self) -> list[str]:
        program = self.state.game.program
        lines = []
        if self.rules_changed:
            lines.append(
                "the rules changed since the game was logged; replaying anyway with "
                f"{program.name} (fingerprint {program.fingerprint}, "
                f"semantics {program.semantic_fingerprint})"
            )
        if self.same:
            lines.append(f"ok: all {self.total} actions replay and the game ends in the logged state")
            return lines
        replayed = f"replayed {self.replayed} of {self.total} actions"
        if self.outcome is None:
            lines.append(f"{replayed}; first difference: {self.difference}")
            return lines
        lines.append(f"{replayed}; first action whose outcome differs: {self.outcome}")
        if self.difference is not None:
            lines.append(f"first action that cannot be replayed: {self.difference}")
        return lines


def force_replay(
    path: str | Path, *, ruleset: str | None = None, variants: Sequence[str] | None = None
) -> ForcedReplay:
    """Replay ``path`` with the current rules, whatever their fingerprint.

    Raises:
        ReplayError: the file is not a log.
        RulesetError: the rules cannot be loaded.
    """
    log = read_log(path)
    game = load_game_for(log, ruleset, variants, force=True)
    program = game.program
    changed = not rules_match(log.header, program.fingerprint, program.semantic_fingerprint)
    state = game.new_initial_state(int(log.header["seed"]))
    total = len(log.actions)
    outcome: str | None = None
    for index, (number, player, text) in enumerate(log.actions):
        where = f"action {index + 1} (line {number}) {player} {text}".replace("  ", " ")
        if state.is_terminal():
            return ForcedReplay(state, index, total, changed, f"{where}: the game is already over", outcome)
        deciding = player_text(state.current_player())
        if player and player != deciding:
            return ForcedReplay(state, index, total, changed, f"{where}: {deciding} decides now", outcome)
        try:
            state.apply_action(text)
        except (IllegalActionError, RuleEvaluationError) as error:
            reason = "; ".join(d.message for d in error.diagnostics)
            return ForcedReplay(state, index, total, changed, f"{where}: {reason}", outcome)
        if outcome is None:
            problem = outcome_differs(state, log, number)
            if problem is not None:
                outcome = f"{where}: it {problem}"
    if outcome is None and log.final_hash is not None and state.state_hash() != log.final_hash:
        return ForcedReplay(
            state,
            total,
            total,
            changed,
            f"every action replays, but the game ends in state {state.state_hash()}, "
            f"not {log.final_hash} as logged (line {log.final_line})",
        )
    return ForcedReplay(state, total, total, changed, None, outcome)
