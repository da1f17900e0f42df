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
from rulekit.engine.defaults import field_default as _field_default
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
    # format 2
    "before_setup",
    "keep_order",
    "start",
    "check_invariants",
    "skip_invariants",
    "expect_terminal",
    "expect_winners",
    "expect_standings",
    "expect_scores",
)
_CHECK_KEYS = ("expect", "expect_legal", "expect_not_legal")
#: What a step of ``actions:`` may say: one of action / event / effect (or none: a checkpoint)
#: and expectations checked right after it.
_ACTION_KEYS = ("action", "reject", "by", "may_reject", "event", "effect", *_CHECK_KEYS)
_EXPECT_KEYS = ("expr", "equals")
_PLAYER = re.compile(r"P([0-9]{1,9})\Z")
_COMPARISONS = frozenset({"==", "!=", "<", "<=", ">", ">=", "in", "not in"})


class ScenarioFailure(Exception):
    """A scenario step went wrong; the message is ready to print."""


class _Stopped(Exception):
    """A checkpoint failed (its failures are recorded); the scenario stops there."""


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


def run_scenario(
    path: str | Path, variants: Sequence[str] = (), modules: Sequence[str] = ()
) -> ScenarioResult:
    """Run one scenario file; problems in the file itself count as failures.

    ``variants`` are applied after the scenario's own ``variants:``, ``modules``
    added to its ``modules:``.
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
        _Runner(path, data, result, list(variants), list(modules)).run()
    except ScenarioFailure as failure:
        result.failures.append(str(failure))
    except _Stopped:
        pass
    except RulekitError as error:
        result.failures.append(error.render())
    return result


def run_paths(
    paths: Sequence[str | Path],
    out: Callable[[str], None] = print,
    *,
    variants: Sequence[str] = (),
    modules: Sequence[str] = (),
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
        result = run_scenario(file, variants, modules)
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
    def __init__(
        self, path: Path, data: LocDict, result: ScenarioResult, variants: list[str], modules: list[str]
    ) -> None:
        self.path = path
        self.extra_variants = variants
        self.extra_modules = modules
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
        modules += [m for m in self.extra_modules if m not in modules]
        variants = [self.variant_path(v) for v in _as_list(data.get("variants"))] + self.extra_variants
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
        self.invariants = self.chosen_invariants()
        game.runtime.keep_order = self.flag("keep_order")
        hook = self.before_setup_hook()
        try:
            state = game.new_initial_state(seed, before_setup=hook)
        except RulekitError as error:
            raise ScenarioFailure(error.render()) from None
        self.bag.raise_if_any()
        self.start(state)
        self.setup(state)
        setup_key = next((k for k in ("setup_effect", "setup", "before_setup") if k in data), "scenario")
        self.check_invariants(state, "after the set-up", self.span(None, setup_key))
        self.actions(state)
        self.check(state, self.data)
        self.end_expectations(state)

    def flag(self, key: str, default: bool = False) -> bool:
        value = self.data.get(key, default)
        if not isinstance(value, bool):
            raise RulesetError(Diagnostic(f"{key} is true or false", self.span(value, key)))
        return value

    # ------------------------------------------------------- before set-up
    def before_setup_hook(self) -> Callable[[dict[Any, Any]], None] | None:
        """``before_setup:``: PATH: VALUE set after the initial values, before the rules' setup."""
        values = self.data.get("before_setup")
        if values is None:
            return None
        if not isinstance(values, LocDict):
            raise RulesetError(
                Diagnostic("before_setup is a mapping of PATH: VALUE", self.span(values, "before_setup"))
            )
        assignments = self.assignments(values)
        self.bag.raise_if_any()

        def hook(fields: dict[Any, Any]) -> None:
            for key, value in assignments:
                fields[key] = value

        return hook

    def assignments(self, values: LocDict) -> list[tuple[tuple[Any, str], Any]]:
        """The (field key, run-time value) pairs of a PATH: VALUE mapping; problems go to the bag."""
        found = []
        for key, value in values.items():
            where = values.key_spans.get(key) or self.span(values)
            target = self.resolve_path(str(key), where)
            if target is None:
                continue
            owner, scope, name = target
            type_ = self.program.field_types[scope][name]
            found.append(((owner, name), self.convert(value, type_, span_of(value) or where)))
        return found

    # -------------------------------------------------------------- start
    def start(self, state: State) -> None:
        """``start: {player: P2, round: 3}``: who decides first and where the flow's counters stand."""
        start = self.data.get("start")
        if start is None:
            return
        if not isinstance(start, LocDict):
            raise RulesetError(
                Diagnostic("start is a mapping such as {player: P2, round: 3}", self.span(start, "start"))
            )
        for key, value in start.items():
            where = start.key_spans.get(key) or self.span(start)
            if key == "player":
                player = self.convert(value, t.PLAYER, span_of(value) or where)
                self.bag.raise_if_any()
                self.start_player(state, int(player), where)
            elif isinstance(value, int) and not isinstance(value, bool):
                self.start_counter(state, str(key), value, where)
            else:
                raise RulesetError(
                    Diagnostic(f"start.{key} must be a whole number (a flow counter) or player: PN", where)
                )
        state.refresh()

    def start_player(self, state: State, player: int, where: Span) -> None:
        F = state.fields
        frames = F[("_", "flow")]
        node = self.program.flow[frames[-1][0]] if frames else None
        if node is None or node.kind != "turn" or F[("_", "asks")]:
            raise RulesetError(Diagnostic("start.player: the game does not begin with a turn", where))
        # A turn whose player is a game field (turn: game.current, or a for_each's `as` field)
        # gets the field set too, so the rules go on from the new seat; a for_each going
        # through the players is turned to continue from her (P2, P3, P1 instead of P1, P2, P3).
        step = _turn_step(self.program.rules.flow, node.span)
        if step is not None and isinstance(step.player, ast.Attribute):
            subject = step.player.subject
            if isinstance(subject, ast.Name) and subject.id == "game":
                F[("game", step.player.name)] = player
                frames = _rotate_for_each(self.program.flow, frames, step.player.name, player)
        F[("_", "flow")] = (*frames[:-1], (frames[-1][0], player, False))
        F[("_", "turn")] = player
        for name, decl in self.program.rules.fields["turn"].items():
            F[("turn", name)] = _field_default(self.program.field_types["turn"][name], decl.type_text)
        for scope, name, fn in self.program.field_inits:
            if scope == "turn":
                F[("turn", name)] = fn(F, self.game.runtime, -1)
        on_start = node.fns.get("on_start")
        if on_start is not None:
            on_start(F, self.game.runtime, player)
        F[("_", "decision")] = (player, node.data["actions"])

    def start_counter(self, state: State, name: str, value: int, where: Span) -> None:
        F = state.fields
        frames = F[("_", "flow")]
        for index, frame in enumerate(frames):
            node = self.program.flow[frame[0]]
            if node.kind == "repeat" and node.data.get("counter") == name:
                _, _, limit = frame
                if value < 1 or (limit is not None and value > limit):
                    raise RulesetError(
                        Diagnostic(f"start.{name} must be from 1 to {limit}, not {value}", where)
                    )
                F[("_", "flow")] = (*frames[:index], (frame[0], value, limit), *frames[index + 1 :])
                F[("game", name)] = value
                return
        counters = [
            str(self.program.flow[f[0]].data.get("counter"))
            for f in frames
            if self.program.flow[f[0]].kind == "repeat" and self.program.flow[f[0]].data.get("counter")
        ]
        raise RulesetError(
            Diagnostic(
                f"start.{name}: no running repeat of the flow counts '{name}'",
                where,
                hint=(f"running counters: {', '.join(counters)}" if counters else "the flow has no counter")
                + f"; a plain field is set with setup: game.{name}",
            )
        )

    # ---------------------------------------------------------- invariants
    def chosen_invariants(self) -> list[Any]:
        """The invariants checked after the set-up and after every step (all unless opted out)."""
        if not self.flag("check_invariants", True):
            return []
        skip = self.data.get("skip_invariants")
        names = {str(n) for n in _as_list(skip)}
        known = {inv.decl.name for inv in self.program.invariants}
        for name in sorted(names - known):
            self.bag.error(
                f"skip_invariants: no invariant '{name}'",
                self.span(skip, "skip_invariants"),
                hint=did_you_mean(name, known) or f"invariants: {', '.join(sorted(known)) or 'none'}",
            )
        self.bag.raise_if_any()
        return [inv for inv in self.program.invariants if inv.decl.name not in names]

    def check_invariants(self, state: State, after: str, where: Span) -> None:
        for invariant in self.invariants:
            decl = invariant.decl
            try:
                holds = invariant.check(state.fields, self.game.runtime, -1)
            except Exception as error:  # an invariant that cannot be evaluated fails
                holds, detail = False, f" (cannot be evaluated: {_error_text(error)})"
            else:
                detail = ""
            if holds is not True:
                cite = f" [{decl.cite}]" if decl.cite else ""
                raise ScenarioFailure(
                    Diagnostic(
                        f"invariant '{decl.name}' fails {after}: {decl.message}{cite}{detail}", where
                    ).render()
                    + (f"\n  (invariant at {decl.span})" if decl.span else "")
                    + "\n  (a scenario whose set-up leaves the rules' world on purpose says"
                    " skip_invariants: [NAME] or check_invariants: false)"
                )

    def variant_path(self, ref: Any) -> str:
        """A ``variants:`` entry: a file relative to the scenario file, or a shipped variant's name."""
        text = str(ref)
        where = self.span(ref, "variants")
        if not isinstance(ref, str) or not text:
            raise RulesetError(Diagnostic("a variant is a file path or a shipped variant's name", where))
        candidate = Path(text) if Path(text).is_absolute() else self.path.parent / text
        if candidate.is_file():
            return str(candidate)
        if "/" in text or text.endswith((".yaml", ".yml")):
            raise RulesetError(
                Diagnostic(
                    f"no variant file '{text}' (looked for {candidate})",
                    where,
                    hint="a variant path is relative to the scenario file; a bare name is a shipped variant",
                )
            )
        return text

    # ------------------------------------------------------------ setup
    def setup(self, state: State) -> None:
        setup = self.data.get("setup")
        if setup is not None:
            if not isinstance(setup, LocDict):
                raise RulesetError(Diagnostic("setup is a mapping of PATH: VALUE", self.span(setup, "setup")))
            for key, value in self.assignments(setup):
                state.fields[key] = value
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
        return self.plain(value)

    def plain(self, value: Any) -> Any:
        """Untyped YAML data (``any``, ``map``, ``tuple`` fields) as run-time values: lists become
        tuples, ``none`` is none and ``P1``..``PN`` are players, also inside containers."""
        if isinstance(value, LocList | list):
            return tuple(self.plain(v) for v in value)
        if isinstance(value, dict):
            return {self.plain(k) if isinstance(k, str) else k: self.plain(v) for k, v in value.items()}
        if isinstance(value, str):
            match = _PLAYER.match(value)
            if match and 1 <= int(match.group(1)) <= self.game.num_players:
                return int(match.group(1)) - 1
            return None if value == "none" else str(value)
        return value

    # ---------------------------------------------------------- actions
    def actions(self, state: State) -> None:
        """Run ``actions:``: actions (maybe rejected), events, effects and checkpoints, in order."""
        entries = self.data.get("actions") or []
        if not isinstance(entries, list):
            raise RulesetError(Diagnostic("actions is a list", self.span(entries, "actions")))
        for entry in entries:
            if isinstance(entry, str):
                where = self.span(entry)
                self.apply(state, str(entry), where, None, None)
                self.check_invariants(state, f"after {entry}", where)
                continue
            if not isinstance(entry, dict):
                raise RulesetError(Diagnostic("an action is text such as place(b2)", self.span(entry)))
            for key in entry:
                if key not in _ACTION_KEYS:
                    raise RulesetError(
                        Diagnostic(
                            f"unknown step key '{key}'",
                            entry.key_spans.get(key) if isinstance(entry, LocDict) else self.span(entry),
                            hint=did_you_mean(str(key), _ACTION_KEYS),
                            expected=_ACTION_KEYS,
                        )
                    )
            kinds = [k for k in ("action", "event", "effect") if k in entry]
            if len(kinds) > 1 or (not kinds and not any(k in entry for k in _CHECK_KEYS)):
                raise RulesetError(
                    Diagnostic(
                        "a step is one of action:, event: or effect:, or a checkpoint of expect:, "
                        "expect_legal:, expect_not_legal:",
                        self.span(entry),
                    )
                )
            if kinds:
                text = entry.get(kinds[0])
                if not isinstance(text, str):
                    raise RulesetError(Diagnostic(f"{kinds[0]}: takes text", self.span(text, None)))
                where = self.span(text)
                if kinds[0] == "action":
                    reject, by = entry.get("reject"), entry.get("by")
                    if entry.get("may_reject") is True and reject is None:
                        # may_reject: true -- played if legal, else skipped (the state stays unchanged)
                        if not state.is_terminal() and text in state.legal_action_strings():
                            self.apply(state, str(text), where, None, by)
                    else:
                        self.apply(state, str(text), where, None if reject is None else str(reject), by)
                else:
                    self.run_effect(state, text, kinds[0], where)
                self.check_invariants(state, f"after {text}", where)
            elif "reject" in entry or "by" in entry:
                raise RulesetError(Diagnostic("reject: and by: belong to an action: step", self.span(entry)))
            before = len(self.result.failures)
            self.check(state, entry)
            if len(self.result.failures) > before:  # a failed checkpoint: later steps would only add noise
                raise _Stopped

    def run_effect(self, state: State, text: Any, kind: str, where: Span) -> None:
        """Fire an event (``event: payday()``) or run DSL statements (``effect: ...``) between actions."""
        source = str(text)
        origin = text.origin if isinstance(text, LocStr) else None
        if kind == "event":
            source = source.strip()
            if "(" not in source:
                source += "()"
            source = "emit " + source
            if origin is not None:
                origin = Origin(origin.file, origin.line, origin.column - 5, origin.continuation_column)
        fn = self.program.compile_effect(source, origin)
        me = -1 if state.is_terminal() else state.current_player()
        F = state.fields
        try:
            fn(F, self.game.runtime, me)
            end_when = self.program.end_when
            if end_when is not None and end_when(F, self.game.runtime, -1):
                F[("_", "over")] = True
            state.refresh()
        except Exception as error:  # the rules' own failure or a bad value
            raise ScenarioFailure(
                Diagnostic(f"{kind} {text} failed: {_error_text(error)}", where).render()
            ) from None

    def apply(self, state: State, text: str, where: Span, reject: str | None, by: Any) -> None:
        if state.is_terminal() and reject is None:
            raise ScenarioFailure(Diagnostic(f"the game is over; cannot play {text}", where).render())
        deciding = "nobody (the game is over)" if state.is_terminal() else f"P{state.current_player() + 1}"
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
    def check(self, state: State, source: Any) -> None:
        """The ``expect``, ``expect_legal`` and ``expect_not_legal`` entries of ``source``."""
        self.expectations(state, _as_list(source.get("expect")))
        self.legal_expectations(state, source)

    def expectations(self, state: State, entries: list[Any]) -> None:
        failures = self.result.failures
        me = None if state.is_terminal() else state.current_player()
        for entry in entries:
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

    def end_expectations(self, state: State) -> None:
        """``expect_terminal``, ``expect_winners``, ``expect_standings`` and ``expect_scores``."""
        failures = self.result.failures
        data = self.data
        if "expect_terminal" in data:
            wanted = self.flag("expect_terminal")
            if state.is_terminal() != wanted:
                now = "is over" if state.is_terminal() else f"goes on (P{state.current_player() + 1} decides)"
                failures.append(
                    Diagnostic(
                        f"expected the game {'to be over' if wanted else 'to go on'}, but it {now}",
                        self.span(data.get("expect_terminal"), "expect_terminal"),
                    ).render()
                )
        standings = state.standings()
        shown = ", ".join(f"P{p + 1} {list(key) if len(key) > 1 else key[0]}" for p, key in standings)
        for key, actual in (
            ("expect_winners", list(state.winners())),
            ("expect_standings", [p for p, _ in standings]),
        ):
            if key not in data:
                continue
            where = self.span(data.get(key), key)
            if not state.is_terminal():
                failures.append(Diagnostic(f"{key}: the game is not over", where).render())
                continue
            expected = [self.convert(v, t.PLAYER, span_of(v) or where) for v in _as_list(data.get(key))]
            if self.bag.items:
                failures.append(RulesetError(self.bag.items).render())
                self.bag.items.clear()
                continue
            if expected != actual:
                failures.append(
                    Diagnostic(f"{key} failed", where).render()
                    + f"\n  actual:   {', '.join(f'P{p + 1}' for p in actual)}"
                    + f"\n  expected: {', '.join(f'P{p + 1}' for p in expected)}"
                    + f"\n  standings (score, tie-breaks): {shown}"
                )
        scores = data.get("expect_scores")
        if scores is not None:
            where = self.span(scores, "expect_scores")
            if not isinstance(scores, LocDict):
                failures.append(Diagnostic("expect_scores is a mapping P1: SCORE", where).render())
                return
            actual_scores = state.scores()
            for key, value in scores.items():
                at = scores.key_spans.get(key) or where
                player = self.convert(key, t.PLAYER, at)
                score = self.convert(value, t.INT, span_of(value) or at)
                if self.bag.items:
                    failures.append(RulesetError(self.bag.items).render())
                    self.bag.items.clear()
                    continue
                if actual_scores[player] != score:
                    message = f"expected {key} to score {score}, not {actual_scores[player]}"
                    failures.append(Diagnostic(message, at).render())

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
                    if not _literal(side):
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

    def legal_expectations(self, state: State, source: Any) -> None:
        failures = self.result.failures
        for key, wanted in (("expect_legal", True), ("expect_not_legal", False)):
            entries = _as_list(source.get(key))
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


def _rotate_for_each(nodes: Sequence[Any], frames: tuple[Any, ...], var: str, player: int) -> tuple[Any, ...]:
    """The flow frames with the innermost ``for_each`` over ``var`` continuing from ``player``."""
    for index in range(len(frames) - 1, -1, -1):
        frame = frames[index]
        node = nodes[frame[0]]
        if node.kind != "for_each" or node.data.get("var") != var:
            continue
        _, items, position = frame
        rest = list(items[position - 1 :])
        if player not in rest:
            return frames
        at = rest.index(player)
        items = (*items[: position - 1], *rest[at:], *rest[:at])
        return (*frames[:index], (frame[0], items, position), *frames[index + 1 :])
    return frames


def _literal(node: Any) -> bool:
    """A literal, or a list or tuple of literals: its value is already in the text."""
    if isinstance(node, ast.ListExpr | ast.TupleExpr):
        return all(_literal(item) for item in node.items)
    return isinstance(node, ast.Literal)


def _turn_step(steps: Iterable[Any], span: Span | None) -> Any:
    """The ``turn:`` step of the rules' flow written at ``span``."""
    for step in steps:
        if hasattr(step, "player") and hasattr(step, "on_start") and step.span == span:
            return step
        for key in ("steps", "then", "otherwise"):
            found = _turn_step(getattr(step, key, None) or (), span)
            if found is not None:
                return found
    return None


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
