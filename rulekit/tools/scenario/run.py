"""Running scenario files: load the rules a file names, set the game up, play its steps, check it."""

from __future__ import annotations

from collections.abc import Callable, Sequence
from pathlib import Path
from typing import Any

import attrs

from rulekit.compiler.program import Program
from rulekit.engine.game import Game, State
from rulekit.errors import Diagnostic, RulekitError, RulesetError
from rulekit.rules.compose import is_file
from rulekit.rules.schema_scenario import SCENARIO
from rulekit.rules.structure import Structurer
from rulekit.rules.yaml_source import LocDict, LocStr, load_file, load_text, span_of
from rulekit.tools.scenario import expect, invariants, properties, rewrite, start, steps, values
from rulekit.tools.scenario.context import (
    InvariantFailure,
    ScenarioFailure,
    ScenarioFile,
    ScenarioResult,
    ScenarioRun,
    Stopped,
    as_list,
    error_text,
)
from rulekit.tools.scenario.coverage import Collector, attach
from rulekit.tools.scenario.files import find_scenarios, ruleset_for


def run_scenario(
    path: str | Path,
    variants: Sequence[str] = (),
    modules: Sequence[str] = (),
    *,
    ruleset: str | None = None,
    text: str | None = None,
    coverage: Collector | None = None,
) -> ScenarioResult:
    """Run one scenario file; problems in the file itself count as failures.

    ``variants`` are applied after the scenario's own ``variants:``, ``modules``
    added to its ``modules:``; ``ruleset`` is the one a file outside any ruleset's directory
    and without ``ruleset:`` runs against; ``text`` stands for the file's content.  A file of an
    older format or rules version runs as it was written: its DSL through the rewrites of
    :mod:`rulekit.tools.scenario.rewrite`, invariants as its format checked them. With
    ``coverage``, it runs on an instrumented copy of its program and reports to it.
    """
    path = Path(path)
    result = ScenarioResult(str(path), path.stem)
    try:
        if text is None:
            parsed = load_file(path)  # the size, encoding and YAML checks, with positions
            text = path.read_text(encoding="utf-8")
        else:
            parsed = load_text(text, str(path))
        if not isinstance(parsed, LocDict):
            parsed = rewrite.read(text, str(path))  # raises: not a mapping
        rewritten = rewrite.rewrite(text, path, ruleset=ruleset, data=parsed)
        data = rewritten.data
        if rewritten.old:
            data = rewrite.read(rewritten.text, str(path))
        result.name = str(data.get("scenario") or path.stem)
        scenario = ScenarioFile(
            path, data, result, format=rewritten.format, ruleset=ruleset, collector=coverage
        )
        play(_load(scenario, variants, modules))
    except InvariantFailure as failure:
        result.failures.append(str(failure))
        result.invariant = failure.name
    except ScenarioFailure as failure:
        result.failures.append(str(failure))
    except Stopped:
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
    ruleset: str | None = None,
    coverage: Collector | None = None,
) -> int:
    """Run every scenario under ``paths``, print PASS/FAIL lines; 0 if all passed, else 1.
    With ``coverage``, the scenarios report what they exercise to it.

    Raises:
        RulekitError: a path does not exist, or there is no scenario at all.
    """
    files = find_scenarios(paths)
    if not files:
        raise RulekitError(Diagnostic(f"no scenario files in {', '.join(str(p) for p in paths)}"))
    failed = 0
    for file in files:
        result = run_scenario(file, variants, modules, ruleset=ruleset, coverage=coverage)
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


def _load(scenario: ScenarioFile, extra_variants: Sequence[str], extra_modules: Sequence[str]) -> ScenarioRun:
    """Load the ruleset the scenario names (with its modules, variants and player count)."""
    data = scenario.data
    # Keys and the shape of every value, against the format's declaration, in one report.
    Structurer(scenario.bag).value(SCENARIO, data, span_of(data), "")
    scenario.bag.raise_if_any()
    ruleset = ruleset_for(scenario.path, data.get("ruleset"), scenario.ruleset)
    modules = [str(m) for m in as_list(data.get("modules"))]
    modules += [m for m in extra_modules if m not in modules]
    variants = [variant_path(scenario, v) for v in as_list(data.get("variants"))] + list(extra_variants)
    players = data.get("players")
    if players is not None and (not isinstance(players, int) or isinstance(players, bool)):
        raise RulesetError(Diagnostic("players must be a number", scenario.span(players, "players")))
    try:
        program = _load_program(ruleset, modules, variants, players=players)
    except RulesetError as error:
        named = [*extra_variants, *extra_modules]
        raise RulesetError([_located(scenario, d, named) for d in error.diagnostics]) from None
    rules = program.rules
    if players is not None and not rules.min_players <= players <= rules.max_players:
        raise RulesetError(
            Diagnostic(
                f"{rules.title} is for {rules.min_players}-{rules.max_players} players, not {players}",
                scenario.span(players, "players"),
            )
        )
    covered = None
    if scenario.collector is not None:
        program, covered = scenario.collector.instrument(ruleset, modules, variants, program)
    game = Game(program, players if players is not None else rules.min_players)
    if covered is not None:
        attach(game, covered)
    return ScenarioRun(
        scenario.path,
        data,
        scenario.result,
        scenario.bag,
        format=scenario.format,
        ruleset=scenario.ruleset,
        program=program,
        game=game,
        coverage=covered,
    )


def _located(scenario: ScenarioFile, diagnostic: Diagnostic, command_line: Sequence[str]) -> Diagnostic:
    """A load error without a position (an unknown ruleset, module or variant name) points at
    the scenario's entry that named it, else at its ``ruleset:`` (unless the name came from
    the command line)."""
    if diagnostic.span is not None or any(f"'{name}'" in diagnostic.message for name in command_line):
        return diagnostic
    data = scenario.data
    for key in ("modules", "variants"):
        for entry in as_list(data.get(key)):
            if isinstance(entry, str) and f"'{entry}'" in diagnostic.message:
                return attrs.evolve(diagnostic, span=scenario.span(entry, key))
    return attrs.evolve(diagnostic, span=scenario.span(data.get("ruleset"), "ruleset"))


def _load_program(*args: Any, **kwargs: Any) -> Program:
    # Looked up on the package when called, so that a caller may substitute the rules scenarios
    # run against (``verify --mutants`` runs them against mutants).
    from rulekit.tools import scenario

    program: Program = scenario.load_program(*args, **kwargs)
    return program


def play(run: ScenarioRun) -> None:
    """Set the game up as the scenario says, run its steps and check its expectations."""
    data = run.data
    seed = data.get("seed", 0)
    if not isinstance(seed, int) or isinstance(seed, bool):
        raise RulesetError(Diagnostic("seed must be a number", run.span(seed, "seed")))
    run.invariants = invariants.chosen_invariants(run)
    run.properties = properties.chosen_properties(run)
    run.game.runtime.keep_order = run.flag("keep_order")
    hook = before_setup_hook(run)
    try:
        state = run.game.new_initial_state(seed, before_setup=hook)
    except RulekitError as error:
        raise ScenarioFailure(error.render()) from None
    run.bag.raise_if_any()
    start.start(run, state)
    setup(run, state)
    setup_key = next((k for k in ("setup_effect", "setup", "before_setup") if k in data), "scenario")
    invariants.check_invariants(run, state, "after the set-up", run.span(None, setup_key))
    properties.begin(run, state)
    steps.actions(run, state)
    expect.check(run, state, run.data)
    expect.end_expectations(run, state)


def before_setup_hook(run: ScenarioRun) -> Callable[[dict[Any, Any]], None] | None:
    """``before_setup:``: PATH: VALUE set after the initial values, before the rules' setup."""
    given = run.data.get("before_setup")
    if given is None:
        return None
    if not isinstance(given, LocDict):
        raise RulesetError(
            Diagnostic("before_setup is a mapping of PATH: VALUE", run.span(given, "before_setup"))
        )
    assignments = values.assignments(run, given)
    run.bag.raise_if_any()

    def hook(fields: dict[Any, Any]) -> None:
        for key, value in assignments:
            fields[key] = value

    return hook


def variant_path(run: ScenarioFile, ref: Any) -> str:
    """A ``variants:`` entry: a file relative to the scenario file, or a shipped variant's name."""
    text = str(ref)
    where = run.span(ref, "variants")
    if not isinstance(ref, str) or not text:
        raise RulesetError(Diagnostic("a variant is a file path or a shipped variant's name", where))
    candidate = Path(text) if Path(text).is_absolute() else run.path.parent / text
    if is_file(candidate):
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


def setup(run: ScenarioRun, state: State) -> None:
    setup = run.data.get("setup")
    if setup is not None:
        if not isinstance(setup, LocDict):
            raise RulesetError(Diagnostic("setup is a mapping of PATH: VALUE", run.span(setup, "setup")))
        for key, value in values.assignments(run, setup):
            state.fields[key] = value
        run.bag.raise_if_any()
    effect = run.data.get("setup_effect")
    if effect is not None:
        if not isinstance(effect, str):
            raise RulesetError(
                Diagnostic("setup_effect is DSL statements (a string)", run.span(effect, "setup_effect"))
            )
        origin = effect.origin if isinstance(effect, LocStr) else None
        fn = run.program.compile_effect(str(effect), origin)
        run.game.runtime.reset_steps()
        try:
            fn(state.fields, run.game.runtime, None)
        except Exception as error:  # the rules' own failure or a bad value
            raise ScenarioFailure(
                Diagnostic(
                    f"setup_effect failed: {error_text(error)}", run.span(effect, "setup_effect")
                ).render()
            ) from None
    state.refresh()
