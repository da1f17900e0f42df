"""The properties checked after every action: the rules' invariants and the engine's own."""

from __future__ import annotations

import json
from collections.abc import Callable, Iterator, Sequence
from typing import Any

from rulekit.compiler.program import CompiledInvariant, Program
from rulekit.engine.game import TERMINAL, Action, Game, State
from rulekit.errors import IllegalActionError
from rulekit.tools.verify.failures import (
    MISSING,
    NotReplayable,
    PropertyFailure,
    describe_error,
    fail,
    key_text,
)
from rulekit.tools.verify.options import HEAVY_EVERY, Stats
from rulekit.tools.verify.properties import CompiledProperty, compile_properties, evaluate_parts

_ENGINE = "_"


# ------------------------------------------------------------------ the checker


class Checker:
    """Plays games of one ruleset and checks every property after every action.

    ``full`` also replays the log after every action (used when minimizing and
    reproducing, where games are short); exploration replays it at the end of
    each game (where it stopped).
    """

    def __init__(
        self, program: Program, stats: Stats, *, full: bool = False, focus: str | None = None
    ) -> None:
        self.program = program
        self.stats = stats
        self.full = full
        #: Replaying a counterexample of an invariant: check only that invariant (fast).
        self.focus = [i for i in program.invariants if focus == f"invariant:{i.decl.name}"]
        self.properties = compile_properties(program)
        #: Replaying a counterexample of a property: check only the properties (fast).
        self.focus_properties = bool(focus and focus.startswith("property:"))
        self.turn_start: dict[Any, Any] | None = None
        self.turn_player: int | None = None
        self.turn_context: Any = None
        self.turn_ended = False
        self.games: dict[int, Game] = {}
        self.hidden_cache: dict[tuple[int, int | None], list[tuple[Any, str]]] = {}
        self.fired: Callable[[str], None] | None = None
        self.branch: Callable[[Any, int], None] | None = None
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
            game.runtime.branch = self.branch
            self.games[players] = game
        return game

    # -- one game
    def start(self, players: int, seed: int) -> State:
        self.players, self.seed = players, seed
        self.history: list[tuple[int, str]] = []
        try:
            state = self.game(players).new_initial_state(seed)
        except Exception as error:
            raise self._failure("engine:setup", f"setup failed: {describe_error(error)}") from None
        self.stats.games += 1
        self.turn_start, self.turn_player, self.turn_context, self.turn_ended = None, None, None, False
        if self.focus_properties:
            pass
        elif self.focus:
            self.check_invariants(state, self.focus)
        else:
            self.check_state(state)
        return state

    def step(self, state: State, action: Action) -> None:
        """Apply one legal ``action`` and check everything."""
        game = state.game
        text = str(game.action_to_string(action))  # a plain str: it is written to YAML
        player = state.current_player()
        properties = self.properties
        if properties.over_turn:
            self._turn_boundary(state, player)
        before_fields = dict(state.fields) if properties else None
        if self.focus_properties:
            self.history.append((player, text))
            try:
                state.apply_action(action)
            except Exception as error:
                raise self._failure("engine:legal-applies", describe_error(error), state=state) from None
            self.check_properties(before_fields, state, action, player)
            return
        if self.focus:
            self.history.append((player, text))
            try:
                state.apply_action(action)
            except Exception as error:
                raise self._failure("engine:legal-applies", describe_error(error), state=state) from None
            self.check_invariants(state, self.focus)
            return
        heavy = self.full or (len(self.history) + 1) % HEAVY_EVERY == 0
        self.check_rejections(state)
        before = _snapshot(state.fields, deep=heavy)
        legal_before = list(state.legal_actions())
        twin = state.clone()
        try:
            state.apply_action(action)
        except Exception as error:
            self.history.append((player, text))
            message = f"{text} was offered as legal but {describe_error(error)}"
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
        if before_fields is not None:
            self.check_properties(before_fields, state, action, player)

    def finish(self, state: State) -> None:
        """Checks at the end of a game (or where it stopped at the action limit)."""
        if not self.full and not self.focus:
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

    def check_invariants(self, state: State, invariants: Sequence[CompiledInvariant] | None = None) -> None:
        F, R = state.fields, state.game.runtime
        for invariant in self.program.invariants if invariants is None else invariants:
            self.stats.invariant_checks += 1
            decl = invariant.decl
            try:
                holds = invariant.check(F, R, -1)
            except Exception as error:
                raise self._failure(
                    f"invariant:{decl.name}",
                    f"{decl.message} (the invariant could not be evaluated: {describe_error(error)})",
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
                    f"{key_text(key)} holds a {type(value).__name__} ({value!r:.80})",
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
                "engine:json-roundtrip", f"serializing failed: {describe_error(error)}", state=state
            ) from None
        if copy.fields != state.fields:  # with check_values, == is exact here
            keys = [k for k in state.fields if copy.fields.get(k, MISSING) != state.fields[k]]
            keys += [k for k in copy.fields if k not in state.fields]
            shown = ", ".join(key_text(k) for k in keys[:5]) or "value types (e.g. true vs 1)"
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
                    raise NotReplayable(
                        f"P{player + 1} played {text}, but P{replayed.current_player() + 1} decides"
                    )
                replayed.apply_action(game.parse_action(text))
        except Exception as error:
            raise self._failure(
                "engine:replay",
                f"the log of this game cannot be replayed: {describe_error(error)}",
                state=state,
            ) from None
        if replayed.fields != state.fields or (self.full and replayed.state_hash() != state.state_hash()):
            diff = [k for k in state.fields if replayed.fields.get(k, MISSING) != state.fields[k]]
            raise self._failure(
                "engine:replay",
                "replaying the log gives a different state"
                + (f" (differs in {', '.join(key_text(k) for k in diff[:5])})" if diff else ""),
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
                    f"rejecting {text} failed: {describe_error(error)}",
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
            returns = state.returns()
            standings = state.standings()
        except Exception as error:
            raise self._failure(
                "engine:terminal", f"scoring the finished game failed: {describe_error(error)}", state=state
            ) from None
        self.check_seat_blind(state, returns, dict(standings))

    def check_seat_blind(self, state: State, returns: Sequence[float], keys: dict[int, Any]) -> None:
        """Seat symmetry in the form that holds for every ruleset: relabelling the seats of
        two players whose standing keys (score, tie-breaks) are equal must not change the
        returns, so theirs are equal; and returns never rank against the keys.  (Per-player
        fields alone do not decide a game: a board can hold who won, so the keys the rules
        declare are the outcome compared.)"""
        for a in range(len(returns)):
            for b in range(len(returns)):
                tied_apart = keys[a] == keys[b] and returns[a] != returns[b]
                inverted = keys[a] > keys[b] and returns[a] < returns[b]
                if tied_apart or inverted:
                    raise self._failure(
                        "engine:seat-blind-returns",
                        f"P{a + 1} (standing {keys[a]}) gets {returns[a]} but P{b + 1} "
                        f"(standing {keys[b]}) gets {returns[b]}",
                        state=state,
                    )

    def check_properties(
        self, before: dict[Any, Any] | None, state: State, action: Action, player: int
    ) -> None:
        """The properties over this action and the action's ensures; at the game's end,
        the properties over its last turn."""
        if before is None:
            return
        self.turn_ended = self.program.actions[action.name].decl.ends_turn
        for prop in self.properties.over_action:
            self._check_property(prop, before, state, -1, ())
        for prop in self.properties.ensures.get(action.name, ()):
            self._check_property(prop, before, state, player, action.args)
        if state.is_terminal() and self.properties.over_turn and self.turn_start is not None:
            self.check_turn(self.turn_start, state)

    def _turn_boundary(self, state: State, player: int) -> None:
        """Before an action: if a new turn begins, check the properties over the turn that ended.

        A turn ends when another player decides, after an action that ends the turn, or when
        the flow moved on above the turn step (another iteration of a ``repeat`` or
        ``for_each``), so two turns of one player in a row are two turns."""
        frames = state.fields.get((_ENGINE, "flow")) or ()
        context = frames[:-1]
        if player == self.turn_player and not self.turn_ended and context == self.turn_context:
            return
        if self.turn_start is not None:
            self.check_turn(self.turn_start, state)
        self.turn_start, self.turn_player, self.turn_context = dict(state.fields), player, context

    def check_turn(self, start: dict[Any, Any], state: State) -> None:
        for prop in self.properties.over_turn:
            self._check_property(prop, start, state, -1, ())

    def _check_property(
        self, prop: CompiledProperty, before: dict[Any, Any], state: State, me: int, args: Sequence[Any]
    ) -> None:
        self.stats.property_checks += 1
        after = state.fields
        R = state.game.runtime
        decl = prop.decl
        try:
            holds = prop.check(after, R, me, before, after, *args)
        except Exception as error:
            raise self._failure(
                f"property:{decl.name}",
                f"{decl.message} (the property could not be evaluated: {describe_error(error)})",
                span=decl.span,
                state=state,
            ) from None
        if not holds:
            details = evaluate_parts(self.program, prop, before, after, R, me, args)
            if prop.action is not None:
                details.append(f"action {self.history[-1][1]} by P{me + 1}")
            raise self._failure(
                f"property:{decl.name}", decl.message, span=decl.span, state=state, details=details
            )

    def unfinished(self, state: State, limit: int) -> PropertyFailure:
        """The failure of a game still running after ``limit`` actions."""
        return self._failure(
            "engine:ends",
            f"the game has not ended after {limit} actions (round and phase counters, end conditions?)",
            state=state,
        )

    # -- helpers
    def _failure(self, key: str, message: str, **kwargs: Any) -> PropertyFailure:
        return fail(key, message, history=self.history, players=self.players, seed=self.seed, **kwargs)

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
