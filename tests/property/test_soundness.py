"""Soundness of ``check``: whatever it accepts plays without an internal error, and a value of
the wrong type is reported by it, at the value's position.

The rulesets are the shipped ones (``tests/rulesets.py``), mutated by ``mutations.py``:

* type-correct: numbers in constants, component attributes and initial values changed within
  their type, a subset of the modules, a shipped variant, a typed constant added with a value of
  its type.  Such a ruleset may still be refused by ``check`` (a located RulekitError), but if it
  is accepted, random games must run without any exception other than a RulekitError (which the
  command line reports with exit 1; anything else is exit 3, a bug in rulekit).
* type-incorrect: text where an int is declared, a player the game does not have, an id of the
  wrong kind.  ``check`` must refuse them with a diagnostic in the mutated file, at the line of
  the mutated value.

Four of these failed before the typed schema of issue #13 (marked ``xfail(strict=True)`` naming
the hole, until they XPASSed): a typed player constant written P1 stayed the text 'P1'; text in
an int component attribute passed check; a typed constant's value was not checked at its
definition; an attribute declared as a component kind took the id of another kind.
"""

from __future__ import annotations

import os
import random
from pathlib import Path
from typing import Any
from unittest import mock

import pytest
import yaml
from hypothesis import HealthCheck, Phase, event, given, settings
from hypothesis import strategies as st

from rulekit.engine.game import Game
from rulekit.errors import RulekitError, RulesetError
from rulekit.load import load_program
from rulekit.rules.yaml_source import LocDict, load_file, span_of
from tests.property.mutations import ADDED, Site, component_ids, mutated, sites
from tests.rulesets import module_names, shipped_rulesets

RULESETS = shipped_rulesets()
SITES = {ruleset: sites(ruleset) for ruleset in RULESETS}
IDS = {ruleset: component_ids(ruleset) for ruleset in RULESETS}
#: Actions played per game: enough to pass set-up, several turns and usually a round's end.
MAX_ACTIONS = 150
#: Loading a mutant compiles it afresh (a second or so), so the properties try few examples in
#: ``make test``; the long property over numbers, modules and variants is ``slow``.
FEW = settings(
    max_examples=5,
    phases=[Phase.explicit, Phase.reuse, Phase.generate],  # shrinking a mutant would take minutes
    suppress_health_check=[HealthCheck.too_slow, HealthCheck.data_too_large],
)


def _no_cache() -> Any:
    """Mutants are compiled once each: keep them out of the on-disk program cache."""
    return mock.patch.dict(os.environ, {"RULEKIT_NO_CACHE": "1"})


def _variants(ruleset: Path) -> list[str]:
    return [str(p) for p in sorted((ruleset / "variants").glob("*.yaml"))]


def _play(program: Any, players: int, seed: int, what: str) -> None:
    """Random games of ``program``: a RulekitError ends one (a reported problem); nothing else may."""
    game = Game(program, players)
    rng = random.Random(seed)
    try:
        state = game.new_initial_state(seed)
        for _ in range(MAX_ACTIONS):
            if state.is_terminal():
                break
            legal = state.legal_actions()
            assert legal, f"{what}: a decision with no legal action"
            state.apply_action(rng.choice(legal))
    except RulekitError:
        return
    except Exception as error:  # the property: anything else is an internal error (exit 3)
        raise AssertionError(f"{what}: internal error {type(error).__name__}: {error}") from error


def _check_and_play(ruleset: Path, file: str, changes: list[tuple[tuple[Any, ...], Any]], data: Any) -> None:
    modules = (
        sorted(data.draw(st.sets(st.sampled_from(module_names(ruleset))))) if module_names(ruleset) else []
    )
    variants = _variants(ruleset)
    variant = data.draw(st.none() | st.sampled_from(variants)) if variants else None
    seed = data.draw(st.integers(0, 10_000), label="seed")
    what = f"{ruleset.name} {file} {changes} modules={modules} variant={variant}"
    with _no_cache(), mutated(ruleset, file, changes) as copy:
        try:
            program = load_program(str(copy), modules, [variant] if variant else [])
        except RulekitError as error:  # refused: fine, if it says where
            assert all(d.span is not None for d in error.diagnostics), f"{what}: {error}"
            event("refused by check")
            return
        event("accepted by check, played")
        rules = program.rules
        players = data.draw(st.integers(rules.min_players, rules.max_players), label="players")
        _play(program, players, seed, what)


# ------------------------------------------------------------------ type-correct mutations


@st.composite
def _number_changes(draw: Any) -> tuple[Path, str, list[tuple[tuple[Any, ...], Any]]]:
    """A ruleset, one of its files, and new whole numbers for some of that file's int values."""
    with_ints = [r for r in RULESETS if any(s.declared == "int" and type(s.value) is int for s in SITES[r])]
    ruleset = draw(st.sampled_from(with_ints))
    numbers = [s for s in SITES[ruleset] if s.declared == "int" and type(s.value) is int]
    file = draw(st.sampled_from(sorted({s.file for s in numbers})))
    chosen = draw(st.lists(st.sampled_from([s for s in numbers if s.file == file]), min_size=1, max_size=3))
    return ruleset, file, [(s.path, draw(st.integers(0, max(3, 2 * s.value)))) for s in chosen]


@pytest.mark.slow
@settings(FEW, max_examples=40)
@given(change=_number_changes(), data=st.data())
def test_numbers_changed_within_their_type_check_and_play_or_are_refused_with_a_position(
    change: tuple[Path, str, list[tuple[tuple[Any, ...], Any]]], data: Any
) -> None:
    """New whole numbers anywhere an int is declared, with any modules and variant: no internal error."""
    ruleset, file, changes = change
    _check_and_play(ruleset, file, changes, data)


def _int_parameters(ruleset: Path) -> list[tuple[tuple[Any, ...], Any]]:
    """A change of each int parameter's default by one, kept within its min and max."""
    data = yaml.safe_load((ruleset / "ruleset.yaml").read_text(encoding="utf-8")) or {}
    changes: list[tuple[tuple[Any, ...], Any]] = []
    for name, spec in (data.get("parameters") or {}).items():
        if isinstance(spec, dict) and spec.get("type") == "int" and isinstance(spec.get("default"), int):
            value = spec["default"] + 1
            if "max" in spec and value > spec["max"]:
                value = spec["default"] - 1
            changes.append((("parameters", name, "default"), value))
    return changes


@pytest.mark.parametrize("ruleset", RULESETS, ids=lambda p: p.name)
def test_a_changed_number_checks_and_plays(ruleset: Path) -> None:
    """One fixed type-correct mutation per ruleset in the default run: each int constant + 1."""
    numbers = [s for s in SITES[ruleset] if s.declared == "int" and s.path[0] == "constants"]
    if not numbers:
        numbers = [s for s in SITES[ruleset] if s.declared == "int"]
    parameters = _int_parameters(ruleset)
    if parameters and not [s for s in numbers if s.path[0] == "constants"]:
        # sizes are parameters (hex, nim...): each int parameter's default moved by one, in range
        file, changes = "ruleset.yaml", parameters
    elif numbers:
        file = numbers[0].file
        changes = [(s.path, s.value + 1) for s in numbers if s.file == file]
    else:  # no int anywhere: each whole number of its int-list constants + 1
        lists = [s for s in SITES[ruleset] if s.declared == "list[int]" and isinstance(s.value, list)]
        assert lists, f"{ruleset.name} declares no int and no list of ints to change"
        file = lists[0].file
        changes = [(s.path, [n + 1 for n in s.value]) for s in lists if s.file == file]
    with _no_cache(), mutated(ruleset, file, changes) as copy:
        program = load_program(str(copy))
        _play(program, program.rules.min_players, 1, f"{ruleset.name} {changes}")


def _typed_constants(ruleset: Path) -> list[tuple[str, Any, Any]]:
    """Typed constants a ruleset could declare: (type, value in YAML, value at run time)."""
    found: list[tuple[str, Any, Any]] = [
        ("int", 5, 5),
        ("bool", True, True),
        ("player", "P1", 0),
        ("list[player]", ["P1", "P2"], (0, 1)),
    ]
    data = yaml.safe_load((ruleset / "ruleset.yaml").read_text(encoding="utf-8")) or {}
    if (data.get("players") or {}).get("max") == 1:  # a one-player game has no P2
        found[-1] = ("list[player]", ["P1"], (0,))
    for kind, ids in sorted(IDS[ruleset].items()):
        found += [(kind, ids[0], ids[0]), (f"list[{kind}]", ids[:2], tuple(ids[:2]))]
    return found


@pytest.mark.parametrize("ruleset", RULESETS, ids=lambda p: p.name)
def test_a_typed_constant_with_a_value_of_its_type_checks_plays_and_has_that_value(ruleset: Path) -> None:
    """A constant {type: T, value: V} with V of type T, used as a game field's initial value,
    passes check, plays, and the field holds V as a T (P1 is the first player, not the text)."""
    changes: list[tuple[tuple[Any, ...], Any]] = []
    expected = {}
    for i, (type_, value, runtime) in enumerate(_typed_constants(ruleset)):
        changes.append((("constants", f"{ADDED}_{i}"), {"type": type_, "value": value}))
        changes.append((("state", "game", f"probe_{i}"), {"type": type_, "initial": f"{ADDED}_{i}"}))
        expected[("game", f"probe_{i}")] = runtime
    with _no_cache(), mutated(ruleset, "ruleset.yaml", changes) as copy:
        program = load_program(str(copy))
        state = Game(program, program.rules.min_players).new_initial_state(1)
        assert {key: state.fields[key] for key in expected} == expected
        _play(program, program.rules.min_players, 1, f"{ruleset.name} {changes}")


# ---------------------------------------------------------------- type-incorrect mutations


def _lines_of(path: Path, where: tuple[Any, ...]) -> range:
    """The lines of the value at ``where`` in a rules file (a number's key when it has no span)."""
    data = load_file(path)
    for key in where[:-1]:
        data = data[key]
    value = data[where[-1]]
    span = span_of(value)
    if span is None and isinstance(data, LocDict):
        span = data.key_spans[where[-1]]
    assert span is not None
    return range(span.line, max(span.line, span.end_line) + 1)


def _assert_reported(
    ruleset: Path, file: str, where: tuple[Any, ...], value: Any, at: tuple[Any, ...] | None = None
) -> None:
    """``check`` refuses the ruleset with ``value`` put at ``where`` (a module's file: with that
    module), with a diagnostic on the lines of ``at`` (default: ``where``)."""
    modules = [Path(file).stem] if file.startswith("modules/") else []
    with _no_cache(), mutated(ruleset, file, [(where, value)]) as copy:
        lines = _lines_of(copy / file, at or where)
        with pytest.raises(RulesetError) as caught:
            load_program(str(copy), modules)
    spans = [d.span for d in caught.value.diagnostics if d.span is not None]
    assert any(s.file.endswith(file) and s.line in lines for s in spans), (
        f"{ruleset.name} {file}:{lines} {where} = {value!r} reported elsewhere:\n{caught.value}"
    )


def _sites(kind: str) -> list[tuple[Path, Site]]:
    return [(r, s) for r in RULESETS for s in SITES[r] if kind == s.declared and s.path[0] == "components"]


@FEW
@given(case=st.sampled_from(_sites("int")), text=st.sampled_from(["six", "P1", "none of it"]))
def test_text_in_an_int_component_attribute_is_reported_at_the_value(
    case: tuple[Path, Site], text: str
) -> None:
    """An item's attribute declared int but written as a word is refused at that item's line."""
    ruleset, site = case
    _assert_reported(ruleset, site.file, site.path, text)


@settings(FEW, max_examples=4)
@given(
    case=st.sampled_from(
        [(r, s) for r in RULESETS for s in SITES[r] if s.path[0] == "state" and s.declared == "int"]
    ),
    literal=st.sampled_from(['"six"', "true", "[1, 2]"]),
)
def test_an_initial_value_of_the_wrong_type_is_reported_at_the_value(
    case: tuple[Path, Site], literal: str
) -> None:
    """A field declared int whose initial value is text, a truth value or a list is refused there."""
    ruleset, site = case
    _assert_reported(ruleset, site.file, site.path, literal)


def _wrong_constants() -> list[tuple[Path, str, Any]]:
    """Typed constants with a value not of their type: text for an int, a missing player, an
    id of the wrong kind, a list holding one."""
    found: list[tuple[Path, str, Any]] = []
    for ruleset in RULESETS:
        found += [(ruleset, "int", "six"), (ruleset, "bool", 3), (ruleset, "player", "P9")]
        found += [(ruleset, "player", "nobody"), (ruleset, "list[player]", ["P1", "P9"])]
        kinds = sorted(IDS[ruleset])
        for kind in kinds:
            others = [i for k in kinds if k != kind for i in IDS[ruleset][k]] or ["no_such_id"]
            found += [
                (ruleset, kind, others[0]),
                (ruleset, f"list[{kind}]", [IDS[ruleset][kind][0], others[-1]]),
            ]
    return found


@FEW
@given(case=st.sampled_from(_wrong_constants()))
def test_a_typed_constant_with_a_value_of_another_type_is_reported_at_the_value(
    case: tuple[Path, str, Any],
) -> None:
    """{type: T, value: V} with V not a T (text for int, P9, an id of another kind) is refused at V."""
    ruleset, type_, value = case
    declared = {"type": type_, "value": value}
    _assert_reported(ruleset, "ruleset.yaml", ("constants", ADDED), declared, ("constants", ADDED, "value"))


def _wrong_kind_sites() -> list[tuple[Path, Site, str]]:
    """Component attributes and typed constants that name an id of a kind, and an id of another kind."""
    found = []
    for ruleset in RULESETS:
        kinds = IDS[ruleset]
        for site in SITES[ruleset]:
            kind = site.declared.rstrip("?")
            if kind in kinds and isinstance(site.value, str):
                others = [i for k, ids in kinds.items() if k != kind for i in ids] or ["no_such_id"]
                found.append((ruleset, site, others[0]))
    return found


@FEW
@given(case=st.sampled_from(_wrong_kind_sites()))
def test_an_id_of_the_wrong_kind_in_an_attribute_is_reported_at_the_value(
    case: tuple[Path, Site, str],
) -> None:
    """A city attribute naming a card (an id of another kind, or no id at all) is refused at that item."""
    ruleset, site, wrong = case
    _assert_reported(ruleset, site.file, site.path, wrong)
