"""``rulekit compile --show``: the generated module, whole or one rule's functions, and the
documentation's examples of generated code are that command's output."""

from __future__ import annotations

import re
import shlex
from pathlib import Path

import pytest

from rulekit.cli import main
from rulekit.load import load_program
from rulekit.tools.compile_cli import functions_of, show

DOCS = Path(__file__).resolve().parents[2] / "docs"
_EXAMPLE = re.compile(r"^```console\n\$ (rulekit compile [^\n]*)\n(.*?)^```$", re.MULTILINE | re.DOTALL)


def _examples() -> list[tuple[str, str, str]]:
    found = []
    for doc in ("architecture.md", "cli.md"):
        for match in _EXAMPLE.finditer((DOCS / doc).read_text(encoding="utf-8")):
            found.append((doc, match.group(1), match.group(2)))
    return found


def test_the_architecture_chapter_shows_generated_code_made_by_the_command() -> None:
    assert any(doc == "architecture.md" and "--show" in command for doc, command, _ in _examples())


@pytest.mark.parametrize(("doc", "command", "shown"), _examples(), ids=lambda v: str(v)[:60])
def test_a_documented_compile_example_is_the_commands_output(
    doc: str, command: str, shown: str, capsys: pytest.CaptureFixture[str]
) -> None:
    assert main(shlex.split(command)[1:]) == 0
    assert capsys.readouterr().out == shown, f"update the example of `{command}` in docs/{doc}"


def test_show_prints_the_whole_generated_module(capsys: pytest.CaptureFixture[str]) -> None:
    assert main(["compile", "tic_tac_toe", "--show"]) == 0
    assert capsys.readouterr().out == load_program("tic_tac_toe").source


def test_show_name_prints_every_function_generated_for_an_action_and_nothing_else() -> None:
    source = load_program("tic_tac_toe").source
    shown = show(source, "place")
    names = list(functions_of(shown))
    assert names and all(re.fullmatch(r"[a-z]+_place_n[0-9]+", n) for n in names)
    assert any(n.startswith("enum_place_") for n in names)
    assert set(names) == {n for n in functions_of(source) if re.fullmatch(r"[a-z]+_place_n[0-9]+", n)}


def test_show_name_finds_a_rules_function_by_its_rules_name() -> None:
    program = load_program("el_capitan")
    name = next(iter(program.rules.functions))
    assert list(functions_of(show(program.source, name))) == [f"fn_{name}"]


def test_show_of_a_name_with_no_generated_function_is_a_usage_error(
    capsys: pytest.CaptureFixture[str],
) -> None:
    assert main(["compile", "tic_tac_toe", "--show", "plaec"]) == 2
    error = capsys.readouterr().err
    assert "no generated function for 'plaec'" in error and "place" in error


def test_compile_without_show_prints_the_modules_size(capsys: pytest.CaptureFixture[str]) -> None:
    source = load_program("tic_tac_toe").source
    assert main(["compile", "tic_tac_toe"]) == 0
    assert f"{len(source.encode())} bytes" in capsys.readouterr().out
