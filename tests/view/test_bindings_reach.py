"""Every shipped view that binds actions to its shapes lets a seat build every legal action by
clicks: in states of seeded random games, each legal action is reached by clicking only shapes of
the seat's own picture and controls that :func:`rulekit.tools.clicks.choose` highlights."""

from __future__ import annotations

import json
import random

import pytest

from rulekit.engine.game import Action, Game, State
from rulekit.load import load_program
from rulekit.tools.clicks import action_pairs, bound_targets, choose, matches, plays_by_clicks
from rulekit.tools.view import compile_view, draw

#: (ruleset, players, modules): every shipped ruleset (all bind their actions or declare controls).
BOUND = [
    ("tic_tac_toe", 2, []),
    ("connect_four", 2, []),
    ("breakthrough", 2, []),
    ("checkers", 2, []),
    ("dots_and_boxes", 2, []),
    ("hex", 2, []),
    ("othello", 2, []),
    ("oware", 2, []),
    ("fireworks", 3, []),
    ("royal_letter", 4, []),
    ("el_caballero", 3, []),
    ("el_capitan", 3, []),
    ("el_capitan", 4, ["porto", "lisboa", "islas_canarias"]),
    ("nim", 2, []),
    ("liars_dice", 2, []),
    ("goofspiel", 2, []),
    ("pig", 2, []),
    ("blackjack", 1, []),
    ("kuhn_poker", 2, []),
    ("leduc_poker", 2, []),
]
STATES = 12
MAX_MOVES = 400
MAX_CLICKS = 12


def _key(choice: dict[str, str]) -> str:
    return json.dumps(sorted(choice.items()))


def built_by_clicks(state: State, action: Action, rng: random.Random) -> bool:
    """Whether clicking highlighted shapes of the seat's picture and controls, each agreeing
    with ``action``, ends with ``action`` as the single completion."""
    seat = state.current_player()
    view = compile_view(state.game.program)
    shapes = [s.props["bind"] for s in draw(state, seat).shapes if s.props.get("bind")]
    goal = action_pairs(state, action)
    choices: list[dict[str, str]] = []
    for _ in range(MAX_CLICKS):
        answer = choose(state, seat, choices, view, preview=False)
        assert "refused" not in answer and "restarted" not in answer
        if answer["complete"] is not None:
            return bool(answer["complete"] == state.game.action_to_string(action))
        chosen = {_key(c) for c in answer["choices"]}
        open_ = {(t, v) for t, values in answer["open"].items() for v in values}
        options = [
            b
            for b in shapes
            if _key(b) not in chosen and matches(goal, b) and any(p in open_ for p in b.items())
        ]
        options += [
            {c["target"]: v} for c in answer["controls"] for v in c["values"] if goal.get(c["target"]) == v
        ]
        if not options:
            return False
        choices = [*answer["choices"], rng.choice(options)]
    return False


@pytest.mark.parametrize(("ruleset", "players", "modules"), BOUND, ids=lambda v: str(v))
def test_every_legal_action_of_a_bound_view_is_built_by_clicks(
    ruleset: str, players: int, modules: list[str]
) -> None:
    program = load_program(ruleset, modules, [], players=players)
    assert plays_by_clicks(compile_view(program)), f"{ruleset}'s view binds no action"
    game = Game(program, players)
    rng = random.Random(11)
    state = game.new_initial_state(3)
    states = []
    while not state.is_terminal() and state.moves() < MAX_MOVES:
        states.append(state.clone())
        state.apply_action(rng.choice(state.legal_actions()))
    names: set[str] = set()
    for state in states[:: max(1, len(states) // STATES)]:
        legal = state.legal_actions()
        by_name: dict[str, list[Action]] = {}
        for action in legal:
            by_name.setdefault(action.name, []).append(action)
        # one action of every name legal here, and a few more
        chosen = [rng.choice(actions) for actions in by_name.values()] + rng.sample(legal, min(3, len(legal)))
        for action in chosen:
            assert built_by_clicks(state, action, rng), (
                f"{game.action_to_string(action)} after {state.moves()} moves"
            )
        names.update(by_name)
    assert names  # some state was checked


@pytest.mark.parametrize(("ruleset", "players", "modules"), BOUND, ids=lambda v: str(v))
def test_every_parameter_of_a_bound_view_is_bound_to_shapes_or_a_declared_control(
    ruleset: str, players: int, modules: list[str]
) -> None:
    """No shipped game relies on the page's unlabelled fallback controls."""
    program = load_program(ruleset, modules, [], players=players)
    view = compile_view(program)
    assert view is not None
    declared = bound_targets(view) | set(view.decl.controls)
    missing = [f"{a}.{p}" for a, compiled in program.actions.items() for p in compiled.params]
    assert [t for t in missing if t not in declared] == []


def test_every_shipped_ruleset_is_played_by_clicks() -> None:
    from pathlib import Path

    shipped = {p.parent.name for p in (Path(__file__).parents[2] / "rulesets").glob("*/ruleset.yaml")}
    assert shipped == {ruleset for ruleset, _, _ in BOUND}
