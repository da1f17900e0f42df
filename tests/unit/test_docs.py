"""The documentation keeps up with the code: every built-in and aggregate is described."""

from __future__ import annotations

import argparse
import re
from pathlib import Path

import pytest

from rulekit.compiler.codegen import AGGREGATES
from rulekit.dsl import parse_block, parse_expression
from rulekit.runtime.builtins import BUILTINS

DOCS = Path(__file__).resolve().parents[2] / "docs"


def _builtins_section() -> str:
    text = (DOCS / "dsl.md").read_text(encoding="utf-8")
    start = text.index("\n## Built-ins")
    end = text.find("\n## ", start + 1)
    return text[start : end if end != -1 else len(text)]


def _documented_builtins() -> set[str]:
    section = _builtins_section()
    headings = re.findall(r"^###\s+`?([A-Za-z_][A-Za-z0-9_]*)\(", section, re.MULTILINE)
    rows = re.findall(r"^\|\s*`([A-Za-z_][A-Za-z0-9_]*)\(", section, re.MULTILINE)
    return {*headings, *rows}


@pytest.mark.parametrize("name", sorted(BUILTINS))
def test_every_builtin_is_documented_in_dsl_md(name: str) -> None:
    """Each registered built-in has a ``### name(args)`` heading (or a table row) under Built-ins."""
    assert name in _documented_builtins(), f"add '### {name}(...)' to the Built-ins section of docs/dsl.md"


def test_documented_builtins_all_exist() -> None:
    """The Built-ins section does not describe built-ins that were removed or renamed."""
    assert _documented_builtins() - set(BUILTINS) == set()


@pytest.mark.parametrize("name", sorted(AGGREGATES))
def test_every_aggregate_is_documented_in_dsl_md(name: str) -> None:
    """Each aggregate appears in docs/dsl.md as ``name(...)``."""
    assert f"`{name}(" in (DOCS / "dsl.md").read_text(encoding="utf-8")


def test_every_builtin_has_a_doc_and_an_example() -> None:
    """The registry itself carries a doc string and an example for each built-in."""
    missing = [name for name, b in BUILTINS.items() if not b.doc.strip() or not b.example.strip()]
    assert missing == []


@pytest.mark.parametrize("name", sorted(BUILTINS))
def test_every_builtin_example_is_valid_dsl(name: str) -> None:
    """The example shown for a built-in parses (as an expression, or a statement for effects)."""
    builtin = BUILTINS[name]
    if builtin.effect:
        parse_block(builtin.example)
    else:
        parse_expression(builtin.example)


def _claims() -> list[str]:
    """Pure built-ins whose example is a claim: a top-level ``==`` comparison."""
    from rulekit.dsl import ast

    return sorted(
        name
        for name, builtin in BUILTINS.items()
        if not builtin.effect
        and isinstance(node := parse_expression(builtin.example), ast.Binary)
        and node.op == "=="
    )


@pytest.mark.parametrize("name", _claims())
def test_every_builtin_example_written_as_a_claim_holds(name: str) -> None:
    """An example such as ``half(15) == 7`` is evaluated (in a 2-player game) and is true."""
    from rulekit.load import load_game

    game = load_game("tic_tac_toe", 2)
    fn, _ = game.program.compile_expression(BUILTINS[name].example)
    assert fn(game.new_initial_state(0).fields, game.runtime, 0) is True


def _evaluated_examples() -> list[tuple[str, str]]:
    """Lines ``expression  # => value`` inside the code blocks of docs/dsl.md."""
    text = (DOCS / "dsl.md").read_text(encoding="utf-8")
    examples = []
    for block in re.findall(r"^```\n(.*?)^```", text, re.MULTILINE | re.DOTALL):
        for line in block.splitlines():
            if "# =>" in line:
                expression, expected = line.split("# =>")
                examples.append((expression.strip(), expected.strip()))
    return examples


def test_docs_have_evaluated_examples() -> None:
    """The convention below is in use (so the test that follows checks something)."""
    assert len(_evaluated_examples()) >= 8


@pytest.mark.parametrize(("expression", "expected"), _evaluated_examples())
def test_an_example_of_dsl_md_marked_with_an_arrow_gives_that_value(expression: str, expected: str) -> None:
    """``expr  # => value`` in docs/dsl.md: expr evaluates (in a 2-player game) to value."""
    from rulekit.load import load_game

    game = load_game("tic_tac_toe", 2)
    state = game.new_initial_state(0)
    actual, _ = game.program.compile_expression(expression)
    wanted, _ = game.program.compile_expression(expected)
    assert actual(state.fields, game.runtime, 0) == wanted(state.fields, game.runtime, 0)


def _cli_commands() -> dict[str, argparse.ArgumentParser]:
    """Each subcommand of ``rulekit`` and its parser (plugins included when importable)."""
    from rulekit.cli import build_parser

    parser, _ = build_parser()
    sub = next(a for a in parser._actions if isinstance(a, argparse._SubParsersAction))
    return dict(sub.choices)


def _cli_section(command: str) -> str:
    """The part of docs/cli.md about ``rulekit COMMAND`` (its ``##`` section, subsections included)."""
    text = (DOCS / "cli.md").read_text(encoding="utf-8")
    match = re.search(rf"^## .*`rulekit {command}[` ].*$", text, re.MULTILINE)
    assert match, f"docs/cli.md has no '## ... `rulekit {command}`' section"
    end = text.find("\n## ", match.end())
    section = text[match.start() : end if end != -1 else len(text)]
    if command == "verify":  # cli.md points to verification.md for the whole story
        section += (DOCS / "verification.md").read_text(encoding="utf-8")
    return section


# --with, --variant and --param are described once, in the table of options shared by the commands
# that load rules.
_SHARED_OPTIONS = {"--with", "--variant", "--param", "-h", "--help"}


@pytest.mark.parametrize("command", sorted(_cli_commands()))
def test_every_option_of_a_command_is_described_in_its_cli_md_section(command: str) -> None:
    """``rulekit CMD --help`` lists no option that docs/cli.md's section on CMD leaves out."""
    section = _cli_section(command)
    options = {option for action in _cli_commands()[command]._actions for option in action.option_strings}
    missing = sorted(
        o for o in options - _SHARED_OPTIONS if not re.search(rf"`[^`]*{re.escape(o)}(?![\w-])", section)
    )
    assert missing == [], f"describe {missing} in the `rulekit {command}` section of docs/cli.md"


def test_every_documented_command_exists() -> None:
    """docs/cli.md has no section on a ``rulekit`` command that does not exist."""
    text = (DOCS / "cli.md").read_text(encoding="utf-8")
    documented = set(re.findall(r"^## .*?`rulekit ([a-z]+)", text, re.MULTILINE))
    assert documented - set(_cli_commands()) == set()


def test_every_scenario_key_is_documented() -> None:
    """Each key of a scenario file, a step or an expectation is in docs/cli.md or rules-format.md."""
    from rulekit.tools.scenario.files import ACTION_KEYS, EXPECT_KEYS, SCENARIO_KEYS

    text = (DOCS / "cli.md").read_text(encoding="utf-8") + (DOCS / "rules-format.md").read_text(
        encoding="utf-8"
    )
    missing = [
        k
        for k in (*SCENARIO_KEYS, *ACTION_KEYS, *EXPECT_KEYS)
        if f"{k}:" not in text and f"`{k}`" not in text
    ]
    assert missing == []


def test_games_md_lists_every_shipped_ruleset_and_each_openspiel_counterpart() -> None:
    """docs/games.md has a row per shipped ruleset, and names the game of each openspiel.json."""
    import json

    text = (DOCS / "games.md").read_text(encoding="utf-8")
    rulesets = DOCS.parent / "rulesets"
    for directory in sorted(p.parent for p in rulesets.glob("*/ruleset.yaml")):
        assert f"| `{directory.name}` |" in text, f"add {directory.name} to docs/games.md"
        mapping = directory / "openspiel.json"
        if mapping.is_file():
            game = json.loads(mapping.read_text(encoding="utf-8"))["cpp"]
            assert re.search(rf"^\| `{directory.name}` \| `{game}`", text, re.MULTILINE), directory.name
