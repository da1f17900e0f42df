"""``start:``: begin a scenario at a given seat or flow counter (``start: {player: P2, round: 3}``)."""

from __future__ import annotations

from collections.abc import Iterable, Sequence
from typing import Any

from rulekit.dsl import ast
from rulekit.dsl import types as t
from rulekit.engine.defaults import field_default as _field_default
from rulekit.engine.game import State
from rulekit.errors import Diagnostic, RulesetError, Span
from rulekit.rules.yaml_source import LocDict, span_of
from rulekit.tools.scenario import values
from rulekit.tools.scenario.context import ScenarioRun


def start(run: ScenarioRun, state: State) -> None:
    """``start: {player: P2, round: 3}``: who decides first and where the flow's counters stand."""
    start = run.data.get("start")
    if start is None:
        return
    if not isinstance(start, LocDict):
        raise RulesetError(
            Diagnostic("start is a mapping such as {player: P2, round: 3}", run.span(start, "start"))
        )
    for key, value in start.items():
        where = start.key_spans.get(key) or run.span(start)
        if key == "player":
            player = values.convert(run, value, t.PLAYER, span_of(value) or where)
            run.bag.raise_if_any()
            start_player(run, state, int(player), where)
        elif isinstance(value, int) and not isinstance(value, bool):
            start_counter(run, state, str(key), value, where)
        else:
            raise RulesetError(
                Diagnostic(f"start.{key} must be a whole number (a flow counter) or player: PN", where)
            )
    state.refresh()


def start_player(run: ScenarioRun, state: State, player: int, where: Span) -> None:
    F = state.fields
    frames = F[("_", "flow")]
    node = run.program.flow[frames[-1][0]] if frames else None
    if node is None or node.kind != "turn" or F[("_", "asks")]:
        raise RulesetError(Diagnostic("start.player: the game does not begin with a turn", where))
    # A turn whose player is a game field (turn: game.current, or a for_each's `as` field)
    # gets the field set too, so the rules go on from the new seat; a for_each going
    # through the players is turned to continue from her (P2, P3, P1 instead of P1, P2, P3).
    step = _turn_step(run.program.rules.flow, node.span)
    if step is not None and isinstance(step.player, ast.Attribute):
        subject = step.player.subject
        if isinstance(subject, ast.Name) and subject.id == "game":
            F[("game", step.player.name)] = player
            frames = _rotate_for_each(run.program.flow, frames, step.player.name, player)
    F[("_", "flow")] = (*frames[:-1], (frames[-1][0], player, False))
    F[("_", "turn")] = player
    for name, decl in run.program.rules.fields["turn"].items():
        F[("turn", name)] = _field_default(run.program.field_types["turn"][name], decl.declared.optional)
    run.game.runtime.reset_steps()
    for scope, name, fn in run.program.field_inits:
        if scope == "turn":
            F[("turn", name)] = fn(F, run.game.runtime, -1)
    on_start = node.fns.get("on_start")
    if on_start is not None:
        on_start(F, run.game.runtime, player)
    F[("_", "decision")] = (player, node.data["actions"])


def start_counter(run: ScenarioRun, state: State, name: str, value: int, where: Span) -> None:
    F = state.fields
    frames = F[("_", "flow")]
    for index, frame in enumerate(frames):
        node = run.program.flow[frame[0]]
        if node.kind == "repeat" and node.data.get("counter") == name:
            _, _, limit = frame
            if value < 1 or (limit is not None and value > limit):
                raise RulesetError(Diagnostic(f"start.{name} must be from 1 to {limit}, not {value}", where))
            F[("_", "flow")] = (*frames[:index], (frame[0], value, limit), *frames[index + 1 :])
            F[("game", name)] = value
            return
    counters = [
        str(run.program.flow[f[0]].data.get("counter"))
        for f in frames
        if run.program.flow[f[0]].kind == "repeat" and run.program.flow[f[0]].data.get("counter")
    ]
    raise RulesetError(
        Diagnostic(
            f"start.{name}: no running repeat of the flow counts '{name}'",
            where,
            hint=(f"running counters: {', '.join(counters)}" if counters else "the flow has no counter")
            + f"; a plain field is set with setup: game.{name}",
        )
    )


def _rotate_for_each(nodes: Sequence[Any], frames: tuple[Any, ...], var: str, player: int) -> tuple[Any, ...]:
    """The flow frames with the innermost ``for_each`` over ``var`` continuing from ``player``."""
    for index in range(len(frames) - 1, -1, -1):
        frame = frames[index]
        node = nodes[frame[0]]
        if node.kind != "for_each" or node.data.get("var") != var:
            continue
        _, items, position = frame
        rest = list(items[position - 1 :])
        if player not in rest:
            return frames
        at = rest.index(player)
        items = (*items[: position - 1], *rest[at:], *rest[:at])
        return (*frames[:index], (frame[0], items, position), *frames[index + 1 :])
    return frames


def _turn_step(steps: Iterable[Any], span: Span | None) -> Any:
    """The ``turn:`` step of the rules' flow written at ``span``."""
    for step in steps:
        if hasattr(step, "player") and hasattr(step, "on_start") and step.span == span:
            return step
        for key in ("steps", "then", "otherwise"):
            found = _turn_step(getattr(step, key, None) or (), span)
            if found is not None:
                return found
    return None
