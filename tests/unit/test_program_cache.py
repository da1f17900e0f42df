"""The on-disk program cache: a hit plays exactly like a fresh compile; any change is a miss."""

from __future__ import annotations

import random
import shutil
from pathlib import Path

import pytest

from rulekit import errors, load
from rulekit.compiler import cache
from rulekit.engine.game import Game
from rulekit.errors import IllegalActionError
from rulekit.rules.compose import find_ruleset


@pytest.fixture
def cache_dir(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    directory = tmp_path / "cache"
    monkeypatch.setenv("RULEKIT_CACHE_DIR", str(directory))
    monkeypatch.delenv("RULEKIT_NO_CACHE", raising=False)
    monkeypatch.setattr(load, "_LOADED", {})
    return directory


def _fresh_process() -> None:
    """Forget what this process loaded, as a new process would."""
    load._LOADED.clear()


def _playout_hashes(game: Game, seed: int) -> list[str]:
    rng = random.Random(seed)
    state = game.new_initial_state(seed)
    hashes = [state.state_hash()]
    while not state.is_terminal() and len(hashes) < 150:
        state.apply_action(rng.choice(state.legal_actions()))
        hashes.append(state.state_hash())
    return hashes


@pytest.mark.parametrize(
    ("ruleset", "players", "modules"),
    [
        ("el_capitan", 4, ("porto", "lisboa", "islas_canarias")),
        ("el_caballero", 3, ()),
        ("tic_tac_toe", 2, ()),
    ],
)
def test_a_cached_program_plays_exactly_like_a_fresh_compile(
    cache_dir: Path, ruleset: str, players: int, modules: tuple[str, ...], monkeypatch: pytest.MonkeyPatch
) -> None:
    """A hit compiles nothing and plays the very same games (state hashes) as the fresh program."""
    first = load.load_game(ruleset, players, modules)  # compiles and writes the entry
    assert list(cache_dir.glob("program-*.pickle"))
    _fresh_process()
    calls: list[object] = []
    monkeypatch.setattr(load, "compile_rules", lambda *a: calls.append(a))  # a hit never compiles
    cached = load.load_game(ruleset, players, modules)
    assert calls == []
    assert cached.program is not first.program
    assert cached.program.source == first.program.source
    for seed in (1, 2):
        assert _playout_hashes(cached, seed) == _playout_hashes(first, seed)


def test_in_one_process_the_same_program_is_returned(cache_dir: Path) -> None:
    """Loading twice in one process gives the same Program object."""
    assert load.load_program("tic_tac_toe") is load.load_program("tic_tac_toe")


def test_an_edited_rules_file_is_a_miss(cache_dir: Path, tmp_path: Path) -> None:
    """Changing a rules file's bytes makes the next load compile again, in a new process or the same."""
    rules = tmp_path / "ttt"
    shutil.copytree(find_ruleset("tic_tac_toe"), rules)
    before = load.load_program(str(rules))
    text = (rules / "ruleset.yaml").read_text()
    (rules / "ruleset.yaml").write_text(text.replace("title: Tic-tac-toe", "title: Noughts and crosses"))
    _fresh_process()
    after = load.load_program(str(rules))
    assert before.rules.title == "Tic-tac-toe"
    assert after.rules.title == "Noughts and crosses"
    (rules / "ruleset.yaml").write_text(text)  # and back, within one process too
    assert load.load_program(str(rules)).rules.title == "Tic-tac-toe"


def test_a_damaged_entry_is_a_miss_and_is_replaced(cache_dir: Path) -> None:
    """An unreadable entry is ignored, and the load writes a good one in its place."""
    load.load_program("tic_tac_toe")
    (entry,) = cache_dir.glob("program-*.pickle")
    entry.write_bytes(b"not a pickle")
    _fresh_process()
    assert load.load_program("tic_tac_toe").rules.name == "tic_tac_toe"
    assert entry.read_bytes() != b"not a pickle"


def test_another_rulekit_never_reads_the_entry(cache_dir: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    """The entry name depends on rulekit itself: another version looks elsewhere."""
    directory = find_ruleset("tic_tac_toe")
    mine = cache.entry_path(directory, (), (), None)
    monkeypatch.setattr(cache, "_rulekit_stamp", lambda: "another rulekit")
    assert cache.entry_path(directory, (), (), None) != mine


def test_a_hit_remembers_the_rules_texts_for_error_messages(
    cache_dir: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """After a hit, error messages still quote the rules file as after a normal load."""
    load.load_game("tic_tac_toe", 2)
    _fresh_process()
    monkeypatch.setattr(errors._DEFAULT_SOURCES, "_texts", {})  # as in a new process
    state = load.load_game("tic_tac_toe", 2).new_initial_state(0)
    assert any(name.endswith("ruleset.yaml") for name in errors._DEFAULT_SOURCES._texts)
    state.apply_action("place(a1)")
    with pytest.raises(IllegalActionError) as error:
        state.apply_action("place(a1)")
    assert "ruleset.yaml:" in error.value.render()


def test_no_cache_turns_it_off(cache_dir: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    """RULEKIT_NO_CACHE=1: nothing is written."""
    monkeypatch.setenv("RULEKIT_NO_CACHE", "1")
    load.load_program("tic_tac_toe")
    assert not cache_dir.exists() or not list(cache_dir.glob("program-*"))


@pytest.mark.skipif(not hasattr(__import__("os"), "getuid"), reason="POSIX ownership only")
def test_a_cache_directory_others_can_write_is_never_used(cache_dir: Path) -> None:
    """Cached programs are pickles: a group- or world-writable cache directory is ignored."""
    cache_dir.mkdir(mode=0o700)
    cache_dir.chmod(0o777)
    load.load_program("tic_tac_toe")
    assert not list(cache_dir.glob("program-*"))
    cache_dir.chmod(0o700)
    _fresh_process()
    load.load_program("tic_tac_toe")
    assert list(cache_dir.glob("program-*"))


@pytest.mark.parametrize("enabled", [True, False])
def test_a_cold_load_pauses_the_garbage_collector_and_restores_it(
    cache_dir: Path, monkeypatch: pytest.MonkeyPatch, enabled: bool
) -> None:
    import gc

    seen: list[bool] = []
    real = load._load_program

    def compiling(*args: object) -> object:
        seen.append(gc.isenabled())
        return real(*args)  # type: ignore[arg-type]

    monkeypatch.setattr(load, "_load_program", compiling)
    was = gc.isenabled()
    (gc.enable if enabled else gc.disable)()
    try:
        load.load_program("tic_tac_toe")
        assert seen == [False]
        assert gc.isenabled() is enabled
    finally:
        (gc.enable if was else gc.disable)()
