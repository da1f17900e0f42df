"""Seeded bots, the ``--bots`` seat specification, and a driver that plays a whole game.

Bots by name (see docs/bots.md):

* ``random`` picks among the legal actions, likelier as the ruleset's ``bots.weights`` say;
  ``uniform`` ignores the weights; ``first`` always takes the first legal action.
* ``heuristic`` plays the legal action whose resulting state the ruleset's
  ``bots.evaluate`` expression rates best for it (one ply; ties broken by the seeded,
  weighted random choice).  When its player cannot see everything, it rates each action
  over ``samples`` determinizations of what it can see, never the real hidden state.
* ``mcts`` searches with information-set Monte Carlo tree search
  (:mod:`rulekit.tools.mcts`).

A bot specification names one bot per seat, separated by commas; options follow the
name after ``:`` (``mcts:iterations=400:cutoff=30``).  One name alone is used for every
seat: ``--bots heuristic``; ``--bots mcts:iterations=400,heuristic,random,random`` seats
an MCTS bot as P1, a heuristic bot as P2 and random bots as P3 and P4.
"""

from __future__ import annotations

import random
from collections.abc import Callable, Mapping, Sequence
from fractions import Fraction
from pathlib import Path
from typing import Protocol

from attrs import frozen

from rulekit.engine.game import Action, Game, State
from rulekit.engine.information import determinize, sees_all
from rulekit.errors import Diagnostic, UsageError
from rulekit.tools.evaluation import after, has_evaluation, outcome_value, weighted_choice
from rulekit.tools.log import GameRecorder
from rulekit.tools.mcts import MctsBot


class Bot(Protocol):
    """Something that picks one of the legal actions of the player deciding now."""

    def choose(self, state: State) -> Action: ...


class RandomBot:
    """Picks at random among the legal actions, with its own seeded generator.

    With ``weighted`` (the default), the ruleset's ``bots.weights`` make some actions
    likelier: an action's chance is its weight (default 1) over the sum of the legal
    ones'. Without weights, or when every legal action weighs 0, the choice is uniform.
    """

    def __init__(self, seed: int = 0, *, weighted: bool = True) -> None:
        self._rng = random.Random(seed)
        self._weighted = weighted

    def choose(self, state: State) -> Action:
        return weighted_choice(state, state.legal_actions(), self._rng, self._weighted)


class FirstLegalBot:
    """Always picks the first legal action (the engine's order is deterministic)."""

    def choose(self, state: State) -> Action:
        return state.legal_actions()[0]


class HeuristicBot:
    """Plays the legal action whose resulting state the ruleset's ``bots.evaluate`` rates
    best for the player deciding; ties go to the seeded random choice, weighted by
    ``bots.weights``.

    ``depth`` 1 looks one action ahead.  A larger depth also tries the player's own next
    decisions while it keeps deciding (the rest of a turn made of several actions: buy,
    then sail, then build), at most ``depth`` actions deep, and rates an action by the
    best state it can lead to; it never guesses the other players' moves.

    When some list fields are hidden from the player deciding (the others' hands, a deck),
    an action is not tried on the real state, which would tell the bot what it cannot see:
    it is tried on ``samples`` determinizations (:func:`~rulekit.engine.information.determinize`,
    the same ones for every action) and rated by the mean of its ratings there.  With
    nothing hidden the real state is the only sample, and the choice is as before.
    """

    def __init__(self, seed: int = 0, depth: int = 1, samples: int = 8) -> None:
        self._rng = random.Random(seed)
        self.depth = max(1, depth)
        self.samples = max(1, samples)

    def choose(self, state: State) -> Action:
        legal = state.legal_actions()
        if len(legal) == 1:
            return legal[0]
        me = state.current_player()
        worlds = [state]
        if not sees_all(state, me):
            worlds = [determinize(state, me, self._rng) for _ in range(self.samples)]
        best: list[Action] = []
        best_value: tuple[Fraction, Fraction] | None = None
        for action in legal:
            value = self._mean(worlds, action, me)
            if value is None:
                continue
            if best_value is None or value > best_value:
                best, best_value = [action], value
            elif value == best_value:
                best.append(action)
        return weighted_choice(state, best or legal, self._rng)

    def _mean(self, worlds: Sequence[State], action: Action, me: int) -> tuple[Fraction, Fraction] | None:
        """The mean rating of ``action`` over the worlds where a rule allows it (None: nowhere);
        a won end beats any game in progress in more of them."""
        values = []
        for world in worlds:
            child = after(world, action)
            if child is not None:
                values.append(self._value(child, me, self.depth - 1))
        if not values:
            return None
        return (
            Fraction(sum(rank for rank, _ in values), len(values)),
            Fraction(sum(score for _, score in values), len(values)),
        )

    def _value(self, state: State, me: int, depth: int) -> tuple[int, int]:
        value = outcome_value(state, me)
        if depth <= 0 or state.is_terminal() or state.current_player() != me:
            return value
        for action in state.legal_actions():
            child = after(state, action)
            if child is not None:
                value = max(value, self._value(child, me, depth - 1))
        return value


# ------------------------------------------------------------------ specifications


@frozen
class BotSpec:
    """One seat's bot: a kind and its options (``mcts:iterations=400`` → mcts, {iterations: 400})."""

    kind: str
    options: tuple[tuple[str, str], ...] = ()

    def __str__(self) -> str:
        return ":".join([self.kind, *(f"{k}={v}" for k, v in self.options)])


#: The bot kinds and the options each takes (name -> description).
BOT_KINDS: dict[str, dict[str, str]] = {
    "random": {},
    "uniform": {},
    "first": {},
    "heuristic": {
        "depth": "how many of its own consecutive actions it looks ahead (default 1)",
        "samples": "determinizations an action is rated over when something is hidden from it (default 8)",
    },
    "mcts": {
        "iterations": "search iterations per decision (default 200)",
        "ms": "milliseconds per decision instead of iterations (not reproducible: depends on speed)",
        "cutoff": "actions played out after the tree before evaluating with bots.evaluate "
        "(default 20 when the ruleset declares it; 0 = play to the end)",
        "c": "UCT exploration constant (default 0.7)",
    },
}


def parse_bots(text: str) -> list[BotSpec]:
    """Read a ``--bots`` value: comma-separated seats, each ``KIND[:OPT=VALUE]...``.

    Raises:
        UsageError: an unknown kind or option, or a malformed value.
    """
    specs: list[BotSpec] = []
    for raw in text.split(","):
        part = raw.strip()
        if not part:
            raise UsageError(Diagnostic(f"--bots {text!r}: an empty seat", hint=_bots_hint()))
        kind, *items = part.split(":")
        previous: tuple[tuple[str, str], ...] = ()
        if "=" in kind and specs:  # "mcts:iterations=400,cutoff=20": more options of the seat before
            last = specs.pop()
            kind, previous, items = last.kind, last.options, [part]
        kind = kind.strip()
        if kind not in BOT_KINDS:
            raise UsageError(Diagnostic(f"unknown bot kind {kind!r} in --bots {text!r}", hint=_bots_hint()))
        options = list(previous)
        for item in items:
            name, sep, value = item.partition("=")
            name, value = name.strip(), value.strip()
            if not sep or not value:
                raise UsageError(Diagnostic(f"bot option {item!r} needs NAME=VALUE", hint=_bots_hint()))
            if name not in BOT_KINDS[kind]:
                known = ", ".join(BOT_KINDS[kind]) or "none"
                raise UsageError(Diagnostic(f"bot {kind!r} has no option {name!r} (options: {known})"))
            _number(kind, name, value)
            options.append((name, value))
        specs.append(BotSpec(kind, tuple(options)))
    return specs


def _number(kind: str, name: str, value: str) -> float:
    try:
        number = float(value)
    except ValueError:
        raise UsageError(Diagnostic(f"bot option {kind}:{name} needs a number, not {value!r}")) from None
    if number < 0 or (name in ("iterations", "ms", "depth", "samples") and number <= 0):
        raise UsageError(Diagnostic(f"bot option {kind}:{name} must be positive, not {value!r}"))
    if name in _WHOLE and not number.is_integer():
        raise UsageError(Diagnostic(f"bot option {kind}:{name} needs a whole number, not {value!r}"))
    return number


#: The options that count something (iterations, actions, samples): whole numbers only.
_WHOLE = frozenset({"iterations", "depth", "samples", "cutoff"})


def _bots_hint() -> str:
    return "e.g. --bots mcts:iterations=400,heuristic,random,random (one bot per seat, or one for all)"


def seat_specs(specs: Sequence[BotSpec], players: int) -> list[BotSpec]:
    """One spec per seat: one spec fills every seat.

    Raises:
        UsageError: neither one spec nor one per seat.
    """
    if len(specs) == 1:
        return list(specs) * players
    if len(specs) != players:
        raise UsageError(
            Diagnostic(
                f"--bots names {len(specs)} bots for {players} players",
                hint="give one bot per seat, or one bot for every seat",
            )
        )
    return list(specs)


def describe_bots(text: str, players: int) -> str:
    """The seats of a ``--bots`` value in words: ``P1 mcts:iterations=400, P2-P4 random``."""
    seats = [str(s) for s in seat_specs(parse_bots(text), players)]
    if len(set(seats)) == 1:
        return f"{seats[0]} bots"
    return ", ".join(f"P{i + 1} {s}" for i, s in enumerate(seats))


def make_bot(spec: BotSpec | str, seed: int = 0, game: Game | None = None) -> Bot:
    """A bot from its specification (``random``, ``mcts:iterations=100``...), seeded.

    Raises:
        UsageError: a bad specification, or a bot that needs the ruleset's
            ``bots.evaluate`` for a ruleset without one.
    """
    if isinstance(spec, str):
        specs = parse_bots(spec)
        if len(specs) != 1:
            raise UsageError(Diagnostic(f"one bot expected, not {spec!r}"))
        spec = specs[0]
    options = {k: _number(spec.kind, k, v) for k, v in spec.options}
    if spec.kind == "random":
        return RandomBot(seed)
    if spec.kind == "uniform":
        return RandomBot(seed, weighted=False)
    if spec.kind == "first":
        return FirstLegalBot()
    evaluation = game is not None and has_evaluation(game)
    if spec.kind == "heuristic":
        if game is not None and not evaluation:
            raise UsageError(
                Diagnostic(
                    f"the heuristic bot needs the ruleset's bots.evaluate, and {game.name} has none",
                    hint="see docs/bots.md: declare bots: {evaluate: EXPR}",
                )
            )
        return HeuristicBot(seed, int(options.get("depth", 1)), int(options.get("samples", 8)))
    cutoff = int(options.get("cutoff", 20 if evaluation else 0))
    if cutoff and game is not None and not evaluation:
        raise UsageError(
            Diagnostic(
                f"mcts:cutoff needs the ruleset's bots.evaluate, and {game.name} has none",
                hint="drop cutoff (play every rollout to the end) or declare bots.evaluate",
            )
        )
    return MctsBot(
        seed,
        iterations=int(options.get("iterations", 200)),
        milliseconds=options.get("ms"),
        cutoff=cutoff,
        exploration=options.get("c", 0.7),
    )


def make_bots(game: Game, spec: str | Sequence[BotSpec], seed: int) -> list[Bot]:
    """One bot per seat from a ``--bots`` value; seat *s* of game seed *S* is seeded
    ``S * 1000 + s``, so a game's bots depend only on its seed.

    Raises:
        UsageError: a bad specification (see :func:`parse_bots`, :func:`seat_specs`).
    """
    specs = parse_bots(spec) if isinstance(spec, str) else list(spec)
    seats = seat_specs(specs, game.num_players)
    return [make_bot(s, seed * 1000 + seat, game) for seat, s in enumerate(seats)]


@frozen
class PlayedGame:
    """The result of :func:`play_game`: the final state, its log, and whether it ended."""

    state: State
    log: GameRecorder
    finished: bool


def play_game(
    game: Game,
    seed: int,
    bots: Sequence[Bot] | Mapping[int, Bot],
    max_actions: int = 10_000,
    *,
    source: str | None = None,
    fired: Callable[[str], None] | None = None,
    log: str | Path | None = None,
) -> PlayedGame:
    """Play from a fresh state until the game ends or ``max_actions`` were taken.

    ``bots`` gives a bot per seat (index 0 is P1).  ``fired`` (the runtime's hook) hears
    every action and trigger of the game itself, not those a bot tries while it searches.
    With ``log``, the log is streamed there action by action; the caller finishes it with
    ``played.log.close()``.
    """
    runtime = game.runtime
    previous = runtime.fired
    runtime.fired = fired
    try:
        recorder = GameRecorder(
            game.new_initial_state(seed), seed, source, log_path=log, digests=log is not None
        )
    finally:
        runtime.fired = previous
    state = recorder.state
    taken = 0
    try:
        while not state.is_terminal() and taken < max_actions:
            bot = bots[state.current_player()]
            action = bot.choose(state)
            runtime.fired = fired
            try:
                recorder.apply_action(action)
            finally:
                runtime.fired = previous
            taken += 1
    except BaseException:
        recorder.close()  # keep the actions played so far (the state is as after the last of them)
        raise
    return PlayedGame(state, recorder, state.is_terminal())
