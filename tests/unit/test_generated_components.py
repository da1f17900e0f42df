"""A component kind's ``generate:`` makes its items from constant parameters, with located errors."""

from __future__ import annotations

import json
import re
from collections.abc import Callable, Iterator
from pathlib import Path

import jsonschema
import pytest
import yaml

from rulekit.errors import RulesetError
from rulekit.limits import LIMITS
from rulekit.load import load_program
from rulekit.tools.schema import schema_path

DOC = Path(__file__).resolve().parents[2] / "docs" / "rules-format.md"

RULES = """\
ruleset: g
players: {min: 2, max: 2}
constants:
  columns: 3
components:
  cell:
    attributes: {x: int, y: int}
COMPONENTS
state:
  game:
    n: {type: int}
actions:
  go: {ends_turn: true}
flow:
  - turn: player_at(1)
"""


@pytest.fixture
def load(write_ruleset: Callable[..., Path]) -> Callable[[str], dict[str, dict[str, object]]]:
    """Load RULES with COMPONENTS replaced; the cells as {id: attributes}."""

    def run(components: str) -> dict[str, dict[str, object]]:
        text = RULES.replace("COMPONENTS\n", components)
        program = load_program(str(write_ruleset(text)))
        return {item.id: dict(item.values) for item in program.rules.kinds["cell"].items}

    return run


def _error(load: Callable[[str], object], components: str) -> str:
    with pytest.raises(RulesetError) as caught:
        load(components)
    return str(caught.value)


@pytest.fixture
def small_limit() -> Iterator[None]:
    LIMITS.max_generated_items = 10
    yield
    LIMITS.reset()


def test_the_product_of_the_loops_makes_one_item_per_combination_first_variable_outermost(
    load: Callable[[str], dict[str, dict[str, object]]],
) -> None:
    cells = load('    generate:\n      for: {x: "range(0, columns)", y: "[1, 2]"}\n      id: "c{x}_{y}"\n')
    assert list(cells) == ["c0_1", "c0_2", "c1_1", "c1_2", "c2_1", "c2_2"]
    assert cells["c2_1"] == {"x": 2, "y": 1}


def test_generated_items_come_after_the_listed_items(
    load: Callable[[str], dict[str, dict[str, object]]],
) -> None:
    cells = load(
        "    items:\n      - {id: corner, x: 9, y: 9}\n"
        '    generate:\n      for: {x: "[columns - 1]", y: "range(0, 2)"}\n      id: "e{y}"\n'
    )
    assert cells == {"corner": {"x": 9, "y": 9}, "e0": {"x": 2, "y": 0}, "e1": {"x": 2, "y": 1}}


def test_the_documented_example_loads_to_its_42_cells(write_ruleset: Callable[..., Path]) -> None:
    section = DOC.read_text(encoding="utf-8").split("### Generated components", 1)[1]
    example = re.search(r"```yaml\n(.*?)```", section, re.S)
    assert example is not None
    text = "ruleset: d\nplayers: {min: 2}\n" + example.group(1) + "actions:\n  go: {ends_turn: true}\n"
    text += "flow:\n  - turn: player_at(1)\n"
    items = load_program(str(write_ruleset(text))).rules.kinds["cell"].items
    assert len(items) == 42
    assert (items[0].id, items[1].id, items[-1].id) == ("c0_0", "c0_1", "c6_5")
    assert items[-1].values == {"x": 6, "y": 5}


@pytest.mark.parametrize(
    ("components", "message"),
    [
        (
            '    generate:\n      for: {x: "range(0, 2)", y: "[0]"}\n      id: "c{x}_{z}"\n',
            r"rs/ruleset.yaml:10:11: .*generate.id names '\{z\}', which is not a loop variable",
        ),
        (
            '    generate:\n      for: {x: "range(0, 2)", y: "[0]"}\n      id: "c-{x}"\n',
            r"ruleset.yaml:10:11: .*generate.id makes 'c-0', which is not a name",
        ),
        (
            '    generate:\n      for: {x: "range(0, 2)", y: "[0, 1]"}\n      id: "c{x}"\n',
            r"ruleset.yaml:10:11: .*generate.id makes 'c0' twice",
        ),
        (
            '    generate:\n      for: {x: "range(0, 2)"}\n      id: "c{x}"\n',
            r"ruleset.yaml:10:11: .*generate.for does not give attribute 'y'",
        ),
        (
            '    generate:\n      for: {x: "range(0, 2)", y: "[0]", z: "[0]"}\n      id: "c{x}"\n',
            r"ruleset.yaml:9:41: .*generate.for: 'z' is not an attribute of cell",
        ),
        (
            '    generate:\n      for: {x: "range(0, game.n)", y: "[0]"}\n      id: "c{x}"\n',
            r"ruleset.yaml:9:26: .*generate.for.x: reads the state, which does not exist yet",
        ),
        (
            '    generate:\n      for: {x: "range(0, rows)", y: "[0]"}\n      id: "c{x}"\n',
            r"ruleset.yaml:9:26: .*generate.for.x: 'rows' is not a constant",
        ),
        (
            '    generate:\n      for: {x: "[num_players]", y: "[0]"}\n      id: "c{x}"\n',
            r"ruleset.yaml:9:18: .*generate.for.x: 'num_players' is not a constant",
        ),
        (
            '    generate:\n      for: {x: "[1 < 2]", y: "[0]"}\n      id: "c{x}"\n',
            r"ruleset.yaml:9:18: .*generate.for.x: only constants, numbers, text, lists",
        ),
        (
            "    items:\n      - {id: c0, x: 0, y: 0}\n"
            '    generate:\n      for: {x: "range(0, 2)", y: "[0]"}\n      id: "c{x}"\n',
            r"duplicate component id 'c0'",
        ),
    ],
    ids=[
        "unknown-template-name",
        "id-not-a-name",
        "duplicate-generated-id",
        "attribute-not-covered",
        "loop-not-an-attribute",
        "reads-state",
        "unknown-constant",
        "reads-the-player-count",
        "not-a-load-time-expression",
        "duplicate-with-listed-item",
    ],
)
def test_a_wrong_generate_is_one_located_error(
    load: Callable[[str], object], components: str, message: str
) -> None:
    error = _error(load, components)
    assert re.search(message, error), error
    assert error.count("error") <= 2, error  # reported once, not once per item


@pytest.mark.usefixtures("small_limit")
def test_more_items_than_the_limit_is_an_error_before_any_is_made(load: Callable[[str], object]) -> None:
    error = _error(
        load, '    generate:\n      for: {x: "range(0, 1000000000)", y: "[0, 1]"}\n      id: "c{x}_{y}"\n'
    )
    assert re.search(r"would make 2000000000 items, more than max_generated_items \(10\)", error), error


def test_a_range_beyond_a_machine_integer_is_refused_by_the_limit(load: Callable[[str], object]) -> None:
    huge = "99999999999 * 99999999999 * 99999999999"
    error = _error(
        load, f'    generate:\n      for: {{x: "range(0, {huge})", y: "[0]"}}\n      id: "c{{x}}"\n'
    )
    assert "more than max_generated_items (10000)" in error, error


def test_the_json_schema_accepts_the_documented_example() -> None:
    section = DOC.read_text(encoding="utf-8").split("### Generated components", 1)[1]
    example = re.search(r"```yaml\n(.*?)```", section, re.S)
    assert example is not None
    validator = jsonschema.Draft202012Validator(
        json.loads(schema_path("ruleset").read_text(encoding="utf-8"))
    )
    data = yaml.safe_load(example.group(1))
    assert not list(validator.iter_errors(data))
    data["components"]["cell"]["generate"]["fro"] = data["components"]["cell"]["generate"].pop("for")
    assert list(validator.iter_errors(data))


@pytest.mark.usefixtures("small_limit")
def test_a_product_at_the_limit_is_generated(load: Callable[[str], dict[str, dict[str, object]]]) -> None:
    assert (
        len(load('    generate:\n      for: {x: "range(0, 5)", y: "[0, 1]"}\n      id: "c{x}_{y}"\n')) == 10
    )


def test_generated_values_are_checked_against_the_attribute_types(load: Callable[[str], object]) -> None:
    error = _error(load, '    generate:\n      for: {x: "[\'a\']", y: "[0]"}\n      id: "c{y}"\n')
    assert "cell 'c0': x" in error, error
