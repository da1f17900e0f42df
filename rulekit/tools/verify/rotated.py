"""``engine:scenarios-rotated``: each scenario replayed with the seats rotated, in rules that
single out no seat (:func:`rulekit.tools.verify.seats.asymmetry`).

The scenario's set-up state is rotated (P1 as P2, P2 as P3, ..., the last as P1), its actions'
player arguments relabelled the same way, and its steps played; after every step the game must
be the scenario's own game rotated: the same step outcome (applied or refused), the rotated seat
deciding, every field equal to the real one rotated (text aside), and at the end the standings
rotated. So every expectation the scenario checks relabels the same way (``player_at(1)``'s
money in the real game is ``player_at(2)``'s in the rotated one) without rewriting it.

A scenario is not rotated when an event or effect it runs names a seat (``player_at``, ``seat``,
``P1``: DSL text is not relabelled), or when its set-up cannot be rotated (a pending ``ask``, a
``for_each`` under way). It runs once per checker, when the first game of the scenario's
player count starts: its counterexample is that game's start (no action), and the message names
the scenario, the rotation and the first field that differs.
"""

from __future__ import annotations

import re
from typing import Any

from rulekit.compiler.program import Program
from rulekit.engine.game import State
from rulekit.tools.verify.examples import Example
from rulekit.tools.verify.failures import key_text

KEY = "engine:scenarios-rotated"
#: DSL text that names a seat (not relabelled).
SEAT_TEXT = re.compile(r"\bP[0-9]+\b|player_at|\bseat\s*\(")


def check_rotated(program: Program, examples: list[Example], players: int, done: set[int]) -> str | None:
    """Replay the examples of ``players`` players not replayed yet (``done``) rotated: the
    message of the first that does not rotate."""
    from rulekit.tools.verify.seats import asymmetry

    if players in done:
        return None
    done.add(players)
    if asymmetry(program) is not None:
        return None
    for example in examples:
        if example.players != players:
            continue
        for shift in range(1, players):
            problem = replay(program, example, shift)
            if problem:
                pairs = ", ".join(f"P{p + 1} as P{(p + shift) % players + 1}" for p in range(players))
                where = f"scenario '{example.name}' ({example.path.name})"
                return f"{where} with the seats rotated ({pairs}): {problem}"
    return None


def replay(program: Program, example: Example, shift: int) -> str | None:
    from rulekit.tools.verify.seats import Relabeller, first_difference

    if any(s.kind in ("event", "effect") and SEAT_TEXT.search(s.text) for s in example.steps):
        return None
    relabeller = Relabeller(program, example.players, shift)
    fields = relabeller.state(example.start)
    if fields is None:
        return None
    game = example.game
    state = State(game, fields)
    steps = []
    for step in example.steps:
        if step.kind == "action":
            try:
                action = game.parse_action(step.text)
            except Exception:
                return None
            step = _evolve(step, game.action_to_string(relabeller.action(action)))
        steps.append(step)
    rotated = Example(example.path, example.name, example.run, example.players, steps, fields)
    try:
        points = [point for _, point in rotated.play(state)]
    except Exception:
        return None
    sigma = relabeller.sigma
    for step, real, other in zip(steps, example.reference, points, strict=False):
        if other.outcome != real.outcome:
            return f"{step.text} was {real.outcome} in the real game but {other.outcome} rotated"
        if other.decider != (sigma[real.decider] if real.decider >= 0 else -1):
            return f"after {step.text} P{other.decider + 1} decides, not P{sigma[real.decider] + 1}"
        expected = relabeller.state(real.fields)
        if expected is None:
            return None
        difference = first_difference(expected, other.fields)
        if difference is not None:
            key, want, got = difference
            return (
                f"after {step.text}, {key_text(key)} is {got!r:.80} but the real game's, rotated, "
                f"is {want!r:.80}"
            )
    if len(points) != len(example.reference):
        return "its steps stop early when rotated"
    end = State(game, points[-1].fields) if points else None
    real_end = State(game, example.reference[-1].fields) if example.reference else None
    if end is not None and real_end is not None and end.is_terminal() and real_end.is_terminal():
        real_keys = dict(real_end.standings())
        other_keys = dict(end.standings())
        for p, key in real_keys.items():
            if other_keys.get(sigma[p]) != key:
                theirs = other_keys.get(sigma[p])
                return f"at the end P{p + 1}'s standing is {key}, P{sigma[p] + 1}'s {theirs} rotated"
    return None


def _evolve(step: Any, text: str) -> Any:
    import attrs

    return attrs.evolve(step, text=text)
