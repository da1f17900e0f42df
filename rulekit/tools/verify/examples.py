"""Rulebook examples (scenarios) made into checks that transfer to other states.

A scenario is written for its own set-up (``P1.banked: 30``, then ``hold``, then
``player_at(1).banked == 40``). :func:`load_examples` turns each shipped scenario of a ruleset
into an :class:`Example` that ``engine:scenarios-generalised``
(:mod:`rulekit.tools.verify.generalise`) can run from a state reached in play:

* its **given**: the fields of the set-up state that playing its steps reads (recorded while
  the steps are played from the set-up: the rules' legal actions, effects, triggers and flow,
  and its events and effects), but the *measured* ones below. A reached state where the given
  holds (equal values) plays the steps the same way, up to the measured values;
* its **expectations**, sorted into **relative** ones -- a whole number whose change carries
  over: raising the fields it reads at the set-up by one raises it by one where it is checked
  (``player_at(1).banked == 40`` after a hold: *the hold adds 10*), tried with every relative
  expectation's fields raised together and dropped until they agree -- which are checked as
  changes, and **absolute** ones (everything else: a reset total, who decides, a legal
  action, the winners), checked only where every field they read has the value it has when
  the scenario runs from its own set-up. The measured fields are those the relative
  expectations read at the set-up: a reached state may differ there.

A scenario is not made into an example (and :func:`load_examples` says why) when it is
written for other modules or variants, cannot be set up or played
as written with these rules (``rulekit test`` reports that), or has nothing to check.
"""

from __future__ import annotations

from collections.abc import Callable, Iterator
from pathlib import Path
from typing import Any

from attrs import define, field

from rulekit.compiler.program import Program
from rulekit.dsl import ast, parse_expression
from rulekit.dsl import types as t
from rulekit.engine.game import Action, Game, State
from rulekit.errors import IllegalActionError, RuleEvaluationError, RulekitError, Span
from rulekit.rules.compose import find_ruleset
from rulekit.rules.schema_scenario import SCENARIO
from rulekit.rules.structure import Structurer
from rulekit.rules.yaml_source import LocDict, LocStr, load_file, span_of
from rulekit.tools.scenario import rewrite, start, steps, values
from rulekit.tools.scenario import run as scenario_run
from rulekit.tools.scenario.context import (
    ScenarioFailure,
    ScenarioFile,
    ScenarioResult,
    ScenarioRun,
    as_list,
)
from rulekit.tools.scenario.files import find_scenarios, ruleset_for
from rulekit.tools.verify.values import ENGINE_OWNER

#: Engine fields that only count or note (moves, notes, the bank's ledger): not part of a given.
IGNORED = frozenset(
    (ENGINE_OWNER, name) for name in ("moves", "notes", "told", "paid_out", "taken_in", "chosen_log")
)
#: Engine fields that name the seat deciding (rotated with the seats).
SEAT_FIELDS = frozenset((ENGINE_OWNER, name) for name in ("decision", "turn", "flow", "asks"))


#: The value in a given of a field the steps looked for and did not find.
ABSENT: Any = type("Absent", (), {"__repr__": lambda self: "ABSENT"})()


class Reads(dict[Any, Any]):
    """A field dict that records the fields read before they were written."""

    __slots__ = ("read", "written")

    def __init__(self, fields: dict[Any, Any], read: set[Any], written: set[Any]) -> None:
        super().__init__(fields)
        self.read, self.written = read, written

    def _note(self, key: Any) -> None:
        if key not in self.written:
            self.read.add(key)

    def __getitem__(self, key: Any) -> Any:
        self._note(key)
        return dict.__getitem__(self, key)

    def get(self, key: Any, default: Any = None) -> Any:
        self._note(key)
        return dict.get(self, key, default)

    def __contains__(self, key: Any) -> bool:
        self._note(key)
        return dict.__contains__(self, key)

    def __setitem__(self, key: Any, value: Any) -> None:
        self.written.add(key)
        dict.__setitem__(self, key, value)

    def __delitem__(self, key: Any) -> None:
        self.written.add(key)
        dict.__delitem__(self, key)

    def pop(self, key: Any, *default: Any) -> Any:
        self.written.add(key)
        return dict.pop(self, key, *default)


class Traced(State):
    """A state whose actions, flow and legal actions record the fields they read (in ``log``)."""

    __slots__ = ("log",)

    def __init__(self, game: Game, fields: dict[Any, Any]) -> None:
        self.log: tuple[set[Any], set[Any]] = (set(), set())
        super().__init__(game, Reads(fields, *self.log))

    def _apply(self, action: Action) -> None:
        self.fields = Reads(self.fields, *self.log)  # apply_action copied them into a plain dict
        super()._apply(action)


def reads_of(measure: Callable[[State], Any], state: State) -> tuple[Any, set[Any]]:
    """The value of ``measure`` in ``state`` and the fields it read."""
    read: set[Any] = set()
    probe = State(state.game, Reads(state.fields, read, set()))
    return measure(probe), read


def me_of(state: State) -> int | None:
    """Who ``me`` is in an expectation (none once the game is over); not a read of the state."""
    decision = dict.__getitem__(state.fields, (ENGINE_OWNER, "decision"))
    return None if decision is None else int(decision[0])


@define
class Expectation:
    """One expected value: ``measure(state) == expected`` where it is checked."""

    text: str
    measure: Callable[[State], Any]
    expected: Any
    #: Relative: checked as the change from the start (``expected - base``).
    relative: bool = False
    #: Its value in the set-up state (relative candidates).
    base: Any = None
    #: The fields it reads in the set-up state.
    reads: frozenset[Any] = frozenset()


@define
class Checks:
    """What is checked at one point: expectations and (il)legal actions."""

    expectations: list[Expectation] = field(factory=list)
    legal: list[str] = field(factory=list)
    not_legal: list[str] = field(factory=list)
    terminal: bool | None = None
    winners: list[int] | None = None
    standings: list[int] | None = None


@define
class Step:
    """One step of ``actions:``: its kind (action, event, effect or check), text and checks."""

    kind: str
    text: str
    where: Span
    reject: bool = False
    may_reject: bool = False
    checks: Checks | None = None


@define
class Point:
    """Where a played step left the game: its outcome and who decides (the path's shape)."""

    outcome: str
    decider: int
    fields: dict[Any, Any]
    legal: list[str] | None


@define
class Example:
    """A scenario ready to run from other states (see the module docstring)."""

    path: Path
    name: str
    run: ScenarioRun
    players: int
    steps: list[Step]
    start: dict[Any, Any]
    #: The path from the set-up: one point per step (the end is the last).
    reference: list[Point] = field(factory=list)
    #: (key, value) pairs a state must hold, rotation-invariant ones first.
    given: list[tuple[Any, Any]] = field(factory=list)
    #: How many of ``given`` are unchanged by rotating the seats (checked first, unrotated).
    fixed: int = 0
    relative: int = 0
    absolute: int = 0
    #: The seat deciding at the set-up (-1: the game is over).
    decider: int = -1

    @property
    def game(self) -> Game:
        return self.run.game

    def play(self, state: State) -> Iterator[tuple[int, Point]]:
        """Play the steps from ``state`` (changed in place), yielding each one's point."""
        for index, step in enumerate(self.steps):
            outcome = self._do(state, step)
            decider = -1 if state.is_terminal() else state.current_player()
            checks = step.checks
            legal = state.legal_action_strings() if checks and (checks.legal or checks.not_legal) else None
            yield index, Point(outcome, decider, dict(state.fields), legal)
            if outcome == "failed":
                return

    def _do(self, state: State, step: Step) -> str:
        if step.kind == "check":
            return "checked"
        if step.kind in ("event", "effect"):
            try:
                steps.run_effect(self.run, state, step.text, step.kind, step.where)
            except ScenarioFailure:
                return "failed"
            return "done"
        if step.may_reject and (state.is_terminal() or step.text not in state.legal_action_strings()):
            return "skipped"
        try:
            state.apply_action(step.text)
        except IllegalActionError:
            return "rejected"
        except RuleEvaluationError:
            return "failed"
        return "applied"


@define
class Book:
    """The examples of a ruleset, and why the other scenarios are not examples."""

    examples: list[Example] = field(factory=list)
    skipped: list[tuple[Path, str]] = field(factory=list)


def ruleset_directory(program: Program) -> Path | None:
    """The directory of the ruleset ``program`` was loaded from (where its actions are written)."""
    counts: dict[Path, int] = {}
    for compiled in program.actions.values():
        span = compiled.decl.span
        if span is None:
            continue
        for parent in Path(span.file).resolve().parents:
            if (parent / "ruleset.yaml").is_file():
                counts[parent] = counts.get(parent, 0) + 1
                break
    return max(counts, key=lambda p: counts[p]) if counts else None


def load_examples(program: Program, directory: Path | None = None) -> Book:
    """The scenarios under the ruleset's directory as examples for ``program``."""
    book = Book()
    directory = directory or ruleset_directory(program)
    if directory is None:
        return book
    for path in find_scenarios([directory]):
        try:
            found = load_example(program, directory, path)
        except (RulekitError, ScenarioFailure, RecursionError) as error:
            found = f"cannot be set up with these rules ({(str(error).splitlines() or [''])[0][:100]})"
        except Exception as error:  # a file rulekit test would report: not an example
            found = f"cannot be read ({type(error).__name__})"
        if isinstance(found, str):
            book.skipped.append((path, found))
        else:
            book.examples.append(found)
    return book


def load_example(program: Program, directory: Path, path: Path) -> Example | str:
    """``path`` as an example, or why it cannot be one."""
    parsed = load_file(path)
    text = path.read_text(encoding="utf-8")
    rewritten = rewrite.rewrite(text, path, data=parsed if isinstance(parsed, LocDict) else None)
    data = rewrite.read(rewritten.text, str(path)) if rewritten.old else rewritten.data
    scenario = ScenarioFile(path, data, ScenarioResult(str(path), path.stem), format=rewritten.format)
    Structurer(scenario.bag).value(SCENARIO, data, span_of(data), "")
    scenario.bag.raise_if_any()
    named = data.get("ruleset")
    if named and find_ruleset(ruleset_for(path, named)).resolve() != directory.resolve():
        return f"written for the ruleset {named}"
    why = _other_rules(scenario, program, directory)
    if why is not None:
        return why
    players = data.get("players") or program.rules.min_players
    game = Game(program, players)
    run = ScenarioRun(
        path, data, scenario.result, scenario.bag, format=scenario.format, program=program, game=game
    )
    game.runtime.keep_order = scenario.flag("keep_order")  # its steps shuffle as written
    seed = data.get("seed", 0)
    state = game.new_initial_state(seed, before_setup=scenario_run.before_setup_hook(run))
    start.start(run, state)
    scenario_run.setup(run, state)
    example = Example(path, str(data.get("scenario") or path.stem), run, players, [], dict(state.fields))
    example.steps = _steps(run)
    example.decider = -1 if state.is_terminal() else state.current_player()
    ends = _checks(run, data, end=True)
    if ends is not None:
        example.steps.append(Step("check", "the end", run.span(None, "expect"), checks=ends))
    if not any(s.checks for s in example.steps):
        return "has no expectation"
    if all(s.kind == "check" for s in example.steps):
        return "checks its set-up only (no step to play)"
    traced = Traced(game, dict(example.start))
    example.reference = [point for _, point in example.play(traced)]
    if len(example.reference) < len(example.steps):
        return "its steps cannot be played as written with these rules (rulekit test)"
    for step, point in zip(example.steps, example.reference, strict=False):
        expected = "rejected" if step.reject else "applied"
        if point.outcome == "failed" or (
            step.kind == "action" and point.outcome != expected and not step.may_reject
        ):
            return f"its step {step.text} cannot be played as written with these rules (rulekit test)"
    measured = _classify(example)
    read = traced.log[0] - IGNORED
    given = {k: example.start.get(k, ABSENT) for k in read}  # a field read as absent stays so
    for key in measured:
        given.pop(key, None)
    relative = [
        (i, e) for i, s in enumerate(example.steps) if s.checks for e in s.checks.expectations if e.relative
    ]
    for key in [k for k in given if k in example.start]:
        given[key] = _pattern(example, relative, key)
        if given[key] is ANY:
            del given[key]
    fixed = [(k, v) for k, v in given.items() if _fixed(program, k)]
    seated = [(k, v) for k, v in given.items() if not _fixed(program, k)]
    example.given = sorted(fixed, key=_order) + sorted(seated, key=_order)
    example.fixed = len(fixed)
    return example


def _order(item: tuple[Any, Any]) -> tuple[int, str]:
    key = item[0]
    return (0 if key[0] == ENGINE_OWNER else 1, repr(key))


def _fixed(program: Program, key: tuple[Any, str]) -> bool:
    """Whether rotating the seats leaves the field (its key and its value) as it is."""
    from rulekit.tools.verify.seats import names_players

    owner, name = key
    if key in SEAT_FIELDS or (isinstance(owner, int) and not isinstance(owner, bool)):
        return False
    if owner == ENGINE_OWNER:
        return True
    scope = owner if owner in ("game", "turn") else _kind(program, owner)
    type_ = program.field_types.get(scope or "", {}).get(name)
    return type_ is not None and not names_players(type_)


def _kind(program: Program, item: Any) -> str | None:
    for kind, ids in program.collections.items():
        if item in ids:
            return kind
    return None


def _other_rules(scenario: ScenarioFile, program: Program, directory: Path) -> str | None:
    """Why the scenario is written for other rules than ``program`` (``None``: it is not).

    Its modules must be the program's, and its variants the program's first ones; a further
    variant from outside the ruleset's directory (a rules edit, a planted bug) is checked
    against the scenario, as ``rulekit test --variant FILE`` does; a further shipped one is not.
    """
    data = scenario.data
    modules = sorted(str(m) for m in as_list(data.get("modules")))
    if modules != sorted(program.rules.modules):
        return f"written for modules {', '.join(modules) or 'none'}"
    own = [_variant(directory, scenario_run.variant_path(scenario, v)) for v in as_list(data.get("variants"))]
    have = [_variant(directory, name) for name, _ in program.rules.variants]
    if have[: len(own)] != own:
        return "written for other variants"
    for extra in have[len(own) :]:
        if extra.is_relative_to(directory):
            return f"written without the shipped variant {extra.stem}"
    return None


def _variant(directory: Path, name: str) -> Path:
    path = Path(name)
    if path.is_file():
        return path.resolve()
    return (directory / "variants" / f"{name}.yaml").resolve()


def _steps(run: ScenarioRun) -> list[Step]:
    found = []
    for entry in as_list(run.data.get("actions")):
        if isinstance(entry, str):
            found.append(Step("action", str(entry), run.span(entry)))
            continue
        kind = next((k for k in ("action", "event", "effect") if k in entry), "check")
        text = entry.get(kind, "")
        found.append(
            Step(
                kind,
                str(text),
                run.span(text) if kind != "check" else run.span(entry),
                reject="reject" in entry,
                may_reject=entry.get("may_reject") is True and "reject" not in entry,
                checks=_checks(run, entry, end=False),
            )
        )
    return found


def _checks(run: ScenarioRun, source: Any, *, end: bool) -> Checks | None:
    checks = Checks(
        [e for entry in as_list(source.get("expect")) if (e := _expectation(run, entry)) is not None],
        [str(a) for a in as_list(source.get("expect_legal"))],
        [str(a) for a in as_list(source.get("expect_not_legal"))],
    )
    if end:
        if "expect_terminal" in source:
            checks.terminal = bool(source.get("expect_terminal"))
        for key in ("expect_winners", "expect_standings"):
            if key in source:
                players = [
                    values.convert(run, v, t.PLAYER, run.span(v, key)) for v in as_list(source.get(key))
                ]
                setattr(checks, key.removeprefix("expect_"), players)
        scores = source.get("expect_scores")
        if isinstance(scores, dict):
            for key, value in scores.items():
                player = values.convert(run, key, t.PLAYER, run.span(scores, "expect_scores"))
                if isinstance(player, int) and isinstance(value, int):
                    checks.expectations.append(Expectation(f"{key}'s score", _score(player), value))
    run.bag.raise_if_any()
    empty = not (checks.expectations or checks.legal or checks.not_legal)
    if empty and checks.terminal is None and checks.winners is None and checks.standings is None:
        return None
    return checks


def _score(player: int) -> Callable[[State], Any]:
    return lambda state: state.scores()[player]


def _expectation(run: ScenarioRun, entry: Any) -> Expectation | None:
    """A DSL condition (``X == 3`` becomes X expected to be 3) or ``{expr, equals}``."""
    text = entry.get("expr") if isinstance(entry, dict) else entry
    if not isinstance(text, str):
        return None
    origin = text.origin if isinstance(text, LocStr) else None
    node = parse_expression(str(text), origin)
    expected: Any = True
    if isinstance(entry, dict) and "equals" in entry:
        fn, type_ = run.program.compile_function(node)
        expected = values.convert(run, entry.get("equals"), type_, run.span(entry.get("equals")))
    else:
        number = _compared_number(node)
        if number is not None:
            node, expected = number
        fn, _ = run.program.compile_function(node)
    runtime = run.game.runtime

    def measure(state: State) -> Any:
        runtime.reset_steps()
        return fn(state.fields, runtime, me_of(state))

    return Expectation(str(text), measure, expected)


def _compared_number(node: Any) -> tuple[Any, int] | None:
    """``X == 3`` (or ``3 == X``): X and 3."""
    if not isinstance(node, ast.Binary) or node.op != "==":
        return None
    for side, other in ((node.left, node.right), (node.right, node.left)):
        value = _number(other)
        if value is not None:
            return side, value
    return None


def _number(node: Any) -> int | None:
    if isinstance(node, ast.Literal) and isinstance(node.value, int) and not isinstance(node.value, bool):
        return node.value
    if isinstance(node, ast.Unary) and node.op == "-":
        inner = _number(node.operand)
        return None if inner is None else -inner
    return None


def _whole(value: Any) -> bool:
    return isinstance(value, int) and not isinstance(value, bool)


def _classify(example: Example) -> set[Any]:
    """Mark the relative expectations; the fields they measure (not part of the given)."""
    start = State(example.game, dict(example.start))
    candidates: list[tuple[int, Expectation]] = []
    for index, step in enumerate(example.steps):
        for expectation in step.checks.expectations if step.checks else ():
            try:
                base, read = reads_of(expectation.measure, start)
            except Exception:  # not defined at the set-up: absolute
                continue
            expectation.base, expectation.reads = base, frozenset(read)
            fields = [example.start.get(k) for k in read]
            if _whole(base) and _whole(expectation.expected) and read and all(map(_whole, fields)):
                candidates.append((index, expectation))
    # each alone, then together until every one kept carries over with all the others raised
    candidates = [c for c in candidates if _carried_over(example, [c], set(c[1].reads))]
    while candidates:
        measured = set().union(*(e.reads for _, e in candidates))
        kept = _carried_over(example, candidates, measured)
        if len(kept) == len(candidates):
            break
        candidates = kept
    for _, expectation in candidates:
        expectation.relative = True
    example.relative = len(candidates)
    example.absolute = sum(len(s.checks.expectations) for s in example.steps if s.checks) - len(candidates)
    return set().union(*(e.reads for _, e in candidates)) if candidates else set()


def _carried_over(
    example: Example, candidates: list[tuple[int, Expectation]], measured: set[Any]
) -> list[tuple[int, Expectation]]:
    """The candidates that move by as much at their check as at the start when every measured
    field is raised by one (or, where that takes the game elsewhere, lowered by one)."""
    for shift in (1, -1):
        fields = dict(example.start)
        for key in measured:
            fields[key] += shift
        state = State(example.game, fields)
        try:
            moved = {id(e): e.measure(state) - e.base for _, e in candidates}
            points = [point for _, point in example.play(state)]
        except Exception:
            continue
        if not _same_path(points, example.reference):
            continue
        kept = []
        for index, expectation in candidates:
            at = State(example.game, points[index].fields)
            try:
                change = expectation.measure(at) - example_value(example, index, expectation)
            except Exception:
                continue
            if moved[id(expectation)] != 0 and change == moved[id(expectation)]:
                kept.append((index, expectation))
        return kept
    return []


#: How a number of the set-up is moved to see whether the example depends on it.
NUDGES = (1, -1, 2, 5)
#: The numbers inside one field's value (a flow's counters, a tuple's) probed at most.
MAX_LEAVES = 16


class _Any:
    """A number of the given that may have any value (moving it changes nothing checked)."""

    def __repr__(self) -> str:
        return "ANY"


ANY: Any = _Any()


def agrees(value: Any, pattern: Any) -> bool:
    """Whether a field's ``value`` fits the given's ``pattern`` (``ANY`` matching anything)."""
    if pattern is ANY:
        return True
    if type(pattern) is tuple and type(value) is tuple and len(pattern) == len(value):
        return all(agrees(v, p) for v, p in zip(value, pattern, strict=True))
    return bool(value == pattern)


def has_any(pattern: Any) -> bool:
    return pattern is ANY or (type(pattern) is tuple and any(has_any(p) for p in pattern))


def _leaves(value: Any, path: tuple[int, ...] = ()) -> Iterator[tuple[int, ...]]:
    """The places of the numbers and flags inside nested tuples."""
    if _whole(value) or isinstance(value, bool):
        yield path
    elif type(value) is tuple:
        for index, item in enumerate(value):
            yield from _leaves(item, (*path, index))


def _replace(value: Any, path: tuple[int, ...], new: Any) -> Any:
    if not path:
        return new
    head, rest = path[0], path[1:]
    return (*value[:head], _replace(value[head], rest, new), *value[head + 1 :])


def _at(value: Any, path: tuple[int, ...]) -> Any:
    for index in path:
        value = value[index]
    return value


def _pattern(example: Example, relative: list[tuple[int, Expectation]], key: Any) -> Any:
    """The set-up's value of ``key`` with ``ANY`` for each number the example does not depend on."""
    value = example.start[key]
    if type(value) is tuple and key != (ENGINE_OWNER, "flow"):
        return value  # a board's or hand's numbers act together: moved one at a time, not seen
    leaves = list(_leaves(value))
    if not leaves or len(leaves) > MAX_LEAVES:
        return value
    pattern = value
    for path in leaves:
        if not _matters(example, relative, key, path):
            pattern = _replace(pattern, path, ANY)
    return pattern


def _matters(
    example: Example, relative: list[tuple[int, Expectation]], key: Any, path: tuple[int, ...]
) -> bool:
    """Whether moving a number (or flag) of the set-up's ``key`` makes the steps take another
    path or a relative expectation change by another amount (with no relative expectation
    nothing depends on it: an absolute one is checked only where what it reads is as from
    the set-up, and a run that takes another path is not checked)."""
    if not relative:
        return False
    value = _at(example.start[key], path)
    for nudge in (not value,) if isinstance(value, bool) else (value + n for n in NUDGES):
        fields = dict(example.start)
        fields[key] = _replace(fields[key], path, nudge)
        state = State(example.game, fields)
        try:
            points = [point for _, point in example.play(state)]
            if not _same_path(points, example.reference):
                return True
            for index, expectation in relative:
                at = State(example.game, points[index].fields)
                if expectation.measure(at) != example_value(example, index, expectation):
                    return True
        except Exception:
            return True
    return False


def example_value(example: Example, index: int, expectation: Expectation) -> Any:
    """The expectation's value where it is checked when the example runs from its own set-up."""
    return expectation.measure(State(example.game, example.reference[index].fields))


def _same_path(points: list[Point], reference: list[Point]) -> bool:
    return len(points) == len(reference) and all(
        p.outcome == r.outcome and p.decider == r.decider for p, r in zip(points, reference, strict=True)
    )


same_path = _same_path
