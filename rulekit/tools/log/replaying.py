"""Replaying action logs: the game a log was played with (refused when its rules changed), then
every action re-applied and its digest compared."""

from __future__ import annotations

import json
from collections.abc import Sequence
from pathlib import Path
from typing import Any

from rulekit.dsl.names import is_name
from rulekit.engine.chance import apply_with_chance
from rulekit.engine.game import Game, State
from rulekit.errors import Diagnostic, IllegalActionError, ReplayError, RuleEvaluationError, Span, printable
from rulekit.load import load_program
from rulekit.rules.compose import available_rulesets, bundled_ruleset_dirs, load_source
from rulekit.rules.parameters import is_setting
from rulekit.rules.variants import shipped_variants
from rulekit.tools.log.reading import GameLog, read_log
from rulekit.tools.log.writing import player_text, state_digest


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
    rules = program.rules
    if not rules.min_players <= players <= rules.max_players:  # at the header, like its other fields
        raise ReplayError(
            Diagnostic(
                f"{rules.title} is for {rules.min_players}-{rules.max_players} players, not {players}", head
            )
        )
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
    """The header's variants, each of which must be shipped with the ruleset (else: --variant), and
    its parameter settings (checked like ``--param``'s)."""
    refs = [str(v["path"]) for v in header.get("variants") or ()]
    if not refs:
        return []
    shipped = shipped_variants(load_source(ruleset))
    result = []
    for ref in refs:
        if is_setting(ref):
            result.append(ref)
            continue
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


def apply_logged(state: State, where: Span, player: str, text: str, chance: Sequence[int] = ()) -> None:
    """Apply one logged action (``player`` plays ``text``; the line at ``where``), its chance
    steps taking the outcomes ``chance`` (later ones: the seeded generator).

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
        apply_with_chance(state, text, chance)
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
        apply_logged(state, where, player, text, log.chances.get(number, ()))
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
