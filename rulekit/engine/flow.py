"""The flow interpreter: runs the ruleset's game structure up to the next decision.

The position in the flow is a stack of frames kept in the state itself (so it
is cloned, serialized and hashed with everything else):

* ``(node, index)`` for a sequence of steps,
* ``(node, iteration, limit)`` for ``repeat``,
* ``(node, items, index)`` for ``for_each``,
* ``(node, player, done)`` for ``turn``.

Pending ``ask`` decisions come before the flow goes on.  A turn in which the
player has no legal action ends by itself; so does an ask that cannot be
answered.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

from rulekit.engine.values import format_value
from rulekit.errors import Diagnostic, RuleEvaluationError
from rulekit.runtime.errors import RuleFailure

if TYPE_CHECKING:
    from rulekit.compiler.program import CompiledAction
    from rulekit.engine.game import State

_E = "_"
MAX_FLOW_STEPS = 1_000_000


def advance(state: State) -> None:
    """Run the flow until a player must decide or the game is over."""
    F = state.fields
    game = state.game
    program = game.program
    R = game.runtime
    nodes = program.flow
    steps = 0
    while True:
        steps += 1
        if steps > MAX_FLOW_STEPS:
            raise RuleEvaluationError(
                Diagnostic("the flow runs without ever asking a player to decide (an endless loop?)")
            )
        if F[(_E, "over")]:
            _finish(state)
            return
        asks = F[(_E, "asks")]
        if asks:
            player, names = asks[0]
            F[(_E, "decision")] = (player, tuple(names))
            F[(_E, "asked")] = True
            state._legal = None
            if state.legal_actions():
                return
            F[(_E, "asks")] = asks[1:]
            continue
        F[(_E, "asked")] = False
        frames = F[(_E, "flow")]
        if not frames:
            F[(_E, "over")] = True
            continue
        frame = frames[-1]
        node = nodes[frame[0]]
        kind = node.kind
        if kind == "seq":
            index = frame[1]
            if index >= len(node.children):
                F[(_E, "flow")] = frames[:-1]
                continue
            F[(_E, "flow")] = (*frames[:-1], (frame[0], index + 1))
            _enter(state, node.children[index])
        elif kind == "repeat":
            _, iteration, limit = frame
            fns = node.fns
            done = limit is not None and iteration >= limit
            if not done and fns.get("while") is not None and not fns["while"](F, R, -1):
                done = True
            if not done and iteration > 0 and fns.get("until") is not None and fns["until"](F, R, -1):
                done = True
            if done:
                F[(_E, "flow")] = frames[:-1]
                continue
            counter = node.data.get("counter")
            if counter:
                F[("game", counter)] = iteration + 1
            F[(_E, "flow")] = (*frames[:-1], (frame[0], iteration + 1, limit), (node.children[0], 0))
        elif kind == "for_each":
            _, items, index = frame
            if index >= len(items):
                F[(_E, "flow")] = frames[:-1]
                continue
            F[("game", node.data["var"])] = items[index]
            F[(_E, "flow")] = (*frames[:-1], (frame[0], items, index + 1), (node.children[0], 0))
        elif kind == "turn":
            _, player, done = frame
            if done:
                if node.fns.get("on_end") is not None:
                    node.fns["on_end"](F, R, player)
                F[(_E, "flow")] = frames[:-1]
                F[(_E, "turn")] = None
                continue
            F[(_E, "decision")] = (player, node.data["actions"])
            state._legal = None
            if state.legal_actions():
                return
            F[(_E, "flow")] = (*frames[:-1], (frame[0], player, True))
        else:  # pragma: no cover - the compiler only makes the kinds above
            raise AssertionError(kind)


def _enter(state: State, node_id: int) -> None:
    F = state.fields
    game = state.game
    R = game.runtime
    node = game.program.flow[node_id]
    frames = F[(_E, "flow")]
    kind = node.kind
    if kind == "seq":
        F[(_E, "flow")] = (*frames, (node_id, 0))
    elif kind == "do":
        node.fns["effect"](F, R, -1)
    elif kind == "repeat":
        times = node.fns.get("times")
        limit = times(F, R, -1) if times is not None else None
        F[(_E, "flow")] = (*frames, (node_id, 0, limit))
    elif kind == "for_each":
        items = tuple(node.fns["items"](F, R, -1))
        F[(_E, "flow")] = (*frames, (node_id, items, 0))
    elif kind == "turn":
        player = node.fns["player"](F, R, -1)
        if type(player) is not int or not 0 <= player < R.num_players:
            raise RuleFailure(f"the turn's player is {format_value(player)}, not a player", node.span)
        _reset_turn(state)
        F[(_E, "turn")] = player
        F[(_E, "flow")] = (*frames, (node_id, player, False))
        if node.fns.get("on_start") is not None:
            node.fns["on_start"](F, R, player)
    elif kind == "if":
        branch = node.children[0] if node.fns["condition"](F, R, -1) else node.children[1]
        F[(_E, "flow")] = (*frames, (branch, 0))


def _reset_turn(state: State) -> None:
    F = state.fields
    program = state.game.program
    from rulekit.engine.game import _default

    for name, decl in program.rules.fields["turn"].items():
        F[("turn", name)] = _default(program.field_types["turn"][name], decl.type_text)
    for scope, name, fn in program.field_inits:
        if scope == "turn":
            F[("turn", name)] = fn(F, state.game.runtime, -1)


def after_action(state: State, compiled: CompiledAction) -> None:
    """Bookkeeping after an action: answer the ask, or maybe end the turn; end checks."""
    F = state.fields
    game = state.game
    program = game.program
    R = game.runtime
    if F.get((_E, "asked")):
        F[(_E, "asks")] = F[(_E, "asks")][1:]
        F[(_E, "asked")] = False
    else:
        frames = F[(_E, "flow")]
        if frames:
            frame = frames[-1]
            node = program.flow[frame[0]]
            if node.kind == "turn" and not frame[2]:
                until = node.fns.get("until")
                ended = until is not None and until(F, R, frame[1])
                if compiled.decl.ends_turn or node.data["once"] or ended:
                    F[(_E, "flow")] = (*frames[:-1], (frame[0], frame[1], True))
    if program.end_when is not None and program.end_when(F, R, -1):
        F[(_E, "over")] = True


def _finish(state: State) -> None:
    state.fields[(_E, "decision")] = None
    state._legal = []
