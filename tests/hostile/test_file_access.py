"""Rules files read only files of their own ruleset; problems with included files name the file."""

from __future__ import annotations

from collections.abc import Callable
from pathlib import Path

import pytest

from tests.hostile.conftest import Run, assert_refused


@pytest.mark.parametrize("target", ["/etc/passwd", "../secret.yaml", "sub/../../secret.yaml"])
def test_an_include_outside_the_ruleset_directory_is_refused_without_reading_it(
    run: Run, ruleset: Callable[[str], Path], tmp_path: Path, target: str
) -> None:
    """``include:`` cannot read (and quote) files elsewhere on the machine."""
    (tmp_path / "secret.yaml").write_text("password: hunter2\n", encoding="utf-8")
    status, _, err = run("check", str(ruleset(f"include: [{target}]\n")))
    assert_refused(status, err)
    assert "outside the ruleset's directory" in err
    assert "hunter2" not in err and "root:" not in err


def test_an_empty_included_file_is_named_in_a_located_error(run: Run, ruleset: Callable[[str], Path]) -> None:
    """An empty included file: the message names it and points at the include."""
    rules = ruleset("include: [empty.yaml]\n")
    (rules / "empty.yaml").write_text("", encoding="utf-8")
    status, _, err = run("check", str(rules))
    assert_refused(status, err)
    assert "'empty.yaml' is empty" in err


def test_a_file_larger_than_the_limit_is_refused_before_it_is_parsed(
    run: Run, ruleset: Callable[[str], Path]
) -> None:
    """max_file_bytes bounds what the YAML parser is given."""
    rules = ruleset("# " + "x" * 5000 + "\n")
    status, _, err = run("--limit", "max_file_bytes=1000", "check", str(rules))
    assert_refused(status, err)
    assert "larger than 1000 bytes" in err


def test_a_yaml_alias_bomb_is_refused_quickly(run: Run, ruleset: Callable[[str], Path]) -> None:
    """A 9^8 alias expansion stops at max_yaml_nodes with the position of the alias."""
    bomb = "".join(
        f"  {b}: &{b} [{', '.join([f'*{a}'] * 9)}]\n" for a, b in zip("abcdefg", "bcdefgh", strict=True)
    )
    status, _, err = run("check", str(ruleset("constants:\n  a: &a [x, x, x, x, x, x, x, x, x]\n" + bomb)))
    assert_refused(status, err)
    assert "expands to more than" in err


def test_a_self_referencing_alias_is_refused(run: Run, ruleset: Callable[[str], Path]) -> None:
    """``&a [*a]`` nests for ever: refused at its position, not a RecursionError."""
    status, _, err = run("check", str(ruleset("constants:\n  A: &a [1, *a]\n")))
    assert_refused(status, err)
    assert "refers to itself" in err


def test_the_shipped_anchors_still_load(run: Run) -> None:
    """El Caballero's YAML anchors stay within the limits."""
    status, out, err = run("check", "el_caballero")
    assert status == 0, err
    assert out.startswith("ok: el_caballero")


@pytest.mark.parametrize(
    ("lines", "position"),
    [
        ("ruleset: " + "t" * 300 + "\n", ":2:10: error: no ruleset 'ttt"),
        ("ruleset: tic_tac_toe\nvariants: [" + "v" * 300 + "]\n", ":3:12: error: no variant file 'vvv"),
    ],
    ids=["ruleset", "variant"],
)
def test_a_name_too_long_for_the_file_system_in_a_scenario_is_a_located_error(
    run: Run, tmp_path: Path, lines: str, position: str
) -> None:
    """Found by the fuzzer: looking up a 300-character ruleset name raised ENAMETOOLONG (exit 1
    with no position); it is an unknown name like any other."""
    scenario = tmp_path / "s.yaml"
    scenario.write_text(f"scenario: s\n{lines}actions: [place(a1)]\n", encoding="utf-8")
    status, out, err = run("scenario", str(scenario))
    assert status == 1, out + err
    assert f"{scenario}{position}" in out


@pytest.mark.parametrize("option", ["ruleset", "--variant"])
def test_a_name_too_long_for_the_file_system_on_the_command_line_is_an_unknown_name(
    run: Run, option: str
) -> None:
    """``rulekit check NAME`` and ``--variant NAME`` with a 300-character name: unknown, not an OSError."""
    long = "n" * 300
    argv = ["check", long] if option == "ruleset" else ["check", "tic_tac_toe", "--variant", long]
    status, _, err = run(*argv)
    assert status == 1, err
    assert "File name too long" not in err
    assert f"no {'ruleset' if option == 'ruleset' else 'variant file'} 'nnn" in err
