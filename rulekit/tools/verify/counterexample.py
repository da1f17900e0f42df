"""A counterexample, explained, written as a replayable log and a scenario."""

from __future__ import annotations

from pathlib import Path
from typing import Any

from attrs import define, field

from rulekit.compiler.program import CompiledInvariant, Program
from rulekit.engine.game import Game
from rulekit.errors import Span
from rulekit.rules.yaml_source import dump_text
from rulekit.tools.scenario.versions import FORMAT
from rulekit.tools.verify.explain import explain_invariant, unparse
from rulekit.tools.verify.failures import (
    ENGINE_PROPERTIES,
    PropertyFailure,
)
from rulekit.tools.verify.options import VerifyOptions


@define
class Counterexample:
    """A shrunk violation, explained and ready to write out."""

    key: str
    message: str
    span: Span | None
    players: int
    seed: int
    actions: list[tuple[int, str]]
    details: list[str]
    original_length: int
    invariant: CompiledInvariant | None = None
    files: list[Path] = field(factory=list)
    #: How far shrinking got (printed in the report).
    shrink_note: str = ""
    #: The DSL text of a failed two-state property.
    condition: str = ""

    @property
    def name(self) -> str:
        return self.key.split(":", 1)[1] if ":" in self.key else self.key


def make_counterexample(program: Program, failure: PropertyFailure, original: int) -> Counterexample:
    details = list(failure.details)
    if failure.invariant is not None and failure.state is not None:
        details = explain_invariant(program, failure.invariant, failure.state)
    return Counterexample(
        key=failure.key,
        message=failure.message,
        span=failure.span,
        players=failure.players,
        seed=failure.seed,
        actions=list(failure.history),
        details=details,
        original_length=original,
        invariant=failure.invariant,
        condition=_property_text(program, failure.key),
    )


def _property_text(program: Program, key: str) -> str:
    """The condition of the two-state property ``key`` (``property:NAME``), as DSL text."""
    if not key.startswith("property:"):
        return ""
    name = key.split(":", 1)[1]
    rules = program.rules
    decls = [*rules.properties.values(), *(d for a in rules.actions.values() for d in a.ensures)]
    return next((unparse(d.condition) for d in decls if d.name == name), "")


def write_counterexample(options: VerifyOptions, program: Program, example: Counterexample) -> list[Path]:
    """Write the replayable log and a scenario reproducing the violation; their paths.

    Each file is written to a temporary file beside it and renamed over it, so a
    reader (or an interrupted run) sees the previous counterexample or the new
    one, never half of one: verify rewrites them while shrinking.
    """
    from rulekit.tools.files import atomic_write_text
    from rulekit.tools.log import make_header, write_actions

    assert options.out is not None
    directory = options.out
    directory.mkdir(parents=True, exist_ok=True)
    stem = "".join(c if c.isalnum() or c in "-_." else "_" for c in f"{program.name}-{example.name}")
    game = Game(program, example.players)
    source = None
    ruleset_dir = _ruleset_dir(options.ruleset)
    if ruleset_dir is not None:
        source = str(ruleset_dir)
    header = make_header(game, example.seed, source=source)
    log_path = directory / f"{stem}.jsonl"
    scenario_path = directory / f"{stem}.yaml"
    write_actions(log_path, header, example.actions)  # atomic: a temporary file renamed over it
    atomic_write_text(scenario_path, scenario_text(options, program, example, source))
    return [log_path, scenario_path]


def _ruleset_dir(ruleset: str) -> Path | None:
    from rulekit.rules.compose import find_ruleset

    path = find_ruleset(ruleset)
    if "/" in ruleset or Path(ruleset).is_dir():
        return path.resolve()
    return None


def scenario_text(
    options: VerifyOptions, program: Program, example: Counterexample, source: str | None
) -> str:
    """A scenario file that reproduces the counterexample (it fails until the rules are fixed)."""
    if example.key.startswith("invariant:"):
        what = f"invariant '{example.name}'"
    elif example.key.startswith("property:"):
        what = f"property '{example.name}'"
    else:
        what = f"engine property '{ENGINE_PROPERTIES.get(example.name, example.name)}'"
    data: dict[str, Any] = {
        "scenario": f"verify counterexample: {what} fails after {len(example.actions)} action(s)",
        "format": FORMAT,
    }
    if example.invariant is not None and example.invariant.decl.cite:
        data["cite"] = example.invariant.decl.cite
    data["ruleset"] = source or program.name
    if options.modules:
        data["modules"] = list(options.modules)
    if options.variants:
        data["variants"] = list(options.variants)
    data["players"] = example.players
    data["seed"] = example.seed
    texts: list[Any] = [str(text) for _, text in example.actions]
    if texts and example.key != "engine:ends":
        # once the rules are fixed the last action may be refused: the scenario still passes
        texts[-1] = {"action": texts[-1], "may_reject": True}
    data["actions"] = texts
    if example.invariant is not None:
        data["expect"] = [unparse(example.invariant.decl.condition)]
    head = [
        f"# Written by `rulekit verify` ({example.key}).",
        f"# {example.message}",
    ]
    if example.span is not None:
        head.append(f"# declared at {example.span}")
    if example.key.startswith("property:"):
        head.append(f"# holds: {example.condition}")
        head.append("# A scenario cannot compare two states: this one replays the actions up to the")
        head.append("# failure (`rulekit verify` checks the property again); state the rule as an expect.")
    elif example.invariant is None:
        head.append(
            "# The last action shows the failure; the scenario fails on it until the rules are fixed,"
        )
    else:
        head.append("# The expect is the invariant: it fails until the rules are fixed,")
    if not example.key.startswith("property:"):
        head.append("# then passes whether the last action is refused or the rules now hold after it.")
    return "\n".join(head) + "\n" + dump_text(data)
