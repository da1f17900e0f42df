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
