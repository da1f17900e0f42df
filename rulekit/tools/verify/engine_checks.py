"""The engine's own properties, checked in every game: plain values, JSON round trip, hidden views,
replay, refused actions, clone independence, the finished game and seat-blind returns."""

from __future__ import annotations

import json
import random
from collections import Counter
from collections.abc import Iterator, Sequence
from typing import Any

from rulekit.compiler.program import Program
from rulekit.engine.game import TERMINAL, Action, State
from rulekit.engine.information import determinize, has_hidden_information, unseen
from rulekit.engine.outcome import outcome_keys
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

    def check_no_leak(self, before: State, action: Action, after: State) -> None:
        """``engine:no_leak``: an action does not show a seat what it cannot see.

        For each seat with unseen places, the state before the action is dealt again
        (:func:`~rulekit.engine.information.determinize`, chance kept) and the same action
        applied: the seat's own legal actions must be the same in both (when it decides), and
        a place every player sees must not come to hold, in the real game, an item that still
        lies where the seat cannot see it while the redealt game shows something else there
        (a hidden card copied into a public field).  Items the seat saw before, items that
        left the unseen places (a card played face up, drawn, flipped), ``tell``, ``reveal``
        and copies into fields that not everyone sees (a Priest's peek kept in the peeker's
        ``owner`` field) are declared ways of showing, and are not leaks."""
        game = before.game
        if not has_hidden_information(self.program):
            return
        decider = before.current_player()
        private: set[tuple[Any, str]] = set()
        for seat in range(game.num_players):
            private |= unseen(after, seat)
        for seat in range(game.num_players):
            hidden = unseen(before, seat)
            if not hidden:
                continue
            self.stats.property_checks += 1
            rng = random.Random(f"{self.seed}/{len(self.history)}/{seat}")
            world = determinize(before, seat, rng, reseed=False)
            if world.fields == before.fields:
                continue
            if seat == decider:
                real = before.legal_action_strings()
                other = world.legal_action_strings()
                if real != other:
                    raise self._failure(
                        "engine:no_leak",
                        f"P{seat + 1}'s legal actions depend on what P{seat + 1} cannot see "
                        f"({_first_difference(real, other)})",
                        state=before,
                    )
            try:
                world.apply_action(action)
            except Exception:  # another seat's action, legal only with what it knows
                continue
            # items still unseen, as many times as before: they did not come out of hiding
            had = _items(before, hidden)
            # (an item the seat saw before, in its own hand say, tells it nothing new)
            seen = [k for k in before.fields if k[0] != ENGINE_OWNER and k not in hidden]
            known = _items(before, seen)
            hidden_items = {
                x for x, n in _items(after, unseen(after, seat)).items() if n >= had[x] and x not in known
            }
            if not hidden_items:
                continue
            for key, value in after.fields.items():
                if key[0] == ENGINE_OWNER or key in hidden or key in private:
                    continue
                shown = world.fields.get(key)
                if shown == value:
                    continue
                new = Counter(_flat(value)) - Counter(_flat(shown))  # what only the real game shows
                leaked = sorted(item for item in new if item in hidden_items)
                if leaked:
                    raise self._failure(
                        "engine:no_leak",
                        f"after {game.action_to_string(action)}, {key_text(key)} shows P{seat + 1} "
                        f"{leaked[0]}, which lies where P{seat + 1} cannot see it",
                        state=after,
                    )

    def check_visibility(self, state: State) -> None:
        """``visibility:NAME``: the rules' visibility expectations (who may see a field at
        most) against the information model's answer in ``state``
        (:func:`~rulekit.engine.information.unseen`, which every channel is computed from):
        no seat outside the expected ones, and no spectator, sees the field."""
        expected = self.program.rules.visibility
        if not expected:
            return
        game = state.game
        seats: list[int | None] = [*range(game.num_players), None]
        hidden = {seat: unseen(state, seat) for seat in seats}
        for decl in expected.values():
            self.stats.property_checks += 1
            for owner in game.owners(decl.scope):
                for seat in seats:
                    if (owner, decl.field) in hidden[seat] or _may_see(decl.seen_by, owner, seat):
                        continue
                    who = "a spectator" if seat is None else f"P{seat + 1}"
                    raise self._failure(
                        f"visibility:{decl.name}",
                        f"{decl.message} ({who} sees {key_text((owner, decl.field))}; "
                        f"seen_by: {decl.seen_by})",
                        span=decl.span,
                        state=state,
                    )

    def check_seat_symmetry(self, before: State, action: Action, after: State) -> None:
        """``engine:seat-symmetry``: in rules that single out no seat, rotating the seats in
        the state before and in the action rotates the outcome the same way (the legal
        actions before, every field after, the standings at the end); see
        :mod:`rulekit.tools.verify.seats`."""
        from rulekit.tools.verify.seats import Relabeller, asymmetry, first_difference, rotated_run

        program = self.program
        cache = self.__dict__.setdefault("_seats", {})
        if "why" not in cache:
            cache["why"] = asymmetry(program)
        if cache["why"] is not None:
            return
        players = before.game.num_players
        relabeller = cache.get(players)
        if relabeller is None:
            relabeller = cache[players] = Relabeller(program, players)
        run = rotated_run(relabeller, before, action)
        if run is None:
            return
        other, moved = run
        self.stats.property_checks += 1
        game = before.game
        text, rotated_text = game.action_to_string(action), game.action_to_string(moved)
        expected = sorted(game.action_to_string(relabeller.action(a)) for a in before.legal_actions())
        found = sorted(game.action_to_string(a) for a in other.legal_actions())
        if expected != found:
            raise self._failure(
                "engine:seat-symmetry",
                f"with the seats rotated (P1 as P2, ...) the legal actions are not those of the "
                f"real game rotated ({_first_difference(expected, found)})",
                state=before,
            )
        try:
            other.apply_action(moved)
        except Exception as error:
            raise self._failure(
                "engine:seat-symmetry",
                f"{text} applies, but {rotated_text} with the seats rotated fails: {describe_error(error)}",
                state=before,
            ) from None
        rotated = relabeller.state(after.fields)
        difference = None if rotated is None else first_difference(rotated, other.fields)
        if difference is not None:
            key, real, shown = difference
            raise self._failure(
                "engine:seat-symmetry",
                f"after {text}, {key_text(key)} is {real!r:.80} (the real game, seats rotated) but "
                f"{shown!r:.80} when {rotated_text} is played with the seats rotated",
                state=after,
            )
        if after.is_terminal():
            real_keys = dict(after.standings())
            other_keys = dict(other.standings())
            for p in range(players):
                q = relabeller.sigma[p]
                if real_keys[p] != other_keys[q]:
                    raise self._failure(
                        "engine:seat-symmetry",
                        f"at the end P{p + 1}'s standing is {real_keys[p]}, but P{q + 1}'s is "
                        f"{other_keys[q]} in the same game with the seats rotated (P{p + 1} as P{q + 1})",
                        state=after,
                    )

    def check_component_symmetry(self, before: State, action: Action, after: State) -> None:
        """``engine:component-symmetry``: components the rules treat alike (equal data, named
        by no rule) relabelled in the state before and in the action relabel the outcome the
        same way (the legal actions before, every field after, the standings at the end); one
        group a time, in turn; see :mod:`rulekit.tools.verify.components`."""
        from rulekit.tools.verify.components import ComponentRelabeller, symmetric_groups

        cache = self.__dict__.setdefault("_components", {})
        if "groups" not in cache:
            cache["groups"] = symmetric_groups(self.program).groups
            cache["next"] = 0
        groups = cache["groups"]
        if not groups:
            return
        group = groups[cache["next"] % len(groups)]
        cache["next"] += 1
        relabeller = cache.get(group)
        if relabeller is None:
            relabeller = cache[group] = ComponentRelabeller(self.program, group)
        how = f"with the {group.describe()} relabelled ({relabeller.permutation()})"
        self._check_relabelled(
            "engine:component-symmetry",
            "component_symmetry",
            relabeller,
            how,
            before,
            action,
            after,
            apart="the rules treat these components apart",
        )

    def check_declared_symmetry(self, before: State, action: Action, after: State) -> None:
        """``engine:declared-symmetry``: each symmetry the rules declare (``symmetries:``), in
        turn, relabels the state before and the action; the legal actions, every field after
        and the standings at the end must relabel the same way; see
        :mod:`rulekit.tools.verify.declared`."""
        declared = self.program.rules.symmetries
        if not declared:
            return
        from rulekit.tools.verify.declared import SymmetryRelabeller

        cache = self.__dict__.setdefault("_declared", {"next": 0})
        name = list(declared)[cache["next"] % len(declared)]
        cache["next"] += 1
        symmetry = declared[name]
        if symmetry.problem is not None:
            self.stats.property_checks += 1
            raise self._failure(
                "engine:declared-symmetry",
                f"the rules declare the symmetry '{name}' ({symmetry.span}), but their components do "
                f"not map as declared: {symmetry.problem}",
                state=before,
            )
        relabeller = cache.get(name)
        if relabeller is None:
            relabeller = cache[name] = SymmetryRelabeller(self.program, symmetry)
        how = f"relabelled by the declared symmetry '{name}' ({relabeller.permutation()})"
        self._check_relabelled(
            "engine:declared-symmetry",
            "declared_symmetry",
            relabeller,
            how,
            before,
            action,
            after,
            apart=f"the rules are not symmetric under '{name}'",
        )

    def _check_relabelled(
        self,
        key: str,
        count: str,
        relabeller: Any,
        how: str,
        before: State,
        action: Action,
        after: State,
        *,
        apart: str,
    ) -> None:
        """The metamorphic check shared by component and declared symmetries: ``relabeller``
        maps the state before and the action; the result must be the real one, mapped."""
        from rulekit.tools.verify.seats import first_difference

        counts = self.stats.counts
        fields = relabeller.state(before.fields)
        moved = relabeller.action(action)
        expected_actions = relabeller.actions(before.legal_actions())
        if fields is None or moved is None or expected_actions is None:
            counts[f"{count}_skipped"] = counts.get(f"{count}_skipped", 0) + 1
            return
        counts[count] = counts.get(count, 0) + 1
        self.stats.property_checks += 1
        game = before.game
        other = State(game, fields)
        text, moved_text = game.action_to_string(action), game.action_to_string(moved)
        expected = sorted(game.action_to_string(a) for a in expected_actions)
        found = sorted(game.action_to_string(a) for a in other.legal_actions())
        if expected != found:
            raise self._failure(
                key,
                f"{how}, the legal actions are not those of the real game relabelled "
                f"({_first_difference(expected, found)})",
                state=before,
            )
        try:
            other.apply_action(moved)
        except Exception as error:
            raise self._failure(
                key, f"{text} applies, but {moved_text} {how} fails: {describe_error(error)}", state=before
            ) from None
        relabelled = relabeller.state(after.fields)
        difference = None if relabelled is None else first_difference(relabelled, other.fields)
        if difference is not None:
            field, real, shown = difference
            raise self._failure(
                key,
                f"after {text}, {key_text(field)} is {real!r:.80} (the real game, relabelled) but "
                f"{shown!r:.80} when {moved_text} is played {how}: {apart}",
                state=after,
            )
        if after.is_terminal() and after.standings() != other.standings():
            raise self._failure(
                key,
                f"at the end the standings are {after.standings()}, but {other.standings()} in the "
                f"same game {how}",
                state=after,
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
            keys = outcome_keys(state)  # a team's summed key for each of its members
        except Exception as error:
            raise self._failure(
                "engine:terminal", f"scoring the finished game failed: {describe_error(error)}", state=state
            ) from None
        self.check_declared_returns(state, returns)
        self.check_seat_blind(state, returns, keys)

    def check_declared_returns(self, state: State, returns: Sequence[float]) -> None:
        """With ``scoring.returns: {min, max, sum}``, the returns keep within what it declares
        (what the OpenSpiel adapter tells algorithms: the utility bounds and sum)."""
        declared = self.program.rules.scoring.returns
        if declared is None:
            return
        low, high, total = declared
        wrong = [f"P{p + 1} gets {r:g}" for p, r in enumerate(returns) if not low <= r <= high]
        if total is not None and sum(returns) != total:
            wrong.append(f"they add up to {sum(returns):g}, not {total}")
        if wrong:
            raise self._failure(
                "engine:terminal",
                f"the returns break scoring.returns (min {low}, max {high}): " + "; ".join(wrong),
                state=state,
            )

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
        return sorted((key for key in unseen(state, player) if key in state.fields), key=repr)

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


def _flat(value: Any) -> list[Any]:
    """The items of a value: a list's or map's (keys and values), or the value itself."""
    if isinstance(value, tuple):
        return [item for part in value for item in _flat(part)]
    if isinstance(value, dict):
        return [item for pair in value.items() for part in pair for item in _flat(part)]
    return [value] if isinstance(value, str) else []


def _items(state: State, places: Any) -> Counter[Any]:
    """The component ids (texts) lying in ``places``, with how many times."""
    return Counter(item for key in places if key in state.fields for item in _flat(state.fields[key]))


def _first_difference(real: Sequence[str], other: Sequence[str]) -> str:
    only = sorted(set(real) ^ set(other))
    return f"{only[0]} is legal in one deal and not in another" if only else "their order differs"


def _may_see(seen_by: str, owner: Any, seat: int | None) -> bool:
    """Whether a visibility expectation ``seen_by`` lets ``seat`` see a field of ``owner``."""
    if seat is None or seen_by == "nobody":
        return False
    return owner == seat if seen_by == "owner" else owner != seat
