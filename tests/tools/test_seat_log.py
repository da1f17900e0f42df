"""A seat's log holds what that seat saw and nothing else; the referee's log is named as such."""

from __future__ import annotations

import json
import random
from pathlib import Path
from typing import Any

import pytest

from rulekit.cli import main
from rulekit.engine.chance import apply_with_chance
from rulekit.engine.information import hidden_triggers, known_fired
from rulekit.load import load_game
from rulekit.tools.bots import make_bots
from rulekit.tools.human import play_human
from rulekit.tools.log import GameRecorder, read_log
from rulekit.tools.log.seat import seat_log_lines
from rulekit.tools.replay_html import collect

PEEK = Path(__file__).resolve().parents[1] / "data" / "peek"


def _played(ruleset: str, players: int, seed: int, limit: int = 400) -> GameRecorder:
    game = load_game(ruleset, players)
    recorder = GameRecorder(game.new_initial_state(seed), seed)
    rng = random.Random(seed)
    while not recorder.state.is_terminal() and len(recorder.actions) < limit:
        recorder.apply_action(rng.choice(recorder.state.legal_actions()))
    return recorder


def _keys(value: Any) -> set[str]:
    if isinstance(value, dict):
        return set(value) | {k for v in value.values() for k in _keys(v)}
    if isinstance(value, list):
        return {k for v in value for k in _keys(v)}
    return set()


def test_a_seats_log_has_no_seed_no_chance_outcomes_and_no_state_digests() -> None:
    recorder = _played("royal_letter", 3, 5)
    lines = [json.loads(x) for x in seat_log_lines(recorder.game, 5, recorder.played(), 1)]
    header, body = lines[0], lines[1:]
    assert header["seat"] == "P2" and header["rulekit_seat_log"] == 1
    assert not _keys(lines) & {"seed", "chance", "h", "final_hash", "referee"}
    # every action is there, in order (actions are public)
    actions = [line for line in body if "action" in line]
    assert [(x["player"], x["action"]) for x in actions] == [
        (f"P{p + 1}", text) for p, text in recorder.actions
    ]
    # the seat's decisions carry what it saw: its view, nothing of another seat's hand
    own = [line for line in actions if line["player"] == "P2"]
    assert own and all("saw" in line for line in own)
    assert all("saw" not in line for line in actions if line["player"] != "P2")
    for line in own:
        assert isinstance(line["saw"]["P2.hand"], list)  # her own hand, as cards
        assert set(line["saw"]["P1.hand"]) == {"hidden"}  # another's, as its size only
    assert body[-1]["end"] is True and body[-1]["scores"] == list(recorder.state.scores())


def test_the_seat_log_shows_exactly_the_view_the_seat_had_when_it_decided() -> None:
    recorder = _played("royal_letter", 2, 9)
    game = recorder.game
    state = game.new_initial_state(9)
    lines = [json.loads(x) for x in seat_log_lines(game, 9, recorder.played(), 0)][1:]
    checked = 0
    for line, (text, chance) in zip(lines, recorder.played(), strict=False):
        if line["player"] == "P1":
            assert line["saw"] == json.loads(json.dumps(state.view(0)))
            checked += 1
        apply_with_chance(state, text, chance)
    assert checked


def test_the_referees_log_says_it_is_the_referees_and_a_seats_log_cannot_be_replayed(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    log, mine = tmp_path / "game.jsonl", tmp_path / "p2.jsonl"
    assert main(["play", "royal_letter", "--players", "2", "--seed", "4", "--quiet", "--log", str(log)]) == 0
    assert read_log(log).header["referee"] is True
    assert main(["replay", str(log), "--seat", "P2", "--seat-log", str(mine)]) == 0
    assert "what P2 saw" in capsys.readouterr().out
    assert json.loads(mine.read_text().splitlines()[0])["seat"] == "P2"
    assert main(["replay", str(mine)]) == 1
    err = capsys.readouterr().err
    assert "p2.jsonl:1:1" in err and "the log of what P2 saw" in err and "cannot be replayed" in err


def test_play_writes_the_human_seats_log_beside_the_referees(tmp_path: Path) -> None:
    game = load_game("royal_letter", 2)
    answers = iter(["1"] * 200)
    mine, referee = tmp_path / "mine.jsonl", str(tmp_path / "ref.jsonl")
    code = play_human(
        game,
        1,
        make_bots(game, "random", 3),
        seed=3,
        max_actions=400,
        log=referee,
        seat_log=str(mine),
        read=lambda prompt="": next(answers, "quit"),
        write=lambda text: None,
    )
    assert code == 0
    lines = [json.loads(x) for x in mine.read_text().splitlines()]
    assert lines[0]["seat"] == "P2" and "seed" not in lines[0]
    assert any(line.get("player") == "P2" and "saw" in line for line in lines[1:])
    assert read_log(referee).header["referee"] is True


def test_seat_log_without_a_human_seat_is_a_usage_error(capsys: pytest.CaptureFixture[str]) -> None:
    assert main(["play", "tic_tac_toe", "--seat-log", "x.jsonl"]) == 2
    assert "give --human too" in capsys.readouterr().err


# ------------------------------------------------------------------ rules that fired

SNITCH = """\
triggers:
  top_card_is_high:
    doc: "A trigger whose condition reads the hidden deck: that it fired tells the next card."
    after: play
    when: "len(game.deck) > 0 and game.deck[0].value > 4"
    effect: game.table = game.table
view:
  width: 50
  height: 20
  layers:
    - text: {x: 1, y: 15, text: len(game.table)}
"""


def _snitch(tmp_path: Path) -> Path:
    text = (PEEK / "ruleset.yaml").read_text(encoding="utf-8").replace("ruleset: peek", "ruleset: snitch")
    folder = tmp_path / "snitch"
    folder.mkdir()
    (folder / "ruleset.yaml").write_text(text + "\n" + SNITCH, encoding="utf-8")
    return folder


def test_a_trigger_whose_condition_reads_hidden_fields_is_heard_of_only_after_the_game(
    tmp_path: Path,
) -> None:
    game = load_game(str(_snitch(tmp_path)), 2)
    assert hidden_triggers(game) == {"top_card_is_high"}
    state = game.new_initial_state(0)
    fired = ["action:play", "trigger:top_card_is_high"]
    assert known_fired(state, fired, 0) == ["action:play"]
    assert known_fired(state, fired, None) == ["action:play"]
    while not state.is_terminal():
        state.apply_action(state.legal_actions()[0])
    assert known_fired(state, fired, 0) == fired
    assert hidden_triggers(load_game("el_capitan", 2)) == frozenset()  # its triggers read public fields


def test_the_replay_page_of_a_hidden_game_withholds_the_seed_and_the_secret_triggers(tmp_path: Path) -> None:
    folder = _snitch(tmp_path)
    log = tmp_path / "snitch.jsonl"
    args = ["play", str(folder), "--quiet", "--seed", "2", "--max-actions", "40", "--log", str(log)]
    assert main(args) in (0, 1)
    data = collect(log, ruleset=str(folder), seat="P1")
    assert data["seed"] is None
    # the referee hears the trigger fire during play; the seat's page does not
    game = load_game(str(folder), 2)
    state, heard = game.new_initial_state(2), []
    game.runtime.fired = heard.append
    for _, _, text in read_log(log).actions[:-1]:
        state.apply_action(game.parse_action(text))
    game.runtime.fired = None
    assert "trigger:top_card_is_high" in heard
    during = [step["fired"] for step in data["steps"][1:-1]]
    assert all("trigger:top_card_is_high" not in fired for fired in during)
    tic = tmp_path / "tic.jsonl"
    assert main(["play", "tic_tac_toe", "--quiet", "--seed", "3", "--log", str(tic)]) == 0
    assert collect(tic)["seed"] == 3  # nothing hidden: the seed tells nothing


def test_another_seats_simultaneous_choice_shows_in_a_seats_log_only_once_its_step_resolves() -> None:
    recorder = _played("goofspiel", 2, 3, limit=9)
    lines = [json.loads(x) for x in seat_log_lines(recorder.game, 3, recorder.played(), 1)][1:]
    first_bids = [line for line in lines if line.get("player") == "P1"]
    assert first_bids and all(line["action"] == "?" for line in first_bids)
    revealed = [entry for line in lines for entry in line.get("revealed", [])]
    played_by_p1 = [text for p, text in recorder.actions if p == 0]
    resolved = played_by_p1[: len(revealed)]
    assert [r["action"] for r in revealed] == resolved and len(resolved) >= 4


def test_the_replay_page_shows_another_seats_simultaneous_choice_as_unknown(tmp_path: Path) -> None:
    log = tmp_path / "goof.jsonl"
    assert main(["play", "goofspiel", "--quiet", "--seed", "5", "--log", str(log)]) == 0
    mine = [step["action"] for step in collect(log, seat="P2")["steps"][1:]]
    assert {a["text"] for a in mine if a["player"] == "P1"} == {"?"}  # P1 always bids first
    assert all(a["text"] != "?" for a in mine if a["player"] == "P2")
