"""The properties checked after every action: the rules' invariants and the engine's own."""

from __future__ import annotations

from collections.abc import Callable, Sequence
from typing import Any

from rulekit.compiler.program import CompiledInvariant, Program
from rulekit.engine.game import Action, Game, State
from rulekit.engine.triggers import watch
from rulekit.tools.verify.coverage import coverage_off
from rulekit.tools.verify.derived_outcome import Recomputed
from rulekit.tools.verify.engine_checks import EngineChecks
from rulekit.tools.verify.failures import (
    PropertyFailure,
    describe_error,
)
from rulekit.tools.verify.generalise import KEY as SCENARIOS
from rulekit.tools.verify.generalise import book_of, check_scenarios
from rulekit.tools.verify.options import HEAVY_EVERY, Stats
from rulekit.tools.verify.properties import (
    CompiledProperty,
    Properties,
    compile_properties,
    evaluate_parts,
    select,
)
from rulekit.tools.verify.rotated import KEY as ROTATED
from rulekit.tools.verify.rotated import check_rotated
from rulekit.tools.verify.values import ENGINE_OWNER, snapshot

# ------------------------------------------------------------------ the checker


class Checker(EngineChecks):
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
        #: Replaying a counterexample of a property: check only that property (fast).
        self.focus_properties = bool(focus and focus.startswith("property:"))
        if self.focus_properties:
            self.properties = _only(self.properties, str(focus))
        self.turn_start: dict[Any, Any] | None = None
        self.turn_player: int | None = None
        self.turn_context: Any = None
        self.turn_ended = False
        #: The game's first state, for the properties ``over: game`` (checked when it ends).
        self.game_start: dict[Any, Any] | None = None
        self.games: dict[int, Game] = {}
        self.fired: Callable[[str], None] | None = None
        self.recomputed: Recomputed | None = None
        self.branch: Callable[[Any, int], None] | None = None
        #: The firings of triggers that failed a postcondition since they were last checked:
        #: (trigger, fields before its effect, fields after it, me, its parameters).
        self.firings: list[tuple[str, dict[Any, Any], dict[Any, Any], int, tuple[Any, ...]]] = []

    def game(self, players: int) -> Game:
        game = self.games.get(players)
        if game is None:
            game = Game(self.program, players)
            game.runtime.fired = self.fired
            game.runtime.branch = self.branch
            self.watch_triggers(game)
            self.games[players] = game
        return game

    def watch_triggers(self, game: Game) -> None:
        """Check the postconditions of the triggers that have some after each of their firings
        (none: nothing to do); a firing that fails one is kept (:attr:`firings`) and reported
        once the action is over (:meth:`check_firings`)."""
        if not self.properties.triggers:
            return
        runtime = game.runtime

        def fired(
            name: str, before: dict[Any, Any], after: dict[Any, Any], me: int, args: tuple[Any, ...]
        ) -> None:
            R = runtime
            budget = (R.max_steps, R.left, R.charged)  # the action's own budget goes on after
            try:
                for prop in self.properties.triggers.get(name, ()):
                    self.stats.property_checks += 1
                    R.reset_steps()
                    try:
                        holds = prop.check(after, R, me, before, after, *args)
                    except Exception:
                        holds = False
                    if not holds:
                        self.firings.append((name, before, dict(after), me, args))
                        return
            finally:
                R.max_steps, R.left, R.charged = budget

        watch(game, fired, set(self.properties.triggers))

    def work(self) -> int:
        """The rules' steps charged so far in this checker's games (see ``RuntimeContext.work``)."""
        return sum(game.runtime.work() for game in self.games.values())

    # -- one game
    def start(self, players: int, seed: int) -> State:
        self.players, self.seed = players, seed
        self.history: list[tuple[int, str]] = []
        self.firings.clear()
        try:
            state = self.game(players).new_initial_state(seed)
        except Exception as error:
            raise self._failure("engine:setup", f"setup failed: {describe_error(error)}") from None
        self.stats.games += 1
        if self.firings:
            with coverage_off(state):
                self.check_firings(state)
        self.turn_start, self.turn_player, self.turn_context, self.turn_ended = None, None, None, False
        self.game_start = dict(state.fields) if self.properties.over_game else None
        if self.properties.over_turn and not state.is_terminal():
            self._begin_turn(state)
        if self.focus_properties:
            pass
        elif self.focus:
            with coverage_off(state):
                self.check_invariants(state, self.focus)
        else:
            self.check_state(state)
            with coverage_off(state):
                self.check_scenarios(state, start=True)
        return state

    def follow(self, state: State) -> None:
        """Check the properties over the actions and turns of a game played elsewhere (a
        scenario's) from ``state`` on: each action then goes through :meth:`after_action`."""
        self.history = []
        self.players, self.seed = state.game.num_players, 0
        self.firings.clear()
        self.watch_triggers(state.game)
        self.turn_start, self.turn_player, self.turn_context, self.turn_ended = None, None, None, False
        self.game_start = dict(state.fields) if self.properties.over_game else None
        if self.properties.over_turn and not state.is_terminal():
            self._begin_turn(state)

    def after_action(self, before: dict[Any, Any], state: State, action: Action, player: int) -> None:
        """The properties over ``action``, just applied by ``player`` to a state whose fields
        were ``before`` (a game followed with :meth:`follow`), and over the turn it ended.

        Raises:
            PropertyFailure: a property does not hold (its key, message and values).
        """
        self.history.append((player, str(state.game.action_to_string(action))))
        with coverage_off(state):
            self.check_firings(state)
            self.check_properties(before, state, action, player)

    def step(self, state: State, action: Action) -> None:
        """Apply one legal ``action`` and check everything."""
        game = state.game
        text = str(game.action_to_string(action))  # a plain str: it is written to YAML
        player = state.current_player()
        properties = self.properties
        wanted = (
            properties.over_action
            or properties.over_turn
            or properties.over_game
            or action.name in properties.ensures
        )
        before_fields = dict(state.fields) if wanted else None
        self.firings.clear()
        if self.focus_properties:
            self.history.append((player, text))
            try:
                state.apply_action(action)
            except Exception as error:
                raise self._failure("engine:legal-applies", describe_error(error), state=state) from None
            self.check_firings(state)
            self.check_properties(before_fields, state, action, player)
            return
        if self.focus:
            self.history.append((player, text))
            try:
                state.apply_action(action)
            except Exception as error:
                raise self._failure("engine:legal-applies", describe_error(error), state=state) from None
            self.firings.clear()
            self.check_invariants(state, self.focus)
            return
        heavy = self.full or (len(self.history) + 1) % HEAVY_EVERY == 0
        with coverage_off(state):
            self.check_rejections(state)
        before = snapshot(state.fields, deep=heavy)
        legal_before = list(state.legal_actions())
        twin = state.clone()
        self.firings.clear()
        try:
            state.apply_action(action)
        except Exception as error:
            self.history.append((player, text))
            message = f"{text} was offered as legal but {describe_error(error)}"
            if snapshot(state.fields, deep=heavy) != before:
                message += "; and the state was left changed"
            raise self._failure("engine:legal-applies", message, state=state) from None
        self.history.append((player, text))
        fired, self.firings = self.firings, []  # not those of the checks' own plays below
        self.stats.actions += 1
        self.stats.property_checks += 1
        if snapshot(twin.fields, deep=heavy) != before or twin.legal_actions() != legal_before:
            raise self._failure(
                "engine:clone-independent", f"applying {text} to a state changed its clone", state=state
            )
        if heavy and not state.is_terminal():
            self.check_clone_reverse(state)
        with coverage_off(state):
            self.check_no_leak(twin, action, state)
            if heavy or state.is_terminal():
                self.check_seat_symmetry(twin, action, state)
                self.check_component_symmetry(twin, action, state)
                self.check_declared_symmetry(twin, action, state)
        self.check_state(state, heavy=heavy)
        with coverage_off(state):
            self.check_scenarios(state)
            if fired:
                self.check_firings(state, fired)
        if before_fields is not None:
            with coverage_off(state):
                self.check_properties(before_fields, state, action, player)

    def finish(self, state: State) -> None:
        """Checks at the end of a game (or where it stopped at the action limit)."""
        if not self.full and not self.focus:
            with coverage_off(state):
                self.check_heavy(state)
                if self.history:
                    self.check_replay(state)

    # -- the checks
    def check_state(self, state: State, *, heavy: bool = True) -> None:
        """Invariants and hidden views after every action; the costlier engine properties
        (exact JSON round trip, value types, whole views) every HEAVY_EVERY actions and
        at the end of each game; the replay at the end of each game; all of them after
        every action in ``full`` mode."""
        with coverage_off(state):
            self.check_invariants(state)
            self.check_visibility(state)
            self.check_views(state, whole=False)
            if heavy:
                self.check_heavy(state)
        if state.is_terminal():
            self.check_terminal(state)  # the scores are the game's rules: their coverage counts
            with coverage_off(state):
                self.check_outcome(state)

    def check_outcome(self, state: State) -> None:
        """The scores and returns recomputed from the scoring's declaration (``derived_outcome.py``)."""
        if self.recomputed is None:
            self.recomputed = Recomputed(self.program)
        self.stats.property_checks += 1
        try:
            wrong = self.recomputed.disagreement(state)
        except Exception:
            return  # the engine scored the game; an evaluation the fresh code cannot do is no verdict
        if wrong is not None:
            raise self._failure("engine:outcome", wrong, span=self.program.rules.scoring.span, state=state)

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
            R.reset_steps()  # one evaluation, with its own step budget
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
        if self.properties.over_turn:
            self._turn_boundary(state)
        if self.properties.over_game and self.game_start is not None and state.is_terminal():
            self.check_game(self.game_start, state)

    def check_firings(self, state: State, firings: list[Any] | None = None) -> None:
        """Report the postconditions of the triggers that failed since the last check (or in
        ``firings``), each over the states just before and just after its effect."""
        if firings is None:
            firings, self.firings = self.firings, []
        for name, before, after, me, args in firings:
            for prop in self.properties.triggers.get(name, ()):
                self._check_property(prop, before, state, me, args, after=after)

    def check_game(self, start: dict[Any, Any], state: State) -> None:
        """The properties ``over: game``, from the game's first state ``start`` to its last,
        ``result(p)`` reading each seat's return and ``score(p)`` her score."""
        results = tuple(int(r) if float(r).is_integer() else float(r) for r in state.returns())
        scores = tuple(state.scores())
        for prop in self.properties.over_game:
            self._check_property(prop, start, state, -1, (results, scores))

    def _turn_boundary(self, state: State) -> None:
        """After an action: if it ended the turn, check the properties over that turn (so a
        failure's history ends with the action that ended the turn, and replaying exactly
        that history fails again), and begin the next turn.

        A turn ends when the game ends, when another player decides, after an action that
        ends the turn, or when the flow moved on above the turn step (another iteration of a
        ``repeat`` or ``for_each``), so two turns of one player in a row are two turns."""
        if state.is_terminal():
            if self.turn_start is not None:
                self.check_turn(self.turn_start, state)
                self.turn_start = None
            return
        player = state.current_player()
        if player == self.turn_player and not self.turn_ended and _context(state) == self.turn_context:
            return
        if self.turn_start is not None:
            self.check_turn(self.turn_start, state)
        self._begin_turn(state)

    def _begin_turn(self, state: State) -> None:
        """The turn of the player deciding in ``state`` begins (in ``state``)."""
        self.turn_start, self.turn_player = dict(state.fields), state.current_player()
        self.turn_context, self.turn_ended = _context(state), False

    def check_turn(self, start: dict[Any, Any], state: State) -> None:
        for prop in self.properties.over_turn:
            self._check_property(prop, start, state, -1, ())

    def _check_property(
        self,
        prop: CompiledProperty,
        before: dict[Any, Any],
        state: State,
        me: int,
        args: Sequence[Any],
        *,
        after: dict[Any, Any] | None = None,
    ) -> None:
        after = state.fields if after is None else after
        if prop.applies is not None and not prop.applies(before, after):
            return
        self.stats.property_checks += 1
        R = state.game.runtime
        decl = prop.decl
        R.reset_steps()  # one evaluation, with its own step budget
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
            details = [f"action {self.history[-1][1]} by P{me + 1}"] if prop.action is not None else []
            if prop.trigger is not None:
                during = f" during action {self.history[-1][1]}" if self.history else " during the set-up"
                details = [f"trigger {prop.trigger} fired{during}"]
            program = self.program

            def explain() -> list[str]:
                return evaluate_parts(program, prop, before, after, R, me, args)

            raise self._failure(
                f"property:{decl.name}",
                decl.message,
                span=decl.span,
                state=state,
                details=details,
                explain=explain,
            )

    def check_scenarios(self, state: State, *, start: bool = False) -> None:
        """``engine:scenarios-generalised``: the ruleset's scenarios from ``state``
        (:mod:`rulekit.tools.verify.generalise`); at a game's ``start``, first
        ``engine:scenarios-rotated`` (:mod:`rulekit.tools.verify.rotated`)."""
        if start:
            done = self.__dict__.setdefault("_scenarios_rotated", set())
            examples = book_of(self.program).examples
            problem = check_rotated(self.program, examples, state.game.num_players, done)
            if problem is not None:
                raise self._failure(ROTATED, problem, state=state)
        runs = self.__dict__.setdefault("_scenario_runs", {})
        if start:
            runs.clear()  # counted per game, so that replaying one game checks what it checked
        found = check_scenarios(self.program, self.stats, runs, state)
        if found is not None:
            message, details = found
            raise self._failure(SCENARIOS, message, state=state, details=details)

    def unfinished(self, state: State, limit: int) -> PropertyFailure:
        """The failure of a game still running after ``limit`` actions."""
        return self._failure(
            "engine:ends",
            f"the game has not ended after {limit} actions (round and phase counters, end conditions?)",
            state=state,
        )


def flow_context(state: State) -> Any:
    """Where the flow stands above the current step (its frames but the innermost): a turn
    ends when it changes (properties over a turn; ``verify --suggest`` counts turns the same way)."""
    frames = state.fields.get((ENGINE_OWNER, "flow")) or ()
    return frames[:-1]


_context = flow_context


def _only(properties: Properties, key: str) -> Properties:
    """The property named by a failure ``key`` alone (all of them if none is)."""
    only = select(properties, {key.removeprefix("property:")}) if key.startswith("property:") else None
    return only if only else properties
