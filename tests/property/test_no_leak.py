"""Every channel a seat receives is computed from what it may see: byte-identical on s and s'.

For reachable states s of every shipped ruleset with hidden information (and the test ruleset
``tests/data/peek``: a hand visible to ``others``, a visibility condition and a ``reveal``)
and a resample s' that differs only in what seat i cannot see
(:func:`rulekit.engine.information.determinize`), each channel's output for seat i is the same
on s and s', and so is the engine's information-state key.  Each channel, made to read the true
state, is caught (the mutation tests at the end).
"""

from __future__ import annotations

import importlib
import json
import random
from collections.abc import Callable, Iterator
from functools import cache
from pathlib import Path
from typing import Any

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from rulekit.engine import information
from rulekit.engine.game import Action, Game, State
from rulekit.engine.spaces import ObservationEncoder, observation_text
from rulekit.errors import RulesetError
from rulekit.load import load_game
from rulekit.tools import seat_view as seat_view_module
from rulekit.tools.log import seat as seat_log_module
from rulekit.tools.render import render_state
from rulekit.tools.svg import to_svg
from rulekit.tools.view import default as default_view
from rulekit.tools.view import drawing

PEEK = str(Path(__file__).resolve().parents[1] / "data" / "peek")

# (ruleset, players, modules): the shipped games with hidden information, and the test game.
GAMES = [
    ("royal_letter", 2, ()),
    ("royal_letter", 3, ()),
    pytest.param("el_caballero", 3, (), marks=pytest.mark.slow),  # minutes: its action space is large
    ("el_capitan", 3, ("porto", "lisboa", "islas_canarias")),
    ("fireworks", 2, ()),
    ("fireworks", 4, ()),
    (PEEK, 2, ()),
    (PEEK, 3, ()),
]

FAST = [g for g in GAMES if not hasattr(g, "marks")]

Channel = Callable[[State, int], str]


@cache
def _game(ruleset: str, players: int, modules: tuple[str, ...]) -> Game:
    return load_game(ruleset, players, modules)


def _view(state: State, seat: int) -> str:
    return json.dumps(state.view(seat), sort_keys=True)


def _text(state: State, seat: int) -> str:
    return render_state(state, seat)


def _seat_view(state: State, seat: int) -> str:
    """The picture, panels, scores and decision of serve, replay --html --seat and render --seat."""
    try:
        return json.dumps(seat_view_module.seat_view(state, seat).payload(), sort_keys=True)
    except RulesetError:  # a view that does not compile: the panels and scores alone
        panels = seat_view_module.seat_panels(state, seat)
        return json.dumps([panels, information.known_scores(state, seat)])


def _default_view(state: State, seat: int) -> str:
    """The default view (drawn for rulesets without a view), for every game with or without one."""
    return to_svg(default_view.default_picture(state, seat))


def _observation(state: State, seat: int) -> str:
    encoder = ObservationEncoder.of(state.game)
    return observation_text(state, seat) + json.dumps(encoder.encode(state, seat))


def _openspiel(state: State, seat: int) -> str:
    """OpenSpiel's observation and information state, string and tensor, through the adapter."""
    pytest.importorskip("pyspiel")
    from rulekit import openspiel

    game = state.game
    name = game.program.name
    spiel = _spiel_game(name, game.num_players)
    wrapped = openspiel.RulekitState(spiel, state)
    return "\n".join(
        [
            wrapped.observation_string(seat),
            wrapped.information_state_string(seat),
            json.dumps([float(x) for x in wrapped.observation_tensor(seat)]),
            json.dumps([float(x) for x in wrapped.information_state_tensor(seat)]),
        ]
    )


_SPIEL: dict[tuple[str, int], Any] = {}


def _spiel_game(name: str, players: int) -> Any:
    from rulekit import openspiel

    key = (name, players)
    if key not in _SPIEL:
        every = [getattr(g, "values", g) for g in GAMES]
        ruleset, modules = next((r, m) for r, p, m in every if _game(r, p, m).program.name == name)
        _SPIEL[key] = openspiel.register(ruleset, players, modules)
    return _SPIEL[key]


def _pettingzoo(state: State, seat: int) -> str:
    pytest.importorskip("pettingzoo")
    from rulekit.pettingzoo import RulekitEnv

    env = RulekitEnv(state.game)
    env.reset(seed=0)
    env.game_state = state
    observed = env.observe(f"player_{seat}")
    return json.dumps({key: [float(x) for x in value] for key, value in observed.items()})


def _explanations(state: State, seat: int) -> str:
    """What the seat is told about each action it might try (whether or not it is legal: which
    ones are is the legal-actions channel)."""
    if state.is_terminal() or state.current_player() != seat:
        return ""
    return "\n".join(information.seat_explanation(state, a, seat).message for a in _tried_actions(state))


def _tried_actions(state: State) -> Iterator[Action]:
    """Every allowed action with each parameter given each component of its kind (or 0..3)."""
    game = state.game
    program = game.program
    for name in state.allowed_action_names():
        compiled = program.actions[name]
        if len(compiled.params) > 1:
            continue
        if not compiled.params:
            yield Action(name, ())
            continue
        type_ = compiled.param_types[0]
        kind = getattr(type_, "kind", None)
        values: tuple[Any, ...] = program.collections.get(kind, ()) if kind else tuple(range(4))
        for value in values:
            yield Action(name, (value,))


def _legal(state: State, seat: int) -> str:
    """The legal actions, as the deciding seat is offered them."""
    if state.is_terminal() or state.current_player() != seat:
        return ""
    return "\n".join(state.legal_action_strings())


def _determinized(state: State, seat: int) -> str:
    """What a bot of that seat samples: the same deal for s and s' (it never keeps the truth)."""
    sample = information.determinize(state, seat, random.Random(11))
    return json.dumps(sample.to_json(), sort_keys=True)


def _seat_log(state: State, seat: int) -> str:
    """What the seat's log (``replay --seat-log``, ``play --seat-log``, serve's ``/api/log``)
    writes of this state: its view and the scores it may know."""
    return json.dumps(seat_log_module.seen(state, seat), sort_keys=True)


def _key(state: State, seat: int) -> str:
    return information.information_key(state, seat, ["the same public history"])


CHANNELS: dict[str, Channel] = {
    "view": _view,
    "text": _text,
    "seat_view": _seat_view,
    "default_view": _default_view,
    "observation": _observation,
    "openspiel": _openspiel,
    "pettingzoo": _pettingzoo,
    "explanations": _explanations,
    "legal_actions": _legal,
    "determinize": _determinized,
    "information_key": _key,
    "seat_log": _seat_log,
}


def _states(game: Game, seed: int, count: int = 40, every: int = 7) -> Iterator[State]:
    """Reachable states of one random game, while it is played."""
    state = game.new_initial_state(seed)
    rng = random.Random(seed)
    for n in range(count):
        if state.is_terminal():
            break
        if n % every == 0:
            yield state.clone()
        state.apply_action(rng.choice(state.legal_actions()))
    # (not the finished game: its scores are everyone's, read from the cards shown at the end)


#: The resample s' (the engine's own determinize, kept from before any mutation).
_RESAMPLE = information.determinize


def _leaks(channel: Channel, game: Game, seeds: range) -> list[str]:
    """Where ``channel`` gave a seat different outputs for s and a resample s'."""
    found = []
    for seed in seeds:
        for state in _states(game, seed):
            for seat in range(game.num_players):
                other = _RESAMPLE(state, seat, random.Random(seed * 7 + seat))
                if other.fields == state.fields:
                    continue
                if channel(state, seat) != channel(other, seat):
                    found.append(f"seed {seed}, move {state.moves()}, P{seat + 1}")
    return found


# ------------------------------------------------------------------ the property


@pytest.mark.parametrize(("ruleset", "players", "modules"), GAMES, ids=lambda v: str(v).split("/")[-1])
@given(seed=st.integers(0, 2**20))
@settings(max_examples=4)
def test_every_channel_gives_a_seat_the_same_bytes_whatever_it_cannot_see(
    ruleset: str, players: int, modules: tuple[str, ...], seed: int
) -> None:
    game = _game(ruleset, players, modules)
    for name, channel in CHANNELS.items():
        assert _leaks(channel, game, range(seed, seed + 1)) == [], name


@pytest.mark.parametrize(("ruleset", "players", "modules"), FAST, ids=lambda v: str(v).split("/")[-1])
def test_the_resample_really_changes_what_each_seat_cannot_see(
    ruleset: str, players: int, modules: tuple[str, ...]
) -> None:
    """The property is not empty: s' differs from s for some seat of every game."""
    game = _game(ruleset, players, modules)
    changed = 0
    for state in _states(game, 1):
        for seat in range(players):
            changed += _RESAMPLE(state, seat, random.Random(seat)).fields != state.fields
    assert changed > 0


# ------------------------------------------------------------------ the test game's model


def test_others_hide_a_hand_from_its_holder_only() -> None:
    state = _game(PEEK, 3, ()).new_initial_state(2)
    assert (0, "hand") in information.unseen(state, 0)
    assert (0, "hand") not in information.unseen(state, 1)
    assert (0, "hand") in information.unseen(state, None)  # a spectator sees what all players see
    assert state.view(0)["P1.hand"] == {"hidden": 2}
    assert state.view(1)["P1.hand"] == list(state.value(0, "hand"))


def test_a_visibility_condition_shows_a_field_to_the_seats_it_holds_for() -> None:
    game = _game(PEEK, 3, ())
    state = game.new_initial_state(2)
    assert (0, "secret") in information.unseen(state, 1)
    state.apply_action(game.parse_action("let_peek(P2)"))
    assert (0, "secret") not in information.unseen(state, 1)
    assert (0, "secret") in information.unseen(state, 2)


def test_a_revealed_field_stays_visible_to_its_seat_and_stays_put_in_its_samples() -> None:
    game = _game(PEEK, 3, ())
    state = game.new_initial_state(2)
    state.apply_action(game.parse_action("show(P3)"))
    assert (0, "secret") not in information.unseen(state, 2)
    assert (0, "secret") in information.unseen(state, 1)
    for n in range(20):
        sample = information.determinize(state, 2, random.Random(n))
        assert sample.value(0, "secret") == state.value(0, "secret")


def test_determinize_deals_a_seats_own_others_hand_again() -> None:
    """The seat's own hand (which it cannot see) is resampled; the hands it sees are kept."""
    game = _game(PEEK, 2, ())
    state = game.new_initial_state(3)
    moved = 0
    for n in range(20):
        sample = information.determinize(state, 0, random.Random(n))
        assert sample.value(1, "hand") == state.value(1, "hand")
        moved += sample.value(0, "hand") != state.value(0, "hand")
    assert moved > 0


# ------------------------------------------------------------------ each channel's mutation


def _leaky_fields(state: State, seat: int | None) -> dict[Any, Any]:
    return dict(state.fields)


MUTATIONS: dict[str, list[tuple[Any, str, Any]]] = {
    "view": [(State, "view", lambda self, seat: {repr(k): repr(v) for k, v in self.fields.items()})],
    "text": [(State, "view", lambda self, seat: {repr(k): repr(v) for k, v in self.fields.items()})],
    "seat_view": [
        (drawing, "masked_fields", _leaky_fields),
        ("rulekit.tools.render", "masked_fields", _leaky_fields),
    ],
    "default_view": [(default_view, "masked_fields", _leaky_fields)],
    "observation": [(ObservationEncoder, "encode", lambda self, state, seat: [hash(repr(state.fields))])],
    "openspiel": [("rulekit.openspiel", "observation_text", lambda state, seat: repr(state.fields))],
    "pettingzoo": [
        (ObservationEncoder, "encode", lambda self, state, seat: [hash(repr(state.fields)) % 997])
    ],
    "explanations": [
        (information, "seat_explanation", lambda state, action, seat: state.explain(action)),
    ],
    "legal_actions": [(State, "legal_action_strings", lambda self: [repr(self.fields)])],
    "determinize": [(information, "determinize", lambda state, seat, rng, reseed=True: state.clone())],
    "information_key": [
        (State, "view", lambda self, seat: {repr(k): repr(v) for k, v in self.fields.items()})
    ],
    # the seat's log writes its view and the scores it may know: each read from the true state
    # (Royal Letter's scores tell its hands; Fireworks' shared score is public, its view is not)
    "seat_log": [
        (seat_log_module, "known_scores", lambda state, seat: list(state.scores())),
        (State, "view", lambda self, seat: {repr(k): repr(v) for k, v in self.fields.items()}),
    ],
}

#: A rules author's mistake for the explanations: an action whose values are the player's own
#: ``others`` hand (she cannot see it, so "possible: c3, c8" on the real state would tell her).
DISCARD = """\
  discard:
    doc: "Discard a card of your hand by its name (a leak: its values are cards you cannot see)."
    params:
      card: me.hand
    effect: move(card, me.hand, game.table)
    ends_turn: true
"""


#: The same mistake in Fireworks (an action that changes nothing, so the game plays on as before).
NAME_A_CARD = """\
  name_a_card:
    doc: "Name a card of your hand (a leak: its values are cards you cannot see)."
    params:
      card: me.hand
    effect: note("a card was named")
    ends_turn: true
"""

FIREWORKS = str(Path(__file__).resolve().parents[2] / "rulesets" / "fireworks")


def _leaky_peek(tmp_path: Path, extra: str, ruleset: str = PEEK) -> Game:
    name = Path(ruleset).name
    text = (Path(ruleset) / "ruleset.yaml").read_text(encoding="utf-8")
    text = text.replace(f"ruleset: {name}", f"ruleset: {name}_leaky").replace(
        "actions:\n", "actions:\n" + extra, 1
    )
    folder = tmp_path / f"{name}_leaky"
    folder.mkdir()
    (folder / "ruleset.yaml").write_text(text, encoding="utf-8")
    return load_game(str(folder), 2)


@pytest.mark.parametrize("ruleset", ["royal_letter", "fireworks"])
@pytest.mark.parametrize("name", sorted(CHANNELS))
def test_a_channel_that_reads_the_true_state_is_caught(
    name: str, ruleset: str, monkeypatch: pytest.MonkeyPatch, tmp_path: Path
) -> None:
    """On an owner-visible game (Royal Letter) and an others-visible cooperative one (Fireworks)."""
    if name in ("openspiel", "pettingzoo"):
        pytest.importorskip("pyspiel" if name == "openspiel" else "pettingzoo")
    if name == "explanations":  # needs an action that names what the seat cannot see
        game = (
            _leaky_peek(tmp_path, DISCARD)
            if ruleset == "royal_letter"
            else _leaky_peek(tmp_path, NAME_A_CARD, FIREWORKS)
        )
    else:
        game = _game(ruleset, 2, ())
    assert _leaks(CHANNELS[name], game, range(3)) == []
    for target, attribute, replacement in MUTATIONS[name]:
        module = importlib.import_module(target) if isinstance(target, str) else target
        monkeypatch.setattr(module, attribute, replacement)
    assert _leaks(CHANNELS[name], game, range(3)) != []
