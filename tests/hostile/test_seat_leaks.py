"""What a seat receives is computed from what it may see: scores included, on every channel.

The channels are serve's ``/api/state``, a step of ``replay --html --seat`` and ``render --seat``;
all three build the seat's view with :func:`rulekit.tools.seat_view.seat_view`.  For reachable
states s and a resample s' that differs only in what the seat cannot see
(:func:`rulekit.engine.information.determinize`), each channel's output is byte-identical, and
a channel made to read the true state is caught.
"""

from __future__ import annotations

import json
import random
from collections.abc import Callable, Iterator
from pathlib import Path
from typing import Any

import attrs
import pytest

from rulekit.cli import main
from rulekit.engine.game import State
from rulekit.engine.information import determinize, known_scores, score_reach
from rulekit.load import load_game
from rulekit.tools import replay_html, seat_view, serve, view_cli
from rulekit.tools.bots import FirstLegalBot, RandomBot
from rulekit.tools.log import GameRecorder
from rulekit.tools.view import drawing
from tests.hostile.web_requests import client
from tests.view.conftest import need_web

Channel = Callable[[State, int, Path], str]


def _served(state: State, seat: int, work: Path) -> str:
    session = serve.Session(state.game, 0, {0, 1}, [FirstLegalBot(), FirstLegalBot()], str(work / "s.jsonl"))
    session.recorder.state = state
    answer = client(session).get("/api/state", headers={serve.TOKEN_HEADER: session.seat_tokens[seat]})
    assert answer.status_code == 200
    data = answer.json()
    data.pop("log")  # the log of actions is the session's own, not the state's
    return json.dumps(data, sort_keys=True)


def _replayed(state: State, seat: int, work: Path) -> str:
    chunks = replay_html._Chunks()
    step = replay_html._step(state, chunks, None, [], [], seat)
    step["frame"] = "\n".join(chunks.items[k] for k in step["frame"])
    return json.dumps(step, sort_keys=True)


def _rendered(state: State, seat: int, work: Path) -> str:
    out = work / "r.svg"
    log = work / "any.jsonl"
    log.write_text("{}\n", encoding="utf-8")  # a log file by name; replay_to below gives the state

    original = view_cli.replay_to
    view_cli.replay_to = lambda *args, **kwargs: state  # type: ignore[assignment]
    try:
        assert main(["render", str(log), "--seat", f"P{seat + 1}", "-o", str(out)]) == 0
    finally:
        view_cli.replay_to = original
    return out.read_text(encoding="utf-8")


CHANNELS: dict[str, Channel] = {"serve": _served, "replay": _replayed, "render": _rendered}


def _states(ruleset: str, seed: int, count: int) -> Iterator[State]:
    """Reachable states of a two-player game played by random bots."""
    game = load_game(ruleset, 2)
    state = game.new_initial_state(seed)
    bot = RandomBot(seed)
    for _ in range(count):
        if state.is_terminal():
            return
        yield state.clone()
        state.apply_action(bot.choose(state))


def _unseen_differs(state: State, other: State, seat: int) -> bool:
    """Whether a resample changed what the seat cannot see (the other player's hand, the deck)."""
    return state.fields != other.fields


def _leaks(channel: Channel, tmp_path: Path, ruleset: str = "royal_letter") -> list[str]:
    """The states where ``channel`` gave a seat different outputs for s and a resample s'."""
    found = []
    for n, state in enumerate(_states(ruleset, 0, 12)):
        for seat in (0, 1):
            other = determinize(state, seat, random.Random(n * 2 + seat))
            if not _unseen_differs(state, other, seat):
                continue
            if channel(state, seat, tmp_path) != channel(other, seat, tmp_path):
                found.append(f"move {n}, P{seat + 1}")
    return found


# ------------------------------------------------------------------ the findings


def test_royal_letter_scores_during_play_are_known_only_to_their_owner() -> None:
    """Seed 0: P1 holds a 4 and P2 a 1; the score is the card in hand."""
    state = load_game("royal_letter", 2).new_initial_state(0)
    assert state.scores() == [4, 1]
    assert score_reach(state.game) == "own"
    assert known_scores(state, 0) == [4, None]
    assert known_scores(state, 1) == [None, 1]
    assert known_scores(state, None) == [None, None]


def test_the_served_state_masks_the_scores_of_the_hidden_hands(tmp_path: Path) -> None:
    need_web()
    game = load_game("royal_letter", 2)
    session = serve.Session(game, 0, {0}, [FirstLegalBot(), FirstLegalBot()], str(tmp_path / "g.jsonl"))
    snap = client(session).get("/api/state", headers={serve.TOKEN_HEADER: session.seat_tokens[0]}).json()
    assert snap["scores"] == [4, None]


def test_the_replay_page_for_a_seat_masks_the_other_scores_and_its_chart_uses_only_them(
    tmp_path: Path,
) -> None:
    log = tmp_path / "g.jsonl"
    assert main(["play", "royal_letter", "--seed", "0", "--quiet", "--log", str(log)]) == 0
    data = replay_html.collect(log, seat="P1")
    playing = data["steps"][:-1]
    assert playing[0]["scores"] == [4, None]
    assert all(step["scores"][1] is None for step in playing)
    chart = replay_html.score_chart(data)
    # the chart's P2 line holds only the final (known) score: a single point, not a line
    (p2,) = [line for line in chart["lines"] if line["player"] == "P2"]
    assert p2["runs"] and all(run.count(",") == 1 for run in p2["runs"])
    page = tmp_path / "g.html"
    assert main(["replay", str(log), "--html", str(page), "--seat", "P1"]) == 0
    assert '"scores":[4,1]' not in page.read_text(encoding="utf-8")


def test_render_of_a_partial_log_for_a_seat_draws_no_hidden_card(tmp_path: Path) -> None:
    """A game in progress (its log still TARGET.partial): P2's picture is the same whatever
    P1 holds, and P1's cards are drawn face down."""
    game = load_game("royal_letter", 2)
    recorder = GameRecorder(game.new_initial_state(3), 3, log_path=tmp_path / "game.jsonl")
    bot = RandomBot(3)
    for _ in range(3):
        recorder.apply_action(bot.choose(recorder.state))
    partial = tmp_path / "game.jsonl.partial"
    assert partial.exists()
    out = tmp_path / "p2.svg"
    assert main(["render", str(partial), "--seat", "P2", "-o", str(out)]) == 0
    svg = out.read_text(encoding="utf-8")
    hidden = recorder.state.value(0, "hand")
    assert svg.count("<title>a hidden card</title>") == len(hidden)
    for n in range(5):
        other = determinize(recorder.state, 1, random.Random(n))
        assert seat_view.seat_view(other, 1).svg() == svg
    recorder.close()


# ------------------------------------------------------------------ one payload, every channel


@pytest.mark.parametrize("name", sorted(CHANNELS))
def test_a_channel_gives_a_seat_the_same_bytes_whatever_it_cannot_see(tmp_path: Path, name: str) -> None:
    need_web()
    assert _leaks(CHANNELS[name], tmp_path) == []


def _leaky_seat_view(state: State, seat: int | None) -> seat_view.SeatView:
    """A seat's view built from the true state: unmasked picture, every score."""
    original = drawing.masked_fields
    drawing.masked_fields = lambda state, seat: dict(state.fields)
    try:
        view = seat_view.seat_view(state, seat)
    finally:
        drawing.masked_fields = original
    return attrs.evolve(view, data={**view.data, "scores": state.scores()})


@pytest.mark.parametrize(
    ("name", "module"), [("serve", serve), ("replay", replay_html), ("render", view_cli)]
)
def test_a_channel_that_reads_the_true_state_is_caught(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, name: str, module: Any
) -> None:
    need_web()
    monkeypatch.setattr(module, "seat_view", _leaky_seat_view)
    assert _leaks(CHANNELS[name], tmp_path) != []
    for other in set(CHANNELS) - {name}:  # the others still do not leak
        assert _leaks(CHANNELS[other], tmp_path) == []


def test_scores_that_read_only_public_fields_are_shown_during_play() -> None:
    state = load_game("el_capitan", 2).new_initial_state(0)
    assert score_reach(state.game) == "public"
    assert known_scores(state, 0) == known_scores(state, None) == state.scores()


class _Bids:
    """A bot that always bids ``card``."""

    def __init__(self, card: int) -> None:
        self.card = card

    def choose(self, state: State) -> Any:
        return state.game.parse_action(f"bid({self.card})")


def test_serve_never_shows_a_seat_another_seats_pending_simultaneous_choice(tmp_path: Path) -> None:
    """Goofspiel served with a person as P2: P1's bot bids first; what P2's page receives
    (view, legal actions, the log of actions) is the same whatever it bid."""
    game = load_game("goofspiel", 2)
    seen = []
    for card in (1, 13):
        session = serve.Session(game, 0, {1}, [_Bids(card), FirstLegalBot()], str(tmp_path / "g.jsonl"))
        assert session.state.current_player() == 1 and session.state.chosen(0)
        snapshot = session.snapshot(1)
        assert [entry["text"] for entry in snapshot["log"]] == ["?"]
        seen.append(json.dumps(snapshot, sort_keys=True))
        assert "bid(13)" not in json.dumps(session.snapshot(None)["log"])
    assert seen[0] == seen[1]
