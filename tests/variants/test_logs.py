"""Game logs record each variant with its fingerprint; a replay against a changed variant is refused."""

from __future__ import annotations

import json
from collections.abc import Callable
from pathlib import Path

import pytest

from rulekit.errors import ReplayError
from rulekit.load import load_game
from rulekit.tools.log import GameRecorder, replay

WriteVariant = Callable[..., Path]
VARIANT = "variant: house\nruleset: tic_tac_toe\nset:\n  constants.LINES: [[a1, b1, c1], [a2, b2, c2]]\n"


def _record(variant: Path, log: Path) -> None:
    game = load_game("tic_tac_toe", 2, variants=[str(variant)])
    recorder = GameRecorder(game.new_initial_state(3), 3)
    for move in ["place(a1)", "place(a2)", "place(b1)", "place(b2)"]:
        recorder.apply_action(move)
    recorder.write(log)


def test_log_header_records_variant_path_and_fingerprint(write_variant: WriteVariant, tmp_path: Path) -> None:
    variant = write_variant(VARIANT)
    log = tmp_path / "game.jsonl"
    _record(variant, log)
    header = json.loads(log.read_text().splitlines()[0])
    (entry,) = header["variants"]
    assert entry["path"] == str(variant)
    assert len(entry["fingerprint"]) == 16
    assert replay(log, variants=[str(variant)]).moves() == 4


def test_replay_against_a_changed_variant_is_refused(write_variant: WriteVariant, tmp_path: Path) -> None:
    variant = write_variant(VARIANT)
    log = tmp_path / "game.jsonl"
    _record(variant, log)
    variant.write_text(VARIANT.replace("[a2, b2, c2]", "[a3, b3, c3]"))
    with pytest.raises(ReplayError) as info:
        replay(log, variants=[str(variant)])
    message = str(info.value)
    assert "the rules changed since this game was logged" in message
    assert f"variant {variant} changed (fingerprint" in message


def test_comment_only_change_of_a_variant_still_replays(write_variant: WriteVariant, tmp_path: Path) -> None:
    variant = write_variant(VARIANT)
    log = tmp_path / "game.jsonl"
    _record(variant, log)
    variant.write_text(
        "# we play this every Friday\n" + VARIANT.replace("variant: house", "variant: house\ntitle: Ours")
    )
    assert replay(log, variants=[str(variant)]).moves() == 4
