"""The progress of a long run: a live bar on a terminal, plain lines in a log file or CI."""

from __future__ import annotations

import io
import sys

import pytest

from rulekit.tools.progress import Progress
from tests.ecosystem.extras import require


class Terminal(io.StringIO):
    def isatty(self) -> bool:
        return True


def test_off_a_terminal_progress_is_plain_lines_with_speed_and_time_left() -> None:
    stream = io.StringIO()
    progress = Progress("A: ", stream, interval=0.0)
    for done in range(1, 4):
        progress(done, 3)
    progress.close()
    text = stream.getvalue()
    assert "\r" not in text and "\x1b" not in text
    lines = text.splitlines()
    assert [line.split(",")[0] for line in lines] == [f"simulating A: {n}/3 games" for n in (1, 2, 3)]
    assert all("games/s, ETA " in line for line in lines)
    assert text.endswith("\n")


def test_off_a_terminal_a_short_run_prints_nothing() -> None:
    stream = io.StringIO()
    progress = Progress("", stream, interval=60.0)
    for done in range(1, 6):
        progress(done, 5)
    progress.close()
    assert stream.getvalue() == ""


def test_on_a_terminal_without_rich_one_line_is_redrawn_in_place(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setitem(sys.modules, "rich.progress", None)  # importing it raises ImportError
    stream = Terminal()
    progress = Progress("", stream)
    progress(1, 2)
    progress(2, 2)
    progress.close()
    text = stream.getvalue()
    assert "\n" not in text
    assert text.count("\r\x1b[K") >= 2
    assert "simulating 2/2 games" in text


def test_on_a_terminal_rich_draws_a_bar_with_the_rate() -> None:
    require("rich", "progress")
    stream = Terminal()
    progress = Progress("", stream)
    progress(1, 4)
    assert progress._rich  # the bar is live
    progress(4, 4)
    progress.close()
    text = stream.getvalue()
    assert "simulating 4/4 games" in text
    assert "games/s" in text


def test_games_read_back_from_a_results_file_do_not_count_towards_the_speed(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    clock = [100.0]
    monkeypatch.setattr("rulekit.tools.progress.time.monotonic", lambda: clock[0])
    stream = io.StringIO()
    progress = Progress("", stream, interval=0.0)
    for done in range(1, 6):  # 5 games read back at once
        progress(done, 10, done)
    clock[0] += 10.0
    progress(6, 10, 5)  # one game played in 10 s: 4 left take 40 s
    assert stream.getvalue().splitlines()[-1] == "simulating 6/10 games, 0.10 games/s, ETA 40s"


def test_long_times_left_read_as_a_clock(monkeypatch: pytest.MonkeyPatch) -> None:
    clock = [0.0]
    monkeypatch.setattr("rulekit.tools.progress.time.monotonic", lambda: clock[0])
    stream = io.StringIO()
    progress = Progress("", stream, interval=0.0)
    clock[0] = 100.0
    progress(1, 100)
    clock[0] = 200.0
    progress(2, 100)  # 100 s a game, 98 left
    assert stream.getvalue().splitlines()[-1].endswith("0.01 games/s, ETA 2:43:20")
