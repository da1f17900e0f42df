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
