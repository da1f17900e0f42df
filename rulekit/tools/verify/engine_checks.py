"""The engine's own properties, checked in every game: plain values, JSON round trip, hidden views,
replay, refused actions, clone independence, the finished game and seat-blind returns."""

from __future__ import annotations

import json
from collections.abc import Iterator, Sequence
from typing import Any

from rulekit.compiler.program import Program
from rulekit.engine.game import TERMINAL, Action, State
from rulekit.errors import IllegalActionError
from rulekit.tools.verify.failures import (
    MISSING,
    NotReplayable,
    PropertyFailure,
    describe_error,
    fail,
    key_text,
)
from rulekit.tools.verify.options import Stats
from rulekit.tools.verify.values import ENGINE_OWNER, outside, perturb, plain_value, snapshot


class EngineChecks:
    """The engine properties of :class:`~rulekit.tools.verify.checker.Checker` (a mixin: the
    checker holds the program, statistics, the game's history and the caches used here)."""

    program: Program
    stats: Stats
    full: bool
    players: int
    seed: int
    history: list[tuple[int, str]]
    hidden_cache: dict[tuple[int, int | None], list[tuple[Any, str]]]
    _visibility: dict[tuple[str, str], str]
    _scope_of: dict[Any, str]

    def check_values(self, state: State) -> None:
        self.stats.property_checks += 1
        for key, value in state.fields.items():
            if not plain_value(value):
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
                new = perturb(fields[key])
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
            before = snapshot(state.fields, deep=False)  # refusing happens before any change
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
            if snapshot(state.fields, deep=False) != before or state.legal_actions() != legal:
                raise self._failure(
                    "engine:rejected-unchanged", f"rejecting {text} changed the state", state=state
                )

    def check_clone_reverse(self, state: State) -> None:
        """Applying an action to a clone must leave the original alone."""
        self.stats.property_checks += 1
        before = snapshot(state.fields)
        twin = state.clone()
        legal = twin.legal_actions()
        try:
            twin.apply_action(legal[-1])
        except Exception:
            return
        if snapshot(state.fields) != before:
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
                if owner == ENGINE_OWNER:
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
                yield Action(name, tuple(outside(()) for _ in compiled.params))
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
                yield Action(action.name, (outside(used, action.args[0], program), *action.args[1:]))
                break
