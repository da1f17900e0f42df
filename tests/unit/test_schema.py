"""One declaration of the rules format: types parsed once, data checked against them, no follow-on errors,
and variants that can set every key a ruleset can (issue #13)."""

from __future__ import annotations

from collections.abc import Callable
from pathlib import Path

import pytest

from rulekit.dsl import types as t
from rulekit.errors import RulesetError
from rulekit.load import load_game, load_program
from rulekit.rules import schema
from rulekit.rules.values import TypeProblem, parse_declared

BASE = """\
ruleset: s
players: {min: 2, max: 3}
constants:
  FIRST: {type: player, value: P2}
state:
  game:
    n: {type: int}
actions:
  go: {ends_turn: true}
  wait: {ends_turn: true}
flow:
  - turn: FIRST
"""


def _messages(directory: Path, variants: tuple[str, ...] = ()) -> list[tuple[int, str]]:
    with pytest.raises(RulesetError) as caught:
        load_program(str(directory), (), variants)
    return [(d.span.line if d.span else 0, d.message) for d in caught.value.diagnostics]


def test_type_text_is_parsed_once_with_an_explicit_optional_flag() -> None:
    """``city?`` is a city that may be none; ``list[city]`` a list of cities; unknown names are refused."""
    declared = parse_declared("city?", {"city"})
    assert declared.optional and declared.type == t.entity("city")
    assert parse_declared("list[city]", {"city"}).type == t.list_of(t.entity("city"))
    assert not parse_declared("int", set()).optional
    with pytest.raises(TypeProblem, match="unknown type 'plyer'") as caught:
        parse_declared("plyer", set())
    assert caught.value.hint is not None and "'player'" in caught.value.hint


def test_a_player_constant_written_p2_is_the_second_seat_in_play(write_ruleset: Callable[..., Path]) -> None:
    """Players are written P1..Pn in rules data; the constant holds that seat at run time."""
    state = load_game(str(write_ruleset(BASE)), 2).new_initial_state(0)
    assert state.current_player() == 1


def test_a_wrongly_typed_constant_is_reported_once_at_its_definition(
    write_ruleset: Callable[..., Path],
) -> None:
    """Two uses of a bad constant do not repeat the error."""
    text = BASE.replace("value: P2}", "value: P2}\n  LIMIT: {type: int, value: three}").replace(
        "go: {ends_turn: true}", "go: {ends_turn: true, require: [LIMIT > 1], cost: LIMIT}"
    )
    assert _messages(write_ruleset(text)) == [(5, "constant 'LIMIT': must be an int, not the text 'three'")]


def test_a_failed_until_is_not_also_a_missing_until(write_ruleset: Callable[..., Path]) -> None:
    """A repeat whose until: does not parse gives the parse error only."""
    text = BASE.replace("  - turn: FIRST", "  - repeat: {until: 'game.n >', steps: [{turn: FIRST}]}")
    found = _messages(write_ruleset(text))
    assert len(found) == 1 and "repeat needs" not in found[0][1]


def test_an_unknown_type_in_an_event_is_located(write_ruleset: Callable[..., Path]) -> None:
    """An event field typed plyer is an error at the type, not ``any``."""
    text = BASE + "events:\n  scored: {who: plyer}\n"
    assert _messages(write_ruleset(text)) == [(14, "events.scored.who: unknown type 'plyer'")]


def _variant(directory: Path, body: str) -> str:
    path = directory / "house.yaml"
    path.write_text(f"variant: house\nruleset: s\n{body}", encoding="utf-8")
    return str(path)


def test_a_variant_sets_a_player_constant_the_way_the_ruleset_writes_it(
    write_ruleset: Callable[..., Path],
) -> None:
    """``P1`` is accepted; the seat number ``1`` is refused with the spelling to use."""
    directory = write_ruleset(BASE)
    good = _variant(directory, "set:\n  constants.FIRST: P1\n")
    assert load_game(str(directory), 2, (), [good]).new_initial_state(0).current_player() == 0
    bad = _variant(directory, "set:\n  constants.FIRST: 1\n")
    with pytest.raises(RulesetError) as caught:
        load_program(str(directory), (), [bad])
    [diagnostic] = caught.value.diagnostics
    assert diagnostic.message == "constants.FIRST: must be a player (P1, P2, ...), not the number 1"
    assert diagnostic.hint == "write P2 for seat 2"


def test_a_variant_can_set_every_key_the_schema_declares(write_ruleset: Callable[..., Path]) -> None:
    """Keys missing from an entry can be set when the schema knows them (offered_with, prompt ...)."""
    directory = write_ruleset(BASE)
    variant = _variant(
        directory,
        "set:\n  actions.wait.offered_with: [go]\n  actions.wait.prompt: false\n  actions.go.doc: Go on.\n",
    )
    program = load_program(str(directory), (), [variant])
    assert program.rules.actions["wait"].offered_with == ("go",)
    assert program.rules.actions["go"].doc == "Go on."


def test_a_variant_value_is_checked_by_the_schema_where_it_is_written(
    write_ruleset: Callable[..., Path],
) -> None:
    """A quoted "false" for a flag and an unknown key are refused at the variant's line."""
    directory = write_ruleset(BASE)
    variant = _variant(directory, 'set:\n  actions.go.ends_turn: "false"\n  actions.go.efect: pass\n')
    with pytest.raises(RulesetError) as caught:
        load_program(str(directory), (), [variant])
    found = [(d.span.line if d.span else 0, d.message, d.hint) for d in caught.value.diagnostics]
    assert found == [
        (
            4,
            'actions.go.ends_turn must be true or false, not the text "false"',
            "write false without quotes: quoted, it is text",
        ),
        (5, "actions.go.efect: there is no 'efect' in actions.go", "did you mean 'effect'?"),
    ]


def test_sections_and_extendable_keys_come_from_the_schema() -> None:
    """compose reads its section lists from the one declaration."""
    from rulekit.rules import compose

    assert compose.NAMED_SECTIONS == schema.NAMED_SECTIONS
    assert "spaces" in schema.SINGLE_SECTIONS
    assert compose.EXTENDABLE == {
        "actions": ("require", "ignoring", "ensures"),
        "triggers": ("ensures",),
        "invariants": ("relax",),
    }
    assert isinstance(schema.shape_at(["actions", "buy", "offered_with"]), schema.Names)
    assert isinstance(schema.shape_at(["flow", "0", "repeat", "until"]), schema.Expr)


def test_a_variants_dsl_errors_come_with_its_composition_errors(write_ruleset: Callable[..., Path]) -> None:
    """One report: the path that does not exist and the effect that does not parse, both in the variant."""
    directory = write_ruleset(BASE)
    variant = _variant(
        directory,
        "set:\n  actions.stop.doc: x\nadd:\n  actions:\n    stop: {effect: 'game.n =', ends_turn: true}\n",
    )
    with pytest.raises(RulesetError) as caught:
        load_program(str(directory), (), [variant])
    found = [(Path(d.span.file).name, d.span.line) for d in caught.value.diagnostics if d.span]
    assert found == [("house.yaml", 4), ("house.yaml", 7)]


def test_the_model_remembers_which_module_or_variant_wrote_each_entry(
    write_ruleset: Callable[..., Path],
) -> None:
    """origins name the module that added or overrode an entry and the variant that added one."""
    module = (
        "module: extra\nactions:\n  jump: {ends_turn: true}\n"
        "override:\n  actions:\n    wait: {ends_turn: true}\n"
    )
    directory = write_ruleset(BASE, modules={"extra": module})
    variant = _variant(directory, "add:\n  actions:\n    rest: {ends_turn: true}\n")
    origins = load_program(str(directory), ("extra",), [variant]).rules.origins["actions"]
    assert origins["go"] == "ruleset"
    assert origins["jump"] == origins["wait"] == "module extra"
    assert origins["rest"].startswith("variant ") and origins["rest"].endswith("house.yaml")


def test_a_variant_that_sets_one_key_of_an_entry_is_its_origin(write_ruleset: Callable[..., Path]) -> None:
    """``set actions.go.doc`` changes an entry the ruleset declared: the variant is credited."""
    directory = write_ruleset(BASE)
    variant = _variant(directory, "set:\n  actions.go.doc: now documented\n")
    origins = load_program(str(directory), (), [variant]).rules.origins["actions"]
    assert origins["go"].startswith("variant ") and origins["go"].endswith("house.yaml")
    assert origins["wait"] == "ruleset"


@pytest.mark.parametrize(
    ("type_text", "value", "expected"),
    [
        ("map[str, player]", "{a: P1, b: P2}", {"a": 0, "b": 1}),
        ("{kind: str, seats: list[player]}", "{kind: x, seats: [P2]}", {"kind": "x", "seats": (1,)}),
        ("list[owner]", "[bank, P1]", (-1, 0)),
    ],
)
def test_typed_containers_are_converted_element_by_element(
    write_ruleset: Callable[..., Path], type_text: str, value: str, expected: object
) -> None:
    """Players inside typed maps, records and lists become seats (the bank is -1)."""
    text = BASE.replace("value: P2}", f"value: P2}}\n  DATA: {{type: '{type_text}', value: {value}}}")
    assert load_program(str(write_ruleset(text))).rules.constants["DATA"].value == expected


def test_a_wrong_value_inside_a_record_is_located_at_the_value(write_ruleset: Callable[..., Path]) -> None:
    text = BASE.replace("value: P2}", "value: P2}\n  R: {type: '{n: int}', value: {n: many}}")
    assert _messages(write_ruleset(text)) == [(5, "constant 'R': 'n' must be an int, not the text 'many'")]


def test_an_entry_from_a_file_a_module_includes_is_the_modules() -> None:
    """A module's ``include:`` files are the module's: their entries are credited to it."""
    origins = load_program("el_capitan", ("porto",)).rules.origins["invariants"]
    assert origins["porto_picture_stays_empty"] == "module porto"
    assert origins["money_conserved"] == "ruleset"
