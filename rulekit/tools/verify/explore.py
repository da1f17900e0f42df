"""Exploring games to find a violation: coverage-guided, swarm-tested random play.

Every game is seeded from ``(--seed, game number)``, so an exploration is
reproducible and its games can be split over worker processes. At every
decision one legal action is drawn; how likely each one is depends on

* the game's *plan* (swarm testing): most games disable a random subset of
  action kinds (they become rare, never impossible), some follow the
  ruleset's ``bots.weights``, and half draw an action *kind* before an instance
  (so ending the turn is not crowded out by twenty-five ways to move a piece),
  and half prefer *aliasing* actions, whose arguments all equal values the acting
  player's or the turn's fields hold (a piece moved onto the very space the player
  started her turn on, a ship sailed back to where it began: the coincidences that
  rules forget), so games differ in kind, not only in luck;
* coverage: an action kind that fired less often so far is preferred, and so is one seen
  writing a field that a requirement or trigger condition never true so far reads (it may
  make that condition true); a game that came closer than any before to making such a
  condition true (closeness.py: the distance of its comparisons) is kept like one that
  reached something new;
* a floor: every legal action keeps at least ``FLOOR / len(legal)`` of the
  probability, whatever its weight (a weight of 0 only makes it rare).

A game that reached something new (an action, trigger or condition outcome
not seen before) is kept in a corpus; later games often replay a prefix of a
kept game and go on from there at random, so rare situations, once reached,
are explored further.
"""

from __future__ import annotations

import random
import time
from collections.abc import Callable
from typing import Any

from attrs import define, field

from rulekit.compiler.program import Program
from rulekit.engine.game import Action, State
from rulekit.errors import RulesetError, UsageError
from rulekit.load import load_program
from rulekit.tools.bots import Bot, make_bot
from rulekit.tools.verify.checker import Checker, coverage_off
from rulekit.tools.verify.closeness import Closeness
from rulekit.tools.verify.coverage import Coverage
from rulekit.tools.verify.failures import PropertyFailure
from rulekit.tools.verify.options import MAX_SEED, VerifyOptions
from rulekit.tools.verify.relevance import expression_reads

#: Share of the probability spread evenly over all legal actions, whatever their weights.
FLOOR = 0.1
#: How strongly an action kind that rarely fired is preferred (1 + NOVELTY / (1 + times fired)).
NOVELTY = 8.0
#: Weight factor of an action kind a game's swarm plan disables.
DISABLED = 0.05
#: Share of games that start by replaying a prefix of a game that reached something new.
FROM_CORPUS = 0.5
#: Games kept in the corpus (the newest ones).
CORPUS_SIZE = 64
#: Share of games played by the --bots explorers (when given).
BOT_SHARE = 1 / 3
#: How much likelier an action kind is that writes a field some never-true condition reads.
FEEDS = 3.0
#: The fields each action kind writes are sampled every this many actions.
WRITES_EVERY = 4
#: Share of games that draw an action kind first, then one of its instances.
BY_KIND = 0.5
#: Share of games that prefer aliasing actions, and how much likelier those are.
ALIASING = 0.5
ALIAS = 4.0


@define
class Plan:
    """How one game draws its actions."""

    weighted: bool = False
    disabled: frozenset[str] = frozenset()
    bot: Any = None  # a tools/bots.py bot choosing this game's actions (with the floor kept)
    #: Draw a kind first: each action's weight is shared among the legal actions of its kind.
    by_kind: bool = False
    #: Prefer actions whose arguments all equal values of the actor's or the turn's fields.
    aliasing: bool = False


@define
class Entry:
    """A game prefix that reached something new."""

    players: int
    seed: int
    actions: list[Action]
    picked: int = 0


@define
class Explorer:
    """Plays the games of an exploration with one checker (one process)."""

    options: VerifyOptions
    checker: Checker
    counts: list[int]
    coverage: Coverage | None = None
    progress: Callable[[], None] = lambda: None
    corpus: list[Entry] = field(factory=list)
    #: Field names each action kind was seen to write (sampled).
    writes: dict[str, set[str]] = field(factory=dict)
    #: Action kinds that write what a condition never true so far reads (recomputed per game).
    feeders: frozenset[str] = frozenset()
    _reads: dict[int, frozenset[str]] = field(factory=dict)
    closeness: Closeness | None = None

    def __attrs_post_init__(self) -> None:
        if self.coverage is not None:
            self.closeness = Closeness(self.coverage.program, self.coverage)

    def run(self, games: range, stop: Callable[[], bool] = lambda: False) -> PropertyFailure | None:
        """Play ``games`` (their numbers); the first failure, or ``None``."""
        stats = self.checker.stats
        for number in games:
            if stop():
                return None
            try:
                self.play(number)
            except PropertyFailure as failure:
                stats.found_after_games = stats.games
                stats.found_after_seconds = time.perf_counter() - stats.started
                return failure
        return None

    def play(self, number: int) -> None:
        """Play game ``number`` to its end (or the action limit), checking everything."""
        rng = random.Random(f"{self.options.seed}:{number}")
        program = self.checker.program
        prefix: list[Action] = []
        if self.corpus and rng.random() < FROM_CORPUS:
            entry = min(rng.sample(self.corpus, min(3, len(self.corpus))), key=lambda e: e.picked)
            entry.picked += 1
            players, game_seed = entry.players, entry.seed
            prefix = entry.actions[: rng.randint(1, len(entry.actions))]
        else:
            players = rng.choice(self.counts)
            game_seed = rng.randrange(MAX_SEED)
        plan = _plan(rng, program, weighted=self.options.weighted)
        if self.options.bots and rng.random() < BOT_SHARE:
            spec = self.options.bots[rng.randrange(len(self.options.bots))]
            plan = Plan(bot=make_explorer_bot(spec, rng.randrange(MAX_SEED)))
        checker = self.checker
        self.feeders = self._feeders()
        state = checker.start(players, game_seed)
        played: list[Action] = []
        novel_at = 0
        novel = self.coverage.novel if self.coverage is not None else 0
        for index in range(self.options.max_actions):
            if state.is_terminal():
                break
            legal = state.legal_actions()
            if index < len(prefix) and prefix[index] in legal:
                action = prefix[index]
            else:
                prefix = []
                action = legal[0] if len(legal) == 1 else self.choose(rng, state, legal, plan)
            sample = self.coverage is not None and index % WRITES_EVERY == 0
            if sample:
                before = dict(state.fields)
                checker.step(state, action)
                self._note_writes(action.name, before, state.fields)
            else:
                checker.step(state, action)
            played.append(action)
            if self.coverage is not None and self.coverage.novel != novel:
                novel, novel_at = self.coverage.novel, len(played)
            if sample and self.closeness is not None and self.closeness.sample(state):
                novel_at = len(played)  # closer to a condition never true: resume from here
            self.progress()
        else:
            if not state.is_terminal() and self.options.must_end:
                checker.finish(state)
                raise checker.unfinished(state, self.options.max_actions)
        checker.finish(state)
        if state.is_terminal():
            self.checker.stats.longest = max(self.checker.stats.longest, len(played))
        self.progress()
        if novel_at:
            self.corpus.append(Entry(players, game_seed, played[:novel_at]))
            del self.corpus[:-CORPUS_SIZE]

    def choose(self, rng: random.Random, state: State, legal: list[Action], plan: Plan) -> Action:
        """Draw one of several legal actions (see the module's docstring)."""
        if plan.bot is not None and rng.random() >= FLOOR:
            with coverage_off(state):
                return plan.bot.choose(state)
        fired = self.coverage.fired if self.coverage is not None else {}
        kinds: dict[str, int] = {}
        if plan.by_kind:
            for action in legal:
                kinds[action.name] = kinds.get(action.name, 0) + 1
        held = held_values(state) if plan.aliasing else frozenset()
        weights = []
        for action in legal:
            if plan.weighted:
                with coverage_off(state):
                    weight = float(state.action_weight(action))
            else:
                weight = 1.0
            if held and action.args and all(is_held(arg, held) for arg in action.args):
                weight *= ALIAS
            if action.name in plan.disabled:
                weight *= DISABLED
            weight *= 1.0 + NOVELTY / (1 + fired.get(f"action:{action.name}", 0))
            if action.name in self.feeders:
                weight *= FEEDS
            if plan.by_kind:
                weight /= kinds[action.name]
            weights.append(weight)
        total = sum(weights)
        share = FLOOR / len(legal)
        scale = (1.0 - FLOOR) / total if total > 0 else 0.0
        draw = rng.random() * (1.0 if total > 0 else FLOOR)
        for action, weight in zip(legal, weights, strict=True):
            draw -= share + weight * scale
            if draw < 0:
                return action
        return legal[-1]

    def _note_writes(self, name: str, before: dict[Any, Any], after: dict[Any, Any]) -> None:
        written = self.writes.setdefault(name, set())
        for key, value in after.items():
            if key[0] != "_" and key[1] not in written and before.get(key) != value:
                written.add(key[1])

    def _feeders(self) -> frozenset[str]:
        """The action kinds seen writing a field that a condition never true so far reads:
        preferring them steers the games towards the rules not reached yet."""
        if self.coverage is None or not self.writes:
            return frozenset()
        rules = self.checker.program.rules
        reads: set[str] = set()
        for expr in self.coverage.never_true():
            found = self._reads.get(id(expr))
            if found is None:
                found = self._reads[id(expr)] = expression_reads(rules, expr)
            reads |= found
        return frozenset(name for name, written in self.writes.items() if written & reads)


def held_values(state: State) -> frozenset[Any]:
    """The values the deciding player's fields and the turn's fields hold now (not ``none``,
    booleans or 0, which every record is full of, nor a value that cannot be hashed -- a map,
    a list holding one -- which no action argument is compared with)."""
    me = state.current_player()
    found = set()
    for (owner, _), value in state.fields.items():
        if (owner == me or owner == "turn") and is_held(value, None) and _hashable(value):
            found.add(value)
    return frozenset(found)


def _hashable(value: Any) -> bool:
    try:
        hash(value)
    except TypeError:
        return False
    return True


def is_held(value: Any, held: frozenset[Any] | None) -> bool:
    """``value`` could alias a field (``held`` None), or is among ``held``."""
    if value is None or isinstance(value, bool) or value == 0:
        return False
    try:
        return held is None or value in held
    except TypeError:  # unhashable: not a value to alias
        return False


def make_explorer_bot(spec: str, seed: int) -> Bot:
    """A bot from one seat of a ``--bots`` specification (heuristic and MCTS bots with their
    settings, or a random kind), seeded."""
    return make_bot(spec, seed)


def _plan(rng: random.Random, program: Program, *, weighted: bool) -> Plan:
    """A game's plan: with the ruleset's bot weights in half the games (always with
    ``weighted``), in two thirds of the games with each action kind disabled with
    probability one half (swarm testing), in half of them drawing a kind first and in
    half preferring aliasing actions."""
    has_weights = bool(program.rules.bot_weights)
    use_weights = has_weights and (weighted or rng.random() < 0.5)
    disabled: frozenset[str] = frozenset()
    if rng.random() < 2 / 3:
        disabled = frozenset(name for name in sorted(program.actions) if rng.random() < 0.5)
    return Plan(
        weighted=use_weights,
        disabled=disabled,
        by_kind=rng.random() < BY_KIND,
        aliasing=rng.random() < ALIASING,
    )


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
