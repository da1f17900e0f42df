"""The flow interpreter: runs the ruleset's game structure up to the next decision.

The position in the flow is a stack of frames kept in the state itself (so it
is cloned, serialized and hashed with everything else):

* ``(node, index)`` for a sequence of steps,
* ``(node, iteration, limit)`` for ``repeat``,
* ``(node, items, index)`` for ``for_each``,
* ``(node, player, done)`` for ``turn``,
* ``(node, seats, index)`` for ``simultaneous``: ``seats[index]`` chooses next.

A simultaneous step keeps the seats' choices in the engine's ``chosen`` field (hidden from
every other seat by :mod:`rulekit.engine.information`) and applies none of them until the
last seat has chosen; then they resolve in the order of ``seats``.

Pending ``ask`` decisions come before the flow goes on.  A turn in which the
player has no legal action ends by itself; so does an ask that cannot be
answered.

After an action (:func:`after_action`) the flow goes on by a shorter way when it can: the
turn goes on with one listing, or, for a turn that is the only turn of a loop of ``do``
steps ("repeat: a turn, then pass the move on"), the next turn starts with the loop's step,
the ``do`` steps and the turn's start written out in one function per turn node, built once
per game. It asks the same conditions, runs the same effects, charges the same steps and
leaves the same frames as the general loop (:func:`advance`), which takes over for anything
else (the game over, an ask, a loop that ends, a turn with no legal action).
"""

from __future__ import annotations

from collections.abc import Callable
from typing import TYPE_CHECKING, Any

from rulekit.compiler.program import FlowNode
from rulekit.engine import slots
from rulekit.engine.defaults import field_default
from rulekit.engine.listing import list_legal, lister
from rulekit.engine.slots import CHOSEN
from rulekit.engine.values import format_value
from rulekit.errors import Diagnostic, RuleEvaluationError
from rulekit.runtime.errors import RuleFailure

if TYPE_CHECKING:
    from rulekit.engine.game import Game, State

MAX_FLOW_STEPS = 1_000_000


_OVER = slots.OVER
_ASKS = slots.ASKS
_ASKED = slots.ASKED
_FLOW = slots.FLOW
_DECISION = slots.DECISION
_TURN = slots.TURN

#: A step of the flow: ``step(state, F, R, stack, frame)`` works on the top frame of ``stack``
#: (the flow's frames as a list while the flow runs; stored back as a tuple when it stops)
#: and returns True when a player must now decide, False when it ran effects (which may end
#: the game or ask a player), None when it ran none (the next step follows at once).
Step = Callable[["State", dict[Any, Any], Any, list[Any], tuple[Any, ...]], bool | None]
#: Entering a node: ``enter(state, F, R, stack)`` pushes its frame, or runs it (``do``).
Enter = Callable[["State", dict[Any, Any], Any, list[Any]], None]


def advance(state: State, ends_turn: bool | None = None) -> None:
    """Run the flow until a player must decide or the game is over; after an action,
    ``ends_turn`` is the action's own flag (see :func:`_after_action`), else None."""
    F = state.fields
    game = state.game
    R = game.runtime
    steps_of, _, turn_ends, _ = game.flow_fns or compiled_flow(game)
    # The frames live in a list while the flow runs (a step replaces, pushes or pops the top
    # frame in place) and go back into the state as a tuple when it stops, however it stops.
    stack = list(F[_FLOW])
    steps = 0
    try:
        if ends_turn is not None:
            _after_action(F, R, game, stack, turn_ends, ends_turn)
        while True:
            steps += 1
            if steps > MAX_FLOW_STEPS:
                raise _spinning(state, stack)
            if F[_OVER]:
                _finish(state)
                return
            asks = F[_ASKS]
            if asks:
                player, names = asks[0]
                F[_DECISION] = (player, tuple(names))
                F[_ASKED] = True
                state.listed = None
                if state.legal_actions():
                    return
                F[_ASKS] = asks[1:]
                continue
            if F.get(_ASKED) is not False:
                F[_ASKED] = False
            while True:  # steps that run no effect cannot end the game or ask: no checks between them
                if not stack:
                    F[_OVER] = True
                    done: bool | None = False
                    break
                frame = stack[-1]
                done = steps_of[frame[0]](state, F, R, stack, frame)
                if done is not None:
                    break
                steps += 1
                if steps > MAX_FLOW_STEPS:
                    raise _spinning(state, stack)
            if done:
                return
    finally:
        F[_FLOW] = tuple(stack)


def _spinning(state: State, stack: list[Any]) -> RuleEvaluationError:
    """The error for a flow that ran MAX_FLOW_STEPS steps without a decision, located at the
    innermost flow step under way (e.g. a repeat whose turns nobody can play)."""
    nodes = state.game.program.flow
    span = next((nodes[f[0]].span for f in reversed(stack) if nodes[f[0]].span is not None), None)
    return RuleEvaluationError(
        Diagnostic(
            "the flow runs without ever asking a player to decide (an endless loop?)",
            span,
            hint="a turn nobody can play ends by itself: does the loop around it ever end?",
        )
    )


#: Per node: for a turn, its ``until`` function and whether it is one action long; else None.
TurnEnd = tuple[Callable[..., Any] | None, bool] | None
#: After an action in a turn: ``after(state, F, R, flow, frame, ends_turn)`` (see
#: :func:`after_action`), per turn node; None for the other nodes.
After = Callable[["State", dict[Any, Any], Any, tuple[Any, ...], tuple[Any, ...], bool], None]
Built = tuple[list[Step], list[Enter], list[TurnEnd], list[After | None]]


def compiled_flow(game: Game) -> Built:
    """The flow of ``game``'s program as one step and one enter function per node, built
    once per game: each knows its node's children and compiled functions, so running the
    flow is a call per step instead of a dispatch on the node's kind and a look-up of each
    of its parts; and, per turn, what follows an action in it (:func:`after_action`)."""
    built = game.flow_fns
    if built is None:
        built = game.flow_fns = _build(game)
    return built


def _build(game: Game) -> Built:
    program = game.program
    nodes = program.flow
    steps: list[Step] = []
    enters: list[Enter] = []
    ends: list[TurnEnd] = []
    for node_id, node in enumerate(nodes):
        steps.append(_make_step(node_id, node, enters, nodes))
        enters.append(_make_enter(node_id, node, game))
        ends.append((node.fns.get("until"), bool(node.data["once"])) if node.kind == "turn" else None)
    parents: dict[int, list[int]] = {}
    for node_id, node in enumerate(nodes):
        for child in node.children:
            parents.setdefault(child, []).append(node_id)
    afters: list[After | None] = [
        _make_after(node_id, node, game, nodes, parents) if node.kind == "turn" else None
        for node_id, node in enumerate(nodes)
    ]
    return steps, enters, ends, afters


def after_action(state: State, F: dict[Any, Any], R: Any, ends_turn: bool) -> None:
    """What :func:`advance` does after an action (``ends_turn``: the action's own flag;
    ``F`` and ``R``: the state's fields and the runtime), by a shorter way when the action
    was taken in a turn with no ask answered: the same conditions asked, effects run and
    frames left, in the same order, as the general loop."""
    flow = F[_FLOW]
    if flow and F.get(_ASKED) is False:
        frame = flow[-1]
        game = state.game
        after = (game.flow_fns or compiled_flow(game))[3][frame[0]]
        if after is not None and not frame[2]:
            after(state, F, R, flow, frame, ends_turn)
            return
    advance(state, ends_turn)


def _make_after(
    node_id: int, node: FlowNode, game: Game, nodes: list[FlowNode], parents: dict[int, list[int]]
) -> After:
    """After an action in turn ``node``: end the turn or not (as :func:`_after_action`), the
    game's end check; then list the same player's next actions, or, for a turn of a loop
    (:func:`_loop_of`), go on to the next turn; anything else (the game over, an ask, a loop
    that ends, no legal action) in the general loop, from the frames it reached."""
    until = node.fns.get("until")
    once = bool(node.data["once"])
    actions = node.data["actions"]
    end_when = game.program.end_when
    list_turn = lister(game, actions)  # (listing the turn's decision, chosen once)
    loop = _loop_of(node_id, nodes, parents)
    if loop is not None:
        seq_id, index, loop_id = loop
        seq, loop_node = nodes[seq_id], nodes[loop_id]
        effects = {k: nodes[c].fns["effect"] for k, c in enumerate(seq.children) if c != node_id}
        steps_after = tuple((k + 1, effects[k]) for k in range(index + 1, len(seq.children)))
        steps_before = tuple((k + 1, effects[k]) for k in range(index))
        repeat = loop_node.kind == "repeat"
        while_ = loop_node.fns.get("while")
        loop_until = loop_node.fns.get("until")
        counter = loop_node.data.get("counter")
        var = None if repeat else ("game", loop_node.data["var"])
        entered = (seq_id, index + 1)
    on_end = node.fns.get("on_end")
    on_start = node.fns.get("on_start")
    player_fn = node.fns["player"]
    span = node.span
    reset = _turn_reset(game)
    num_players = game.num_players
    # per player (of a turn started here, its player checked): the pending decision, and the
    # turn's frame under way and done (immutable values, so every state may share them)
    deciding = tuple((player, actions) for player in range(num_players))
    started = tuple((node_id, player, False) for player in range(num_players))
    done = tuple((node_id, player, True) for player in range(num_players))

    def after(
        state: State,
        F: dict[Any, Any],
        R: Any,
        flow: tuple[Any, ...],
        frame: tuple[Any, ...],
        ends_turn: bool,
    ) -> None:
        player = frame[1]
        ended = until is not None and until(F, R, player)
        finished = ends_turn or once or ended
        if end_when is not None and end_when(F, R, -1):
            F[_OVER] = True
        if not finished:
            if not F[_OVER] and not F[_ASKS]:
                F[_DECISION] = (player, actions)
                R.reset_steps()  # (as in the turn's step)
                state.listed = legal = list_turn(state, F, player)
                if legal:
                    return
                F[_FLOW] = (*flow[:-1], (node_id, player, True))
            advance(state)
            return
        if F[_OVER] or F[_ASKS] or loop is None:
            F[_FLOW] = (*flow[:-1], (node_id, player, True))
            advance(state)
            return
        # The way to the next decision as the general loop takes it, with its checks for the
        # game's end and asks after every step that ran effects; the frames below the loop's
        # (``base``) stay, and each way out leaves the frames the general loop would have.
        base = flow[:-3]
        loop_frame = flow[-3]
        # the turn's end (as the turn's step)
        if on_end is not None:
            on_end(F, R, player)
            F[_TURN] = None
            if F[_OVER] or F[_ASKS]:
                F[_FLOW] = (*base, loop_frame, entered)
                advance(state)
                return
        else:
            F[_TURN] = None
        for position, effect in steps_after:  # the sequence's steps after the turn
            effect(F, R, -1)
            if F[_OVER] or F[_ASKS]:
                F[_FLOW] = (*base, loop_frame, (seq_id, position))
                advance(state)
                return
        # the loop's step (as the repeat's or for_each's)
        if repeat:
            _, iteration, limit = loop_frame
            if (
                (limit is not None and iteration >= limit)
                or (while_ is not None and not while_(F, R, -1))
                or (iteration > 0 and loop_until is not None and loop_until(F, R, -1))
            ):
                F[_FLOW] = base  # the loop is over: the general loop goes on after it
                advance(state)
                return
            if counter:
                F[("game", counter)] = iteration + 1
            loop_frame = (loop_id, iteration + 1, limit)
        else:
            _, items, position = loop_frame
            if position >= len(items):
                F[_FLOW] = base
                advance(state)
                return
            F[var] = items[position]
            loop_frame = (loop_id, items, position + 1)
        for position, effect in steps_before:  # the sequence's steps before the turn
            effect(F, R, -1)
            if F[_OVER] or F[_ASKS]:
                F[_FLOW] = (*base, loop_frame, (seq_id, position))
                advance(state)
                return
        # the next turn's start (as the turn's enter function)
        player = player_fn(F, R, -1)
        if type(player) is not int or not 0 <= player < num_players:
            raise RuleFailure(f"the turn's player is {format_value(player)}, not a player", span)
        if reset is not None:
            reset(F, R)
        F[_TURN] = player
        if on_start is not None:
            on_start(F, R, player)
            if F[_OVER] or F[_ASKS]:
                F[_FLOW] = (*base, loop_frame, entered, started[player])
                advance(state)
                return
        F[_DECISION] = deciding[player]
        R.reset_steps()
        state.listed = legal = list_turn(state, F, player)
        if legal:
            F[_FLOW] = (*base, loop_frame, entered, started[player])
            return
        F[_FLOW] = (*base, loop_frame, entered, done[player])
        advance(state)

    return after


def _loop_of(
    node_id: int, nodes: list[FlowNode], parents: dict[int, list[int]]
) -> tuple[int, int, int] | None:
    """For a turn that is the only turn of a sequence of ``do`` steps, itself the body of a
    ``repeat`` or ``for_each`` (e.g. "repeat: a turn, then pass the move on"): the sequence,
    the turn's place in it and the loop, whose frames are then always under the turn's;
    after such a turn :func:`_make_after` goes on to the next turn itself (the turn's
    ``on_end``, the ``do`` steps after it, the loop's step, the ``do`` steps before it, the
    next turn's start and listing). None for any other shape."""
    seq_ids = parents.get(node_id, [])
    if len(seq_ids) != 1 or nodes[seq_ids[0]].kind != "seq":
        return None
    seq_id = seq_ids[0]
    seq = nodes[seq_id]
    loop_ids = parents.get(seq_id, [])
    if len(loop_ids) != 1 or nodes[loop_ids[0]].kind not in ("repeat", "for_each"):
        return None
    if seq.children.count(node_id) != 1 or any(nodes[c].kind != "do" for c in seq.children if c != node_id):
        return None
    return seq_id, seq.children.index(node_id), loop_ids[0]


def _runs_effects(node: FlowNode) -> bool:
    """Whether entering ``node`` may run effects (else it only evaluates expressions and
    pushes a frame, or resets turn fields)."""
    return node.kind == "do" or (node.kind == "turn" and node.fns.get("on_start") is not None)


def has_simultaneous(program: Any) -> bool:
    """Whether ``program``'s flow has a ``simultaneous`` step."""
    return any(node.kind == "simultaneous" for node in program.flow)


def chose(state: State, name: str, args: tuple[Any, ...]) -> None:
    """Record the deciding seat's choice in a simultaneous step (nothing is applied: the
    choices resolve together once every seat has chosen) and ask the next seat."""
    F = state.fields
    F[CHOSEN] = (*F[CHOSEN], (F[_DECISION][0], name, args))
    node_id, seats, index = F[_FLOW][-1]
    F[_FLOW] = (*F[_FLOW][:-1], (node_id, seats, index + 1))
    advance(state)


def _make_step(node_id: int, node: FlowNode, enters: list[Enter], nodes: list[FlowNode]) -> Step:
    kind = node.kind
    children = node.children
    fns = node.fns
    if kind == "seq":
        count = len(children)
        # what the step returns after entering each child: False if effects may have run
        entered = tuple(False if _runs_effects(nodes[child]) else None for child in children)
        # a do child's effect, called here rather than through its enter function
        effects = tuple(
            nodes[child].fns["effect"] if nodes[child].kind == "do" else None for child in children
        )

        def seq(
            state: State, F: dict[Any, Any], R: Any, stack: list[Any], frame: tuple[Any, ...]
        ) -> bool | None:
            index = frame[1]
            if index >= count:
                stack.pop()
                return None
            stack[-1] = (node_id, index + 1)
            effect = effects[index]
            if effect is not None:
                effect(F, R, -1)
                return False
            enters[children[index]](state, F, R, stack)
            return entered[index]

        return seq
    if kind == "repeat":
        while_ = fns.get("while")
        until = fns.get("until")
        counter = node.data.get("counter")
        body = children[0]

        def repeat(
            state: State, F: dict[Any, Any], R: Any, stack: list[Any], frame: tuple[Any, ...]
        ) -> bool | None:
            _, iteration, limit = frame
            done = limit is not None and iteration >= limit
            if not done and while_ is not None and not while_(F, R, -1):
                done = True
            if not done and iteration > 0 and until is not None and until(F, R, -1):
                done = True
            if done:
                stack.pop()
                return None
            if counter:
                F[("game", counter)] = iteration + 1
            stack[-1] = (node_id, iteration + 1, limit)
            stack.append((body, 0))
            return None

        return repeat
    if kind == "for_each":
        var = node.data["var"]
        body = children[0]

        def for_each(
            state: State, F: dict[Any, Any], R: Any, stack: list[Any], frame: tuple[Any, ...]
        ) -> bool | None:
            _, items, index = frame
            if index >= len(items):
                stack.pop()
                return None
            F[("game", var)] = items[index]
            stack[-1] = (node_id, items, index + 1)
            stack.append((body, 0))
            return None

        return for_each
    if kind == "turn":
        on_end = fns.get("on_end")
        ended = None if on_end is None else False
        actions = node.data["actions"]

        def turn(
            state: State, F: dict[Any, Any], R: Any, stack: list[Any], frame: tuple[Any, ...]
        ) -> bool | None:
            _, player, done = frame
            if done:
                if on_end is not None:
                    on_end(F, R, player)
                stack.pop()
                F[_TURN] = None
                return ended
            F[_DECISION] = (player, actions)
            R.reset_steps()  # (what state.legal_actions() does, without its call)
            state.listed = legal = list_legal(state)
            if legal:
                return True
            stack[-1] = (node_id, player, True)
            return None

        return turn

    if kind == "simultaneous":
        actions = node.data["actions"]

        def simultaneous(
            state: State, F: dict[Any, Any], R: Any, stack: list[Any], frame: tuple[Any, ...]
        ) -> bool | None:
            _, seats, index = frame
            while index < len(seats):
                F[_DECISION] = (seats[index], actions)
                R.reset_steps()
                state.listed = legal = list_legal(state)
                if legal:
                    stack[-1] = (node_id, seats, index)
                    return True
                index += 1  # a seat with no legal action chooses nothing
            stack.pop()
            chosen = F.pop(CHOSEN, ())
            for seat, name, args in chosen:
                F[_DECISION] = (seat, actions)
                R.reset_steps()
                state.run_action(seat, name, args)
            return False if chosen else None

        return simultaneous

    def not_a_frame(
        state: State, F: dict[Any, Any], R: Any, stack: list[Any], frame: tuple[Any, ...]
    ) -> bool | None:
        raise AssertionError(
            kind
        )  # pragma: no cover - only seq, repeat, for_each, turn, simultaneous push frames

    return not_a_frame


def _make_enter(node_id: int, node: FlowNode, game: Game) -> Enter:
    kind = node.kind
    fns = node.fns
    if kind == "seq":

        def seq(state: State, F: dict[Any, Any], R: Any, stack: list[Any]) -> None:
            stack.append((node_id, 0))

        return seq
    if kind == "do":
        effect = fns["effect"]

        def do(state: State, F: dict[Any, Any], R: Any, stack: list[Any]) -> None:
            effect(F, R, -1)

        return do
    if kind == "repeat":
        times = fns.get("times")

        def repeat(state: State, F: dict[Any, Any], R: Any, stack: list[Any]) -> None:
            limit = times(F, R, -1) if times is not None else None
            stack.append((node_id, 0, limit))

        return repeat
    if kind == "for_each":
        items_fn = fns["items"]

        def for_each(state: State, F: dict[Any, Any], R: Any, stack: list[Any]) -> None:
            items = tuple(items_fn(F, R, -1))
            stack.append((node_id, items, 0))

        return for_each
    if kind == "turn":
        player_fn = fns["player"]
        on_start = fns.get("on_start")
        span = node.span
        reset = _turn_reset(game)

        def turn(state: State, F: dict[Any, Any], R: Any, stack: list[Any]) -> None:
            player = player_fn(F, R, -1)
            if type(player) is not int or not 0 <= player < R.num_players:
                raise RuleFailure(f"the turn's player is {format_value(player)}, not a player", span)
            if reset is not None:
                reset(F, R)
            F[_TURN] = player
            stack.append((node_id, player, False))
            if on_start is not None:
                on_start(F, R, player)

        return turn
    if kind == "simultaneous":
        players_fn = fns.get("players")
        span = node.span

        def simultaneous(state: State, F: dict[Any, Any], R: Any, stack: list[Any]) -> None:
            seats = tuple(range(R.num_players)) if players_fn is None else tuple(players_fn(F, R, -1))
            for seat in seats:
                if type(seat) is not int or not 0 <= seat < R.num_players:
                    raise RuleFailure(
                        f"a simultaneous step's seat is {format_value(seat)}, not a player", span
                    )
            if len(set(seats)) != len(seats):
                raise RuleFailure("a simultaneous step names a player twice", span)
            F[CHOSEN] = ()
            stack.append((node_id, seats, 0))

        return simultaneous
    condition = fns["condition"]
    then, otherwise = node.children

    def if_(state: State, F: dict[Any, Any], R: Any, stack: list[Any]) -> None:
        branch = then if condition(F, R, -1) else otherwise
        stack.append((branch, 0))

    return if_


def _turn_reset(game: Game) -> Callable[[dict[Any, Any], Any], None] | None:
    """Set every turn field to its default, then run the turn fields' initial values (None:
    the ruleset declares no turn field)."""
    program = game.program
    defaults = tuple(
        (("turn", name), field_default(program.field_types["turn"][name], decl.declared.optional))
        for name, decl in program.rules.fields["turn"].items()
    )
    inits = tuple((("turn", name), fn) for scope, name, fn in program.field_inits if scope == "turn")
    if not defaults and not inits:
        return None

    def reset(F: dict[Any, Any], R: Any) -> None:
        for key, value in defaults:
            F[key] = value
        for key, fn in inits:
            F[key] = fn(F, R, -1)

    return reset


def _after_action(
    F: dict[Any, Any], R: Any, game: Game, stack: list[Any], turn_ends: list[TurnEnd], ends_turn: bool
) -> None:
    """Bookkeeping after an action: answer the ask, or maybe end the turn (the action ends
    it, the turn is one action long, or its ``until`` holds); then the game's end check."""
    if F.get(_ASKED):
        F[_ASKS] = F[_ASKS][1:]
        F[_ASKED] = False
    elif stack:
        frame = stack[-1]
        turn_end = turn_ends[frame[0]]
        if turn_end is not None and not frame[2]:
            until, once = turn_end
            ended = until is not None and until(F, R, frame[1])
            if ends_turn or once or ended:
                stack[-1] = (frame[0], frame[1], True)
    end_when = game.program.end_when
    if end_when is not None and end_when(F, R, -1):
        F[_OVER] = True


def _finish(state: State) -> None:
    state.fields[_DECISION] = None
    state.listed = []
