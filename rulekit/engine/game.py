"""Games and states with an OpenSpiel-style API.

``Game(program, num_players)`` is immutable; ``game.new_initial_state(seed)``
gives a mutable :class:`State` with ``current_player``, ``legal_actions``,
``apply_action``, ``is_terminal``, ``returns``, ``clone``.  All game data is
one dict of immutable values, so a clone is a shallow copy and a rejected
action is undone by restoring the copy taken before it.
"""

from __future__ import annotations

import functools
import hashlib
import json
import os
from collections.abc import Callable, Iterator
from typing import Any, TypeVar

from rulekit.compiler.program import CompiledAction, Program
from rulekit.dsl.printer import print_expr
from rulekit.engine import flow, priority
from rulekit.engine.defaults import field_default
from rulekit.engine.guard import rule_error as _rule_error
from rulekit.engine.values import NotationError, coerce, format_value, from_json, parse_action_text, to_json
from rulekit.errors import Diagnostic, IllegalActionError, RuleEvaluationError, RulekitError, Span
from rulekit.limits import LIMITS
from rulekit.runtime.context import BANK, Runtime, Trigger, seed_state
from rulekit.runtime.errors import RuleFailure, StepBudgetExceeded

TERMINAL = -4
_ENGINE = "_"
_DECISION = (_ENGINE, "decision")
_MOVES = (_ENGINE, "moves")


class Action(tuple[str, tuple[Any, ...]]):
    """An action with its arguments, e.g. ``place(b2)``: an immutable ``(name, args)`` pair.

    A tuple underneath, so that listing legal actions builds each one with a single C call
    (:data:`make_action`) and comparing or hashing actions runs no Python code: El Caballero
    lists ~45 actions per decision.
    """

    __slots__ = ()

    def __new__(cls, name: str, args: tuple[Any, ...] = ()) -> Action:
        return tuple.__new__(cls, (name, args))

    def __getnewargs__(self) -> tuple[str, tuple[Any, ...]]:
        return (self[0], self[1])

    @property
    def name(self) -> str:
        return self[0]

    @property
    def args(self) -> tuple[Any, ...]:
        return self[1]

    def __repr__(self) -> str:
        return f"Action(name={self[0]!r}, args={self[1]!r})"

    def __str__(self) -> str:
        name, args = self
        return name + ("(" + ", ".join(format_value(a) for a in args) + ")" if args else "")


#: ``make_action((name, args))``: an :class:`Action` without running Python code (what the
#: planned enumerators call for each legal candidate).
make_action: Callable[[tuple[str, tuple[Any, ...]]], Action] = functools.partial(tuple.__new__, Action)


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
        self.runtime = Runtime(num_players, rules.money)
        #: List legal actions with the reference enumerator instead of the planned one
        #: (tests, and the environment variable RULEKIT_REFERENCE_ENUMERATION=1).
        self.reference_enumeration = bool(os.environ.get("RULEKIT_REFERENCE_ENUMERATION"))
        self._plans: dict[str, tuple[CompiledAction, tuple[tuple[tuple[Any, ...], ...], int | None]]] = {}
        #: The flow's step and enter functions, built by :mod:`rulekit.engine.flow` on first use.
        self.flow_fns: Any = None
        self._template: dict[Any, Any] | None = None
        self._apply_plans: dict[str, tuple[CompiledAction, tuple[str, ...], bool, bool]] = {}
        self._listings: dict[Any, tuple[tuple[CompiledAction, Callable[..., Any]], ...] | None] = {}
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
        template = self._template
        if template is None:
            template = self._template = self._initial_fields()
        F = dict(template)
        F[(_ENGINE, "rng")] = seed_state(seed)
        runtime = self.runtime
        runtime.reset_steps()
        try:
            for scope, name, fn in program.field_inits:
                if scope == "turn":
                    continue
                for owner in self.owners(scope):
                    if scope == "player":
                        F[(owner, name)] = fn(F, runtime, owner)
                    elif scope == "game":
                        F[(owner, name)] = fn(F, runtime, -1)
                    else:
                        F[(owner, name)] = fn(F, runtime, -1, owner)
            if before_setup is not None:
                before_setup(F)
            if program.setup is not None:
                program.setup(F, runtime, -1)
            state = State(self, F)
            state._advance()
        except Exception as error:
            span = program.rules.setup.span if program.rules.setup is not None else None
            raise _rule_error(program, error, "setup", span) from None
        return state

    def _initial_fields(self) -> dict[Any, Any]:
        """Every field at its type's default (before initial values and setup), the engine's
        bookkeeping included; the same for every new game, so built once."""
        program = self.program
        F: dict[Any, Any] = {
            (_ENGINE, "rng"): 0,
            (_ENGINE, "flow"): ((len(program.flow) - 1, 0),),
            (_ENGINE, "asks"): (),
            (_ENGINE, "over"): False,
            (_ENGINE, "notes"): (),
            (_ENGINE, "paid_out"): 0,
            (_ENGINE, "taken_in"): 0,
            (_ENGINE, "decision"): None,
            (_ENGINE, "turn"): None,
            (_ENGINE, "moves"): 0,
            (_ENGINE, "asked"): False,
        }
        for scope, fields in program.rules.fields.items():
            owners = self.owners(scope)
            for name, decl in fields.items():
                default = field_default(program.field_types[scope][name], decl.type_text)
                for owner in owners:
                    F[(owner, name)] = default
        return F

    def apply_plan(self, name: str) -> tuple[CompiledAction, tuple[str, ...], bool, bool]:
        """What applying action ``name`` needs: its compiled form, the names its arguments
        have in trigger conditions, and whether triggers run before and after it."""
        plan = self._apply_plans.get(name)
        if plan is None or plan[0] is not self.program.actions[name]:
            compiled = self.program.actions[name]
            triggers = self.runtime.triggers
            plan = (
                compiled,
                tuple("v_" + p for p in compiled.params),
                ("before", name) in triggers,
                ("after", name) in triggers,
            )
            self._apply_plans[name] = plan
        return plan

    def planned_listing(self, names: Any) -> tuple[tuple[CompiledAction, Callable[..., Any]], ...] | None:
        """The actions ``names`` (a decision's), each with its planned enumerator, if every
        one has one and none is offered only if nothing else is (:mod:`rulekit.engine.priority`),
        else None; kept per tuple of names."""
        try:
            return self._listings[names]
        except KeyError:
            pass
        except TypeError:  # not a tuple of names: no caching
            return None
        found: list[tuple[CompiledAction, Callable[..., Any]]] = []
        for name in names:
            compiled = self.program.actions[name]
            if compiled.enumerate is None or compiled.fallback is not None:
                self._listings[names] = None
                return None
            found.append((compiled, compiled.enumerate))
        planned = self._listings[names] = tuple(found)
        return planned

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


def _whole(value: Any, what: str) -> int:
    """A score, tie-break or weight: a whole number (none and other values are rule errors)."""
    if isinstance(value, bool) or not isinstance(value, int):
        raise RuleFailure(f"{what} must be a whole number, not {format_value(value)}")
    return value


class State:
    """A game in progress: the decision pending, legal actions, apply, result."""

    __slots__ = ("_legal", "fields", "game")

    def __init__(self, game: Game, fields: dict[Any, Any]) -> None:
        self.game = game
        self.fields = fields
        self._legal: list[Action] | None = None

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
        if self._legal is None:
            self.game.runtime.reset_steps()
            self._legal = self._enumerate()
        return self._legal

    def action_weight(self, action: Action) -> int:
        """How likely a random bot picks ``action`` (the ruleset's ``bots.weights``; default 1)."""
        compiled = self.game.program.actions[action.name]
        weight = compiled.weight
        if weight is None:
            return 1
        me = self.current_player()
        return self._evaluate(
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
        if isinstance(action, str):
            action = self.game.parse_action(action)
        if action not in self.legal_actions():
            raise IllegalActionError(self.explain(action))
        backup, legal = self.fields, self._legal
        self.fields = dict(backup)
        self._legal = None
        self.game.runtime.reset_steps()
        try:
            self._apply(action)
        except StepBudgetExceeded as error:
            self.fields, self._legal = backup, legal
            raise _rule_error(
                self.game.program, error, f"applying {self.game.action_to_string(action)}", None
            ) from None
        except RuleFailure as failure:
            self.fields, self._legal = backup, legal
            raise IllegalActionError(
                Diagnostic(
                    f"{self.game.action_to_string(action)} cannot be carried out: {failure.message}",
                    failure.span or self.game.program.actions[action.name].decl.span,
                )
            ) from None
        except RulekitError:
            self.fields, self._legal = backup, legal
            raise
        except (ArithmeticError, LookupError, TypeError, ValueError, RecursionError) as error:
            self.fields, self._legal = backup, legal
            raise RuleEvaluationError(
                Diagnostic(
                    f"a rule failed while applying {self.game.action_to_string(action)}: "
                    f"{type(error).__name__}: {error}",
                    self.game.program.rule_span(error) or self.game.program.actions[action.name].decl.span,
                    hint="this is a mistake in the rules (e.g. a missing value or a bad index)",
                )
            ) from None
        except BaseException as error:  # anything else (NameError, MemoryError, Ctrl-C): state as before
            self.fields, self._legal = backup, legal
            if not isinstance(error, Exception):
                raise
            raise _rule_error(
                self.game.program,
                error,
                f"applying {self.game.action_to_string(action)}",
                self.game.program.actions[action.name].decl.span,
            ) from None

    def returns(self) -> list[float]:
        """At the end: +1 for each winner, -1 for the others, 0 for all if all tie."""
        winners = self.winners()
        if len(winners) == self.game.num_players:
            return [0.0] * self.game.num_players
        return [1.0 if p in winners else -1.0 for p in range(self.game.num_players)]

    def scores(self) -> list[int]:
        """Each player's score.

        Raises:
            RuleEvaluationError: the score expression failed (the state is unchanged).
        """
        score = self.game.program.score
        if score is None:
            return [0] * self.game.num_players
        runtime = self.game.runtime
        return self._evaluate(
            lambda: [
                _whole(score(self.fields, runtime, -1, p), "a score") for p in range(self.game.num_players)
            ],
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

        def keys() -> list[tuple[int, tuple[int, ...]]]:
            result = []
            for p in range(self.game.num_players):
                score = _whole(program.score(fields, runtime, -1, p), "a score") if program.score else 0
                extra = tuple(_whole(fn(fields, runtime, -1, p), "a tie-break") for fn in program.tiebreaks)
                result.append((p, (score, *extra)))
            return result

        found = self._evaluate(keys, "computing the standings", program.rules.scoring.span)
        return sorted(found, key=lambda pk: pk[1], reverse=True)

    def _evaluate(self, compute: Callable[[], _T], doing: str, span: Span | None) -> _T:
        """Run rules that only read the state (scores, weights) with a fresh step budget,
        turning anything they raise into a located :class:`RuleEvaluationError`."""
        self.game.runtime.reset_steps()
        try:
            return compute()
        except Exception as error:
            raise _rule_error(self.game.program, error, doing, span) from None

    def winners(self) -> list[int]:
        """The players tied for first place (all of them when everybody ties)."""
        standings = self.standings()
        return [p for p, key in standings if key == standings[0][1]]

    def refresh(self) -> None:
        """Re-derive the decision after fields were changed from outside the rules
        (scenario set-up, tools).  The position in the flow and the player who decides
        stay as they are, unless that player now has no legal action: then the flow
        moves on as it would in play (the turn ends by itself)."""
        self._legal = None
        self._advance()

    def clone(self) -> State:
        copy = State(self.game, dict(self.fields))
        copy._legal = None if self._legal is None else list(self._legal)
        return copy

    def notes(self) -> tuple[str, ...]:
        return tuple(self.fields[(_ENGINE, "notes")])

    def told(self, player: int | None) -> tuple[str, ...]:
        """The private notes addressed to ``player`` (``tell``); none for a spectator."""
        return tuple(text for to, text in self.fields.get((_ENGINE, "told"), ()) if to == player)

    def moves(self) -> int:
        return int(self.fields[(_ENGINE, "moves")])

    # ------------------------------------------------------ serialization
    def to_json(self) -> dict[str, Any]:
        """The whole state as JSON-compatible data (exact; see :meth:`from_json`)."""
        return {
            "ruleset": self.game.program.name,
            "fingerprint": self.game.program.fingerprint,
            "players": self.game.num_players,
            "fields": [
                [to_json(owner), name, to_json(value)] for (owner, name), value in self.fields.items()
            ],
        }

    @classmethod
    def from_json(cls, game: Game, data: dict[str, Any]) -> State:
        """The state saved by :meth:`to_json`, for the same rules and player count.

        Raises:
            RulekitError: the data was saved with other rules (fingerprint) or players.
        """
        saved = data.get("fingerprint")
        if saved is not None and saved != game.program.fingerprint:
            raise RulekitError(
                Diagnostic(
                    f"the state was saved with other rules (fingerprint {saved}, "
                    f"these rules {game.program.fingerprint})",
                    hint="load the same ruleset, modules and variants that made it",
                )
            )
        if data.get("players", game.num_players) != game.num_players:
            raise RulekitError(
                Diagnostic(f"the state is for {data['players']} players, not {game.num_players}")
            )
        fields = {(from_json(owner), name): from_json(value) for owner, name, value in data["fields"]}
        return cls(game, fields)

    def state_hash(self) -> str:
        """A stable hash of the whole state (hidden parts included)."""
        canonical = sorted(
            (json.dumps(to_json(owner)), name, json.dumps(to_json(value), sort_keys=True))
            for (owner, name), value in self.fields.items()
        )
        return hashlib.sha256(json.dumps(canonical).encode("utf-8")).hexdigest()[:16]

    def view(self, player: int | None) -> dict[str, Any]:
        """What ``player`` may see (``None``: a spectator); hidden fields show only their size."""
        rules = self.game.program.rules
        result: dict[str, Any] = {}
        for (owner, name), value in self.fields.items():
            if owner == _ENGINE:
                if name in ("rng",):
                    continue
                if name == "told":  # private notes: each player sees only her own
                    result["_.told"] = list(self.told(player))
                    continue
                result[f"_.{name}"] = to_json(value)
                continue
            scope = (
                "player"
                if isinstance(owner, int)
                else owner
                if owner in ("game", "turn")
                else self.game.kind_of.get(owner, "")
            )
            decl = rules.fields.get(scope, {}).get(name)
            visibility = decl.visibility if decl else "public"
            shown: Any = to_json(value)
            if visibility == "hidden" or (visibility == "owner" and owner != player):
                shown = {"hidden": len(value) if isinstance(value, tuple | dict) else 1}
            key = f"P{owner + 1}.{name}" if isinstance(owner, int) else f"{owner}.{name}"
            result[key] = shown
        return result

    def value(self, owner: Any, name: str) -> Any:
        return self.fields[(owner, name)]

    # -------------------------------------------------------- internals
    def _enumerate(self) -> list[Action]:
        decision = self.fields[_DECISION]
        if decision is None:
            return []
        me, names = decision
        program = self.game.program
        reference = self.game.reference_enumeration
        F, R = self.fields, self.game.runtime
        found: list[Action] = []
        actions = program.actions
        compiled = None
        planned = None if reference else self.game.planned_listing(names)
        R.memo = {}
        try:
            if planned is not None:
                for compiled, enumerate_ in planned:  # noqa: B007 - compiled names the failing action below
                    enumerate_(F, R, me, make_action, found)
                    if len(found) > LIMITS.max_candidates:
                        raise RuleFailure(
                            f"more than {LIMITS.max_candidates} legal actions at once (limit max_candidates)"
                        )
                return found
            for name in names:
                compiled = actions[name]
                if compiled.enumerate is None or reference:
                    found.extend(self._enumerate_action(compiled, me))
                else:
                    compiled.enumerate(F, R, me, make_action, found)
                if len(found) > LIMITS.max_candidates:
                    raise RuleFailure(
                        f"more than {LIMITS.max_candidates} legal actions at once (limit max_candidates)"
                    )
        except RuleFailure as failure:
            assert compiled is not None
            raise RuleEvaluationError(
                Diagnostic(
                    f"cannot list the legal actions: {failure.message}",
                    failure.span or compiled.decl.span,
                )
            ) from None
        except Exception as error:  # any mistake in a domain, requirement or cost
            assert compiled is not None
            raise RuleEvaluationError(
                Diagnostic(
                    f"cannot list the legal actions: {type(error).__name__}: {error}",
                    self.game.program.rule_span(error) or compiled.decl.span,
                    hint=f"a parameter domain, requirement or cost of '{compiled.name}' failed",
                )
            ) from None
        finally:
            R.memo = None
        return priority.keep(found, names, actions)

    def _enumerate_action(self, compiled: CompiledAction, me: int) -> Iterator[Action]:
        """The legal instances of one action, in domain order: the reference enumerator,
        which tests every candidate with the compiled requirement functions.  Play uses the
        planned enumerator the compiler generates; tests check that both agree.

        Each requirement (and the cost) is tested as soon as the parameters it reads
        are chosen, so a failing requirement prunes every choice of the later ones.
        """
        F, R = self.fields, self.game.runtime
        money = self.game.program.rules.money
        name = compiled.name
        domains = compiled.domains
        depth_count = len(domains)
        checks, cost_depth = self.game.enumeration_plan(compiled)
        cost = compiled.cost
        padding = (None,) * depth_count

        def passes(prefix: tuple[Any, ...]) -> bool:
            depth = len(prefix)
            args = prefix + padding[depth:] if depth < depth_count else prefix
            for check in checks[depth]:
                if not check(F, R, me, *args):
                    return False
            return not (cost is not None and cost_depth == depth and F[(me, money)] < cost(F, R, me, *args))

        if (checks[0] or cost_depth == 0) and not passes(()):
            return
        if depth_count == 0:
            yield Action(name, ())
            return
        if depth_count == 1:
            test = bool(checks[1]) or cost_depth == 1
            for value in domains[0](F, R, me):
                if not test or passes((value,)):
                    yield Action(name, (value,))
            return

        def expand(prefix: tuple[Any, ...]) -> Iterator[tuple[Any, ...]]:
            depth = len(prefix)
            last = depth + 1 == depth_count
            test = bool(checks[depth + 1]) or cost_depth == depth + 1
            for value in domains[depth](F, R, me, *prefix):
                chosen = (*prefix, value)
                if test and not passes(chosen):
                    continue
                if last:
                    yield chosen
                else:
                    yield from expand(chosen)

        for args in expand(()):
            yield Action(name, args)

    def explain(self, action: Action) -> Diagnostic:
        """Why ``action`` is not legal now, naming the rule that forbids it."""
        game = self.game
        text = game.action_to_string(action)
        decision = self.fields[_DECISION]
        if decision is None:
            return Diagnostic(f"{text} is not legal: the game is over")
        me, names = decision
        compiled = game.program.actions.get(action.name)
        if compiled is None:
            return Diagnostic(f"unknown action '{action.name}'")
        if action.name not in names:
            return Diagnostic(
                f"{text} is not allowed now: P{me + 1} must choose one of {', '.join(names)}",
                hint=_describe_decision(self),
            )
        if compiled.fallback is not None:  # first what a pass waits for: nothing else possible
            blocking = priority.blocking(compiled, self.legal_actions(), game.program.actions)
            if blocking:
                refusal = priority.refusal(compiled, [game.action_to_string(a) for a in blocking])
                return Diagnostic(f"{text} is not legal: {refusal}", compiled.decl.span)
        F, R = self.fields, game.runtime
        checks, cost_depth = game.enumeration_plan(compiled)
        requirements = {id(req.check): req for req in compiled.requires}
        try:
            # The same order as enumeration: the requirements that read only the parameters
            # chosen so far, then the next parameter's possible values.
            for i in range(len(compiled.params) + 1):
                for check in checks[i]:
                    if not check(F, R, me, *action.args):
                        req = requirements[id(check)]
                        cite = f" [{req.decl.cite}]" if req.decl.cite else ""
                        return Diagnostic(f"{text} is not legal: {req.decl.message}{cite}", req.decl.span)
                if compiled.cost is not None and cost_depth == i:
                    money = game.program.rules.money
                    price = compiled.cost(F, R, me, *action.args)
                    have = F[(me, money)]
                    if have < price:
                        return Diagnostic(
                            f"{text} is not legal: it costs {price} and P{me + 1} has {have}",
                            compiled.decl.cost_span,
                        )
                if i == len(compiled.params):
                    break
                param = compiled.params[i]
                values = compiled.domains[i](F, R, me, *action.args[:i])
                if action.args[i] not in values:
                    shown = ", ".join(format_value(v, compiled.param_types[i]) for v in values[:12])
                    if len(values) > 12:
                        shown += ", ..."
                    cite = f" [{compiled.decl.cite}]" if compiled.decl.cite else ""
                    domain = print_expr(compiled.decl.params[i].domain)
                    return Diagnostic(
                        f"{text} is not legal: {format_value(action.args[i], compiled.param_types[i])} "
                        f"is not a possible '{param}' now (possible: {shown or 'none'}); the rule: "
                        f"{action.name}'s '{param}' is one of {domain}{cite}",
                        compiled.decl.params[i].span,
                    )
        except Exception as error:  # a rule that fails while explaining still gets a message
            return Diagnostic(f"{text} is not legal: {error}", compiled.decl.span)
        return Diagnostic(f"{text} is not legal now", compiled.decl.span)

    def _apply(self, action: Action) -> None:
        game = self.game
        name, args = action
        compiled, names, before, after = game.apply_plan(name)
        F, R = self.fields, game.runtime
        me = F[_DECISION][0]
        # (a legal action has exactly the action's parameters; zip's strict check costs here)
        kwargs = dict(zip(names, args)) if before or after else {}  # noqa: B905
        if R.fired is not None:
            R.fired(f"action:{name}")
        if before:
            R.emit(F, me, name, kwargs, "before")
        if compiled.cost is not None:
            price = compiled.cost(F, R, me, *args)
            R.transfer(F, price, me, BANK, partial=False)
        if compiled.effect is not None:
            try:
                compiled.effect(F, R, me, *args)
            except RuleFailure as failure:
                if failure.span is None:
                    failure.span = compiled.decl.span
                raise
        if after:
            R.emit(F, me, name, kwargs, "after")
        F[_MOVES] += 1
        flow.after_action(self, compiled)
        self._advance()

    def _advance(self) -> None:
        flow.advance(self)


def _describe_decision(state: State) -> str | None:
    legal = state.legal_action_strings()
    if not legal:
        return None
    shown = ", ".join(legal[:8]) + (", ..." if len(legal) > 8 else "")
    return f"legal now: {shown}"
