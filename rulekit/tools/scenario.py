"""Scenario files: rulebook examples as executable tests.

A scenario names a ruleset (or lives inside its directory), sets up a state by
path, applies actions in the log notation (some expected to be rejected) and
checks DSL expectations on the result.  See docs/cli.md for the format.
"""

from __future__ import annotations

import re
from collections.abc import Callable, Iterable, Sequence
from pathlib import Path
from typing import Any

from attrs import define, field

from rulekit.dsl import Origin, ast, parse_expression
from rulekit.dsl import types as t
from rulekit.dsl.types import Type
from rulekit.engine.game import Game, State
from rulekit.errors import (
    Diagnostic,
    DiagnosticBag,
    IllegalActionError,
    RuleEvaluationError,
    RulekitError,
    RulesetError,
    Span,
    did_you_mean,
)
from rulekit.load import load_program
from rulekit.rules.compose import check_keys
from rulekit.rules.yaml_source import LocDict, LocList, LocStr, load_file, span_of
from rulekit.tools.render import show_value

SCENARIO_KEYS = (
    "scenario",
    "cite",
    "doc",
    "ruleset",
    "modules",
    "variants",
    "players",
    "seed",
    "setup",
    "setup_effect",
    "actions",
    "expect",
    "expect_legal",
    "expect_not_legal",
)
_ACTION_KEYS = ("action", "reject", "by", "may_reject")
_EXPECT_KEYS = ("expr", "equals")
_PLAYER = re.compile(r"^P(\d+)$")
_COMPARISONS = frozenset({"==", "!=", "<", "<=", ">", ">=", "in", "not in"})


class ScenarioFailure(Exception):
    """A scenario step went wrong; the message is ready to print."""


@define
class ScenarioResult:
    """What running one scenario file gave."""

    path: str
    name: str
    failures: list[str] = field(factory=list)

    @property
    def passed(self) -> bool:
        return not self.failures


# ---------------------------------------------------------------- finding


def find_scenarios(paths: Iterable[str | Path]) -> list[Path]:
    """The scenario files named by ``paths``: files as given, directories searched recursively.

    In a directory, only ``*.yaml`` files with a top-level ``scenario:`` key count
    (so a ruleset directory can be given as a whole).

    Raises:
        RulekitError: a path does not exist.
    """
    found: list[Path] = []
    for entry in paths:
        path = Path(entry)
        if path.is_dir():
            for candidate in sorted(path.rglob("*.yaml")):
                try:
                    text = candidate.read_text(encoding="utf-8")
                except (OSError, UnicodeDecodeError):
                    continue
                if re.search(r"^scenario\s*:", text, re.MULTILINE):
                    found.append(candidate)
        elif path.is_file():
            found.append(path)
        else:
            raise RulekitError(Diagnostic(f"no such file or directory: {entry}"))
    return found


def ruleset_for(path: Path, given: Any) -> str:
    """The ruleset a scenario runs against: ``ruleset:`` or the directory above holding ruleset.yaml."""
    if given:
        candidate = path.parent / str(given)
        if (candidate / "ruleset.yaml").is_file():
            return str(candidate)
        return str(given)
    for parent in path.resolve().parents:
        if (parent / "ruleset.yaml").is_file():
            return str(parent)
    raise RulesetError(
        Diagnostic(
            "the scenario names no ruleset",
            Span(str(path), 1, 1),
            hint="add 'ruleset: NAME' or put the file inside the ruleset's directory",
        )
    )


# ---------------------------------------------------------------- running


def run_scenario(path: str | Path, variants: Sequence[str] = ()) -> ScenarioResult:
    """Run one scenario file; problems in the file itself count as failures.

    ``variants`` are applied after the scenario's own ``variants:``.
    """
    path = Path(path)
    result = ScenarioResult(str(path), path.stem)
    try:
        data = load_file(path)
        if not isinstance(data, LocDict):
            raise RulesetError(
                Diagnostic(
                    "a scenario file is a mapping (scenario:, actions:, expect: ...)",
                    span_of(data, Span(str(path), 1, 1)),
                )
            )
        result.name = str(data.get("scenario") or path.stem)
        _Runner(path, data, result, list(variants)).run()
    except ScenarioFailure as failure:
        result.failures.append(str(failure))
    except RulekitError as error:
        result.failures.append(error.render())
    return result


def run_paths(
    paths: Sequence[str | Path], out: Callable[[str], None] = print, *, variants: Sequence[str] = ()
) -> int:
    """Run every scenario under ``paths``, print PASS/FAIL lines; 0 if all passed, else 1.

    Raises:
        RulekitError: a path does not exist, or there is no scenario at all.
    """
    files = find_scenarios(paths)
    if not files:
        raise RulekitError(Diagnostic(f"no scenario files in {', '.join(str(p) for p in paths)}"))
    failed = 0
    for file in files:
        result = run_scenario(file, variants)
        if result.passed:
            out(f"PASS  {result.name}  ({result.path})")
            continue
        failed += 1
        out(f"FAIL  {result.name}  ({result.path})")
        for failure in result.failures:
            out("\n".join("      " + line for line in failure.splitlines()))
    passed = len(files) - failed
    out(f"{passed} passed, {failed} failed")
    return 1 if failed else 0


class _Runner:
    def __init__(self, path: Path, data: LocDict, result: ScenarioResult, variants: list[str]) -> None:
        self.path = path
        self.extra_variants = variants
        self.data = data
        self.result = result
        self.bag = DiagnosticBag()

    def span(self, value: Any, key: str | None = None) -> Span:
        span = span_of(value)
        if span is None and key is not None:
            span = self.data.key_spans.get(key)
        return span or Span(str(self.path), 1, 1)

    def run(self) -> None:
        data = self.data
        check_keys(data, SCENARIO_KEYS, "scenario", self.bag)
        self.bag.raise_if_any()
        ruleset = ruleset_for(self.path, data.get("ruleset"))
        modules = [str(m) for m in _as_list(data.get("modules"))]
        variants = [str(v) for v in _as_list(data.get("variants"))] + self.extra_variants
        players = data.get("players")
        seed = data.get("seed", 0)
        if players is not None and (not isinstance(players, int) or isinstance(players, bool)):
            raise RulesetError(Diagnostic("players must be a number", self.span(players, "players")))
        if not isinstance(seed, int) or isinstance(seed, bool):
            raise RulesetError(Diagnostic("seed must be a number", self.span(seed, "seed")))
        program = load_program(ruleset, modules, variants, players=players)
        rules = program.rules
        if players is not None and not rules.min_players <= players <= rules.max_players:
            raise RulesetError(
                Diagnostic(
                    f"{rules.title} is for {rules.min_players}-{rules.max_players} players, not {players}",
                    self.span(players, "players"),
                )
            )
        game = Game(program, players if players is not None else rules.min_players)
        self.program, self.game = program, game
        state = game.new_initial_state(seed)
        self.setup(state)
        self.actions(state)
        self.expectations(state)

    # ------------------------------------------------------------ setup
    def setup(self, state: State) -> None:
        setup = self.data.get("setup")
        if setup is not None:
            if not isinstance(setup, LocDict):
                raise RulesetError(Diagnostic("setup is a mapping of PATH: VALUE", self.span(setup, "setup")))
            for key, value in setup.items():
                where = setup.key_spans.get(key) or self.span(setup)
                target = self.resolve_path(str(key), where)
                if target is None:
                    continue
                owner, scope, name = target
                type_ = self.program.field_types[scope][name]
                converted = self.convert(value, type_, span_of(value) or where)
                state.fields[(owner, name)] = converted
            self.bag.raise_if_any()
        effect = self.data.get("setup_effect")
        if effect is not None:
            if not isinstance(effect, str):
                raise RulesetError(
                    Diagnostic("setup_effect is DSL statements (a string)", self.span(effect, "setup_effect"))
                )
            origin = effect.origin if isinstance(effect, LocStr) else None
            fn = self.program.compile_effect(str(effect), origin)
            try:
                fn(state.fields, self.game.runtime, None)
            except Exception as error:  # the rules' own failure or a bad value
                raise ScenarioFailure(
                    Diagnostic(
                        f"setup_effect failed: {_error_text(error)}", self.span(effect, "setup_effect")
                    ).render()
                ) from None
        state.refresh()

    def resolve_path(self, text: str, where: Span) -> tuple[Any, str, str] | None:
        owner_text, dot, name = text.partition(".")
        program = self.program
        rules = program.rules
        kinds = {item: kind for kind, ids in program.collections.items() for item in ids}
        players = [f"P{p + 1}" for p in range(self.game.num_players)]
        owner: Any
        if owner_text in ("game", "turn"):
            owner, scope = owner_text, owner_text
        elif _PLAYER.match(owner_text) and owner_text in players:
            owner, scope = int(owner_text[1:]) - 1, "player"
        elif owner_text in kinds:
            owner, scope = owner_text, kinds[owner_text]
        else:
            hint = did_you_mean(owner_text, ["game", "turn", *players, *kinds])
            item = name.partition(".")[0]
            if item in kinds:
                hint = f"a component's field is written {item}.FIELD (its id, then the field)"
            self.bag.error(
                f"unknown owner '{owner_text}' in setup path '{text}'",
                where,
                hint=hint or "a path is game.FIELD, turn.FIELD, P1.FIELD or COMPONENT_ID.FIELD",
            )
            return None
        fields = rules.fields.get(scope, {})
        if not dot or name not in fields:
            what = "player" if scope == "player" else scope
            self.bag.error(
                f"{what} has no field '{name}' (setup path '{text}')"
                if dot
                else f"setup path '{text}' needs a field: {text}.FIELD",
                where,
                hint=did_you_mean(name, fields) or (f"fields: {', '.join(fields)}" if fields else None),
            )
            return None
        return owner, scope, name

    def convert(self, value: Any, type_: Type, where: Span) -> Any:
        """A YAML value as the run-time value of ``type_``; problems go to the bag."""
        if value is None or value == "none":
            return None
        name = type_.name
        if type_ in (t.PLAYER, t.OWNER):
            if type_ == t.OWNER and value == "bank":
                return -1
            match = _PLAYER.match(str(value)) if isinstance(value, str) else None
            if match and 1 <= int(match.group(1)) <= self.game.num_players:
                return int(match.group(1)) - 1
            bank = " or bank" if type_ == t.OWNER else ""
            self.bag.error(f"expected a player P1..P{self.game.num_players}{bank}, not {value!r}", where)
            return None
        if type_ == t.INT:
            if isinstance(value, int) and not isinstance(value, bool):
                return value
            self.bag.error(f"expected a whole number, not {value!r}", where)
            return None
        if type_ == t.BOOL:
            if isinstance(value, bool):
                return value
            self.bag.error(f"expected true or false, not {value!r}", where)
            return None
        if type_ == t.STR:
            if isinstance(value, str):
                return str(value)
            self.bag.error(f"expected text, not {value!r}", where)
            return None
        if name == "entity":
            ids = self.program.collections.get(type_.kind or "", ())
            if isinstance(value, str) and value in ids:
                return str(value)
            self.bag.error(f"'{value}' is not a {type_.kind}", where, hint=did_you_mean(str(value), ids))
            return None
        if type_.is_list or type_ == t.TUPLE:
            if not isinstance(value, list):
                self.bag.error(f"expected a list for {type_}, not {value!r}", where)
                return ()
            element = t.element_type(type_)
            return tuple(self.convert(v, element, span_of(v) or where) for v in value)
        return _plain(value)

    # ---------------------------------------------------------- actions
    def actions(self, state: State) -> None:
        entries = self.data.get("actions") or []
        if not isinstance(entries, list):
            raise RulesetError(Diagnostic("actions is a list", self.span(entries, "actions")))
        for entry in entries:
            reject = by = None
            optional = False
            if isinstance(entry, dict):
                for key in entry:
                    if key not in _ACTION_KEYS:
                        raise RulesetError(
                            Diagnostic(
                                f"unknown action key '{key}'",
                                entry.key_spans.get(key) if isinstance(entry, LocDict) else self.span(entry),
                                hint=did_you_mean(str(key), _ACTION_KEYS),
                                expected=_ACTION_KEYS,
                            )
                        )
                text, reject, by = entry.get("action"), entry.get("reject"), entry.get("by")
                optional = entry.get("may_reject") is True
                if not isinstance(text, str):
                    raise RulesetError(Diagnostic("an action entry needs 'action: TEXT'", self.span(entry)))
            elif isinstance(entry, str):
                text = entry
            else:
                raise RulesetError(Diagnostic("an action is text such as place(b2)", self.span(entry)))
            where = self.span(text)
            if optional and reject is None and not state.is_terminal():
                # may_reject: true -- played if legal, else skipped (the state stays unchanged)
                if text in state.legal_action_strings():
                    self.apply(state, str(text), where, None, by)
                continue
            self.apply(state, str(text), where, None if reject is None else str(reject), by)

    def apply(self, state: State, text: str, where: Span, reject: str | None, by: Any) -> None:
        if state.is_terminal():
            raise ScenarioFailure(Diagnostic(f"the game is over; cannot play {text}", where).render())
        deciding = f"P{state.current_player() + 1}"
        if by is not None and str(by) != deciding:
            raise ScenarioFailure(
                Diagnostic(
                    f"expected {by} to play {text}, but {deciding} decides now", span_of(by) or where
                ).render()
            )
        if reject is None:
            try:
                state.apply_action(text)
            except (IllegalActionError, RuleEvaluationError) as error:
                raise ScenarioFailure(
                    Diagnostic(f"{deciding} cannot play {text}: {_messages(error)}", where).render()
                    + _locations(error)
                ) from None
            return
        before = state.state_hash()
        try:
            state.apply_action(text)
        except IllegalActionError as error:
            message = _messages(error)
            if reject not in message:
                raise ScenarioFailure(
                    Diagnostic(
                        f"{text} was rejected, but the message does not contain '{reject}': {message}", where
                    ).render()
                ) from None
            if state.state_hash() != before:  # pragma: no cover - apply_action is atomic
                raise ScenarioFailure(
                    Diagnostic(f"{text} was rejected but changed the state", where).render()
                ) from None
            return
        except RuleEvaluationError as error:
            raise ScenarioFailure(
                Diagnostic(
                    f"expected {text} to be rejected ('{reject}'), but a rule failed: {_messages(error)}",
                    where,
                ).render()
            ) from None
        raise ScenarioFailure(
            Diagnostic(
                f"expected {text} to be rejected ('{reject}'), but {deciding} could play it", where
            ).render()
        )

    # ----------------------------------------------------- expectations
    def expectations(self, state: State) -> None:
        failures = self.result.failures
        me = None if state.is_terminal() else state.current_player()
        for entry in _as_list(self.data.get("expect")):
            equals_given = False
            equals: Any = None
            text: Any = entry
            if isinstance(entry, dict):
                for key in entry:
                    if key not in _EXPECT_KEYS:
                        failures.append(
                            Diagnostic(
                                f"unknown expectation key '{key}'",
                                entry.key_spans.get(key) if isinstance(entry, LocDict) else self.span(entry),
                                hint=did_you_mean(str(key), _EXPECT_KEYS),
                                expected=_EXPECT_KEYS,
                            ).render()
                        )
                text = entry.get("expr")
                equals_given = "equals" in entry
                equals = entry.get("equals")
            if not isinstance(text, str):
                failures.append(
                    Diagnostic(
                        "an expectation is a DSL expression or {expr: ..., equals: ...}", self.span(entry)
                    ).render()
                )
                continue
            origin = text.origin if isinstance(text, LocStr) else Origin(str(self.path))
            where = self.span(text)
            try:
                fn, type_ = self.program.compile_expression(str(text), origin)
            except RulekitError as error:
                failures.append(error.render())
                continue
            if not equals_given and not t.compatible(t.BOOL, type_):
                failures.append(
                    Diagnostic(
                        f"an expectation must be true or false, not {type_}",
                        where,
                        hint="use {expr: ..., equals: VALUE} to compare a value",
                    ).render()
                )
                continue
            try:
                actual = fn(state.fields, self.game.runtime, me)
            except Exception as error:  # a failing expression is a failed expectation
                failures.append(
                    Diagnostic(f"cannot evaluate expectation: {_error_text(error)}", where).render()
                )
                continue
            if equals_given:
                expected = self.convert(equals, type_, span_of(equals) or where)
                if self.bag.items:
                    failures.append(RulesetError(self.bag.items).render())
                    self.bag.items.clear()
                    continue
                if actual != expected:
                    failures.append(
                        Diagnostic(f"expectation failed: {text}", where).render()
                        + f"\n  actual:   {show_value(actual, type_)}"
                        + f"\n  expected: {show_value(expected, type_)}"
                    )
                continue
            if actual is not True:
                values = self.explain(str(text), origin, state, me)
                failures.append(
                    Diagnostic(f"expectation failed: {text}", where).render()
                    + "".join(f"\n  {sub} = {value}" for sub, value in values)
                )
        self.legal_expectations(state)

    def explain(self, text: str, origin: Origin, state: State, me: int | None) -> list[tuple[str, str]]:
        """The values of the operands of comparisons in a failed expectation."""
        try:
            tree = parse_expression(text, origin)
        except RulekitError:
            return []
        shown: list[tuple[str, str]] = []
        seen: set[str] = set()

        def visit(node: Any) -> None:
            if isinstance(node, ast.Binary) and node.op in ("and", "or"):
                visit(node.left)
                visit(node.right)
            elif isinstance(node, ast.Unary) and node.op == "not":
                visit(node.operand)
            elif isinstance(node, ast.Binary) and node.op in _COMPARISONS:
                for side in (node.left, node.right):
                    if not isinstance(side, ast.Literal):
                        show(side)

        def show(node: Any) -> None:
            sub = _source_of(text, origin, node.span)
            if sub is None or sub in seen:
                return
            seen.add(sub)
            try:
                fn, type_ = self.program.compile_expression(
                    sub, Origin(origin.file, node.span.line, node.span.column, origin.continuation_column)
                )
                value = fn(state.fields, self.game.runtime, me)
            except Exception:  # e.g. a name bound by an enclosing comprehension
                return
            shown.append((sub, show_value(value, type_)))

        visit(tree)
        return shown

    def legal_expectations(self, state: State) -> None:
        failures = self.result.failures
        for key, wanted in (("expect_legal", True), ("expect_not_legal", False)):
            entries = _as_list(self.data.get(key))
            if not entries:
                continue
            legal = state.legal_actions()
            for entry in entries:
                where = self.span(entry, key)
                try:
                    action = self.game.parse_action(str(entry))
                except IllegalActionError as error:
                    failures.append(Diagnostic(f"{key}: {_messages(error)}", where).render())
                    continue
                if (action in legal) != wanted:
                    shown = ", ".join(state.legal_action_strings()[:12]) or "none"
                    verdict = "legal" if wanted else "not legal"
                    failures.append(
                        Diagnostic(f"expected {entry} to be {verdict} now", where).render()
                        + f"\n  legal now: {shown}"
                    )


# ---------------------------------------------------------------- helpers


def _as_list(value: Any) -> list[Any]:
    if value is None:
        return []
    if isinstance(value, list):
        return list(value)
    return [value]


def _plain(value: Any) -> Any:
    """YAML data as run-time values: lists become tuples, maps keep their keys."""
    if isinstance(value, LocList | list):
        return tuple(_plain(v) for v in value)
    if isinstance(value, dict):
        return {_plain_key(k): _plain(v) for k, v in value.items()}
    if isinstance(value, str):
        return None if value == "none" else str(value)
    return value


def _plain_key(key: Any) -> Any:
    return str(key) if isinstance(key, str) else key


def _messages(error: RulekitError) -> str:
    parts = []
    for d in error.diagnostics:
        parts.append(d.message + (f" ({d.hint})" if d.hint else ""))
    return "; ".join(parts)


def _locations(error: RulekitError) -> str:
    spans = [str(d.span) for d in error.diagnostics if d.span is not None]
    return "".join(f"\n  (rule at {s})" for s in spans)


def _error_text(error: BaseException) -> str:
    if isinstance(error, RulekitError):
        return _messages(error)
    message = getattr(error, "message", None)
    return str(message) if message else f"{type(error).__name__}: {error}"


def _source_of(text: str, origin: Origin, span: Span | None) -> str | None:
    """The snippet text covered by ``span`` (given in file coordinates)."""
    if span is None or not span.end_line:
        return None
    lines = text.split("\n")

    def offset(line: int, column: int) -> int | None:
        row = line - origin.line
        if not 0 <= row < len(lines):
            return None
        col = column - (origin.column if row == 0 else origin.continuation_column)
        if col < 0:
            return None
        return sum(len(x) + 1 for x in lines[:row]) + col

    start, end = offset(span.line, span.column), offset(span.end_line, span.end_column)
    if start is None or end is None or end <= start:
        return None
    return text[start:end].strip() or None
