"""``engine:scenarios-generalised``: the ruleset's rulebook examples (scenarios), run from the
states verify's games reach, not only from their own set-up -- a metamorphic check that needs
no oracle beyond the examples themselves.

After every action of every explored game (and at its start), each example
(:mod:`rulekit.tools.verify.examples`) whose player count is the game's is tried: where the
state holds the example's given, its steps are played from there, and where they take the
same path (each action applied or refused as from the set-up, the same seat deciding after
each step, the game over at the same point) its expectations are checked -- relative ones as
changes (*the hold adds 10*), absolute ones where every field they read has its value from the
set-up. In rules that single out no seat (:func:`rulekit.tools.verify.seats.asymmetry`), a
state where another seat decides is first rotated so that the example's seat decides (P2 as
P1): the same example is run from it with the seats relabelled.

A failure's counterexample is the explored game's actions; its message names the scenario, the
rotation and the expectation, its details the steps played. :func:`summary` is the verdict's
line: how many scenarios were generalised (and why the others were not), how many states were
tried and where a given held.
"""

from __future__ import annotations

from typing import Any

from rulekit.compiler.program import Program
from rulekit.engine.game import State
from rulekit.tools.verify.examples import (
    ABSENT,
    Book,
    Example,
    Expectation,
    Point,
    agrees,
    example_value,
    load_examples,
    reads_of,
    same_path,
)
from rulekit.tools.verify.options import Stats

KEY = "engine:scenarios-generalised"
#: Runs of one example in one game at most (a given that holds in most states).
MAX_RUNS = 200
#: The books of the programs loaded in this process, by the rules' fingerprints.
_BOOKS: dict[Any, Book] = {}


def book_of(program: Program) -> Book:
    rules = program.rules
    key = (rules.name, rules.fingerprint, rules.semantic_fingerprint, rules.modules, rules.variants)
    book = _BOOKS.get(key)
    if book is None:
        book = _BOOKS[key] = load_examples(program)
    return book


def check_scenarios(
    program: Program, stats: Stats, runs: dict[str, int], state: State
) -> tuple[str, list[str]] | None:
    """Try every example of the game's player count from ``state``: the message and details of
    the first that fails (``runs`` counts each example's runs in this game)."""
    book = book_of(program)
    if not book.examples:
        return None
    counts = stats.counts
    counts["scenario_states"] = counts.get("scenario_states", 0) + 1
    rotated: dict[int, dict[Any, Any] | None] = {}
    players = state.game.num_players
    fields = state.fields
    for example in book.examples:
        name = str(example.path)
        if example.players != players or runs.get(name, 0) >= MAX_RUNS:
            continue
        given = example.given
        if not all(agrees(fields.get(k, ABSENT), v) for k, v in given[: example.fixed]):
            continue
        shift = _shift(example, state)
        if shift is None:
            continue
        start = fields if shift == 0 else _rotate(program, state, shift, rotated)
        if start is None or not all(agrees(start.get(k, ABSENT), v) for k, v in given[example.fixed :]):
            continue
        counts["scenario_given"] = counts.get("scenario_given", 0) + 1
        runs[name] = runs.get(name, 0) + 1
        stats.property_checks += 1
        problem = _run(example, dict(start))
        if problem is None:
            continue
        if problem == "":
            counts["scenario_elsewhere"] = counts.get("scenario_elsewhere", 0) + 1
            continue
        return _message(example, shift, players, problem), _steps(example)
    return None


def _shift(example: Example, state: State) -> int | None:
    """The rotation (0: none) that makes the example's seat the one deciding in ``state``;
    ``None``: another seat decides and the rules are not seat-symmetric."""
    if state.is_terminal():
        return 0
    wanted = example.decider
    if wanted < 0 or wanted == state.current_player():
        return 0
    from rulekit.tools.verify.seats import asymmetry

    if _asymmetry(state.game.program, asymmetry) is not None:
        return None
    return (wanted - state.current_player()) % state.game.num_players


_ASYMMETRY: dict[int, tuple[Program, str | None]] = {}


def _asymmetry(program: Program, asymmetry: Any) -> str | None:
    known = _ASYMMETRY.get(id(program))
    if known is None or known[0] is not program:
        known = _ASYMMETRY[id(program)] = (program, asymmetry(program))
    return known[1]


def _rotate(
    program: Program, state: State, shift: int, cache: dict[int, dict[Any, Any] | None]
) -> dict[Any, Any] | None:
    if shift not in cache:
        from rulekit.tools.verify.seats import Relabeller

        key = (id(program), state.game.num_players, shift)
        relabeller = _RELABELLERS.get(key)
        if relabeller is None or relabeller.program is not program:
            relabeller = _RELABELLERS[key] = Relabeller(program, state.game.num_players, shift)
        cache[shift] = relabeller.state(state.fields)
    return cache[shift]


_RELABELLERS: dict[tuple[int, int, int], Any] = {}


def _run(example: Example, fields: dict[Any, Any]) -> str | None:
    """Play the example from ``fields``: ``None`` if its checks hold, ``""`` if its steps took
    another path than from its set-up, else what failed."""
    game = example.game
    start = State(game, fields)
    bases: dict[int, Any] = {}
    for step in example.steps:
        for expectation in step.checks.expectations if step.checks else ():
            if expectation.relative:
                try:
                    bases[id(expectation)] = expectation.measure(start)
                except Exception:
                    return ""
    state = State(game, dict(fields))
    reference = example.reference
    points: list[Point] = []
    try:
        for index, point in example.play(state):
            points.append(point)
            if not same_path(points, reference[: len(points)]):
                return ""
            problem = _check(example, index, point, bases)
            if problem:
                return problem
    except Exception:  # a rule failing where the set-up did not: another path
        return ""
    return None if len(points) == len(reference) else ""


def _check(example: Example, index: int, point: Point, bases: dict[int, Any]) -> str | None:
    checks = example.steps[index].checks
    if checks is None:
        return None
    reference = example.reference[index]
    state = State(example.game, point.fields)
    for expectation in checks.expectations:
        problem = _expectation(example, index, expectation, state, reference, bases)
        if problem:
            return problem
    if point.legal is not None and point.legal == reference.legal:
        for text in checks.legal:
            if text not in point.legal:
                return f"{text} is not legal (expected legal)"
        for text in checks.not_legal:
            if text in point.legal:
                return f"{text} is legal (expected not legal)"
    if checks.terminal is not None and state.is_terminal() != checks.terminal:
        return "the game is over" if state.is_terminal() else "the game goes on (expected over)"
    if (checks.winners is not None or checks.standings is not None) and state.is_terminal():
        ours = state.standings()
        if ours == State(example.game, reference.fields).standings():
            if checks.winners is not None and list(state.winners()) != checks.winners:
                return f"the winners are {_seats(state.winners())}, not {_seats(checks.winners)}"
            if checks.standings is not None and [p for p, _ in ours] != checks.standings:
                return f"the standings are {_seats([p for p, _ in ours])}, not {_seats(checks.standings)}"
    return None


def _expectation(
    example: Example,
    index: int,
    expectation: Expectation,
    state: State,
    reference: Point,
    bases: dict[int, Any],
) -> str | None:
    try:
        if expectation.relative:
            value = expectation.measure(state)
            change = value - bases[id(expectation)]
            wanted = expectation.expected - expectation.base
            if change != wanted:
                own = example_value(example, index, expectation)
                return (
                    f"{expectation.text}: it changes by {change:+} ({bases[id(expectation)]} to {value}); "
                    f"the example says {wanted:+} ({expectation.base} to {expectation.expected}"
                    f"{'' if own == expectation.expected else f'; {own} from its own set-up'})"
                )
            return None
        value, read = reads_of(expectation.measure, state)
    except Exception:
        return None
    if any(reference.fields.get(k) != state.fields.get(k) for k in read):
        return None  # read elsewhere: an absolute value does not carry over
    if value != expectation.expected:
        return f"{expectation.text}: {value!r:.60}, expected {expectation.expected!r:.60}"
    return None


def _seats(players: Any) -> str:
    return ", ".join(f"P{p + 1}" for p in players) or "none"


def _message(example: Example, shift: int, players: int, problem: str) -> str:
    rotation = ""
    if shift:
        pairs = ", ".join(f"P{p + 1} as P{(p + shift) % players + 1}" for p in range(players))
        rotation = f", with the seats rotated ({pairs})"
    return (
        f"scenario '{example.name}' ({example.path.name}) run from the state after these actions"
        f"{rotation}: {problem}"
    )


def _steps(example: Example) -> list[str]:
    lines = [f"scenario: {example.path}"]
    for step in example.steps:
        if step.kind == "check":
            continue
        extra = " (refused)" if step.reject else " (if legal)" if step.may_reject else ""
        lines.append(f"then {step.kind} {step.text}{extra}")
    return lines


def summary(program: Program, stats: Stats) -> str:
    """The verdict's line: scenarios generalised, states tried, states where a given held."""
    book = book_of(program)
    used, skipped = len(book.examples), len(book.skipped)
    if not used and not skipped:
        return "scenarios from explored states: no scenario"
    counts = stats.counts
    text = (
        f"scenarios from explored states: {used} of {used + skipped} generalised; "
        f"{counts.get('scenario_states', 0)} states tried, a given held {counts.get('scenario_given', 0)} "
        f"time(s) ({counts.get('scenario_elsewhere', 0)} took another path)"
    )
    if skipped:
        reasons: dict[str, int] = {}
        for _, why in book.skipped:
            reasons[why] = reasons.get(why, 0) + 1
        shown = "; ".join(f"{n} {why}" for why, n in sorted(reasons.items(), key=lambda item: -item[1])[:3])
        text += f"; not generalised: {shown}"
    return text
