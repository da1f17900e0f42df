"""Private notes: ``tell(player, text)`` reaches that player's view only, and replays from a log."""

from __future__ import annotations

from collections.abc import Callable
from pathlib import Path

import pytest

from rulekit.engine.game import State
from rulekit.engine.spaces import ObservationEncoder, observation_text
from rulekit.errors import IllegalActionError
from rulekit.load import load_game
from rulekit.tools.log import GameRecorder, replay
from rulekit.tools.render import render_state


def _documented_example() -> str:
    text = (Path(__file__).resolve().parents[2] / "docs" / "dsl.md").read_text(encoding="utf-8")
    return text.split("<!-- example: tell -->\n```yaml\n", 1)[1].split("```", 1)[0]


@pytest.fixture
def peeked(write_ruleset: Callable[..., Path]) -> State:
    """The documented example after P1 peeked."""
    state = load_game(str(write_ruleset(_documented_example())), 2).new_initial_state(0)
    state.apply_action("peek")
    return state


def test_the_told_player_sees_the_note_in_her_view_and_observation(peeked: State) -> None:
    assert peeked.told(0) == ("the secret is 7",)
    assert peeked.view(0)["_.told"] == ["the secret is 7"]
    assert "told=" in observation_text(peeked, 0) and "the secret is 7" in observation_text(peeked, 0)
    assert "the secret is 7" in render_state(peeked, 0)


def test_other_players_and_spectators_never_see_the_note(peeked: State) -> None:
    for viewer in (1, None):
        assert peeked.told(viewer) == ()
        assert "secret is" not in repr(peeked.view(viewer))
        assert "secret is" not in observation_text(peeked, viewer)
        assert "secret is" not in render_state(peeked, viewer)


def test_a_note_to_p1_leaves_p2_s_observation_identical(peeked: State) -> None:
    other = peeked.clone()
    other.fields[("_", "told")] = ()
    encoder = ObservationEncoder.of(peeked.game)
    assert observation_text(peeked, 1) == observation_text(other, 1)
    assert encoder.encode(peeked, 1) == encoder.encode(other, 1)
    assert observation_text(peeked, 0) != observation_text(other, 0)


def test_a_private_note_replays_from_the_log(peeked: State, tmp_path: Path) -> None:
    directory = tmp_path / "rs"
    recorder = GameRecorder(peeked.game.new_initial_state(0), 0, source=str(directory))
    recorder.apply_action("peek")
    path = tmp_path / "peek.jsonl"
    recorder.write(path)
    assert replay(path, ruleset=str(directory)).told(0) == ("the secret is 7",)


def test_telling_no_player_is_refused_naming_the_rule(write_ruleset: Callable[..., Path]) -> None:
    text = _documented_example().replace("tell(me,", "tell(none,")
    state = load_game(str(write_ruleset(text)), 2).new_initial_state(0)
    with pytest.raises(IllegalActionError, match="tell: none is not a player"):
        state.apply_action("peek")
    assert state.told(0) == ()
