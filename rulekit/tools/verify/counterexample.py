"""A counterexample, explained, written as a replayable log and a scenario."""

from __future__ import annotations

from pathlib import Path
from typing import Any

from attrs import define, field

from rulekit.compiler.program import CompiledInvariant, Program
from rulekit.engine.game import Game
from rulekit.errors import Span
from rulekit.rules.model import PropertyDecl
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
    details = list(failure.explained())
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
    decl = _property_decl(program, key)
    return unparse(decl.condition) if decl is not None else ""


def _property_decl(program: Program, key: str) -> PropertyDecl | None:
    """The declaration of the two-state property ``key`` (``property:NAME``)."""
    if not key.startswith("property:"):
        return None
    name = key.split(":", 1)[1]
    rules = program.rules
    decls = [
        *rules.properties.values(),
        *(d for a in rules.actions.values() for d in a.ensures),
        *(d for t in rules.triggers.values() for d in t.ensures),
    ]
    found = next((d for d in decls if d.name == name), None)
    if found is None and name.startswith("derived:"):
        from rulekit.tools.verify.derived import derived_properties

        found = next((d.decl for d in derived_properties(program) if d.decl.name == name), None)
    return found


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
    """A scenario file that reproduces the counterexample: it fails on the rules as they are and
    passes once they are fixed, however the fix works.

    * an invariant: ``expect`` is the invariant, at the end;
    * a transition property: ``expect_properties`` names it (the scenario checks it over every
      action and turn, as verify does);
    * a game that does not end: ``expect_terminal: true`` after the actions;
    * another engine property: the last action shows the failure.

    The last action is ``may_reject`` (played if legal, else skipped), so a fix that refuses it
    passes too; for a property over a turn, every action of the failing turn; for a game that
    does not end, every action (a fixed game ends before them)."""
    if example.key.startswith("invariant:"):
        what = f"invariant '{example.name}'"
    elif example.key.startswith("property:"):
        what = f"property '{example.name}'"
    elif example.key.startswith("visibility:"):
        what = f"visibility '{example.name}'"
    else:
        what = f"engine property '{ENGINE_PROPERTIES.get(example.name, example.name)}'"
    data: dict[str, Any] = {
        "scenario": f"verify counterexample: {what} fails after {len(example.actions)} action(s)",
        "format": FORMAT,
    }
    cite = _cite(program, example)
    if cite:
        data["cite"] = cite
    data["ruleset"] = source or program.name
    if options.modules:
        data["modules"] = list(options.modules)
    if options.variants:
        data["variants"] = list(options.variants)
    data["players"] = example.players
    data["seed"] = example.seed
    texts: list[Any] = [str(text) for _, text in example.actions]
    for i in range(_first_refusable(program, example), len(texts)):
        texts[i] = {"action": texts[i], "may_reject": True}
    if example.key.startswith("property:"):
        data["expect_properties"] = [example.name]
    data["actions"] = texts
    if example.invariant is not None:
        data["expect"] = [unparse(example.invariant.decl.condition)]
    if example.key == "engine:ends":
        data["expect_terminal"] = True
    head = [
        f"# Written by `rulekit verify` ({example.key}).",
        f"# {example.message}",
    ]
    if example.span is not None:
        head.append(f"# declared at {example.span}")
    if example.key.startswith("property:"):
        head.append(f"# holds: {example.condition}")
        head.append("# expect_properties checks the property over every action and turn, as verify does:")
        head.append("# it fails until the rules are fixed,")
    elif example.key.startswith("visibility:"):
        head.append("# A scenario cannot say what a seat sees: this one replays the actions, and")
        head.append("# `rulekit verify` with the same rules checks the visibility after them.")
    elif example.key == "engine:ends":
        head.append(
            f"# expect_terminal: the game must be over after these {len(texts)} actions (--max-actions);"
        )
        head.append("# it fails until the rules are fixed, then passes: every action is played if legal, and")
        head.append("# skipped once the fixed game is over.")
    elif example.invariant is None:
        head.append(
            "# The last action shows the failure; the scenario fails on it until the rules are fixed,"
        )
    else:
        head.append("# The expect is the invariant: it fails until the rules are fixed,")
    if example.key != "engine:ends" and not example.key.startswith("visibility:"):
        refused = (
            "the last action is"
            if len(texts) - _first_refusable(program, example) <= 1
            else ("an action of the failing turn is")
        )
        head.append(f"# then passes whether {refused} refused or the rules now hold after it.")
    return "\n".join(head) + "\n" + dump_text(data)


def _cite(program: Program, example: Counterexample) -> str:
    if example.invariant is not None:
        return example.invariant.decl.cite or ""
    if example.key.startswith("visibility:"):
        seen = program.rules.visibility.get(example.name)
        return (seen.cite or "") if seen is not None else ""
    decl = _property_decl(program, example.key)
    return (decl.cite or "") if decl is not None else ""


def _first_refusable(program: Program, example: Counterexample) -> int:
    """The first action written ``may_reject``: the last one; for a property over a turn the
    first of the failing turn (the last player's actions since one that ends a turn); for a
    game that does not end, the first."""
    history = example.actions
    if not history:
        return 0
    if example.key == "engine:ends":
        return 0
    decl = _property_decl(program, example.key)
    start = len(history) - 1
    if decl is not None and decl.over == "turn":
        ends = {name for name, action in program.actions.items() if action.decl.ends_turn}
        player = history[-1][0]
        while start > 0 and history[start - 1][0] == player and _kind(history[start - 1][1]) not in ends:
            start -= 1
    return start


def _kind(text: str) -> str:
    return text.partition("(")[0]
