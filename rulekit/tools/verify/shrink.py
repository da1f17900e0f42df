"""Shortening a counterexample within a budget of work.

The budget (``--shrink-seconds``) is counted in the rules' steps (the step budget's charges,
``Replayer.work``), ``STEPS_PER_SECOND`` to a second, not in wall or CPU time: on a machine
loaded by other processes shrinking does the same work as on an idle one, so it reports the
same counterexample (wall time would cut it short there, and even CPU time: a loaded machine's
caches make each step cost more of it). ``CPU_CAP`` times the budget of CPU time stops it too,
should the rules' steps be a poor measure of the work (engine properties checked in Python).

A candidate is an action sequence (with a player count and a chance seed); it
is kept when playing it fails the same way (the failure may come before its
end, which shortens it further). The passes, repeated until none shortens the
sequence (it is then 1-minimal) or the time is up:

1. drop whole rounds, then whole turns (a turn = the consecutive actions of one
   player), largest first;
2. drop runs of actions, halving their length down to one action;
3. for short sequences, drop two separate actions (buying a card and, later,
   playing it);
4. *replan a turn* (in sequences of up to ``MAX_REPLAN`` actions): replace one
   player's turn by a shorter one found breadth-first among the legal actions from
   where it starts (any way to hand the decision on in fewer actions: passing at
   once, or spending less on the way there), keeping the rest; dropping actions
   cannot do this when the turn's end needs other actions than the ones it has (a
   player who may pass only once she can do nothing else);
5. replay with fewer players and with other chance seeds: a failure that comes
   earlier there is shorter.

The game's *choices* are shrunk first (``_by_choices``). A counterexample still long
(more than ``MAX_PAIR_SEARCH`` actions) is then replaced by a *targeted search*
(``search.py``): new games that go for the actions writing what the failing check
reads; it is tried again whenever the passes leave the sequence 1-minimal but still
long. After a search, the choices again, then the passes above on the action texts.

Every improvement is reported at once (``on_better``), so a caller can rewrite
the counterexample's files: the user keeps the best one found even if the time
runs out.
"""

from __future__ import annotations

import time
from collections.abc import Callable, Sequence

from attrs import define, field

from rulekit.compiler.program import Program
from rulekit.engine.game import State
from rulekit.errors import RulekitError
from rulekit.tools.verify.failures import NotReplayable, PropertyFailure
from rulekit.tools.verify.options import CPU_CAP, MAX_PAIR_SEARCH, STEPS_PER_SECOND
from rulekit.tools.verify.relevance import flow_gates, names_read, progress
from rulekit.tools.verify.replayer import Replayer
from rulekit.tools.verify.search import TargetedSearch

#: Other chance seeds tried per pass.
RESEEDS = 8
#: Share of the time left that one shrinking by choices may take.
CHOICES_SHARE = 0.25
#: Share of the time left that the targeted search of a long counterexample may take.
SEARCH_SHARE = 0.4
#: The targeted search stops after this many games without a shorter failure.
SEARCH_PATIENCE = 4000
#: Searches in a row that may find nothing shorter before shrinking gives up (time allowing).
SEARCH_RETRIES = 3
#: Replanning a turn: the actions tried (breadth-first) and the shorter turns replayed, per turn,
#: in counterexamples of at most ``MAX_REPLAN`` actions (a longer one is searched for instead).
REPLAN_NODES = 4000
REPLAN_TURNS = 400
MAX_REPLAN = 2 * MAX_PAIR_SEARCH


@define
class Shrinker:
    """Shortens one failure; ``checker`` replays candidates (best focused on the failure)."""

    checker: Replayer
    #: The budget, in seconds of work (``clock``; see the module docstring).
    seconds: float
    min_players: int
    on_better: Callable[[PropertyFailure], None] = lambda failure: None
    #: What the budget is measured with (in seconds); by default the work done: the rules'
    #: steps charged in the checker's games (``Replayer.work``) over ``STEPS_PER_SECOND``,
    #: which does not depend on the machine or its load.
    clock: Callable[[], float] | None = None
    #: Shrinking also stops after ``CPU_CAP`` times ``seconds`` of the process's CPU time.
    cpu_deadline: float = 0.0
    deadline: float = 0.0
    candidates: int = 0
    improvements: int = 0
    minimal: bool = False
    timed_out: bool = False
    #: The action kinds the targeted search preferred (writing what the failing check reads).
    relevant: frozenset[str] = frozenset()
    #: Games the targeted search played.
    search_games: int = 0
    _seed_tries: int = field(default=0, init=False)
    #: Replays of turns replanned: not in the targeted search's seed, so that where replanning
    #: finds nothing the search plays the games it played without it.
    _replanned: int = field(default=0, init=False)
    #: When the current shrinking by choices must stop (``CHOICES_SHARE`` of the time left).
    _stop: float = field(default=0.0, init=False)

    def shrink(self, failure: PropertyFailure) -> PropertyFailure:
        """The shortest failure found within the time (``failure`` itself if none)."""
        if self.clock is None:
            checker = self.checker
            self.clock = lambda: checker.work() / STEPS_PER_SECOND
        self.deadline = self._now() + self.seconds
        self.cpu_deadline = time.process_time() + CPU_CAP * self.seconds
        best = self._try(failure.players, failure.seed, _texts(failure), failure.key) or failure
        best = self._by_choices(best)
        fruitless = 0
        while True:
            if len(best.history) > MAX_PAIR_SEARCH and not self._out_of_time():
                # still long: search new games; once 1-minimal, search again from it (other
                # games each time), until SEARCH_RETRIES searches in a row found nothing shorter
                length = len(best.history)
                best = self._search_shorter(best)
                if len(best.history) < length:
                    best = self._by_choices(best)
                    fruitless = 0
                    self.minimal = False
                elif self.minimal:
                    fruitless += 1
                    if fruitless > SEARCH_RETRIES:
                        break
                    continue  # the passes cannot shorten it: search again
            while not self._out_of_time():
                before = len(best.history)
                best = self._pass(best)
                if self.timed_out:
                    break
                if len(best.history) == before:
                    self.minimal = True
                    break
            if self.timed_out or len(best.history) <= MAX_PAIR_SEARCH:
                break
        return best

    def describe(self, original: int, final: int) -> str:
        """How far shrinking got, for the report."""
        if original == final and self.minimal:
            return "could not be shortened (1-minimal)"
        where = f"shrunk from {original} to {final} action(s) in {self.candidates} replays"
        if self.search_games:
            preferred = ", ".join(sorted(self.relevant)) or "no action kind"
            where += f" ({self.search_games} of them new games of a targeted search preferring {preferred})"
        if self.minimal:
            return where + " (1-minimal: no action can be dropped, no turn played shorter)"
        if self.timed_out:
            return (
                where
                + f"; stopped at the limit of {self.seconds:g}s of work (--shrink-seconds), maybe not minimal"
            )
        return where

    # ---------------------------------------------------------------- choices
    def _by_choices(self, best: PropertyFailure) -> PropertyFailure:
        """Coarse shrinking on the game's *choices* (which of the legal actions was taken
        whenever there were several): dropping choices keeps the game playable even where
        dropping action texts would not (a card no longer in the display, another player
        deciding), as the same index then picks whatever is legal there. Each candidate
        replays up to the best length, so on a long counterexample this is costly: it may
        take ``CHOICES_SHARE`` of the time left (a targeted search does better there)."""
        choices = self._choices_of(best)
        if choices is None:
            return best
        now = self._now()
        self._stop = min(self.deadline, now + (self.deadline - now) * CHOICES_SHARE)
        # fewer players, other chance: the same choices may fail sooner
        for players in range(self.min_players, best.players):
            found = self._try_choices(best, choices, players=players, limit=len(best.history) + 1)
            if found is not None:
                best, choices = found, self._choices_of(found) or choices
                break
        for seed in range(1, RESEEDS + 1):
            found = self._try_choices(best, choices, seed=seed)
            if found is not None and len(found.history) < len(best.history):
                best, choices = found, self._choices_of(found) or choices
        size = len(choices) // 2 or 1
        while size >= 1 and not self._choices_stop():
            i = len(choices) - size
            improved = False
            while i >= 0 and not self._choices_stop():
                candidate = choices[:i] + choices[i + size :]
                found = self._try_choices(best, candidate)
                if found is not None and len(found.history) < len(best.history):
                    best = found
                    choices = self._choices_of(best) or candidate
                    improved = True
                    i = min(i, len(choices) - size)
                else:
                    i -= 1
            if not improved:
                size //= 2
        return best

    def _search_shorter(self, best: PropertyFailure) -> PropertyFailure:
        """Still long: a *targeted search* (``search.py``) for up to ``SEARCH_SHARE`` of the
        time left: new games cut off before the best length that go for the action kinds
        writing what the failing check reads and for extreme values of those fields."""
        checker = self.checker
        reads = names_read(checker.program.rules, best.key)
        gains = progress(checker, best, reads)
        # the kind of the failing action always counts; the others by how far they led
        last = best.history[-1][1].partition("(")[0] if best.history else ""
        top = max([*gains.values(), 0.0])
        shares = {name: (gain / top if top > 0 else 1.0) for name, gain in gains.items() if gain >= 0}
        shares[last] = 1.0
        self.relevant = frozenset(shares)
        away = frozenset(name for name, gain in gains.items() if gain < 0 and name != last)
        search = TargetedSearch(
            checker,
            best.key,
            self.min_players,
            best.players,
            shares,
            reads | flow_gates(checker.program.rules),
            away,
            self._found,
            self.candidates - self._replanned,
        )
        until = self._now() + (self.deadline - self._now()) * SEARCH_SHARE
        best = search.run(best, min(until, self.deadline), SEARCH_PATIENCE, self._now, self.cpu_deadline)
        self.candidates += search.games
        self.search_games += search.games
        return best

    def _found(self, failure: PropertyFailure) -> None:
        self.improvements += 1
        self.on_better(failure)

    def _choices_of(self, failure: PropertyFailure) -> list[int] | None:
        """The choice indices that replay ``failure`` (``None`` if it does not replay)."""
        checker = self.checker
        choices = []
        try:
            state = checker.start(failure.players, failure.seed)
            game = state.game
            for _, text in failure.history:
                legal = state.legal_actions()
                action = game.parse_action(text)
                if len(legal) > 1:
                    choices.append(legal.index(action))
                checker.step(state, action)
        except PropertyFailure:
            return choices
        except (RulekitError, ValueError):
            return None
        return choices

    def _try_choices(
        self,
        best: PropertyFailure,
        choices: list[int],
        *,
        players: int | None = None,
        seed: int | None = None,
        limit: int | None = None,
    ) -> PropertyFailure | None:
        """Play ``choices`` (then the first legal action), failing before the best length so far."""
        if self._choices_stop():
            return None
        self.candidates += 1
        checker = self.checker
        limit = len(best.history) if limit is None else limit
        try:
            state = checker.start(
                best.players if players is None else players, best.seed if seed is None else seed
            )
            used = 0
            for _ in range(limit - 1):
                if state.is_terminal():
                    return None
                legal = state.legal_actions()
                index = 0
                if len(legal) > 1 and used < len(choices):
                    index = choices[used] % len(legal)
                    used += 1
                checker.step(state, legal[index])
        except PropertyFailure as failure:
            if failure.key != best.key:
                return None
            self.improvements += 1
            self.on_better(failure)
            return failure
        return None

    # ---------------------------------------------------------------- passes
    def _pass(self, best: PropertyFailure) -> PropertyFailure:
        steps = (
            self._drop_turns,
            self._drop_runs,
            self._drop_pairs,
            self._replan_turns,
            self._fewer_players,
            self._reseed,
        )
        for step in steps:
            found = step(best)
            if self.timed_out:
                return found or best
            if found is not None:
                return found
        return best

    def _drop_turns(self, best: PropertyFailure) -> PropertyFailure | None:
        turns = _turns(best.history)
        players = best.players
        rounds = [turns[i : i + players] for i in range(0, len(turns), players)]
        for groups in (rounds, [[t] for t in turns]):
            if len(groups) < 2:
                continue
            spans = [(g[0][0], g[-1][1]) for g in groups]
            size = len(spans) // 2 or 1
            while size >= 1:
                for i in reversed(range(len(spans) - size + 1)):
                    start, end = spans[i][0], spans[i + size - 1][1]
                    found = self._without(best, range(start, end))
                    if found is not None or self.timed_out:
                        return found
                size //= 2
        return None

    def _drop_runs(self, best: PropertyFailure) -> PropertyFailure | None:
        length = len(best.history)
        size = length // 2 or 1
        while size >= 1:
            for i in reversed(range(length - size + 1)):
                found = self._without(best, range(i, i + size))
                if found is not None or self.timed_out:
                    return found
            size = size // 2 if size > 4 else size - 1
        return None

    def _drop_pairs(self, best: PropertyFailure) -> PropertyFailure | None:
        length = len(best.history)
        if length > MAX_PAIR_SEARCH:
            return None
        for i in reversed(range(length)):
            for j in reversed(range(i + 2, length)):
                found = self._without(best, [i, j])
                if found is not None or self.timed_out:
                    return found
        return None

    def _replan_turns(self, best: PropertyFailure) -> PropertyFailure | None:
        """Each turn (the last first) replaced by a shorter one that also hands the decision
        on (:func:`shorter_turns`), the actions after it replayed as they were."""
        if len(best.history) > MAX_REPLAN:
            return None
        texts = _texts(best)
        ends = _ends_turn(self.checker.program)
        for start, end in reversed(_turns(best.history, ends)):
            if end - start < 2:
                continue
            try:  # where the turn starts (replayed unchecked: it was checked already)
                state = self.checker.start(best.players, best.seed)
                for text in texts[:start]:
                    state.apply_action(state.game.parse_action(text))
            except (PropertyFailure, RulekitError):
                return None
            for turn in shorter_turns(state, end - start - 1, ends):
                self._replanned += 1
                found = self._try(best.players, best.seed, [*texts[:start], *turn, *texts[end:]], best.key)
                if self.timed_out:
                    return None
                if found is not None and len(found.history) < len(best.history):
                    return found
        return None

    def _fewer_players(self, best: PropertyFailure) -> PropertyFailure | None:
        for players in range(self.min_players, best.players):
            found = self._try(players, best.seed, _texts(best), best.key)
            if found is not None or self.timed_out:
                return found
        return None

    def _reseed(self, best: PropertyFailure) -> PropertyFailure | None:
        texts = _texts(best)
        for _ in range(RESEEDS):
            self._seed_tries += 1
            found = self._try(best.players, self._seed_tries, texts, best.key)
            if self.timed_out:
                return None
            if found is not None and len(found.history) < len(best.history):
                return found
        return None

    # ---------------------------------------------------------------- helpers
    def _without(self, best: PropertyFailure, drop: Sequence[int] | range) -> PropertyFailure | None:
        dropped = set(drop)
        texts = [text for i, (_, text) in enumerate(best.history) if i not in dropped]
        return self._try(best.players, best.seed, texts, best.key)

    def _try(self, players: int, seed: int, texts: list[str], key: str) -> PropertyFailure | None:
        if self._out_of_time():
            return None
        self.candidates += 1
        found = find_failure(self.checker, players, seed, texts, key)
        if found is not None and self.candidates > 1:
            self.improvements += 1
            self.on_better(found)
        return found

    def _choices_stop(self) -> bool:
        return self._out_of_time() or self._now() >= self._stop

    def _now(self) -> float:
        assert self.clock is not None
        return self.clock()

    def _out_of_time(self) -> bool:
        if self._now() >= self.deadline or time.process_time() >= self.cpu_deadline:
            self.timed_out = True
        return self.timed_out


def _texts(failure: PropertyFailure) -> list[str]:
    return [text for _, text in failure.history]


def _turns(history: Sequence[tuple[int, str]], ends: frozenset[str] = frozenset()) -> list[tuple[int, int]]:
    """The turns of a history as (start, end) index ranges: runs of one player's actions
    (each also ended by an action of a kind in ``ends``)."""
    turns: list[tuple[int, int]] = []
    start = 0
    for i in range(1, len(history) + 1):
        if i == len(history) or history[i][0] != history[start][0] or _kind(history[i - 1][1]) in ends:
            turns.append((start, i))
            start = i
    return turns


def _kind(text: str) -> str:
    return text.partition("(")[0]


def shorter_turns(state: State, longest: int, ends: frozenset[str] = frozenset()) -> list[list[str]]:
    """The action texts of the turns the current player can take from ``state`` in at most
    ``longest`` actions, shortest first: sequences of her actions that end with an action of
    a kind in ``ends`` or after which another player decides (or the game is over); the
    ``longest``-th action, where most of the work would be, only of a kind in ``ends`` (if
    any). Breadth-first, at most ``REPLAN_NODES`` actions tried and ``REPLAN_TURNS`` turns
    returned; turns that reach the same state are one."""
    player = state.current_player()
    game = state.game
    frontier: list[tuple[State, list[str]]] = [(state, [])]
    turns: list[list[str]] = []
    seen: set[int] = set()
    tried = 0
    for depth in range(1, longest + 1):
        deeper: list[tuple[State, list[str]]] = []
        for before, done in frontier:
            try:
                legal = before.legal_actions()
            except Exception:  # a rule that fails here: no turn from this state (checks say why)
                continue
            if depth == longest and ends:  # the last action: only those declared to end the turn
                legal = [action for action in legal if action.name in ends]
            for action in legal:
                tried += 1
                if tried > REPLAN_NODES or len(turns) >= REPLAN_TURNS:
                    return turns
                after = before.clone()
                try:
                    after.apply_action(action)
                except Exception:  # offered but failing: verify's own finding, not a turn
                    continue
                fingerprint = _fingerprint(after)
                if fingerprint is not None:
                    if fingerprint in seen:
                        continue
                    seen.add(fingerprint)
                texts = [*done, str(game.action_to_string(action))]
                if action.name in ends or after.is_terminal() or after.current_player() != player:
                    turns.append(texts)
                else:
                    deeper.append((after, texts))
        frontier = deeper
    return turns


def _ends_turn(program: Program) -> frozenset[str]:
    """The action kinds declared to end the turn."""
    return frozenset(name for name, action in program.actions.items() if action.decl.ends_turn)


def _fingerprint(state: State) -> int | None:
    """A hash of the whole state (``None`` if a value is not hashable)."""
    try:
        return hash(frozenset(state.fields.items()))
    except TypeError:
        return None


def minimize(checker: Replayer, failure: PropertyFailure, seconds: float = float("inf")) -> PropertyFailure:
    """Shorten ``failure`` (see the module's docstring) for at most ``seconds``."""
    return Shrinker(checker, seconds, failure.players).shrink(failure)


def find_failure(
    checker: Replayer, players: int, seed: int, texts: Sequence[str], key: str
) -> PropertyFailure | None:
    """Play ``texts``, checking everything; the failure ``key`` if it occurs (maybe before
    the end), else ``None`` (also when an action is not legal where it comes)."""
    try:
        play_sequence(checker, players, seed, texts)
    except PropertyFailure as failure:
        return failure if failure.key == key else None
    except NotReplayable:
        return None
    return None


def play_sequence(checker: Replayer, players: int, seed: int, texts: Sequence[str]) -> State:
    """Play the action texts from the start, checking everything after every action.

    Raises:
        PropertyFailure: something failed (possibly before the last action).
        NotReplayable: an action is not legal where it comes.
    """
    state = checker.start(players, seed)
    game = state.game
    for text in texts:
        if state.is_terminal():
            raise NotReplayable("the game is over")
        try:
            action = game.parse_action(text)
        except RulekitError:  # e.g. a player or value this game does not have
            raise NotReplayable(text) from None
        if action not in state.legal_actions():
            raise NotReplayable(text)
        checker.step(state, action)
    return state
