"""Games and states with an OpenSpiel-style API.

``Game(program, num_players)`` is immutable; ``game.new_initial_state(seed)``
gives a mutable :class:`State` with ``current_player``, ``legal_actions``,
``apply_action``, ``is_terminal``, ``returns``, ``clone``.  All game data is
one dict of immutable values, so a clone is a shallow copy and a rejected
action is undone by restoring the copy taken before it.
"""

from __future__ import annotations

import os
import sys
from collections.abc import Callable, Iterator, Mapping
from typing import Any, TypeVar

from rulekit.compiler.program import CompiledAction, Program
from rulekit.engine import flow, outcome, serial
from rulekit.engine.action import Action as Action
from rulekit.engine.action import make_action as make_action
from rulekit.engine.defaults import field_default
from rulekit.engine.explain import explain as _explain
from rulekit.engine.guard import rule_error as _rule_error
from rulekit.engine.listing import list_legal, reference_listing
from rulekit.engine.slots import ASKED as _ASKED
from rulekit.engine.slots import ASKS as _ASKS
from rulekit.engine.slots import CHOSEN as _CHOSEN
from rulekit.engine.slots import DECISION as _DECISION
from rulekit.engine.slots import ENGINE as _ENGINE
from rulekit.engine.slots import FLOW as _FLOW
from rulekit.engine.slots import MOVES as _MOVES
from rulekit.engine.slots import OVER as _OVER
from rulekit.engine.slots import RNG as _RNG
from rulekit.engine.slots import TURN as _TURN
from rulekit.engine.triggers import Runner, action_runner
from rulekit.engine.values import NotationError, coerce, format_value, parse_action_text
from rulekit.errors import Diagnostic, IllegalActionError, RuleEvaluationError, RulekitError, Span
from rulekit.limits import LIMITS
from rulekit.runtime.context import Runtime, Trigger, seed_state
from rulekit.runtime.errors import RuleFailure, StepBudgetExceeded

TERMINAL = -4
#: What applying an action needs (:meth:`Game.apply_plan`).
ApplyPlan = tuple[CompiledAction, Runner]
#: A decision's actions, each with its planned enumerator.
Planned = tuple[tuple[CompiledAction, Callable[..., Any]], ...]


class Game:
    """A compiled ruleset set up for a number of players."""

    def __init__(self, program: Program, num_players: int) -> None:
        rules = program.rules
        if not rules.min_players <= num_players <= rules.max_players:
            raise RulekitError(
                Diagnostic(
                    f"{rules.title} is for {rules.min_players}-{rules.max_players} players, not {num_players}"
                )
            )
        self.program = program
        self.num_players = num_players
        #: The kind of each component, by id (a component's fields are declared per kind).
        self.kind_of: dict[str, str] = {id_: kind for kind, ids in program.collections.items() for id_ in ids}
        # (the money field's name interned, as the fields' keys are: see _initial_fields)
        self.runtime = Runtime(num_players, None if rules.money is None else sys.intern(rules.money))
        #: List legal actions with the reference enumerator instead of the planned one
        #: (tests, and the environment variable RULEKIT_REFERENCE_ENUMERATION=1).
        self.reference_enumeration = bool(os.environ.get("RULEKIT_REFERENCE_ENUMERATION"))
        self._plans: dict[str, tuple[CompiledAction, tuple[tuple[tuple[Any, ...], ...], int | None]]] = {}
        #: The flow's step and enter functions, built by :mod:`rulekit.engine.flow` on first use.
        self.flow_fns: Any = None
        self._template: dict[Any, Any] | None = None
        self._inits: tuple[tuple[Any, Callable[..., Any], tuple[Any, ...]], ...] = ()
        #: The first game's start (see :meth:`new_initial_state`): the settings it was made
        #: under, its fields and legal actions (None: the setup draws random numbers).
        self._start: tuple[tuple[Any, ...], dict[Any, Any] | None, tuple[Action, ...] | None] | None = None
        self._apply_plans: dict[str, ApplyPlan] = {}
        #: What the program's built-ins remember (sizes, the text built: rulekit.runtime.memory).
        self.memory = program.memory
        #: What other modules derive from this game and keep with it, by the class that
        #: derives it (e.g. rulekit.engine.spaces' observation encoder).
        self.derived: dict[type, Any] = {}
        #: Per decision (a tuple of action names): its planned and fused listing, as
        #: :meth:`listing` made it (read it through :meth:`listing`, or directly on a hot path).
        self.listings: dict[Any, tuple[Planned | None, Callable[..., Any] | None]] = {}
        #: Per decision: the function that lists it (:func:`rulekit.engine.listing.lister`).
        self.listers: dict[Any, Callable[[State, dict[Any, Any], int], list[Action]]] = {}
        for trigger in program.triggers:
            decl = trigger.decl
            self.runtime.triggers.setdefault((decl.timing, decl.event), []).append(
                Trigger(decl.name, decl.timing, trigger.condition, trigger.effect, decl.span)
            )

    @property
    def name(self) -> str:
        return self.program.name

    def enumeration_plan(self, compiled: CompiledAction) -> tuple[tuple[tuple[Any, ...], ...], int | None]:
        """For each number of chosen parameters, the requirement checks that can run then;
        and after how many parameters the cost can be tested (None: no cost)."""
        plan = self._plans.get(compiled.name)
        if plan is None or plan[0] is not compiled:
            depth_count = len(compiled.domains)
            checks: list[list[Any]] = [[] for _ in range(depth_count + 1)]
            for req in compiled.requires:
                checks[min(req.arity, depth_count)].append(req.check)
            cost_depth = None if compiled.cost is None else min(compiled.cost_arity, depth_count)
            plan = (compiled, (tuple(tuple(c) for c in checks), cost_depth))
            self._plans[compiled.name] = plan
        return plan[1]

    def new_initial_state(
        self, seed: int = 0, *, before_setup: Callable[[dict[Any, Any]], None] | None = None
    ) -> State:
        """The state after setup, waiting for the first decision.

        ``before_setup`` (tools: scenarios) may change the fields after their initial
        values and before the ruleset's ``setup`` runs.

        Raises:
            RuleEvaluationError: the setup rules failed.
        """
        program = self.program
        runtime = self.runtime
        seeded = seed_state(seed)
        # Without hooks or fields set from outside, a setup that draws no random number (the
        # generator's state is as seeded when the first decision is reached) gives the same
        # state for every seed but that generator state: later games copy the first.
        plain = (
            before_setup is None
            and runtime.chance is None
            and runtime.fired is None
            and runtime.branch is None
        )
        if plain and self._start is not None and self._start[0] == _start_key(runtime):
            _, fields, listed = self._start
            if fields is not None:
                F = dict(fields)
                F[_RNG] = seeded
                state = State(self, F)
                state.listed = None if listed is None else list(listed)
                return state
        template = self._template
        if template is None:
            template = self._template = self._initial_fields()
            self._inits = self._initial_values()
        F = dict(template)
        F[_RNG] = seeded
        runtime.reset_steps()
        memory = self.memory
        texts = memory.text_built
        try:
            for key, fn, args in self._inits:
                F[key] = fn(F, runtime, *args)
            if before_setup is not None:
                before_setup(F)
            if program.setup is not None:
                program.setup(F, runtime, -1)
            state = State(self, F)
            state._advance()
            if memory.text_built - texts + runtime.max_steps - runtime.left > BUSY or self._start is None:
                state._check_size("setup", None)
        except Exception as error:
            span = program.rules.setup.span if program.rules.setup is not None else None
            raise _rule_error(program, error, "setup", span) from None
        if plain:
            drew = F[_RNG] != seeded
            legal = state.listed
            self._start = (
                _start_key(runtime),
                None if drew else dict(F),
                None if drew or legal is None else tuple(legal),
            )
        return state

    def _initial_fields(self) -> dict[Any, Any]:
        """Every field at its type's default (before initial values and setup), the engine's
        bookkeeping included; the same for every new game, so built once."""
        program = self.program
        F: dict[Any, Any] = {
            _RNG: 0,
            _FLOW: ((len(program.flow) - 1, 0),),
            _ASKS: (),
            _OVER: False,
            (_ENGINE, "notes"): (),
            (_ENGINE, "paid_out"): 0,
            (_ENGINE, "taken_in"): 0,
            _DECISION: None,
            _TURN: None,
            _MOVES: 0,
            _ASKED: False,
        }
        keys = literal_keys(program.code)
        for scope, fields in program.rules.fields.items():
            owners = self.owners(scope)
            for name, decl in fields.items():
                default = field_default(program.field_types[scope][name], decl.declared.optional)
                name = sys.intern(name)  # (as the generated code's strings are)
                for owner in owners:
                    key = (owner, name)
                    F[keys.get(key, key)] = default
        return F

    def _initial_values(self) -> tuple[tuple[Any, Callable[..., Any], tuple[Any, ...]], ...]:
        """The fields with an initial value (turn fields aside: each turn sets them), in
        order, each with its function and the arguments after ``(F, R)``: ``me`` is the
        player for a player's field, else -1; a component's field also gets the component."""
        found: list[tuple[Any, Callable[..., Any], tuple[Any, ...]]] = []
        for scope, name, fn in self.program.field_inits:
            if scope == "turn":
                continue
            for owner in self.owners(scope):
                if scope == "player":
                    found.append(((owner, name), fn, (owner,)))
                elif scope == "game":
                    found.append(((owner, name), fn, (-1,)))
                else:
                    found.append(((owner, name), fn, (-1, owner)))
        return tuple(found)

    def apply_plan(self, name: str) -> ApplyPlan:
        """How action ``name`` runs, built once: its compiled form and its runner
        (:func:`rulekit.engine.triggers.action_runner`: the triggers that run before and
        after it, called with the action's arguments in order, its cost and effect; it
        returns whether the action ends the turn)."""
        plan = self._apply_plans.get(name)
        if plan is None:
            compiled = self.program.actions[name]
            triggers = self.runtime.triggers
            before = tuple(triggers.get(("before", name), ()))
            after = tuple(triggers.get(("after", name), ()))
            plan = (compiled, action_runner(compiled, before, after, bool(compiled.decl.ends_turn)))
            self._apply_plans[name] = plan
        return plan

    def forget_apply_plans(self) -> None:
        """Drop the plans :meth:`apply_plan` built (they hold the action triggers as they were
        when built): after the runtime's triggers change (:func:`rulekit.engine.triggers.watch`)."""
        self._apply_plans.clear()

    def planned_listing(self, names: Any) -> Planned | None:
        """The actions ``names`` (a decision's), each with its planned enumerator, if every
        one has one and none is offered only if nothing else is (:mod:`rulekit.engine.priority`),
        else None; kept per tuple of names."""
        return self.listing(names)[0]

    def listing(self, names: Any) -> tuple[Planned | None, Callable[..., Any] | None]:
        """:meth:`planned_listing` and the decision's fused listing function
        (:mod:`rulekit.compiler.planner_decisions`; None if the program has none), kept
        per tuple of names."""
        try:
            return self.listings[names]
        except KeyError:
            pass
        except TypeError:  # not a tuple of names: no caching
            return (None, None)
        actions = [self.program.actions[name] for name in names]
        planned: Planned | None = None
        if all(a.enumerate is not None and a.fallback is None for a in actions):
            planned = tuple((a, a.enumerate) for a in actions if a.enumerate is not None)
        # (the fused listing only while every action keeps its planned enumerator)
        fused = self.program.decisions.get(names) if all(a.enumerate is not None for a in actions) else None
        kept = self.listings[names] = (planned, fused)
        return kept

    def owners(self, scope: str) -> tuple[Any, ...]:
        if scope in ("game", "turn"):
            return (scope,)
        if scope == "player":
            return tuple(range(self.num_players))
        return self.program.collections[scope]

    def parse_action(self, text: str) -> Action:
        """Read an action in the log notation, e.g. ``buy(card_12)`` or ``choose(P2)``.

        Raises:
            IllegalActionError: the text names no action or is malformed.
        """
        try:
            name, raw = parse_action_text(text)
        except NotationError as error:
            raise IllegalActionError(Diagnostic(f"cannot read action '{text}': {error}")) from None
        compiled = self.program.actions.get(name)
        if compiled is None:
            from rulekit.errors import did_you_mean

            raise IllegalActionError(
                Diagnostic(f"unknown action '{name}'", hint=did_you_mean(name, self.program.actions))
            )
        if len(raw) != len(compiled.params):
            raise IllegalActionError(
                Diagnostic(
                    f"action '{name}' takes {len(compiled.params)} argument(s) "
                    f"({', '.join(compiled.params)}), not {len(raw)}"
                )
            )
        args = tuple(coerce(v, ty) for v, ty in zip(raw, compiled.param_types, strict=True))
        return Action(name, args)

    def action_to_string(self, action: Action) -> str:
        compiled = self.program.actions.get(action.name)
        if compiled is None or not action.args:
            return action.name
        return (
            action.name
            + "("
            + ", ".join(format_value(a, ty) for a, ty in zip(action.args, compiled.param_types, strict=False))
            + ")"
        )


_T = TypeVar("_T")
#: Steps plus characters of text the actions may take before the state's size is measured
#: again; it is measured every MEASURE_EVERY moves anyway (docs/security.md).
BUSY = 100_000
MEASURE_EVERY = 1024


def literal_keys(code: Any) -> dict[tuple[Any, str], tuple[Any, str]]:
    """The ``(owner, field)`` tuples the generated module ``code`` spells as constants (such
    as ``('game', 'winner')``), each the one object the compiler made for all its functions:
    a new game's fields are keyed by these objects, so that the generated code's look-ups find
    their entries by identity, without comparing tuples (see :mod:`rulekit.engine.slots`)."""
    found: dict[tuple[Any, str], tuple[Any, str]] = {}
    codes = [code] if code is not None else []
    while codes:
        for const in codes.pop().co_consts:
            if type(const) is tuple:
                if len(const) == 2 and type(const[1]) is str:
                    found.setdefault(const, const)
            elif hasattr(const, "co_consts"):
                codes.append(const)
    return found


def _start_key(runtime: Runtime) -> tuple[Any, ...]:
    """What a setup's outcome depends on besides the rules and the random numbers: the
    runtime's shuffle setting and the limits an evaluation reads."""
    return (
        runtime.keep_order,
        LIMITS.max_steps,
        LIMITS.max_candidates,
        LIMITS.max_int_bits,
        LIMITS.max_text_chars,
        LIMITS.max_state_size,
    )


def _whole(value: Any, what: str) -> int:
    """A score, tie-break or weight: a whole number (none and other values are rule errors)."""
    if isinstance(value, bool) or not isinstance(value, int):
        raise RuleFailure(f"{what} must be a whole number, not {format_value(value)}")
    return value


class State:
    """A game in progress: the decision pending, legal actions, apply, result."""

    __slots__ = ("_grown", "fields", "game", "listed")

    def __init__(self, game: Game, fields: dict[Any, Any]) -> None:
        self.game = game
        self.fields = fields
        #: The legal actions as last listed; None: not listed since the state changed (the
        #: flow, rulekit.engine.flow, lists them when it reaches a decision and sets this).
        self.listed: list[Action] | None = None
        #: Steps and characters of text the actions took since the size was last measured.
        self._grown = 0

    # ---------------------------------------------------------------- API
    def current_player(self) -> int:
        """The player who decides now, or TERMINAL."""
        decision = self.fields[_DECISION]
        return TERMINAL if decision is None else int(decision[0])

    def is_terminal(self) -> bool:
        return self.fields[_DECISION] is None

    def allowed_action_names(self) -> tuple[str, ...]:
        decision = self.fields[_DECISION]
        return () if decision is None else tuple(decision[1])

    def legal_actions(self) -> list[Action]:
        """Every legal action of the current player, in a fixed order.

        Raises:
            RuleEvaluationError: a parameter domain, requirement or cost failed to evaluate.
        """
        legal = self.listed
        if legal is None:
            self.game.runtime.reset_steps()
            legal = self.listed = list_legal(self)
        return legal

    def action_weight(self, action: Action) -> int:
        """How likely a random bot picks ``action`` (the ruleset's ``bots.weights``; default 1)."""
        compiled = self.game.program.actions[action.name]
        weight = compiled.weight
        if weight is None:
            return 1
        me = self.current_player()
        return self.evaluate(
            lambda: max(0, _whole(weight(self.fields, self.game.runtime, me, *action.args), "a weight")),
            f"the bot weight of {self.game.action_to_string(action)}",
            compiled.decl.span,
        )

    def has_bot_weights(self) -> bool:
        return bool(self.game.program.rules.bot_weights)

    def legal_action_strings(self) -> list[str]:
        return [self.game.action_to_string(a) for a in self.legal_actions()]

    def apply_action(self, action: Action | str) -> None:
        """Apply a legal action atomically.

        Raises:
            IllegalActionError: the action is not legal now (the state is unchanged);
                the message names the rule or condition that forbids it.
            RuleEvaluationError: a rule failed while the action was applied (the
                state is unchanged).
        """
        if type(action) is not Action:
            action = self.game.parse_action(action) if isinstance(action, str) else action
        legal = self.listed
        if legal is None:
            legal = self.legal_actions()
        if action not in legal:
            raise IllegalActionError(self.explain(action))
        backup = self.fields
        self.fields = dict(backup)
        self.listed = None
        game = self.game
        runtime = game.runtime
        runtime.reset_steps()
        memory = game.memory
        texts = memory.text_built
        try:
            self._apply(action)
            # The state's size is measured once the actions since the last measurement took
            # BUSY steps and characters of text, and every MEASURE_EVERY moves.
            grown = self._grown + memory.text_built - texts + runtime.max_steps - runtime.left
            if grown > BUSY or not self.fields[_MOVES] % MEASURE_EVERY:
                self._check_size(f"applying {self.game.action_to_string(action)}", action.name)
                grown = 0
            self._grown = grown
        except StepBudgetExceeded as error:
            self.fields, self.listed = backup, legal
            raise _rule_error(
                self.game.program, error, f"applying {self.game.action_to_string(action)}", None
            ) from None
        except RuleFailure as failure:
            self.fields, self.listed = backup, legal
            raise IllegalActionError(
                Diagnostic(
                    f"{self.game.action_to_string(action)} cannot be carried out: {failure.message}",
                    failure.span or self.game.program.actions[action.name].decl.span,
                )
            ) from None
        except RulekitError:
            self.fields, self.listed = backup, legal
            raise
        except (ArithmeticError, LookupError, TypeError, ValueError, RecursionError) as error:
            self.fields, self.listed = backup, legal
            raise RuleEvaluationError(
                Diagnostic(
                    f"a rule failed while applying {self.game.action_to_string(action)}: "
                    f"{type(error).__name__}: {error}",
                    self.game.program.rule_span(error) or self.game.program.actions[action.name].decl.span,
                    hint="this is a mistake in the rules (e.g. a missing value or a bad index)",
                )
            ) from None
        except BaseException as error:  # anything else (NameError, MemoryError, Ctrl-C): state as before
            self.fields, self.listed = backup, legal
            if not isinstance(error, Exception):
                raise
            raise _rule_error(
                self.game.program,
                error,
                f"applying {self.game.action_to_string(action)}",
                self.game.program.actions[action.name].decl.span,
            ) from None

    # ------------------------------------------------- simultaneous steps
    def is_simultaneous(self) -> bool:
        """Whether the decision is a seat's choice in a ``simultaneous`` flow step."""
        return _CHOSEN in self.fields and self.fields[_DECISION] is not None

    def simultaneous_seats(self) -> tuple[int, ...]:
        """The seats of the simultaneous step under way that have not chosen yet, in order
        (the deciding seat first; a seat with no legal action is skipped when its time
        comes); empty outside such a step."""
        if not self.is_simultaneous():
            return ()
        _, seats, index = self.fields[_FLOW][-1]
        return tuple(seats[index:])

    def legal_actions_of(self, seat: int) -> list[Action]:
        """The legal actions of ``seat``: the deciding seat's, or in a simultaneous step
        those of a seat still to choose (the same whatever the others choose, since no
        choice is applied before all are made); else none."""
        decision = self.fields[_DECISION]
        if decision is None:
            return []
        if seat == decision[0]:
            return self.legal_actions()
        if seat not in self.simultaneous_seats():
            return []
        fields = dict(self.fields)
        fields[_DECISION] = (seat, decision[1])
        return State(self.game, fields).legal_actions()

    def chosen(self, seat: int | None) -> tuple[tuple[int, str, tuple[Any, ...]], ...]:
        """The pending choices of the simultaneous step under way that ``seat`` made (its
        own only: the others' are hidden from it; none for a spectator)."""
        return tuple(entry for entry in self.fields.get(_CHOSEN, ()) if entry[0] == seat)

    def apply_joint(self, actions: Mapping[int, Action | str]) -> None:
        """Apply one action per seat still to choose in the simultaneous step under way
        (:meth:`simultaneous_seats`; a seat with no legal action gives none), atomically.

        Raises:
            IllegalActionError: not a simultaneous decision, a seat missing or extra, or a
                choice not legal; the state is unchanged.
            RuleEvaluationError: a rule failed while the choices resolved (state unchanged).
        """
        seats = [s for s in self.simultaneous_seats() if self.legal_actions_of(s)]
        if not seats:
            raise IllegalActionError(Diagnostic("no simultaneous decision is pending"))
        names = ", ".join(f"P{s + 1}" for s in seats)
        missing = [s for s in seats if s not in actions]
        if missing:
            raise IllegalActionError(
                Diagnostic(f"a joint action needs an action of each of {names}: none for P{missing[0] + 1}")
            )
        extra = [s for s in actions if s not in seats]
        if extra:
            raise IllegalActionError(
                Diagnostic(
                    f"a joint action has an action for {extra[0]!r}, who does not choose now (only {names})"
                )
            )
        backup, legal, grown = self.fields, self.listed, self._grown
        try:
            for seat in seats:
                if self.current_player() != seat:  # pragma: no cover - the engine asks in order
                    raise IllegalActionError(Diagnostic(f"P{seat + 1} is not asked to choose now"))
                try:
                    self.apply_action(actions[seat])
                except IllegalActionError as error:
                    d = error.diagnostics[0]
                    raise IllegalActionError(
                        Diagnostic(f"P{seat + 1}'s choice is refused: {d.message}", d.span, hint=d.hint)
                    ) from None
        except BaseException:
            self.fields, self.listed, self._grown = backup, legal, grown
            raise

    def returns(self) -> list[float]:
        """At the end, by the ruleset's outcome (:mod:`rulekit.engine.outcome`): +1 for each
        winner, -1 for the others, 0 for all if all tie; the same for every seat in a
        cooperative game (the shared score over the success threshold, at most 1); the scores
        themselves when the scoring declares ``returns`` (a game played for chips)."""
        if self.game.program.rules.scoring.returns is not None:
            return [float(score) for score in self.scores()]
        return outcome.returns(self)

    def scores(self) -> list[int]:
        """Each player's score.

        Raises:
            RuleEvaluationError: the score expression failed (the state is unchanged).
        """
        score = self.game.program.score
        if score is None:
            return [0] * self.game.num_players
        runtime = self.game.runtime
        n = self.game.num_players
        if outcome.cooperative(self.game):  # one shared score, the same for every seat
            return self.evaluate(
                lambda: [_whole(score(self.fields, runtime, -1, 0), "a score")] * n,
                "computing the scores",
                self.game.program.rules.scoring.span,
            )
        return self.evaluate(
            lambda: [_whole(score(self.fields, runtime, -1, p), "a score") for p in range(n)],
            "computing the scores",
            self.game.program.rules.scoring.span,
        )

    def standings(self) -> list[tuple[int, tuple[int, ...]]]:
        """Players from first to last, each with its (score, tie-breaks...) key.

        Raises:
            RuleEvaluationError: a score or tie-break expression failed (the state is unchanged).
        """
        program = self.game.program
        runtime = self.game.runtime
        fields = dict(self.fields)

        shared = outcome.cooperative(self.game)

        def keys() -> list[tuple[int, tuple[int, ...]]]:
            result = []
            for p in range(self.game.num_players):
                scored = 0 if shared else p  # a cooperative score is evaluated for the first seat
                score = _whole(program.score(fields, runtime, -1, scored), "a score") if program.score else 0
                extra = tuple(_whole(fn(fields, runtime, -1, p), "a tie-break") for fn in program.tiebreaks)
                result.append((p, (score, *extra)))
            return result

        found = self.evaluate(keys, "computing the standings", program.rules.scoring.span)
        return sorted(found, key=lambda pk: pk[1], reverse=True)

    def evaluate(self, compute: Callable[[], _T], doing: str, span: Span | None) -> _T:
        """Run rules that only read the state (scores, weights) with a fresh step budget,
        turning anything they raise into a located :class:`RuleEvaluationError`."""
        self.game.runtime.reset_steps()
        try:
            return compute()
        except Exception as error:
            raise _rule_error(self.game.program, error, doing, span) from None

    def winners(self) -> list[int]:
        """The players tied for first place (all of them when everybody ties); the members
        of the best teams (``outcome: teams``); every seat or none in a cooperative game
        (whether the shared score reached the success threshold)."""
        return outcome.winners(self)

    def refresh(self) -> None:
        """Re-derive the decision after fields were changed from outside the rules
        (scenario set-up, tools).  The position in the flow and the player who decides
        stay as they are, unless that player now has no legal action: then the flow
        moves on as it would in play (the turn ends by itself)."""
        self.listed = None
        self._advance()

    def _check_size(self, doing: str, action: str | None) -> None:
        """Refuse a state larger than the limit ``max_state_size`` (:mod:`rulekit.runtime.sizes`).

        Raises:
            RuleEvaluationError: naming what was done, the largest field and the rule.
        """
        sizes = self.game.memory.sizes
        size = sizes.state_size(self.fields)
        if size <= LIMITS.max_state_size:
            return
        (owner, name), value = max(self.fields.items(), key=lambda item: sizes.size_of(item[1]))
        holder = f"P{owner + 1}" if type(owner) is int else str(owner)
        program = self.game.program
        span = program.actions[action].decl.span if action is not None else None
        if span is None and program.rules.setup is not None:
            span = program.rules.setup.span
        raise RuleEvaluationError(
            Diagnostic(
                f"{doing} failed: the state grew to size {size}, beyond the limit max_state_size "
                f"({LIMITS.max_state_size}); the largest field, {holder}.{name}, "
                f"has size {sizes.size_of(value)}",
                span,
                hint="a rule keeps adding to a list, map or text; raise the limit with "
                "--limit max_state_size=N if the game really needs it",
            )
        )

    def clone(self) -> State:
        copy = State(self.game, dict(self.fields))
        copy.listed = None if self.listed is None else list(self.listed)
        copy._grown = self._grown
        return copy

    def notes(self) -> tuple[str, ...]:
        return tuple(self.fields[(_ENGINE, "notes")])

    def told(self, player: int | None) -> tuple[str, ...]:
        """The private notes addressed to ``player`` (``tell``); none for a spectator."""
        return tuple(text for to, text in self.fields.get((_ENGINE, "told"), ()) if to == player)

    def moves(self) -> int:
        return int(self.fields[_MOVES])

    # ------------------------------------------------------ serialization
    def to_json(self) -> dict[str, Any]:
        """The whole state as JSON-compatible data (exact; see :meth:`from_json`)."""
        return serial.state_to_json(self)

    @classmethod
    def from_json(cls, game: Game, data: dict[str, Any]) -> State:
        """The state saved by :meth:`to_json`, for the same rules and player count.

        Raises:
            RulekitError: the data was saved with other rules (fingerprint) or players.
        """
        return serial.state_from_json(cls, game, data)

    def state_hash(self) -> str:
        """A stable hash of the whole state (hidden parts included)."""
        return serial.state_hash(self)

    def view(self, player: int | None) -> dict[str, Any]:
        """What ``player`` may see (``None``: a spectator); hidden fields show only their size."""
        return serial.state_view(self, player)

    def value(self, owner: Any, name: str) -> Any:
        return self.fields[(owner, name)]

    # -------------------------------------------------------- internals
    def _enumerate(self) -> list[Action]:
        return list_legal(self)

    def _enumerate_action(self, compiled: CompiledAction, me: int) -> Iterator[Action]:
        """The legal instances of one action by the reference enumerator (see
        :func:`rulekit.engine.listing.reference_listing`)."""
        return reference_listing(self, compiled, me)

    def explain(self, action: Action) -> Diagnostic:
        """Why ``action`` is not legal now, naming the rule that forbids it."""
        return _explain(self, action)

    def _apply(self, action: Action) -> None:
        F = self.fields
        name, args = action
        if _CHOSEN in F:  # a simultaneous step: the choice waits for the others'
            F[_MOVES] += 1
            flow.chose(self, name, args)
            return
        game = self.game
        try:
            run = game._apply_plans[name][1]
        except KeyError:
            run = game.apply_plan(name)[1]
        R = game.runtime
        ends_turn = run(F, R, F[_DECISION][0], args)
        F[_MOVES] += 1
        flow.after_action(self, F, R, ends_turn)

    def run_action(self, me: int, name: str, args: tuple[Any, ...]) -> bool:
        """Run action ``name`` for player ``me``: its triggers, cost and effect (not the flow);
        return whether it ends the turn."""
        return self.game.apply_plan(name)[1](self.fields, self.game.runtime, me, args)

    def _advance(self) -> None:
        flow.advance(self)
