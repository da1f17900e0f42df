"""A readable text rendering of any state, plus the ruleset's own display panels.

The generic part needs nothing from the ruleset: game and turn fields, one line
per player, one line per component with something set, the latest notes.  What
the viewer may not see (the engine's information model,
:func:`rulekit.engine.information.unseen`) is shown only as its size, as :meth:`State.view`
says, and the panels are evaluated on the masked fields.

A ruleset may draw its own panels with DSL expressions; they then replace the
generic field list (see docs/cli.md)::

    display:
      panels:
        - title: Board
          lines: "[join([mark(c) for c in cells if c.row == r], ' | ') for r in range(0, 2)]"

``lines`` is an expression giving a list of strings (or one string); ``me`` is
the viewer.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

from attrs import frozen

from rulekit.compiler.program import Program
from rulekit.dsl import types as t
from rulekit.dsl.types import Type
from rulekit.engine.game import State
from rulekit.engine.information import masked_fields
from rulekit.engine.outcome import cooperative, success_threshold
from rulekit.errors import DiagnosticBag, RulekitError, RulesetError, Span, did_you_mean
from rulekit.rules.yaml_source import LocStr, span_of
from rulekit.tools.rules_listing import describe_rules as describe_rules  # re-exported: was here

_PANEL_KEYS = ("title", "lines", "doc")
MAX_NOTES_SHOWN = 5


@frozen
class Panel:
    """A compiled display panel: a title and a function giving its lines."""

    title: str
    lines: Callable[..., Any]
    span: Span | None


_PANELS: dict[int, tuple[Program, tuple[Panel, ...]]] = {}


def compile_display(program: Program) -> tuple[Panel, ...]:
    """Check and compile the ruleset's ``display`` section (cached per program).

    Raises:
        RulesetError: a malformed section or a bad expression, every problem at its position.
    """
    cached = _PANELS.get(id(program))
    if cached is not None and cached[0] is program:
        return cached[1]
    display = program.rules.display
    bag = DiagnosticBag()
    panels: list[Panel] = []
    for key in display:
        if key != "panels":
            bag.error(
                f"unknown display key '{key}'",
                getattr(display, "key_spans", {}).get(key) or span_of(display[key], span_of(display)),
                hint=did_you_mean(str(key), ["panels"]),
            )
    entries = display.get("panels") or []
    if not isinstance(entries, list):
        bag.error("display.panels must be a list of {title, lines}", span_of(entries, span_of(display)))
        entries = []
    for entry in entries:
        if not isinstance(entry, dict):
            # a number or a null has no span of its own: the list's
            bag.error(
                "a display panel is a mapping {title: ..., lines: EXPR}", span_of(entry, span_of(entries))
            )
            continue
        for key in entry:
            if key not in _PANEL_KEYS:
                bag.error(
                    f"unknown panel key '{key}'",
                    getattr(entry, "key_spans", {}).get(key),
                    hint=did_you_mean(str(key), _PANEL_KEYS),
                    expected=_PANEL_KEYS,
                )
        text = entry.get("lines")
        if not isinstance(text, str):
            bag.error(
                "a display panel needs 'lines': a DSL expression giving a list of strings", span_of(entry)
            )
            continue
        origin = text.origin if isinstance(text, LocStr) else None
        try:
            fn, type_ = program.compile_expression(str(text), origin)
        except RulekitError as error:
            bag.extend(error.diagnostics)
            continue
        if not (type_ == t.STR or t.compatible(t.list_of(t.STR), type_)):
            bag.error(f"a panel's lines must be a list of str, not {type_}", span_of(text))
            continue
        panels.append(Panel(str(entry.get("title") or ""), fn, span_of(text)))
    bag.raise_if_any(RulesetError)
    result = tuple(panels)
    _PANELS[id(program)] = (program, result)
    return result


# ------------------------------------------------------------------ values


def show_value(value: Any, type_: Type = t.ANY) -> str:
    """A value for people: players as P1, lists in brackets, maps in braces."""
    if value is None:
        return "none"
    if isinstance(value, bool):
        return "true" if value else "false"
    if type_ in (t.PLAYER, t.OWNER) and isinstance(value, int):
        return "bank" if value == -1 else f"P{value + 1}"
    if isinstance(value, tuple):
        inner = t.element_type(type_) if type_.is_list else t.ANY
        if len(value) > 3 and all(v == value[0] and type(v) is type(value[0]) for v in value):
            return f"[{len(value)} x {show_value(value[0], inner)}]"
        return "[" + ", ".join(show_value(v, inner) for v in value) + "]"
    if isinstance(value, dict):
        return "{" + ", ".join(f"{show_value(k)}: {show_value(v)}" for k, v in value.items()) + "}"
    return str(value)


def _hidden_size(shown: Any) -> int | None:
    if isinstance(shown, dict) and set(shown) == {"hidden"}:
        return int(shown["hidden"])
    return None


def _is_empty(value: Any, type_: Type) -> bool:
    if value is None:
        return True
    if type_ in (t.PLAYER, t.OWNER) or type_.name == "entity":
        return False
    if isinstance(value, tuple):
        return all(_is_empty(v, t.element_type(type_)) for v in value)
    return value is False or value == 0 or value == {} or value == ""


# ------------------------------------------------------------------- state


def describe_decision(state: State) -> str:
    """``P2 to play (place)`` or ``game over``."""
    if state.is_terminal():
        return "game over"
    names = ", ".join(state.allowed_action_names())
    return f"P{state.current_player() + 1} to play ({names})"


def render_state(
    state: State, viewer: int | None = None, *, panels: bool = True, fields: bool | None = None
) -> str:
    """The state as text, as ``viewer`` may see it (``None``: a spectator).

    A ruleset's own display panels come first; the generic list of every field
    follows when ``fields`` is true (by default: only if the ruleset has no panels).
    """
    game = state.game
    program = game.program
    rules = program.rules
    view = state.view(viewer)
    out: list[str] = [f"{rules.title} · move {state.moves()} · {describe_decision(state)}"]

    panel_lines = render_panels(state, viewer) if panels else []
    out.extend(panel_lines)
    show_fields = not panel_lines if fields is None else fields
    if not show_fields:
        _append_notes(out, state, viewer)
        return "\n".join(out)

    def field_text(key: str, value: Any, type_: Type) -> str:
        size = _hidden_size(view.get(key))
        if size is not None:
            return f"(hidden, {size})" if isinstance(value, tuple | dict) else "(hidden)"
        return show_value(value, type_)

    for scope in ("game", "turn"):
        scope_fields = rules.fields.get(scope, {})
        if not scope_fields or (scope == "turn" and state.is_terminal()):
            continue
        out.append(f"-- {scope} --")
        width = max(len(n) for n in scope_fields)
        for name in scope_fields:
            type_ = program.field_types[scope][name]
            value = state.fields.get((scope, name))
            out.append(f"  {name.ljust(width)}  {field_text(f'{scope}.{name}', value, type_)}")

    player_fields = rules.fields.get("player", {})
    if player_fields:
        out.append("-- players --")
        deciding = None if state.is_terminal() else state.current_player()
        for p in range(game.num_players):
            types = program.field_types["player"]
            parts = [
                f"{name}={field_text(f'P{p + 1}.{name}', state.fields.get((p, name)), types[name])}"
                for name in player_fields
            ]
            marker = ">" if p == deciding else " "
            you = " (you)" if p == viewer else ""
            out.append(f" {marker}P{p + 1}{you}  " + "  ".join(parts))

    for kind, spec in rules.kinds.items():
        kind_fields = rules.fields.get(kind, {})
        if not kind_fields:
            continue
        lines, quiet = [], []
        for item in spec.items:
            values = {name: state.fields.get((item.id, name)) for name in kind_fields}
            if all(_is_empty(v, program.field_types[kind][n]) for n, v in values.items()):
                quiet.append(item.id)
                continue
            parts = [
                f"{name}={field_text(f'{item.id}.{name}', value, program.field_types[kind][name])}"
                for name, value in values.items()
            ]
            lines.append(f"  {item.id}  " + "  ".join(parts))
        out.append(f"-- {spec.collection} --")
        out.extend(lines)
        if quiet:
            shown = ", ".join(quiet[:12]) + (", ..." if len(quiet) > 12 else "")
            out.append(f"  ({len(quiet)} with nothing set: {shown})")

    _append_notes(out, state, viewer)
    return "\n".join(out)


def _append_notes(out: list[str], state: State, viewer: int | None) -> None:
    notes = state.notes()
    if notes:
        out.append("-- notes --")
        out.extend(f"  {n}" for n in notes[-MAX_NOTES_SHOWN:])
    told = state.told(viewer)
    if told:
        out.append(f"-- to P{viewer + 1} only --" if viewer is not None else "-- told --")
        out.extend(f"  {n}" for n in told[-MAX_NOTES_SHOWN:])


def render_panels(state: State, viewer: int | None = None) -> list[str]:
    """The ruleset's own display panels evaluated on what ``viewer`` may see (unseen values read
    as none: :func:`rulekit.engine.information.masked_fields`); a panel that fails says so
    instead of its lines."""
    try:
        panels = compile_display(state.game.program)
    except RulekitError as error:
        return [f"(display section has errors: {error.diagnostics[0].message})"]
    out = []
    fields = masked_fields(state, viewer)
    me = viewer  # a spectator (None) is nobody: a panel's `if me != none` guard holds for players only
    for panel in panels:
        if panel.title:
            out.append(f"-- {panel.title} --")
        state.game.runtime.reset_steps()  # each panel is an evaluation of its own, with a whole budget
        try:
            result = panel.lines(fields, state.game.runtime, me)
        except Exception as error:  # a panel must never break the display
            out.append(f"  (panel failed: {type(error).__name__}: {error}; at {panel.span})")
            continue
        if isinstance(result, str):
            out.extend(result.splitlines())
        else:
            out.extend(str(line) for line in result)
    return out


def render_standings(state: State) -> str:
    """The final standings as a table: place, player, score and tie-breaks."""
    standings = state.standings()
    extra = len(standings[0][1]) - 1 if standings else 0
    header = ["place", "player", "score", *(f"tiebreak {i + 1}" for i in range(extra))]
    rows = []
    place = 0
    previous = None
    for index, (player, key) in enumerate(standings):
        if key != previous:
            place = index + 1
            previous = key
        rows.append([str(place), f"P{player + 1}", *(str(k) for k in key)])
    widths = [max(len(r[i]) for r in [header, *rows]) for i in range(len(header))]
    lines = ["  ".join(h.ljust(w) for h, w in zip(header, widths, strict=True))]
    lines.extend("  ".join(c.ljust(w) for c, w in zip(row, widths, strict=True)) for row in rows)
    winners = state.winners()
    if cooperative(state.game):
        score, threshold = standings[0][1][0], success_threshold(state.game)
        verdict = "a success" if winners else "not a success"
        lines.append(f"result: {verdict} (shared score {score}; a success at {threshold} or more)")
    elif state.game.num_players == 1:  # against the rules: the sign of the score decides
        score = state.scores()[0]
        lines.append("result: " + {1: "won", 0: "a draw", -1: "lost"}[(score > 0) - (score < 0)])
    elif len(winners) == state.game.num_players and len(winners) > 1:
        lines.append("result: a tie between all players")
    elif len(winners) == 1:
        lines.append(f"winner: P{winners[0] + 1}")
    else:
        lines.append("winners: " + ", ".join(f"P{w + 1}" for w in winners))
    return "\n".join(line.rstrip() for line in lines)
