"""The public behaviour of ``Action``, however the listing builds it (the fast constructor the
planned enumerators call must give exactly what ``Action(name, args)`` gives)."""

from __future__ import annotations

import copy
import pickle

import pytest

from rulekit.engine.action import Action, make_action
from rulekit.engine.game import Action as ActionFromGame
from rulekit.load import load_game


def test_listed_actions_are_actions_in_a_plain_list() -> None:
    """``legal_actions()`` returns a ``list`` of ``Action`` (not a subclass, not plain tuples)."""
    legal = load_game("tic_tac_toe", 2).new_initial_state(0).legal_actions()
    assert type(legal) is list
    assert [type(a) for a in legal] == [Action] * 9
    assert legal[4] == Action("place", ("b2",))
    assert (legal[4].name, legal[4].args) == ("place", ("b2",))
    assert ActionFromGame is Action


def test_fast_constructor_gives_what_the_public_one_gives() -> None:
    built = make_action(("shift", (3, ("a", 1))))
    public = Action("shift", (3, ("a", 1)))
    assert type(built) is Action
    assert built == public and hash(built) == hash(public)
    assert (built.name, built.args) == ("shift", (3, ("a", 1)))
    assert repr(built) == repr(public) == "Action(name='shift', args=(3, ('a', 1)))"


def test_equality_and_hash_are_those_of_the_name_args_pair() -> None:
    action = Action("place", ("b2",))
    assert action == ("place", ("b2",)) and hash(action) == hash(("place", ("b2",)))
    assert action != Action("place", ("b3",)) and action != Action("mark", ("b2",))
    assert Action("pass") == Action("pass", ()) and Action("pass").args == ()
    assert len({action, Action("place", ("b2",)), make_action(("place", ("b2",)))}) == 1
    assert {action: 1}[make_action(("place", ("b2",)))] == 1


def test_str_is_the_log_notation() -> None:
    assert str(Action("place", ("b2",))) == "place(b2)"
    assert str(make_action(("pick", (1, 0)))) == "pick(1, 0)"
    assert str(Action("pass")) == "pass"


def test_actions_are_immutable() -> None:
    action = make_action(("place", ("b2",)))
    with pytest.raises(AttributeError):
        action.name = "other"  # type: ignore[misc]
    with pytest.raises(AttributeError):
        action.extra = 1  # type: ignore[attr-defined]
    with pytest.raises(TypeError):
        action[0] = "other"  # type: ignore[index]
    assert not hasattr(action, "__dict__")


@pytest.mark.parametrize("protocol", range(pickle.HIGHEST_PROTOCOL + 1))
def test_actions_survive_pickle_and_copy(protocol: int) -> None:
    action = make_action(("shift", (3, ("a", 1))))
    for restored in (pickle.loads(pickle.dumps(action, protocol)), copy.copy(action), copy.deepcopy(action)):
        assert type(restored) is Action
        assert restored == action and hash(restored) == hash(action)
        assert str(restored) == str(action)
