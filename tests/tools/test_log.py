"""Action logs: written as JSON Lines, replayed to the same state, refused when the rules changed."""

from __future__ import annotations

import json
import shutil
from collections.abc import Callable
from pathlib import Path
from typing import Any

import pytest

from rulekit.cli import main
from rulekit.errors import ReplayError
from rulekit.load import load_game
from rulekit.tools.bots import RandomBot, play_game
from rulekit.tools.log import GameRecorder, read_log, replay, state_digest

ROOT = Path(__file__).resolve().parents[2]


def _played_log(tmp_path: Path, seed: int = 5) -> tuple[Path, str]:
    game = load_game("tic_tac_toe", 2)
    path = tmp_path / "game.jsonl"
    played = play_game(game, seed, [RandomBot(1), RandomBot(2)], log=path)
    played.log.close()
    return path, played.state.state_hash()


def test_log_has_a_header_then_one_line_per_action_then_the_final_hash(tmp_path: Path) -> None:
    path, final = _played_log(tmp_path)
    lines = [json.loads(line) for line in path.read_text().splitlines()]
    header = lines[0]
    assert header["rulekit_log"] == 1
    assert header["ruleset"] == "tic_tac_toe"
    assert header["modules"] == [] and header["variants"] == []
    assert header["players"] == 2 and header["seed"] == 5
    assert len(header["fingerprint"]) == 16
    assert all(set(line) == {"player", "action", "h"} for line in lines[1:-1])
    assert lines[1]["player"] == "P1" and lines[1]["action"].startswith("place(")
    assert lines[-1] == {"final_hash": final}


def test_each_action_line_carries_the_digest_of_the_state_after_it(tmp_path: Path) -> None:
    path, _ = _played_log(tmp_path)
    lines = [json.loads(line) for line in path.read_text().splitlines()]
    state = load_game("tic_tac_toe", 2).new_initial_state(lines[0]["seed"])
    for line in lines[1:-1]:
        state.apply_action(line["action"])
        assert line["h"] == state_digest(state) == state.state_hash()[:12]


def _rewrite(path: Path, edit: Callable[[int, dict[str, Any]], None]) -> None:
    entries = [json.loads(line) for line in path.read_text().splitlines()]
    for number, entry in enumerate(entries, start=1):
        edit(number, entry)
    path.write_text("".join(json.dumps(e) + "\n" for e in entries))


def test_a_log_without_digests_still_replays(tmp_path: Path) -> None:
    path, final = _played_log(tmp_path)
    _rewrite(path, lambda _, entry: entry.pop("h", None))  # as written before digests existed
    assert not read_log(path).digests
    assert replay(path).state_hash() == final


@pytest.mark.parametrize("digest", ["xyz", 12, "ABCDEF012345", "0123456789abcdef", None])
def test_a_malformed_digest_is_refused_at_its_line(
    tmp_path: Path, digest: object, capsys: pytest.CaptureFixture[str]
) -> None:
    path, _ = _played_log(tmp_path)
    _rewrite(path, lambda number, entry: entry.update(h=digest) if number == 3 else None)
    with pytest.raises(ReplayError) as caught:
        read_log(path)
    assert f'{path}:3:1: error: the action\'s state digest "h" must be 12 lowercase hex' in (
        caught.value.render()
    )
    assert main(["replay", str(path)]) == 1
    assert f"{path}:3:1" in capsys.readouterr().err


def test_replay_names_the_action_whose_outcome_differs_from_its_digest(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    path, _ = _played_log(tmp_path)
    _rewrite(path, lambda number, entry: entry.update(h="0" * 12) if number == 4 else None)
    action = read_log(path).actions[2][2]
    with pytest.raises(ReplayError) as caught:
        replay(path)
    message = caught.value.render()
    assert f"{path}:4:1: error: action 3 (P1 {action}) has another outcome" in message
    assert "the log says 000000000000" in message
    assert main(["replay", str(path)]) == 1
    assert f"{path}:4:1" in capsys.readouterr().err


@pytest.mark.parametrize("seed", [0, 1, 2, 3])
def test_replay_gives_the_same_state_hash(tmp_path: Path, seed: int) -> None:
    path, final = _played_log(tmp_path, seed)
    assert replay(path).state_hash() == final


def test_replay_against_changed_rules_is_refused_naming_both_fingerprints(tmp_path: Path) -> None:
    path, _ = _played_log(tmp_path)
    changed = tmp_path / "tic_tac_toe"
    shutil.copytree(ROOT / "rulesets" / "tic_tac_toe", changed)
    rules = changed / "ruleset.yaml"
    text = rules.read_text()
    assert "      - [c1, b2, a3]\n" in text
    rules.write_text(text.replace("      - [c1, b2, a3]\n", ""))  # one line fewer in the LINES constant
    logged = read_log(path).header["fingerprint"]
    with pytest.raises(ReplayError) as caught:
        replay(path, ruleset=str(changed))
    message = caught.value.render()
    assert "the rules changed" in message
    assert logged in message
    assert "fingerprint" in message.split(logged, 1)[1]  # the new fingerprint is named too


def test_replay_refuses_an_action_that_is_not_legal(tmp_path: Path) -> None:
    path, _ = _played_log(tmp_path)
    lines = path.read_text().splitlines()
    lines[2] = lines[1].replace('"P1"', '"P2"')  # P2 marks the cell P1 just marked
    path.write_text("\n".join(lines[:3]) + "\n")
    with pytest.raises(ReplayError) as caught:
        replay(path)
    assert f"{path}:3:1" in caught.value.render()
    assert "cannot replay place(" in caught.value.render()


def test_replay_refuses_a_different_final_hash(tmp_path: Path) -> None:
    path, _ = _played_log(tmp_path)
    lines = path.read_text().splitlines()
    lines[-1] = json.dumps({"final_hash": "0000000000000000"})
    path.write_text("\n".join(lines) + "\n")
    with pytest.raises(ReplayError, match="but the log says 0000000000000000"):
        replay(path)


def test_a_file_that_is_not_a_log_is_refused(tmp_path: Path) -> None:
    path = tmp_path / "x.jsonl"
    path.write_text('{"hello": 1}\n')
    with pytest.raises(ReplayError, match="not a rulekit log"):
        read_log(path)


@pytest.mark.parametrize(
    ("key", "value", "expected"),
    [
        ("players", "two", "'players' must be an integer"),
        ("seed", None, "'seed' must be an integer"),
        ("modules", "porto", "'modules' must be a list of strings"),
        ("variants", ["misere.yaml"], "'variants' must be a list of"),
    ],
)
def test_a_header_entry_of_the_wrong_type_is_refused_at_line_one(
    tmp_path: Path, key: str, value: object, expected: str
) -> None:
    """A damaged or hand-edited header is a located ReplayError, not a crash."""
    path, _ = _played_log(tmp_path)
    lines = path.read_text().splitlines()
    header = json.loads(lines[0])
    header[key] = value
    path.write_text("\n".join([json.dumps(header), *lines[1:]]) + "\n")
    with pytest.raises(ReplayError) as caught:
        replay(path)
    assert f"{path}:1:1: error: the log header's {expected}" in caught.value.render()


def test_a_log_that_is_not_utf8_text_is_refused(tmp_path: Path) -> None:
    """Binary junk given as a log is a ReplayError, not a decoding traceback."""
    path = tmp_path / "game.jsonl"
    path.write_bytes(b"\xff\xfe\x00")
    with pytest.raises(ReplayError, match="is not UTF-8 text"):
        read_log(path)


@pytest.mark.parametrize("digests", [True, False])
def test_a_recorder_written_at_the_end_has_digests_unless_turned_off(tmp_path: Path, digests: bool) -> None:
    game = load_game("tic_tac_toe", 2)
    recorder = GameRecorder(game.new_initial_state(3), 3, digests=digests)
    for action in ("place(b2)", "place(a1)", "place(c3)"):
        recorder.apply_action(action)
    path = tmp_path / "game.jsonl"
    recorder.write(path)
    log = read_log(path)
    assert len(log.digests) == (3 if digests else 0)
    assert replay(path).state_hash() == recorder.state.state_hash()
