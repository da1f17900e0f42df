"""Differential verification: what else did a variant change?

``rulekit verify BASE --variant V --differential`` plays the same games under the
base rules and under the variant: random games of the base, each action applied to
both, with the same chance seed. After every action the two states are compared
field by field; the first field that differs -- other than those the author says the
variant changes (``--allow player.money,game.round``) -- is reported with both values
and the actions that lead there, shortened by verify's shrinker (whole turns and
rounds, runs of actions, the game's choices, fewer players, other chance seeds) while
the games still diverge. An action the base allows and the variant refuses (or the other way round) is
a divergence too, until an allowed field differs (from then on the games may
legitimately take other courses).
"""

from __future__ import annotations

import random
import time
from collections.abc import Sequence
from typing import Any

from attrs import define, field

from rulekit.compiler.program import Program
from rulekit.dsl import types as t
from rulekit.engine.game import Action, Game, State
from rulekit.engine.values import format_value, to_json
from rulekit.errors import RulekitError
from rulekit.load import load_program
from rulekit.tools.verify.failures import PropertyFailure
from rulekit.tools.verify.options import MAX_SEED, VerifyOptions
from rulekit.tools.verify.shrink import Shrinker, find_failure

#: A divergence this short is reported at once; otherwise more games look for a shorter one ...
SHORT = 30
#: ... up to this many games in all.
FIRST_GAMES = 50
#: The time shrinking a divergence may take.
SHRINK_SECONDS = 20.0


@define
class Divergence:
    """The first place where base and variant differ unexpectedly."""

    players: int
    seed: int
    actions: list[str]
    what: str
    fields: list[tuple[str, Any, Any]] = field(factory=list)  # (field, base value, variant value)

    def render(self, base: str, variant: str) -> str:
        lines = [f"differential: {variant} changes more than declared", f"  {self.what}"]
        for name, left, right in self.fields[:8]:
            lines.append(f"    {name}: base {left}, variant {right}")
        lines.append(f"  after {len(self.actions)} action(s) ({self.players} players, seed {self.seed}):")
        if not self.actions:
            lines.append("    (right after setup)")
        lines.extend(f"    {i:>3}. {text}" for i, text in enumerate(self.actions, start=1))
        return "\n".join(lines)


@define
class DifferentialResult:
    base: Program
    variant: Program
    games: int
    actions: int
    seconds: float
    divergence: Divergence | None = None
    #: Allowed fields that did differ somewhere (the declared change was seen).
    allowed_seen: set[str] = field(factory=set)


def differential(options: VerifyOptions, allow: Sequence[str] = ()) -> DifferentialResult:
    """Play ``options.examples`` games under the base rules and the variants side by side.

    Raises:
        RulekitError: the rules or the variant do not load.
    """
    started = time.perf_counter()
    base = load_program(options.ruleset, options.modules, (), players=options.players)
    variant = load_program(options.ruleset, options.modules, options.variants, players=options.players)
    low = max(base.rules.min_players, variant.rules.min_players)
    high = min(base.rules.max_players, variant.rules.max_players)
    counts = [options.players] if options.players else list(range(low, high + 1))
    matcher = FieldMatcher(base, allow)
    result = DifferentialResult(base, variant, 0, 0, 0.0)
    shortest: Divergence | None = None
    for number in range(options.examples):
        rng = random.Random(f"{options.seed}:{number}")
        players, seed = rng.choice(counts), rng.randrange(MAX_SEED)
        limit = options.max_actions if shortest is None else len(shortest.actions) - 1
        found = _play(base, variant, players, seed, matcher, rng, limit, [], result)
        result.games += 1
        if found is not None and (shortest is None or len(found.actions) < len(shortest.actions)):
            shortest = found
        if shortest is not None and (len(shortest.actions) <= SHORT or number + 1 >= FIRST_GAMES):
            break  # short enough, or enough games played looking for a shorter one
    if shortest is not None:
        result.divergence = shorten(base, variant, shortest, matcher, result, SHRINK_SECONDS, counts[0])
    result.seconds = time.perf_counter() - started
    return result


class FieldMatcher:
    """Which state keys the author allows to differ (``player.money``, ``game.round``, ``city.sites``)."""

    def __init__(self, program: Program, allow: Sequence[str]) -> None:
        self.allow = set(allow)
        self.types = {
            (scope, name): decl.declared.type
            for scope, fields in program.rules.fields.items()
            for name, decl in fields.items()
        }
        self.scope_of: dict[Any, str] = {"game": "game", "turn": "turn"}
        for kind, ids in program.collections.items():
            for ident in ids:
                self.scope_of[ident] = kind

    def name(self, key: tuple[Any, str]) -> str:
        owner, name = key
        if isinstance(owner, int) and not isinstance(owner, bool):
            return f"player.{name}"
        return f"{self.scope_of.get(owner, owner)}.{name}"

    def label(self, key: tuple[Any, str]) -> str:
        owner, name = key
        if isinstance(owner, int) and not isinstance(owner, bool):
            return f"P{owner + 1}.{name}"
        return f"{owner}.{name}"

    def show(self, key: tuple[Any, str], value: Any) -> str:
        """A value as the rules write it (players as P1, P2...)."""
        scope = self.name(key).split(".", 1)[0]
        if isinstance(value, dict):
            text = repr(to_json(value))
        else:
            text = format_value(value, self.types.get((scope, key[1]), t.ANY))
        return text if len(text) <= 120 else text[:117] + "..."

    def allowed(self, key: tuple[Any, str]) -> bool:
        return key[0] == "_" or self.name(key) in self.allow


def _play(
    base: Program,
    variant: Program,
    players: int,
    seed: int,
    matcher: FieldMatcher,
    rng: random.Random | None,
    limit: int,
    texts: list[str],
    result: DifferentialResult,
    replay: Sequence[str] = (),
) -> Divergence | None:
    """Play one game on both (random, or ``replay``); the first divergence, if any."""
    left = Game(base, players).new_initial_state(seed)
    right = Game(variant, players).new_initial_state(seed)
    drifted = False
    found = _compare(left, right, matcher, players, seed, texts, result) or _legal_differ(
        left, right, players, seed, texts
    )
    if found is not None:
        return found
    for step in range(limit if rng is not None else len(replay)):
        if left.is_terminal():
            break
        if rng is not None:
            legal = left.legal_action_strings()
            text = legal[rng.randrange(len(legal))]
        else:
            text = replay[step]
            if text not in left.legal_action_strings():
                return None
        texts.append(text)
        result.actions += 1
        left.apply_action(text)
        try:
            right.apply_action(text)
        except RulekitError as error:
            if drifted:
                return None
            message = error.diagnostics[0].message if error.diagnostics else str(error)
            return Divergence(
                players,
                seed,
                list(texts),
                f"{text} is legal in the base but not under the variant: {message}",
            )
        found = _compare(left, right, matcher, players, seed, texts, result)
        if found is not None:
            return found
        drifted = drifted or bool(result.allowed_seen & _differing_names(left, right, matcher))
        if not drifted:
            found = _legal_differ(left, right, players, seed, texts)
            if found is not None:
                return found
    return None


def _legal_differ(left: State, right: State, players: int, seed: int, texts: list[str]) -> Divergence | None:
    """A divergence if the two states offer different actions."""
    if left.is_terminal() and right.is_terminal():
        return None
    base, variant = set(left.legal_action_strings()), set(right.legal_action_strings())
    if base == variant:
        return None
    parts = []
    if base - variant:
        parts.append(f"only the base allows {', '.join(sorted(base - variant)[:5])}")
    if variant - base:
        parts.append(f"only the variant allows {', '.join(sorted(variant - base)[:5])}")
    return Divergence(players, seed, list(texts), f"the legal actions differ: {'; '.join(parts)}")


def _differing_names(left: State, right: State, matcher: FieldMatcher) -> set[str]:
    keys = set(left.fields) | set(right.fields)
    return {matcher.name(k) for k in keys if left.fields.get(k) != right.fields.get(k)}


def _compare(
    left: State,
    right: State,
    matcher: FieldMatcher,
    players: int,
    seed: int,
    texts: list[str],
    result: DifferentialResult,
) -> Divergence | None:
    differing = []
    for key in sorted(set(left.fields) | set(right.fields), key=repr):
        a, b = left.fields.get(key), right.fields.get(key)
        if a == b:
            continue
        if matcher.allowed(key):
            if key[0] != "_":  # the engine's own bookkeeping (the bank's ledger)
                result.allowed_seen.add(matcher.name(key))
            continue
        differing.append((matcher.label(key), matcher.show(key, a), matcher.show(key, b)))
    if not differing:
        return None
    return Divergence(
        players, seed, list(texts), "the states differ in fields the variant does not declare", differing
    )


#: A candidate of shrinking that diverges (whatever the difference: any undeclared one is a finding).
DIVERGES = "differential:diverges"
#: A candidate in which the games legitimately took other courses: not a divergence.
_DRIFTED = "differential:drifted"


class DivergenceFailure(PropertyFailure):
    """A divergence, raised while the shrinker replays a candidate side by side."""

    def __init__(self, divergence: Divergence, history: Sequence[tuple[int, str]]) -> None:
        super().__init__(
            DIVERGES, divergence.what, history=history, players=divergence.players, seed=divergence.seed
        )
        self.divergence = divergence


class SideBySide:
    """Plays a game under the base and the variant at once, for the shrinker (a ``Replayer``):
    ``start`` and ``step`` raise :class:`DivergenceFailure` at the first undeclared difference."""

    def __init__(
        self, base: Program, variant: Program, matcher: FieldMatcher, allowed_seen: set[str]
    ) -> None:
        self.program = base
        self.variant = variant
        self.matcher = matcher
        self.allowed_seen = set(allowed_seen)
        self.games: dict[int, tuple[Game, Game]] = {}
        self.history: list[tuple[int, str]] = []

    def work(self) -> int:
        """The rules' steps charged so far under both rules (the shrinking budget)."""
        return sum(game.runtime.work() for pair in self.games.values() for game in pair)

    def start(self, players: int, seed: int) -> State:
        games = self.games.get(players)
        if games is None:
            games = self.games[players] = (Game(self.program, players), Game(self.variant, players))
        left = games[0].new_initial_state(seed)
        self.right = games[1].new_initial_state(seed)
        self.players, self.seed, self.drifted = players, seed, False
        self.history = []
        self.shadow = DifferentialResult(
            self.program, self.variant, 0, 0, 0.0, allowed_seen=set(self.allowed_seen)
        )
        found = _compare(left, self.right, self.matcher, players, seed, [], self.shadow) or _legal_differ(
            left, self.right, players, seed, []
        )
        if found is not None:
            raise DivergenceFailure(found, self.history)
        return left

    def step(self, state: State, action: Action) -> None:
        text = state.game.action_to_string(action)
        self.history.append((state.current_player(), text))
        texts = [t for _, t in self.history]
        state.apply_action(action)
        right, players, seed = self.right, self.players, self.seed
        try:
            right.apply_action(text)
        except RulekitError as error:
            if self.drifted:
                raise PropertyFailure(_DRIFTED, text, history=self.history) from None
            message = error.diagnostics[0].message if error.diagnostics else str(error)
            divergence = Divergence(
                players, seed, texts, f"{text} is legal in the base but not under the variant: {message}"
            )
            raise DivergenceFailure(divergence, self.history) from None
        found = _compare(state, right, self.matcher, players, seed, texts, self.shadow)
        if found is None:
            self.drifted = self.drifted or bool(
                self.shadow.allowed_seen & _differing_names(state, right, self.matcher)
            )
            if not self.drifted:
                found = _legal_differ(state, right, players, seed, texts)
        if found is not None:
            raise DivergenceFailure(found, self.history)


def shorten(
    base: Program,
    variant: Program,
    found: Divergence,
    matcher: FieldMatcher,
    result: DifferentialResult,
    seconds: float,
    min_players: int,
) -> Divergence:
    """Shorten a divergence with verify's shrinker (``shrink.py``: whole turns and rounds, runs
    of actions, choices, fewer players, other chance seeds, a targeted search while long)."""
    side = SideBySide(base, variant, matcher, result.allowed_seen)
    failure = find_failure(side, found.players, found.seed, found.actions, DIVERGES)
    if not isinstance(failure, DivergenceFailure):
        return found  # pragma: no cover - the divergence was found by playing these actions
    best = Shrinker(side, seconds, min_players).shrink(failure)
    return best.divergence if isinstance(best, DivergenceFailure) else found
