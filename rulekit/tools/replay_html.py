"""``rulekit replay LOG --html FILE``: one self-contained HTML page that steps through a game.

The page holds the picture of every state (pieces shared between steps are stored
once), the action log with the rules each action set off (the action and every
trigger that fired, with their citations), the notes the rules wrote, and the
scores over time as a chart.  It needs no network: no fonts, scripts or styles
are fetched.  Keys: left/right step, PageUp/PageDown ten steps, Home/End.
"""

from __future__ import annotations

from collections.abc import Sequence
from pathlib import Path
from typing import Any

from rulekit.engine.game import Game, State
from rulekit.engine.information import HIDDEN_CHOICE, has_hidden_information, known_fired
from rulekit.engine.slots import CHOSEN
from rulekit.errors import Span
from rulekit.tools.files import write_output
from rulekit.tools.html import render, script_data
from rulekit.tools.log import apply_logged, load_game_for, player_text, read_log
from rulekit.tools.options import parse_seat
from rulekit.tools.seat_view import seat_view
from rulekit.tools.svg import safe_colour, svg_parts
from rulekit.tools.view import Picture, compile_view

CHART_W, CHART_H = 360, 170
#: What each step keeps of the seat's view (:func:`seat_view`) besides its picture.
STEP_KEYS = ("scores", "decision", "told", "errors")


def rule_table(game: Game) -> dict[str, dict[str, str]]:
    """What the page says about each action and trigger: kind, citation, description."""
    rules = game.program.rules
    table: dict[str, dict[str, str]] = {}
    for name, action in rules.actions.items():
        table[f"action:{name}"] = {
            "kind": "action",
            "name": name,
            "cite": action.cite or "",
            "doc": action.doc,
        }
    for name, trigger in rules.triggers.items():
        table[f"trigger:{name}"] = {
            "kind": "trigger",
            "name": name,
            "cite": trigger.cite or "",
            "doc": f"{trigger.timing} {trigger.event}",
        }
    return table


def _new_notes(before: Sequence[str], after: Sequence[str]) -> list[str]:
    """The notes written by one action (the engine keeps only the latest ones)."""
    for skip in range(len(before) + 1):
        kept = list(before[skip:])
        if list(after[: len(kept)]) == kept:
            return list(after[len(kept) :])
    return list(after)


class _Chunks:
    """Stores each distinct SVG piece once."""

    def __init__(self) -> None:
        self.index: dict[str, int] = {}
        self.items: list[str] = []

    def frame(self, picture: Picture, caption: str) -> list[int]:
        refs = []
        for part in svg_parts(picture, caption=caption):
            if part not in self.index:
                self.index[part] = len(self.items)
                self.items.append(part)
            refs.append(self.index[part])
        return refs


def collect(
    path: str | Path,
    *,
    ruleset: str | None = None,
    variants: Sequence[str] | None = None,
    seat: str | None = None,
) -> dict[str, Any]:
    """Replay a log and gather everything the page shows, as JSON-ready data; the pictures are
    what ``seat`` (``1`` or ``P1``) may see, a spectator's without it.

    Raises:
        ReplayError: an action cannot be replayed (the line is named).
        RulesetError: the ruleset's view does not compile (a ruleset without one gets the default view).
    """
    log = read_log(path)
    game = load_game_for(log, ruleset, variants)
    compile_view(game.program)
    viewer = None if seat is None else parse_seat(seat, game.num_players)
    state = game.new_initial_state(int(log.header["seed"]))
    chunks = _Chunks()
    steps: list[dict[str, Any]] = [_step(state, chunks, None, [], [], viewer)]
    fired: list[str] = []
    runtime = game.runtime
    previous = runtime.fired
    runtime.fired = fired.append
    try:
        for number, player, text in log.actions:
            deciding = player_text(state.current_player())
            notes = state.notes()
            fired.clear()
            apply_logged(state, Span(log.path, number, 1), player, text, log.chances.get(number, ()))
            others = viewer is None or deciding != player_text(viewer)
            if others and state.fields.get(CHOSEN):  # a face-down choice: the step's result will show
                text = HIDDEN_CHOICE
            action = {"player": deciding, "text": text}
            heard = known_fired(state, fired, viewer)
            steps.append(_step(state, chunks, action, heard, _new_notes(notes, state.notes()), viewer))
    finally:
        runtime.fired = previous
    view = game.program.rules.view
    colours = list(view.players) if view is not None else []
    palette = view.palette if view is not None else {}
    return {
        "title": game.program.rules.title,
        "ruleset": game.program.name,
        "modules": list(game.program.rules.modules),
        "players": game.num_players,
        # the seed deals every hidden card again: shown only where nothing is hidden
        "seed": None if has_hidden_information(game.program) else int(log.header["seed"]),
        "seat": None if viewer is None else f"P{viewer + 1}",
        "colours": [palette.get(c, c) for c in colours],
        "rules": rule_table(game),
        "chunks": chunks.items,
        "steps": steps,
        "final": _standings(state),
    }


def _step(
    state: State,
    chunks: _Chunks,
    action: dict[str, str] | None,
    fired: list[str],
    notes: list[str],
    seat: int | None,
) -> dict[str, Any]:
    view = seat_view(state, seat)  # what the seat is shown, as serve and render --seat show it
    return {
        "frame": chunks.frame(view.picture, view.caption),
        "action": action,
        "fired": fired,
        "notes": notes,
        **{key: view.data[key] for key in STEP_KEYS},
    }


def _standings(state: State) -> str:
    if not state.is_terminal():
        return "the log ends before the game does"
    standings = state.standings()
    return "final standings: " + ", ".join(f"P{p + 1} {key[0]}" for p, key in standings)


def score_chart(data: dict[str, Any]) -> dict[str, Any]:
    """The geometry of the score chart (one line per player) that the page template draws as
    SVG, from the scores the seat was shown: a score it could not know (None) is a gap in its line."""
    steps = data["steps"]
    count = max(1, len(steps) - 1)
    scores = [s["scores"] for s in steps]
    known = [v for s in scores for v in s if v is not None]
    low = min([0, *known])
    high = max([1, *known])
    left, top, width, height = 40, 12, CHART_W - 52, CHART_H - 36

    def x(i: int) -> float:
        return left + width * i / count

    def y(v: float) -> float:
        return top + height * (1 - (v - low) / (high - low))

    labels = [
        {"x": left - 4, "y": f"{y(high) + 4:.1f}", "anchor": "end", "text": high},
        {"x": left - 4, "y": f"{y(low) + 4:.1f}", "anchor": "end", "text": low},
        {"x": left, "y": CHART_H - 8, "anchor": "start", "text": 0},
        {"x": left + width, "y": CHART_H - 8, "anchor": "end", "text": f"{len(steps) - 1} actions"},
    ]
    colours = [safe_colour(c, "#333") for c in data["colours"]] or ["#333"]
    lines = [
        {
            "player": f"P{player + 1}",
            "runs": [
                " ".join(f"{x(i):.1f},{y(v):.1f}" for i, v in run)
                for run in _runs([(i, s[player]) for i, s in enumerate(scores)])
            ],
            "colour": colours[player % len(colours)],
            "legend_x": left + 4 + 34 * player,
        }
        for player in range(data["players"])
    ]
    return {
        "width": CHART_W,
        "height": CHART_H,
        "left": left,
        "top": top,
        "inner_width": width,
        "inner_height": height,
        "labels": labels,
        "lines": lines,
    }


def _runs(points: list[tuple[int, int | None]]) -> list[list[tuple[int, int]]]:
    """The stretches of a line between unknown (None) values."""
    runs: list[list[tuple[int, int]]] = [[]]
    for i, value in points:
        if value is None:
            if runs[-1]:
                runs.append([])
        else:
            runs[-1].append((i, value))
    return [run for run in runs if run]


def render_page(data: dict[str, Any]) -> str:
    """The self-contained HTML page (the template ``assets/replay.html``, see :mod:`rulekit.tools.html`)."""
    modules = f" with {', '.join(data['modules'])}" if data["modules"] else ""
    seen = f" · as seen by {data['seat']}" if data.get("seat") else ""
    seed = "" if data["seed"] is None else f", seed {data['seed']}"
    return render(
        "replay.html",
        title=data["title"],
        subtitle=f"{data['players']} players{modules}{seed}{seen} · {data['final']}",
        chart=score_chart(data),
        last=len(data["steps"]) - 1,
        data=script_data(data),
    )


def write_replay_html(
    log: str | Path,
    out: str,
    *,
    ruleset: str | None = None,
    variants: Sequence[str] | None = None,
    seat: str | None = None,
) -> int:
    """Write the replay page of ``log`` to ``out`` (as ``seat`` sees it); returns the number of steps."""
    data = collect(log, ruleset=ruleset, variants=variants, seat=seat)
    write_output(out, render_page(data))
    return len(data["steps"]) - 1
