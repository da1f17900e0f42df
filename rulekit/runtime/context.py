"""The runtime services that compiled rules call: money, randomness, events, asks.

All game data lives in one dict ``F`` that maps ``(owner, field)`` to an
immutable value; owners are ``"game"``, ``"turn"``, a player index or a
component id.  Engine bookkeeping lives under the owner ``"_"``.  The
:class:`Runtime` itself holds only what never changes during a game.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from typing import Any

from rulekit.errors import Span
from rulekit.limits import LIMITS
from rulekit.runtime.chance import ChanceControl, ChanceStep, check_distribution, uniform
from rulekit.runtime.errors import RuleFailure, StepBudgetExceeded

BANK = -1
_MASK = (1 << 64) - 1
MAX_TRIGGER_DEPTH = 32
MAX_NOTES = 30


def next_random(seed: int) -> tuple[int, int]:
    """One step of splitmix64: (new seed, 64-bit output)."""
    seed = (seed + 0x9E3779B97F4A7C15) & _MASK
    z = seed
    z = ((z ^ (z >> 30)) * 0xBF58476D1CE4E5B9) & _MASK
    z = ((z ^ (z >> 27)) * 0x94D049BB133111EB) & _MASK
    return seed, z ^ (z >> 31)


def seed_state(seed: int) -> int:
    """The generator's first state for a game seed: the seed mixed by one splitmix64 step,
    so that games with neighbouring seeds draw unrelated numbers (an unmixed start would make
    seed s+1 repeat seed s's numbers shifted by one draw)."""
    return next_random((seed ^ 0x2545F4914F6CDD1D) & _MASK)[1]


TriggerFn = Callable[..., Any]


class Trigger:
    """A compiled trigger: its name, condition and effect functions, and its span."""

    __slots__ = ("condition", "effect", "name", "span", "timing")

    def __init__(
        self,
        name: str,
        timing: str,
        condition: TriggerFn | None,
        effect: TriggerFn,
        span: Span | None,
    ) -> None:
        self.name = name
        self.timing = timing
        self.condition = condition
        self.effect = effect
        self.span = span


class Runtime:
    """Services for compiled rules; one per compiled ruleset and player count."""

    def __init__(self, num_players: int, money_field: str | None) -> None:
        self.num_players = num_players
        self.players = tuple(range(num_players))
        self.money_field = money_field
        self.triggers: dict[tuple[str, str], list[Trigger]] = {}
        self.fired: Callable[[str], None] | None = None  # coverage hook
        #: Coverage hook for ``if`` statements: (the statement's span, the branch taken; the
        #: branch after the last is "none taken"); None (the default) costs one test per branch.
        self.branch: Callable[[Any, int], None] | None = None
        #: Results of rules functions while legal actions are listed (None: not listing).
        self.memo: dict[Any, Any] | None = None
        #: Results of rules functions kept across listings, per function, with the values of
        #: the fields they read (rulekit.runtime.memo.persistent_table); None: not kept.
        self.persist: dict[int, Any] | None = {}
        #: The tables given up (rarely kept): each listing's ``memo`` starts as a copy.
        self.off: dict[Any, Any] = {}
        self.keep_order = False  # tools (scenarios): shuffles keep the order given
        #: Outcomes of chance steps given from outside (rulekit.engine.chance); None: the RNG.
        self.chance: ChanceControl | None = None
        #: How deeply triggers are nested now (rulekit.engine.triggers and emit; at most
        #: MAX_TRIGGER_DEPTH).
        self.depth = 0
        self.max_steps = LIMITS.max_steps
        self.left = self.max_steps
        #: Steps charged by the evaluations before the current one (see :meth:`work`).
        self.charged = 0

    def taken(self, span: Any, value: Any) -> Any:
        """Report the outcome of the conditional expression at ``span`` to the ``branch``
        hook (0: its condition was true, 1: false); ``value``, the condition, unchanged."""
        if self.branch is not None:
            self.branch(span, 0 if value else 1)
        return value

    # -- the step budget (charged by generated code through rulekit.compiler.emit's hook)
    def reset_steps(self) -> None:
        """A fresh budget: the engine calls this when it starts evaluating rules."""
        self.charged += self.max_steps - self.left
        self.max_steps = LIMITS.max_steps
        self.left = self.max_steps

    def work(self) -> int:
        """Steps charged by every evaluation so far: a measure of the rules' work that does
        not depend on the machine or its load (verify's shrinking budget)."""
        return self.charged + self.max_steps - self.left

    def tick(self) -> None:
        """Charge one step (a generated block or rules function was entered)."""
        self.left -= 1
        if self.left < 0:
            self.over_budget()

    def steps(self, items: Any) -> Any:
        """Charge one step per element of ``items`` (about to be looped over); return it."""
        try:
            self.left -= len(items)
        except TypeError:
            self.left -= 1
        if self.left < 0:
            self.over_budget()
        return items

    def over_budget(self) -> None:
        """Raise :class:`StepBudgetExceeded` (the budget ran out), starting the next evaluation afresh."""
        self.charged += self.max_steps - self.left
        self.left = self.max_steps  # the evaluation that ran out ends here; the next one starts afresh
        raise StepBudgetExceeded(
            f"the rules ran more than {self.max_steps} steps in one evaluation (an endless or huge loop?)"
        )

    def number(self, value: Any) -> Any:
        """``value``, unless it is a whole number beyond the integer limit."""
        if type(value) is int and value.bit_length() > LIMITS.max_int_bits:
            raise RuleFailure(f"a number grew beyond {LIMITS.max_int_bits} bits (the limit max_int_bits)")
        return value

    def mul(self, left: Any, right: Any) -> Any:
        """``left * right`` for whole numbers, refusing results beyond the integer limit."""
        if type(left) is not int or type(right) is not int:
            if isinstance(left, bool | int) and isinstance(right, bool | int):
                left, right = int(left), int(right)
            else:
                raise RuleFailure(
                    f"'*' multiplies whole numbers, not {self.format_value(left)} and "
                    f"{self.format_value(right)}"
                )
        bits = left.bit_length() + right.bit_length()
        if bits > LIMITS.max_int_bits + 1:
            raise RuleFailure(f"a number grew beyond {LIMITS.max_int_bits} bits (the limit max_int_bits)")
        return left * right

    # -- randomness
    def random_below(self, F: dict[Any, Any], n: int, event: str = "random", first: int = 0) -> int:
        """A uniform chance step over ``first .. first + n - 1``; returns the outcome's index."""
        if n <= 0:
            raise RuleFailure(f"cannot draw a random number below {n}")
        if self.chance is not None:
            return self.chance.choose(uniform(event, n, first), lambda step: self._rng_below(F, n))
        return self._rng_below(F, n)

    def pick(
        self, F: dict[Any, Any], event: str, outcomes: Sequence[Any], weights: Sequence[Any] | None
    ) -> Any:
        """One outcome of a declared distribution (a chance step), drawn with its weight."""
        step = check_distribution(event, outcomes, weights)
        if self.chance is not None:
            return step.outcomes[self.chance.choose(step, lambda s: self._rng_weighted(F, s))]
        return step.outcomes[self._rng_weighted(F, step)]

    def _rng_weighted(self, F: dict[Any, Any], step: ChanceStep) -> int:
        r = self._rng_below(F, step.total)
        for index, weight in enumerate(step.weights):
            if r < weight:
                return index
            r -= weight
        raise AssertionError("unreachable: r < total")

    def _rng_below(self, F: dict[Any, Any], n: int) -> int:
        seed, value = next_random(F[("_", "rng")])
        F[("_", "rng")] = seed
        return value % n

    def shuffled(self, F: dict[Any, Any], items: Sequence[Any]) -> tuple[Any, ...]:
        if self.keep_order:
            return tuple(items)
        result = list(items)
        for i in range(len(result) - 1, 0, -1):
            j = self.random_below(F, i + 1, "shuffle")
            result[i], result[j] = result[j], result[i]
        return tuple(result)

    # -- money
    def transfer(self, F: dict[Any, Any], amount: int, source: int, target: int, *, partial: bool) -> None:
        field = self.money_field
        if field is None:
            raise RuleFailure("transfer needs a 'money' field declared in the ruleset")
        if amount < 0:
            raise RuleFailure(f"cannot transfer a negative amount ({amount})")
        if source == target or amount == 0:
            return
        if source != BANK:
            have = F[(source, field)]
            if have < amount:
                if not partial:
                    raise RuleFailure(f"{self.format_player(source)} cannot pay {amount} (has {have})")
                amount = max(0, have)
            F[(source, field)] = have - amount
        else:
            F[("_", "paid_out")] += amount
        if target != BANK:
            F[(target, field)] += amount
        else:
            F[("_", "taken_in")] += amount

    # -- flow interaction
    def ask(self, F: dict[Any, Any], player: int, actions: Sequence[str]) -> None:
        if type(player) is not int or not 0 <= player < self.num_players:
            shown = "none" if player is None else self.format_value(player)
            raise RuleFailure(f"ask: {shown} is not a player")
        F[("_", "asks")] = (*F[("_", "asks")], (player, tuple(actions)))

    def note(self, F: dict[Any, Any], text: str) -> None:
        notes = (*F[("_", "notes")], str(text))
        F[("_", "notes")] = notes[-MAX_NOTES:]

    def tell(self, F: dict[Any, Any], player: int, text: str) -> None:
        """A private note to ``player``: kept as (player, text) in the engine's ``told`` field."""
        if type(player) is not int or not 0 <= player < self.num_players:
            shown = "none" if player is None else self.format_value(player)
            raise RuleFailure(f"tell: {shown} is not a player")
        told = (*F.get(("_", "told"), ()), (player, str(text)))
        F[("_", "told")] = told[-MAX_NOTES * self.num_players :]

    def reveal(self, F: dict[Any, Any], owner: Any, field: str, player: int) -> None:
        """Show ``owner``'s ``field`` to ``player`` from now on: a sorted set of (owner, field,
        player) in the engine's ``revealed`` field (see rulekit.engine.information)."""
        if type(player) is not int or not 0 <= player < self.num_players:
            shown = "none" if player is None else self.format_value(player)
            raise RuleFailure(f"reveal: {shown} is not a player")
        if (owner, field) not in F or owner == "_":
            shown = f"P{owner + 1}" if type(owner) is int else self.format_value(owner)
            raise RuleFailure(f"reveal: {shown} has no field '{field}'")
        entry = (owner, str(field), player)
        revealed = F.get(("_", "revealed"), ())
        if entry not in revealed:
            F[("_", "revealed")] = tuple(sorted((*revealed, entry), key=repr))

    def end_game(self, F: dict[Any, Any]) -> None:
        F[("_", "over")] = True

    # -- events
    def emit(
        self, F: dict[Any, Any], me: int, event: str, args: dict[str, Any], timing: str = "after"
    ) -> None:
        triggers = self.triggers.get((timing, event))
        if not triggers:
            return
        if self.depth >= MAX_TRIGGER_DEPTH:
            raise RuleFailure(
                f"triggers nested more than {MAX_TRIGGER_DEPTH} deep at event '{event}' "
                "(a trigger probably emits the event it listens to)"
            )
        self.depth += 1
        try:
            for trigger in triggers:
                if trigger.condition is not None and not trigger.condition(F, self, me, **args):
                    continue
                if self.fired is not None:
                    self.fired(f"trigger:{trigger.name}")
                try:
                    trigger.effect(F, self, me, **args)
                except RuleFailure as failure:
                    if failure.span is None:
                        failure.span = trigger.span
                    raise
        finally:
            self.depth -= 1

    # -- text
    def format_player(self, player: int) -> str:
        return "bank" if player == BANK else f"P{player + 1}"

    def format_value(self, value: Any) -> str:
        return repr(value) if isinstance(value, str) else str(value)

    def format_key(self, key: tuple[Any, str]) -> str:
        owner, name = key
        if isinstance(owner, int):
            return f"{self.format_player(owner)}.{name}"
        return f"{owner}.{name}"
