"""``rulekit verify``: property-based verification of a ruleset.

Hypothesis plays games by drawing, at every decision, the index of one of the
legal actions (so it can shrink towards the first action and towards fewer
actions), and checks (see :class:`Checker` for which check runs how often)

* every invariant declared in the rules (``invariants:``), and
* the engine properties that hold for every ruleset: an offered legal action
  applies without error; a rejected action leaves the state unchanged; a clone
  is independent of its original; the JSON round trip is exact; replaying the
  log gives the same state hash; a player's view does not change when only
  what that player cannot see changes.

On a violation the counterexample is shrunk by hypothesis, then made
1-minimal (dropping any one action makes the violation disappear or an action
illegal), explained (the invariant's file:line, message and the values of its
parts) and written as a replayable log and a scenario file.
"""

from __future__ import annotations

import argparse
import json
import sys
import time
from bisect import bisect_right
from collections.abc import Callable, Iterator, Sequence
from itertools import accumulate
from pathlib import Path
from typing import Any

from attrs import define, field

from rulekit.compiler.program import CompiledInvariant, Program
from rulekit.dsl import ast
from rulekit.dsl import types as t
from rulekit.dsl.printer import print_expr
from rulekit.dsl.types import Type
from rulekit.engine.game import TERMINAL, Action, Game, State
from rulekit.engine.values import format_value, to_json
from rulekit.errors import DiagnosticBag, IllegalActionError, RulekitError, RulesetError, Span, UsageError
from rulekit.load import load_program
from rulekit.rules.yaml_source import dump_text
from rulekit.tools.coverage import Coverage
from rulekit.tools.options import add_rules_options, module_names

DEFAULT_EXAMPLES = 200
DEFAULT_MAX_ACTIONS = 1000
MAX_SEED = 1_000_000
#: The costlier engine properties are checked every this many actions (and at each game's end).
HEAVY_EVERY = 8
#: Counterexamples up to this long are also shortened by dropping two separate actions.
MAX_PAIR_SEARCH = 30
_ENGINE = "_"

# ------------------------------------------------------------------ failures


class PropertyFailure(Exception):
    """An invariant or engine property failed; raised while a game runs.

    ``key`` identifies *what* failed (e.g. ``invariant:marks_balanced``); a
    subclass per key is raised so that hypothesis shrinks each distinct
    failure on its own.
    """

    def __init__(
        self,
        key: str,
        message: str,
        *,
        span: Span | None = None,
        state: State | None = None,
        history: Sequence[tuple[int, str]] = (),
        players: int = 0,
        seed: int = 0,
        invariant: CompiledInvariant | None = None,
        details: Sequence[str] = (),
    ) -> None:
        super().__init__(f"{key}: {message}")
        self.key = key
        self.message = message
        self.span = span
        self.state = state
        self.history = list(history)
        self.players = players
        self.seed = seed
        self.invariant = invariant
        self.details = list(details)


_FAILURE_CLASSES: dict[str, type[PropertyFailure]] = {}


def _failure_class(key: str) -> type[PropertyFailure]:
    cls = _FAILURE_CLASSES.get(key)
    if cls is None:
        safe = "".join(ch if ch.isalnum() else "_" for ch in key)
        cls = type(f"Violation_{safe}", (PropertyFailure,), {})
        _FAILURE_CLASSES[key] = cls
    return cls


def _fail(key: str, message: str, **kwargs: Any) -> PropertyFailure:
    return _failure_class(key)(key, message, **kwargs)


class _NotReplayable(Exception):
    """A candidate action sequence is not playable (an action is illegal or the game ended)."""


#: Engine properties, by key, as printed in reports.
ENGINE_PROPERTIES = {
    "setup": "the initial state can be set up",
    "legal-applies": "every offered legal action applies without error",
    "rejected-unchanged": "a rejected action is refused and leaves the state unchanged",
    "clone-independent": "a clone is independent of its original",
    "json-roundtrip": "the JSON round trip is exact",
    "replay": "replaying the log gives the same state hash",
    "view-hidden": "a player's view does not change when only what the player cannot see changes",
    "terminal": "a finished game has no decision and can be scored",
    "state-values": "state values are immutable JSON-able values (int, bool, str, none, tuple, map)",
}

# ------------------------------------------------------------------ options and statistics


@define
class VerifyOptions:
    """What to verify and how hard (the command line's arguments)."""

    ruleset: str
    modules: tuple[str, ...] = ()
    variants: tuple[str, ...] = ()
    examples: int = DEFAULT_EXAMPLES
    max_actions: int = DEFAULT_MAX_ACTIONS
    seed: int = 0
    players: int | None = None
    coverage: bool = False
    weighted: bool = False
    out: Path | None = Path("verify-out")
    shrink: bool = True
    progress: bool = False


@define
class Stats:
    """What the exploration did."""

    games: int = 0
    actions: int = 0
    invariant_checks: int = 0
    property_checks: int = 0
    started: float = field(factory=time.perf_counter)
    seconds: float = 0.0
    found_after_games: int | None = None
    found_after_seconds: float = 0.0

    def per_minute(self, count: int) -> float:
        return count * 60.0 / self.seconds if self.seconds > 0 else 0.0

    def summary(self) -> str:
        text = (
            f"{self.games} games, {self.actions} actions, {self.invariant_checks} invariant checks, "
            f"{self.property_checks} engine-property checks in {self.seconds:.1f}s "
            f"({self.per_minute(self.games):,.0f} games/min, "
            f"{self.per_minute(self.actions):,.0f} actions/min)"
        )
        if self.found_after_games is not None:
            text += (
                f"; the first violation came in game {self.found_after_games} after "
                f"{self.found_after_seconds:.1f}s"
            )
        return text


@define
class Counterexample:
    """A shrunk violation, explained and ready to write out."""

    key: str
    message: str
    span: Span | None
    players: int
    seed: int
    actions: list[tuple[int, str]]
    details: list[str]
    original_length: int
    invariant: CompiledInvariant | None = None
    files: list[Path] = field(factory=list)

    @property
    def name(self) -> str:
        return self.key.split(":", 1)[1] if ":" in self.key else self.key


@define
class VerifyResult:
    """The outcome of :func:`verify`."""

    program: Program
    stats: Stats
    counterexample: Counterexample | None = None
    coverage: Coverage | None = None

    @property
    def ok(self) -> bool:
        return self.counterexample is None


# ------------------------------------------------------------------ the checker


class Checker:
    """Plays games of one ruleset and checks every property after every action.

    ``full`` also replays the log after every action (used when minimizing and
    reproducing, where games are short); exploration replays it at the end of
    each game (where it stopped).
    """

    def __init__(self, program: Program, stats: Stats, *, full: bool = False) -> None:
        self.program = program
        self.stats = stats
        self.full = full
        self.games: dict[int, Game] = {}
        self.hidden_cache: dict[tuple[int, int | None], list[tuple[Any, str]]] = {}
        self.fired: Callable[[str], None] | None = None
        self._visibility: dict[tuple[str, str], str] = {
            (scope, name): decl.visibility
            for scope, fields in program.rules.fields.items()
            for name, decl in fields.items()
        }
        self._scope_of: dict[Any, str] = {"game": "game", "turn": "turn"}
        for kind, ids in program.collections.items():
            for ident in ids:
                self._scope_of[ident] = kind

    def game(self, players: int) -> Game:
        game = self.games.get(players)
        if game is None:
            game = Game(self.program, players)
            game.runtime.fired = self.fired
            self.games[players] = game
        return game

    # -- one game
    def start(self, players: int, seed: int) -> State:
        game = self.game(players)
        self.players, self.seed = players, seed
        self.history: list[tuple[int, str]] = []
        try:
            state = game.new_initial_state(seed)
        except Exception as error:
            raise self._failure("engine:setup", f"setup failed: {_describe_error(error)}") from None
        self.stats.games += 1
        self.check_state(state)
        return state

    def step(self, state: State, action: Action) -> None:
        """Apply one legal ``action`` and check everything."""
        game = state.game
        text = game.action_to_string(action)
        player = state.current_player()
        heavy = self.full or (len(self.history) + 1) % HEAVY_EVERY == 0
        self.check_rejections(state)
        before = _snapshot(state.fields, deep=heavy)
        legal_before = list(state.legal_actions())
        twin = state.clone()
        try:
            state.apply_action(action)
        except Exception as error:
            self.history.append((player, text))
            message = f"{text} was offered as legal but {_describe_error(error)}"
            if _snapshot(state.fields, deep=heavy) != before:
                message += "; and the state was left changed"
            raise self._failure("engine:legal-applies", message, state=state) from None
        self.history.append((player, text))
        self.stats.actions += 1
        self.stats.property_checks += 1
        if _snapshot(twin.fields, deep=heavy) != before or twin.legal_actions() != legal_before:
            raise self._failure(
                "engine:clone-independent", f"applying {text} to a state changed its clone", state=state
            )
        if heavy and not state.is_terminal():
            self.check_clone_reverse(state)
        self.check_state(state, heavy=heavy)

    def finish(self, state: State) -> None:
        """Checks at the end of a game (or where it stopped at the action limit)."""
        if not self.full:
            self.check_heavy(state)
            if self.history:
                self.check_replay(state)

    # -- the checks
    def check_state(self, state: State, *, heavy: bool = True) -> None:
        """Invariants and hidden views after every action; the costlier engine properties
        (exact JSON round trip, value types, whole views) every HEAVY_EVERY actions and
        at the end of each game; the replay at the end of each game; all of them after
        every action in ``full`` mode."""
        self.check_invariants(state)
        self.check_views(state, whole=False)
        if heavy:
            self.check_heavy(state)
        if state.is_terminal():
            self.check_terminal(state)

    def check_heavy(self, state: State) -> None:
        self.check_values(state)
        self.check_json(state)
        self.check_views(state, whole=True)
        if self.full and self.history:
            self.check_replay(state)

    def check_invariants(self, state: State) -> None:
        F, R = state.fields, state.game.runtime
        for invariant in self.program.invariants:
            self.stats.invariant_checks += 1
            decl = invariant.decl
            try:
                holds = invariant.check(F, R, -1)
            except Exception as error:
                raise self._failure(
                    f"invariant:{decl.name}",
                    f"{decl.message} (the invariant could not be evaluated: {_describe_error(error)})",
                    span=decl.span,
                    state=state,
                    invariant=invariant,
                ) from None
            if not holds:
                raise self._failure(
                    f"invariant:{decl.name}", decl.message, span=decl.span, state=state, invariant=invariant
                )

    def check_values(self, state: State) -> None:
        self.stats.property_checks += 1
        for key, value in state.fields.items():
            if not _plain_value(value):
                raise self._failure(
                    "engine:state-values",
                    f"{_key_text(key)} holds a {type(value).__name__} ({value!r:.80})",
                    state=state,
                )

    def check_json(self, state: State) -> None:
        self.stats.property_checks += 1
        game = state.game
        try:
            text = json.dumps(state.to_json())
            copy = State.from_json(game, json.loads(text))
        except Exception as error:
            raise self._failure(
                "engine:json-roundtrip", f"serializing failed: {_describe_error(error)}", state=state
            ) from None
        if copy.fields != state.fields:  # with check_values, == is exact here
            keys = [k for k in state.fields if copy.fields.get(k, _MISSING) != state.fields[k]]
            keys += [k for k in copy.fields if k not in state.fields]
            shown = ", ".join(_key_text(k) for k in keys[:5]) or "value types (e.g. true vs 1)"
            raise self._failure(
                "engine:json-roundtrip", f"the state read back from JSON differs in {shown}", state=state
            )

    def check_views(self, state: State, *, whole: bool) -> None:
        """Each player's (and a spectator's) view is the same after hidden values are
        reordered or changed.  Unless ``whole``, only the hidden fields' part of the
        view is compared (views are computed field by field)."""
        for player in [*range(state.game.num_players), None]:
            hidden = self._hidden_keys(state, player)
            if not hidden:
                continue
            self.stats.property_checks += 1
            if whole:
                fields = dict(state.fields)
                view = state.view(player)
            else:
                fields = {key: state.fields[key] for key in hidden}
                view = State(state.game, fields).view(player)
                fields = dict(fields)
            changed = False
            for key in hidden:
                new = _perturb(fields[key])
                if new is not fields[key]:
                    fields[key] = new
                    changed = True
            if not changed:
                continue
            other = State(state.game, fields).view(player)
            if other != view:
                diff = [k for k in view if other.get(k) != view[k]]
                who = "a spectator's" if player is None else f"P{player + 1}'s"
                raise self._failure(
                    "engine:view-hidden",
                    f"{who} view changed in {', '.join(diff[:5])} when only hidden information changed",
                    state=state,
                )

    def check_replay(self, state: State) -> None:
        self.stats.property_checks += 1
        game = state.game
        try:
            replayed = game.new_initial_state(self.seed)
            for player, text in self.history:
                if replayed.current_player() != player:
                    raise _NotReplayable(
                        f"P{player + 1} played {text}, but P{replayed.current_player() + 1} decides"
                    )
                replayed.apply_action(game.parse_action(text))
        except Exception as error:
            raise self._failure(
                "engine:replay",
                f"the log of this game cannot be replayed: {_describe_error(error)}",
                state=state,
            ) from None
        if replayed.fields != state.fields or (self.full and replayed.state_hash() != state.state_hash()):
            diff = [k for k in state.fields if replayed.fields.get(k, _MISSING) != state.fields[k]]
            raise self._failure(
                "engine:replay",
                "replaying the log gives a different state"
                + (f" (differs in {', '.join(_key_text(k) for k in diff[:5])})" if diff else ""),
                state=state,
            )

    def check_rejections(self, state: State) -> None:
        for action in self._rejected_actions(state):
            self.stats.property_checks += 1
            before = _snapshot(state.fields, deep=False)  # refusing happens before any change
            legal = list(state.legal_actions())
            text = state.game.action_to_string(action)
            player = state.current_player()
            try:
                state.apply_action(action)
            except IllegalActionError:
                pass
            except Exception as error:
                raise self._failure(
                    "engine:rejected-unchanged",
                    f"rejecting {text} failed: {_describe_error(error)}",
                    state=state,
                ) from None
            else:
                self.history.append((player, text))
                raise self._failure(
                    "engine:rejected-unchanged", f"{text} is not legal but was accepted", state=state
                )
            if _snapshot(state.fields, deep=False) != before or state.legal_actions() != legal:
                raise self._failure(
                    "engine:rejected-unchanged", f"rejecting {text} changed the state", state=state
                )

    def check_clone_reverse(self, state: State) -> None:
        """Applying an action to a clone must leave the original alone."""
        self.stats.property_checks += 1
        before = _snapshot(state.fields)
        twin = state.clone()
        legal = twin.legal_actions()
        try:
            twin.apply_action(legal[-1])
        except Exception:
            return
        if _snapshot(state.fields) != before:
            text = state.game.action_to_string(legal[-1])
            raise self._failure(
                "engine:clone-independent", f"applying {text} to a clone changed the original", state=state
            )

    def check_terminal(self, state: State) -> None:
        self.stats.property_checks += 1
        if state.current_player() != TERMINAL or state.legal_actions():
            raise self._failure("engine:terminal", "the game is over but a decision is pending", state=state)
        try:
            state.returns()
            state.standings()
        except Exception as error:
            raise self._failure(
                "engine:terminal", f"scoring the finished game failed: {_describe_error(error)}", state=state
            ) from None

    # -- helpers
    def _failure(self, key: str, message: str, **kwargs: Any) -> PropertyFailure:
        return _fail(key, message, history=self.history, players=self.players, seed=self.seed, **kwargs)

    def _hidden_keys(self, state: State, player: int | None) -> list[tuple[Any, str]]:
        cache_key = (state.game.num_players, player)
        keys = self.hidden_cache.get(cache_key)
        if keys is None:
            keys = []
            for key in state.fields:
                owner, name = key
                if owner == _ENGINE:
                    continue
                scope = "player" if isinstance(owner, int) else self._scope_of.get(owner, "")
                visibility = self._visibility.get((scope, name), "public")
                if visibility == "hidden" or (visibility == "owner" and owner != player):
                    keys.append(key)
            self.hidden_cache[cache_key] = keys
        return keys

    def _rejected_actions(self, state: State) -> Iterator[Action]:
        """Actions that must be refused now: other names, values outside a domain, failed requirements."""
        if state.is_terminal():
            return
        program = self.program
        legal = state.legal_actions()
        allowed = set(state.allowed_action_names())
        for name, compiled in program.actions.items():
            if name not in allowed:
                yield Action(name, tuple(_outside(()) for _ in compiled.params))
                break
        legal_names = {a.name for a in legal}
        for name in sorted(allowed - legal_names):
            compiled = program.actions[name]
            if not compiled.params:
                yield Action(name, ())
                break
        for action in legal:
            if action.args:
                used = {a.args[0] for a in legal if a.name == action.name}
                yield Action(action.name, (_outside(used, action.args[0], program), *action.args[1:]))
                break


_MISSING = object()


def _outside(used: Any, like: Any = None, program: Program | None = None) -> Any:
    """A value not in ``used``, of the same kind as ``like`` when possible."""
    if isinstance(like, str) and program is not None:
        for ids in program.collections.values():
            if like in ids:
                for ident in ids:
                    if ident not in used:
                        return ident
    if isinstance(like, int) and not isinstance(like, bool):
        candidate = max((u for u in used if isinstance(u, int)), default=0) + 1000
        return candidate
    return "__not_a_value__"


def _snapshot(fields: dict[Any, Any], *, deep: bool = True) -> dict[Any, Any]:
    """A copy of the field dict that later changes of the original cannot reach.

    Values are immutable except maps (dicts), which rules must never change in
    place; with ``deep`` they are copied so that such a change shows up as a
    difference.
    """
    copy = dict(fields)
    if deep:
        for key, value in copy.items():
            if type(value) is dict:
                copy[key] = _deep(value)
    return copy


def _deep(value: Any) -> Any:
    if isinstance(value, dict):
        return {k: _deep(v) for k, v in value.items()}
    if isinstance(value, list):
        return [_deep(v) for v in value]
    return value


def _plain_value(value: Any) -> bool:
    if value is None or isinstance(value, bool | int | str):
        return True
    if isinstance(value, tuple):
        return all(_plain_value(v) for v in value)
    if isinstance(value, dict):
        return all(_plain_value(k) for k in value) and all(_plain_value(v) for v in value.values())
    return False


def _perturb(value: Any) -> Any:
    """The same hidden value in another order (or, for a scalar, another value)."""
    if isinstance(value, tuple):
        if len(value) > 1:
            changed = tuple(reversed(value))
            if changed == value:
                changed = (*value[1:], value[0])
            return changed
        return value
    if isinstance(value, dict):
        if len(value) > 1:
            return dict(reversed(list(value.items())))
        return value
    if isinstance(value, bool):
        return not value
    if isinstance(value, int):
        return value + 1
    if isinstance(value, str):
        return value + "_"
    return value


def _key_text(key: tuple[Any, str]) -> str:
    owner, name = key
    if isinstance(owner, int) and not isinstance(owner, bool):
        return f"P{owner + 1}.{name}"
    return f"{owner}.{name}"


def _describe_error(error: BaseException) -> str:
    if isinstance(error, RulekitError):
        parts = []
        for d in error.diagnostics:
            parts.append(f"{d.message}" + (f" ({d.span})" if d.span else ""))
        return "; ".join(parts)
    if isinstance(error, PropertyFailure):
        return error.message
    return f"{type(error).__name__}: {error}"


# ------------------------------------------------------------------ exploration with hypothesis


def player_counts(options: VerifyOptions) -> tuple[Program, list[int]]:
    """The compiled program and the player counts to try (all the rules and modules allow)."""
    program = load_program(options.ruleset, options.modules, options.variants, players=options.players)
    rules = program.rules
    if options.players is not None:
        if not rules.min_players <= options.players <= rules.max_players:
            raise UsageError(
                f"{rules.title} is for {rules.min_players}-{rules.max_players} players, not {options.players}"
            )
        return program, [options.players]
    counts = list(range(rules.min_players, rules.max_players + 1))
    if options.modules:
        from rulekit.rules.compose import load_source, module_order

        source = load_source(options.ruleset)
        allowed = []
        for n in counts:
            try:
                module_order(source, list(options.modules), n)
            except RulesetError:
                continue  # a module does not allow this many players
            allowed.append(n)
        counts = allowed
    if not counts:
        raise UsageError("the chosen modules allow no player count")
    return program, counts


def _settings(options: VerifyOptions) -> Any:
    from hypothesis import HealthCheck, Phase, Verbosity, settings

    phases = [Phase.explicit, Phase.generate]
    if options.shrink:
        phases.append(Phase.shrink)
    return settings(
        max_examples=options.examples,
        derandomize=True,
        deadline=None,
        database=None,
        phases=phases,
        verbosity=Verbosity.quiet,
        report_multiple_bugs=False,
        suppress_health_check=list(HealthCheck),
        print_blob=False,
    )


def explore(
    options: VerifyOptions, checker: Checker, counts: list[int], progress: Callable[[], None]
) -> PropertyFailure | None:
    """Run hypothesis over games; the (hypothesis-shrunk) first failure, or ``None``."""
    from hypothesis import given, seed
    from hypothesis import strategies as st
    from hypothesis.errors import Flaky

    lo, hi = counts[0], counts[-1]
    max_actions = options.max_actions
    weighted = options.weighted and bool(checker.program.rules.bot_weights)

    def choice(data: Any, state: State, legal: list[Action]) -> int:
        # With the ruleset's bots.weights, a draw in 0..total-1 picks an action in
        # proportion to its weight; it still shrinks towards the first legal action.
        if weighted:
            cumulative = list(accumulate(state.action_weight(a) for a in legal))
            if cumulative[-1] > 0:
                return bisect_right(cumulative, data.draw(st.integers(0, cumulative[-1] - 1)))
        return int(data.draw(st.integers(0, len(legal) - 1)))

    # Once a failure is known, hypothesis only accepts failing games that draw fewer
    # choices (it shrinks in shortlex order), so a game is cut off as soon as it has drawn
    # more than the best failing one: shrinking then never plays whole games in vain.
    best = [float("inf")]
    stats = checker.stats

    @seed(options.seed)
    @_settings(options)
    @given(st.data())
    def play(data: Any) -> None:
        players = lo if lo == hi else data.draw(st.sampled_from(counts))
        game_seed = data.draw(st.integers(0, MAX_SEED))
        draws = 0
        try:
            state = checker.start(players, game_seed)
            for _ in range(max_actions):
                if state.is_terminal():
                    break
                legal = state.legal_actions()
                index = 0
                if len(legal) > 1:
                    draws += 1
                    if draws > best[0]:
                        return
                    index = choice(data, state, legal)
                checker.step(state, legal[index])
                progress()
            checker.finish(state)
            progress()
        except PropertyFailure as failure:
            if stats.found_after_games is None:
                stats.found_after_games = stats.games
                stats.found_after_seconds = time.perf_counter() - stats.started
            if draws <= best[0]:
                shortest[:] = [failure]
            best[0] = min(best[0], draws)
            raise

    shortest: list[PropertyFailure] = []
    try:
        play()
    except PropertyFailure as failure:
        return failure
    except Flaky:
        # The cut-off above depends on the best failure so far, so hypothesis may see a
        # replayed prefix stop earlier than before and call the generation flaky. The
        # shortest failure seen is still a real counterexample; minimize() shortens it.
        if shortest:
            return shortest[0]
        raise
    return None


def minimize(checker: Checker, failure: PropertyFailure) -> PropertyFailure:
    """Shorten the counterexample until it is 1-minimal: no single action can be dropped.

    Runs of up to four consecutive actions are tried first (an action often needs the
    one before it), then single actions, then (for short sequences) two separate
    actions (e.g. buying a card and, later, playing it), until nothing can be dropped.
    """
    best = find_failure(
        checker, failure.players, failure.seed, [text for _, text in failure.history], failure.key
    )
    if best is None:  # pragma: no cover - the engine is deterministic
        return failure
    while True:
        size = 4
        while size >= 1:
            texts = [text for _, text in best.history]
            for i in reversed(range(len(texts) - size + 1)):
                candidate = texts[:i] + texts[i + size :]
                found = find_failure(checker, best.players, best.seed, candidate, failure.key)
                if found is not None:
                    best = found
                    size = 4  # a deletion may enable others: start over
                    break
            else:
                size -= 1
        # two actions apart that only go together (buying a card, later playing it)
        texts = [text for _, text in best.history]
        if len(texts) > MAX_PAIR_SEARCH:
            return best
        pair = _drop_a_pair(checker, best, texts, failure.key)
        if pair is None:
            return best
        best = pair


def _drop_a_pair(
    checker: Checker, best: PropertyFailure, texts: list[str], key: str
) -> PropertyFailure | None:
    for i in reversed(range(len(texts))):
        for j in reversed(range(i + 2, len(texts))):
            candidate = texts[:i] + texts[i + 1 : j] + texts[j + 1 :]
            found = find_failure(checker, best.players, best.seed, candidate, key)
            if found is not None:
                return found
    return None


def find_failure(
    checker: Checker, players: int, seed: int, texts: Sequence[str], key: str
) -> PropertyFailure | None:
    """Play ``texts``, checking everything; the failure ``key`` if it occurs (maybe before
    the end), else ``None`` (also when an action is not legal where it comes)."""
    try:
        play_sequence(checker, players, seed, texts)
    except PropertyFailure as failure:
        return failure if failure.key == key else None
    except _NotReplayable:
        return None
    return None


def play_sequence(checker: Checker, players: int, seed: int, texts: Sequence[str]) -> State:
    """Play the action texts from the start, checking everything after every action.

    Raises:
        PropertyFailure: something failed (possibly before the last action).
        _NotReplayable: an action is not legal where it comes.
    """
    state = checker.start(players, seed)
    game = state.game
    for text in texts:
        if state.is_terminal():
            raise _NotReplayable("the game is over")
        try:
            action = game.parse_action(text)
        except IllegalActionError:
            raise _NotReplayable(text) from None
        if action not in state.legal_actions():
            raise _NotReplayable(text)
        checker.step(state, action)
    return state


# ------------------------------------------------------------------ explaining an invariant


def explain_invariant(program: Program, invariant: CompiledInvariant, state: State) -> list[str]:
    """The values of the parts of a failed invariant, e.g. both sides of its comparison."""
    lines: list[str] = []
    try:
        _explain(program, invariant.decl.condition, state, [], lines, 0)
    except Exception as error:
        lines.append(f"(cannot evaluate the parts: {_describe_error(error)})")
    return lines


Binding = tuple[str, Type, Any]


def _evaluate(
    program: Program, expr: ast.Expr, state: State, bindings: Sequence[Binding]
) -> tuple[Any, Type]:
    fn, type_ = compile_node(program, expr, [(n, ty) for n, ty, _ in bindings])
    return fn(state.fields, state.game.runtime, -1, *(v for _, _, v in bindings)), type_


def compile_node(
    program: Program, expr: ast.Expr, params: Sequence[tuple[str, Type]]
) -> tuple[Callable[..., Any], Type]:
    """Compile an already parsed expression of the ruleset (``fn(F, R, me, *params)``)."""
    from rulekit.compiler.codegen import Context

    bag = DiagnosticBag()
    gen = program._codegen(bag)
    ctx = Context(me=False)
    names = [ctx.bind(n, ty) for n, ty in params]
    code, type_ = gen.expr(expr, ctx)
    bag.raise_if_any()
    source = f"def _snippet(F, R, me{''.join(', ' + n for n in names)}):\n    return {code}\n"
    return program._define(source, gen), type_


def _show(value: Any, type_: Type) -> str:
    text = format_value(value, type_)
    if isinstance(value, dict):
        text = json.dumps(to_json(value))
    return text if len(text) <= 200 else text[:197] + "..."


def _explain(
    program: Program, expr: ast.Expr, state: State, bindings: list[Binding], lines: list[str], depth: int
) -> None:
    indent = "  " * depth
    where = "".join(f" [{n} = {_show(v, ty)}]" for n, ty, v in bindings) if depth == 0 else ""
    if isinstance(expr, ast.Binary) and expr.op == "and":
        for part in (expr.left, expr.right):
            value, _ = _evaluate(program, part, state, bindings)
            if not value:
                lines.append(f"{indent}{unparse(part)} is false{where}")
                _explain(program, part, state, bindings, lines, depth + 1)
                return
    if isinstance(expr, ast.Binary) and expr.op == "or":
        for part in (expr.left, expr.right):
            lines.append(f"{indent}{unparse(part)} is false")
            _explain(program, part, state, bindings, lines, depth + 1)
        return
    if isinstance(expr, ast.Unary) and expr.op == "not":
        value, type_ = _evaluate(program, expr.operand, state, bindings)
        lines.append(f"{indent}{unparse(expr.operand)} = {_show(value, type_)}")
        return
    if isinstance(expr, ast.Binary) and expr.op in ("==", "!=", "<", "<=", ">", ">=", "in", "not in"):
        for side in (expr.left, expr.right):
            if _constant(side):
                continue
            value, type_ = _evaluate(program, side, state, bindings)
            lines.append(f"{indent}{unparse(side)} = {_show(value, type_)}")
        return
    if isinstance(expr, ast.Where):
        value, type_ = _evaluate(program, expr.value, state, bindings)
        lines.append(f"{indent}{expr.name} = {_show(value, type_)}")
        _explain(program, expr.body, state, [*bindings, (expr.name, type_, value)], lines, depth)
        return
    if isinstance(expr, ast.Conditional):
        value, _ = _evaluate(program, expr.condition, state, bindings)
        branch = expr.then if value else expr.otherwise
        lines.append(f"{indent}{unparse(expr.condition)} is {'true' if value else 'false'}")
        _explain(program, branch, state, bindings, lines, depth)
        return
    if isinstance(expr, ast.Aggregate) and expr.function == "all":
        comp = expr.comprehension
        loop_vars = [name for name, _ in comp.loops]
        negated: ast.Expr = ast.Unary("not", comp.element)
        if comp.condition is not None:
            negated = ast.Binary("and", comp.condition, negated)
        element: ast.Expr = (
            ast.Name(loop_vars[0])
            if len(loop_vars) == 1
            else ast.TupleExpr(tuple(ast.Name(v) for v in loop_vars))
        )
        witnesses_expr = ast.ListComprehension(ast.Comprehension(element, comp.loops, negated))
        witnesses, list_type = _evaluate(program, witnesses_expr, state, bindings)
        element_type = t.element_type(list_type) if list_type.is_list else t.ANY
        shown = ", ".join(_show(w, element_type) for w in witnesses[:5]) + (
            ", ..." if len(witnesses) > 5 else ""
        )
        lines.append(f"{indent}fails for {' , '.join(loop_vars)} = {shown}")
        if witnesses and len(loop_vars) == 1:
            binding = (loop_vars[0], element_type, witnesses[0])
            lines.append(f"{indent}  with {loop_vars[0]} = {_show(witnesses[0], element_type)}:")
            _explain(program, comp.element, state, [*bindings, binding], lines, depth + 2)
        return
    if isinstance(expr, ast.Aggregate) and expr.function == "any":
        lines.append(f"{indent}no element makes {unparse(expr.comprehension.element)} true")
        return
    value, type_ = _evaluate(program, expr, state, bindings)
    lines.append(f"{indent}{unparse(expr)} = {_show(value, type_)}")


def _constant(expr: ast.Expr) -> bool:
    if isinstance(expr, ast.Literal):
        return True
    if isinstance(expr, ast.ListExpr | ast.TupleExpr):
        return all(_constant(i) for i in expr.items)
    return False


#: DSL text of an expression (parses back to the same tree).
unparse = print_expr


# ------------------------------------------------------------------ the whole run


def verify(options: VerifyOptions) -> VerifyResult:
    """Explore games of a ruleset and check invariants and engine properties.

    Raises:
        RulekitError: the ruleset cannot be loaded (with positions).
    """
    stats = Stats()
    program, counts = player_counts(options)
    coverage = None
    checked_program = program
    if options.coverage:
        coverage = Coverage(program)
        checked_program = coverage.instrument()
    checker = Checker(checked_program, stats)
    if coverage is not None:
        checker.fired = coverage.fire
    progress = _Progress(options, stats) if options.progress else None
    stats.started = time.perf_counter()
    try:
        failure = explore(options, checker, counts, progress or _no_progress)
    finally:
        if progress is not None:
            progress.done()
    stats.seconds = time.perf_counter() - stats.started
    result = VerifyResult(program, stats, coverage=coverage)
    if failure is not None:
        original = len(failure.history)
        if options.shrink:
            failure = minimize(Checker(program, Stats(), full=True), failure)
        result.counterexample = _counterexample(program, failure, original)
        if options.out is not None:
            result.counterexample.files = write_counterexample(options, program, result.counterexample)
    return result


def _counterexample(program: Program, failure: PropertyFailure, original: int) -> Counterexample:
    details = list(failure.details)
    if failure.invariant is not None and failure.state is not None:
        details = explain_invariant(program, failure.invariant, failure.state)
    return Counterexample(
        key=failure.key,
        message=failure.message,
        span=failure.span,
        players=failure.players,
        seed=failure.seed,
        actions=list(failure.history),
        details=details,
        original_length=original,
        invariant=failure.invariant,
    )


def write_counterexample(options: VerifyOptions, program: Program, example: Counterexample) -> list[Path]:
    """Write the replayable log and a scenario reproducing the violation; their paths."""
    from rulekit.tools.files import atomic_write_text
    from rulekit.tools.log import make_header, write_actions

    assert options.out is not None
    directory = options.out
    directory.mkdir(parents=True, exist_ok=True)
    stem = f"{program.name}-{example.name}".replace("/", "_")
    game = Game(program, example.players)
    source = None
    ruleset_dir = _ruleset_dir(options.ruleset)
    if ruleset_dir is not None:
        source = str(ruleset_dir)
    header = make_header(game, example.seed, source=source)
    log_path = directory / f"{stem}.jsonl"
    write_actions(log_path, header, example.actions)
    scenario_path = directory / f"{stem}.yaml"
    atomic_write_text(scenario_path, scenario_text(options, program, example, source))
    return [log_path, scenario_path]


def _ruleset_dir(ruleset: str) -> Path | None:
    from rulekit.rules.compose import find_ruleset

    path = find_ruleset(ruleset)
    if "/" in ruleset or Path(ruleset).is_dir():
        return path.resolve()
    return None


def scenario_text(
    options: VerifyOptions, program: Program, example: Counterexample, source: str | None
) -> str:
    """A scenario file that reproduces the counterexample (it fails until the rules are fixed)."""
    what = (
        f"invariant '{example.name}'"
        if example.key.startswith("invariant:")
        else f"engine property '{ENGINE_PROPERTIES.get(example.name, example.name)}'"
    )
    data: dict[str, Any] = {
        "scenario": f"verify counterexample: {what} fails after {len(example.actions)} action(s)",
    }
    if example.invariant is not None and example.invariant.decl.cite:
        data["cite"] = example.invariant.decl.cite
    data["ruleset"] = source or program.name
    if options.modules:
        data["modules"] = list(options.modules)
    if options.variants:
        data["variants"] = list(options.variants)
    data["players"] = example.players
    data["seed"] = example.seed
    data["actions"] = [text for _, text in example.actions]
    if example.invariant is not None:
        data["expect"] = [unparse(example.invariant.decl.condition)]
    head = [
        f"# Written by `rulekit verify` ({example.key}).",
        f"# {example.message}",
    ]
    if example.span is not None:
        head.append(f"# declared at {example.span}")
    if example.invariant is None:
        head.append(
            "# The last action shows the failure; the scenario fails on it until the rules are fixed."
        )
    else:
        head.append("# The expect is the invariant: it fails until the rules are fixed.")
    return "\n".join(head) + "\n" + dump_text(data)


def format_counterexample(example: Counterexample) -> str:
    """The report printed for a violation."""
    lines = []
    if example.key.startswith("invariant:"):
        lines.append(f"invariant '{example.name}' violated")
        where = f"{example.span}: " if example.span else ""
        cite = (
            f" [{example.invariant.decl.cite}]" if example.invariant and example.invariant.decl.cite else ""
        )
        lines.append(f"  {where}{example.message}{cite}")
        if example.invariant is not None:
            lines.append(f"  holds: {unparse(example.invariant.decl.condition)}")
    else:
        lines.append(f"engine property violated: {ENGINE_PROPERTIES.get(example.name, example.name)}")
        lines.append(f"  {example.message}")
    if example.details:
        lines.append("  values:")
        lines.extend(f"    {d}" for d in example.details)
    shrunk = (
        f", shrunk from {example.original_length}" if example.original_length != len(example.actions) else ""
    )
    lines.append(
        f"  after {len(example.actions)} action(s){shrunk} ({example.players} players, seed {example.seed}):"
    )
    if not example.actions:
        lines.append("    (right after setup)")
    for i, (player, text) in enumerate(example.actions, start=1):
        lines.append(f"    {i:>3}. P{player + 1} {text}")
    for path in example.files:
        kind = "log" if path.suffix == ".jsonl" else "scenario"
        lines.append(f"  {kind}: {path}")
    return "\n".join(lines)


class _Progress:
    """A carriage-return progress line on stderr, updated a few times a second."""

    def __init__(self, options: VerifyOptions, stats: Stats) -> None:
        self.options = options
        self.stats = stats
        self.last = 0.0
        self.shown = False

    def __call__(self) -> None:
        now = time.perf_counter()
        if now - self.last < 0.25:
            return
        self.last = now
        stats = self.stats
        elapsed = now - stats.started
        sys.stderr.write(
            f"\rverify {self.options.ruleset}: {stats.games} games, {stats.actions} actions, "
            f"{stats.invariant_checks} invariant checks, {elapsed:.0f}s "
        )
        sys.stderr.flush()
        self.shown = True

    def done(self) -> None:
        if self.shown:
            sys.stderr.write("\r" + " " * 100 + "\r")
            sys.stderr.flush()


def _no_progress() -> None:
    return None


# ------------------------------------------------------------------ command line


def add_parser(subparsers: Any) -> argparse.ArgumentParser:
    """Add ``verify`` to the CLI's subcommands."""
    parser: argparse.ArgumentParser = subparsers.add_parser(
        "verify",
        help="explore games with hypothesis and check invariants and engine properties",
        description=(
            "Explore games of RULESET with hypothesis, checking every invariant of the rules and the "
            "engine properties after every action. On a violation, print it with the values involved "
            "and the shrunk action sequence, write a replayable log and a scenario, and exit 1."
        ),
    )
    parser.add_argument("ruleset", help="a bundled ruleset name or a ruleset directory")
    add_rules_options(parser)
    parser.add_argument(
        "--examples",
        type=int,
        default=DEFAULT_EXAMPLES,
        metavar="N",
        help=f"games to explore (default {DEFAULT_EXAMPLES})",
    )
    parser.add_argument(
        "--max-actions",
        type=int,
        default=DEFAULT_MAX_ACTIONS,
        metavar="M",
        help=f"stop a game after M actions (default {DEFAULT_MAX_ACTIONS})",
    )
    parser.add_argument(
        "--seed", type=int, default=0, metavar="S", help="hypothesis seed (default 0: reproducible)"
    )
    parser.add_argument("--players", type=int, default=None, metavar="N", help="only this player count")
    parser.add_argument(
        "--coverage", action="store_true", help="report actions, triggers and conditions never reached"
    )
    parser.add_argument(
        "--weighted",
        action="store_true",
        help="pick actions as the ruleset's bots.weights say (reaches deeper states) instead of uniformly",
    )
    parser.add_argument("--out", default="verify-out", metavar="DIR", help="where to write counterexamples")
    parser.add_argument("--no-shrink", action="store_true", help="report the first counterexample unshrunk")
    parser.add_argument("--quiet", action="store_true", help="no progress line")
    parser.add_argument(
        "--progress", action="store_true", help="a progress line even when stderr is not a terminal"
    )
    parser.set_defaults(func=run)
    return parser


def run(args: argparse.Namespace) -> int:
    """Run ``rulekit verify``: 0 if everything held; 1 on a violation (or rules that do not
    load); 2 on a usage error."""
    modules = tuple(module_names(args.modules))
    if args.examples < 1 or args.max_actions < 1:
        print("rulekit verify: error: --examples and --max-actions must be at least 1", file=sys.stderr)
        return 2
    options = VerifyOptions(
        ruleset=args.ruleset,
        modules=modules,
        variants=tuple(args.variants or ()),
        examples=args.examples,
        max_actions=args.max_actions,
        seed=args.seed,
        players=args.players,
        coverage=args.coverage,
        weighted=getattr(args, "weighted", False),
        out=Path(args.out),
        shrink=not getattr(args, "no_shrink", False),
        progress=not getattr(args, "quiet", False)
        and (getattr(args, "progress", False) or sys.stderr.isatty()),
    )
    try:
        result = verify(options)
    except UsageError as error:
        print(f"rulekit verify: {error.render()}", file=sys.stderr)
        return 2
    except RulekitError as error:  # the rules do not load: as for every command, status 1
        print(error.render(), file=sys.stderr)
        return 1
    program = result.program
    title = program.name + (f" with {', '.join(modules)}" if modules else "")
    if result.counterexample is not None:
        print(f"verify {title}: FAILED")
        print(format_counterexample(result.counterexample))
    else:
        print(
            f"verify {title}: OK, {len(program.invariants)} invariant(s) and "
            f"{len(ENGINE_PROPERTIES)} engine properties held"
        )
    print(f"  {result.stats.summary()}")
    if result.coverage is not None:
        print(result.coverage.report())
    return 0 if result.ok else 1


def main(argv: Sequence[str] | None = None) -> int:
    """Run verify on its own: ``python -m rulekit.tools.verify RULESET ...``."""
    parser = argparse.ArgumentParser(prog="rulekit")
    sub = parser.add_subparsers(dest="command", required=True)
    add_parser(sub)
    args = parser.parse_args(["verify", *(argv if argv is not None else sys.argv[1:])])
    return run(args)


if __name__ == "__main__":
    sys.exit(main())
