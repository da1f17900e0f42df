"""``overlaid``: an editor's unsaved texts are read instead of the files, under the same limits."""

from __future__ import annotations

from collections.abc import Callable
from pathlib import Path

import pytest

from rulekit.errors import RulesetError
from rulekit.limits import LIMITS
from rulekit.load import load_composed
from rulekit.rules.yaml_source import load_file, overlaid
from tests.tools.conftest import TINY


def test_an_overlaid_text_is_read_instead_of_the_file_and_only_within_the_block(tmp_path: Path) -> None:
    file = tmp_path / "a.yaml"
    file.write_text("a: 1\n")
    with overlaid({file.resolve(): "a: 2\n"}):
        assert load_file(file) == {"a": 2}
    assert load_file(file) == {"a": 1}


def test_a_ruleset_loads_with_the_unsaved_text_of_its_file(write_ruleset: Callable[..., Path]) -> None:
    folder = write_ruleset(TINY, name="overlay")
    unsaved = TINY.replace("coins: {type: int, initial: 3}", "coins: {type: int, initial: 7}")
    with overlaid({(folder / "ruleset.yaml").resolve(): unsaved}):
        changed = load_composed(str(folder))
    assert "initial: 7" not in (folder / "ruleset.yaml").read_text()
    assert str(changed.data["state"]["player"]["coins"]["initial"]) == "7"


def test_an_unsaved_text_over_the_size_limit_is_refused_with_a_position(tmp_path: Path) -> None:
    file = tmp_path / "a.yaml"
    file.write_text("a: 1\n")
    LIMITS.set("max_file_bytes=100")
    try:
        with overlaid({file.resolve(): "a: " + "x" * 200}), pytest.raises(RulesetError) as caught:
            load_file(file)
    finally:
        LIMITS.reset()
    (diagnostic,) = caught.value.diagnostics
    assert "larger than 100 bytes" in diagnostic.message and diagnostic.span is not None


def test_the_in_process_program_cache_keeps_only_the_newest_programs(
    write_ruleset: Callable[..., Path], monkeypatch: pytest.MonkeyPatch
) -> None:
    from rulekit import load

    monkeypatch.setattr(load, "_CACHE", {})
    monkeypatch.setattr(load, "_CACHE_SIZE", 2)
    folder = write_ruleset(TINY, name="cached")
    programs = []
    for start in (3, 4, 5):  # three edits of one ruleset, as an editor makes them
        unsaved = TINY.replace("initial: 3}", f"initial: {start}}}")
        with overlaid({(folder / "ruleset.yaml").resolve(): unsaved}):
            programs.append(load_composed(str(folder)).program)
    assert [id(p) for p in load._CACHE.values()] == [id(p) for p in programs[1:]]
