"""rulekit render and rulekit replay --html: outputs, options and errors."""

from __future__ import annotations

import json
import re
import xml.etree.ElementTree as ET
from collections.abc import Callable
from pathlib import Path
from typing import Any

import pytest

from rulekit.cli import main
from rulekit.tools.replay_html import _new_notes

Run = Callable[..., tuple[int, str, str]]
SVG = "{http://www.w3.org/2000/svg}"


@pytest.fixture
def run(capsys: pytest.CaptureFixture[str]) -> Run:
    def run_(*argv: str) -> tuple[int, str, str]:
        status = main(list(argv))
        captured = capsys.readouterr()
        return status, captured.out, captured.err

    return run_


@pytest.fixture
def ttt_log(tmp_path: Path) -> Path:
    """A finished tic-tac-toe game: P1 wins on the diagonal after five actions."""
    path = tmp_path / "ttt.jsonl"
    lines = [
        {
            "rulekit_log": 1,
            "ruleset": "tic_tac_toe",
            "modules": [],
            "variants": [],
            "fingerprint": _fingerprint(),
            "players": 2,
            "seed": 0,
        },
        *(
            {"player": p, "action": a}
            for p, a in [
                ("P1", "place(a1)"),
                ("P2", "place(b1)"),
                ("P1", "place(b2)"),
                ("P2", "place(c1)"),
                ("P1", "place(c3)"),
            ]
        ),
    ]
    path.write_text("".join(json.dumps(line) + "\n" for line in lines), encoding="utf-8")
    return path


def _fingerprint() -> str:
    from rulekit.load import load_program

    return load_program("tic_tac_toe").fingerprint


def _marks(svg: Path) -> list[str]:
    root = ET.parse(svg).getroot()
    return [t.text or "" for t in root.iter(f"{SVG}text") if t.get("class") == "layer-marks"]


def test_render_draws_a_ruleset_after_setup(run: Run, tmp_path: Path) -> None:
    out = tmp_path / "board.svg"
    status, text, _ = run("render", "tic_tac_toe", "-o", str(out))
    assert status == 0 and text.startswith(f"wrote {out} (")
    assert _marks(out) == []


def test_render_draws_a_log_after_a_given_step(run: Run, tmp_path: Path, ttt_log: Path) -> None:
    out = tmp_path / "step3.svg"
    assert run("render", str(ttt_log), "--step", "3", "-o", str(out))[0] == 0
    assert _marks(out) == ["X", "O", "X"]
    assert run("render", str(ttt_log), "-o", str(out))[0] == 0
    assert _marks(out) == ["X", "O", "O", "X", "X"]


def test_render_of_a_step_beyond_the_log_is_a_usage_error(run: Run, tmp_path: Path, ttt_log: Path) -> None:
    status, _, err = run("render", str(ttt_log), "--step", "9", "-o", str(tmp_path / "x.svg"))
    assert status == 2
    assert "--step must be from 0 to 5 for this log, not 9" in err
    assert not (tmp_path / "x.svg").exists()


def test_render_for_a_seat_names_the_seat(run: Run, tmp_path: Path) -> None:
    out = tmp_path / "p2.svg"
    assert run("render", "el_caballero", "--players", "3", "--seat", "P2", "-o", str(out))[0] == 0
    root = ET.parse(out).getroot()
    assert any("as seen by P2" in (t.text or "") for t in root.iter(f"{SVG}text"))
    assert any(g.get("id") == "layer-own_hand" for g in root.iter(f"{SVG}g"))
    status, _, err = run("render", "el_caballero", "--seat", "P7", "-o", str(out))
    assert status == 2 and "--seat takes a seat from 1 to 2" in err


def test_render_of_a_ruleset_without_a_view_draws_the_default_view(
    run: Run, tmp_path: Path, write_ruleset: Callable[..., Path]
) -> None:
    path = write_ruleset(
        "ruleset: plain\nplayers: {min: 1, max: 1}\nstate:\n  game:\n    count: {type: int, initial: 7}\n"
        "actions:\n  go: {ends_turn: true}\nflow:\n  - turn: player_at(1)\n"
    )
    status, _, err = run("render", str(path), "-o", str(tmp_path / "x.svg"))
    assert (status, err) == (0, "")
    texts = [t.text for t in ET.parse(tmp_path / "x.svg").getroot().iter(f"{SVG}text")]
    assert "count: " in texts and "7" in texts


def test_render_to_stdout(run: Run) -> None:
    status, out, _ = run("render", "tic_tac_toe", "-o", "-")
    assert status == 0 and out.startswith("<svg ") and out.rstrip().endswith("</svg>")


def test_replay_html_is_one_self_contained_page(run: Run, tmp_path: Path, ttt_log: Path) -> None:
    """No network: no external scripts, styles, images or fonts; the data is inline."""
    out = tmp_path / "game.html"
    status, text, _ = run("replay", str(ttt_log), "--html", str(out))
    assert status == 0 and f"wrote {out} (5 steps)" in text
    page = out.read_text(encoding="utf-8")
    assert not re.search(r"<(script|link|img|iframe)[^>]+(src|href)=", page)
    assert "@import" not in page and "url(" not in page
    assert not [u for u in re.findall(r"https?://[^\s\"'<>\\]+", page) if u != "http://www.w3.org/2000/svg"]
    data = json.loads(
        re.search(r'<script id="data" type="application/json">(.*?)</script>', page, re.S).group(1)
    )
    assert [s["action"]["text"] for s in data["steps"][1:]] == [
        "place(a1)",
        "place(b1)",
        "place(b2)",
        "place(c1)",
        "place(c3)",
    ]
    assert data["steps"][5]["fired"] == ["action:place", "trigger:three_in_a_row"]
    assert data["steps"][5]["scores"] == [1, 0]
    assert data["rules"]["trigger:three_in_a_row"]["kind"] == "trigger"
    assert data["final"] == "final standings: P1 1, P2 0"


def test_replay_html_of_a_broken_log_names_the_line_and_writes_nothing(
    run: Run, tmp_path: Path, ttt_log: Path
) -> None:
    lines = ttt_log.read_text(encoding="utf-8").splitlines()
    lines[3] = json.dumps({"player": "P1", "action": "place(a1)"})
    ttt_log.write_text("\n".join(lines) + "\n", encoding="utf-8")
    out = tmp_path / "game.html"
    status, _, err = run("replay", str(ttt_log), "--html", str(out))
    assert status == 1
    assert "ttt.jsonl:4:1" in err
    assert not out.exists()


def test_notes_of_one_action_are_found_when_old_notes_scroll_away() -> None:
    assert _new_notes(["a", "b"], ["a", "b", "c"]) == ["c"]
    assert _new_notes(["a", "b", "c"], ["b", "c", "d", "e"]) == ["d", "e"]
    assert _new_notes([], ["x"]) == ["x"]
    assert _new_notes(["a"], ["a"]) == []


def test_render_of_a_log_played_with_a_ruleset_directory_takes_ruleset(run: Run, tmp_path: Path) -> None:
    """A log of rules outside the bundled ones is drawn with --ruleset, as replay does."""
    source = Path(__file__).parent / "data" / "shapes"
    log = tmp_path / "shapes.jsonl"
    assert run("play", str(source), "--seed", "1", "--quiet", "--log", str(log))[0] == 0
    out = tmp_path / "shapes.svg"
    status, text, _ = run("render", str(log), "--ruleset", str(source), "-o", str(out))
    assert status == 0, text
    assert ET.parse(out).getroot().find(f".//{SVG}g[@id='layer-tiles']") is not None


def test_replay_html_charts_each_players_score_at_every_step(run: Run, tmp_path: Path, ttt_log: Path) -> None:
    """One line per player with a point per step; the winner's line ends higher (smaller y)."""
    out = tmp_path / "game.html"
    assert run("replay", str(ttt_log), "--html", str(out))[0] == 0
    page = out.read_text(encoding="utf-8")
    chart = ET.fromstring(re.search(r'<svg id="chart".*?</svg>', page, re.S).group(0))
    lines = {p.get("data-player"): p.get("points", "").split() for p in chart.iter(f"{SVG}polyline")}
    assert sorted(lines) == ["P1", "P2"]
    assert all(len(points) == 6 for points in lines.values())  # set-up and five actions
    ys = {player: [float(point.split(",")[1]) for point in points] for player, points in lines.items()}
    assert ys["P1"][:5] == ys["P2"][:5]  # 0 to 0 until P1's winning move
    assert ys["P1"][5] < ys["P2"][5]


def test_render_writes_a_file_with_the_users_umask_like_any_other(run: Run, tmp_path: Path) -> None:
    """The picture is written atomically, yet readable as a file the user creates (not 0600)."""
    import os

    out = tmp_path / "board.svg"
    old = os.umask(0o022)
    try:
        assert run("render", "tic_tac_toe", "-o", str(out))[0] == 0
    finally:
        os.umask(old)
    assert out.stat().st_mode & 0o777 == 0o644
    assert [p.name for p in tmp_path.iterdir()] == ["board.svg"]  # no temporary file left


def test_render_to_a_place_it_cannot_write_names_that_place(run: Run, tmp_path: Path) -> None:
    """Not the temporary file beside it: the path the user gave, and nothing is left behind."""
    missing = tmp_path / "no" / "board.svg"
    status, _, err = run("render", "tic_tac_toe", "-o", str(missing))
    assert status == 1 and f"error: {missing}: No such file or directory" in err
    status, _, err = run("render", "tic_tac_toe", "-o", str(tmp_path))
    assert status == 1 and f"error: {tmp_path}: Is a directory" in err
    assert list(tmp_path.iterdir()) == []
    assert ".tmp" not in err


def _page_data(page: Path) -> Any:
    text = page.read_text(encoding="utf-8")
    return json.loads(
        re.search(r'<script id="data" type="application/json">(.*?)</script>', text, re.S).group(1)
    )


def test_replay_html_for_a_seat_draws_what_that_seat_may_see_at_every_step(run: Run, tmp_path: Path) -> None:
    """Royal Letter: with --seat P1 every frame is P1's picture (her card, the others' backs)."""
    from rulekit.tools.svg import to_svg
    from rulekit.tools.view import caption, draw
    from rulekit.tools.view_cli import replay_to

    log = tmp_path / "rl.jsonl"
    assert run("play", "royal_letter", "--players", "3", "--seed", "4", "--quiet", "--log", str(log))[0] == 0
    mine, spectator = tmp_path / "p1.html", tmp_path / "all.html"
    assert run("replay", str(log), "--html", str(mine), "--seat", "P1")[0] == 0
    assert run("replay", str(log), "--html", str(spectator))[0] == 0
    assert "as seen by P1" in mine.read_text(encoding="utf-8").split("<script")[0]
    data, other = _page_data(mine), _page_data(spectator)
    assert data["seat"] == "P1" and other["seat"] is None
    for step in range(len(data["steps"])):
        state = replay_to(str(log), step)
        frame = "\n".join(data["chunks"][k] for k in data["steps"][step]["frame"])
        assert frame == to_svg(draw(state, 0), caption=caption(state, 0)).rstrip("\n"), step
        seen = "\n".join(other["chunks"][k] for k in other["steps"][step]["frame"])
        assert seen == to_svg(draw(state, None), caption=caption(state, None)).rstrip("\n"), step
        assert frame != seen  # P1's own card is face up only in her pages
    status, _, err = run("replay", str(log), "--seat", "P1")
    assert status == 2 and "give --html FILE or --seat-log FILE too" in err
