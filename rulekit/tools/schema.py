"""JSON Schemas (draft 2020-12) for rulekit's YAML files, for editors and tests.

The shipped files in ``rulekit/schema/`` are generated from this module so that
they follow the loader's key lists::

    python -m rulekit.tools.schema          # rewrite rulekit/schema/*.schema.json

The schemas are strict about keys (an unknown key is a typo the loader would
reject too) and permissive about values that are DSL text or game data.
"""

from __future__ import annotations

import json
import sys
from pathlib import Path
from typing import Any

from rulekit.rules import view as view_decl
from rulekit.rules.compose import EXTENDABLE, MODULE_KEYS, NAMED_SECTIONS, RULESET_KEYS, SINGLE_SECTIONS
from rulekit.rules.variants import VARIANT_KEYS

SCHEMA_DIR = Path(__file__).resolve().parent.parent / "schema"
DRAFT = "https://json-schema.org/draft/2020-12/schema"
BASE_ID = "https://rulekit.invalid/schema/"
#: Schema file per kind of YAML file.
KINDS = ("ruleset", "module", "variant", "scenario", "sections")

_EXPR = {
    "description": "A DSL expression (a string), or a literal number / true / false / none.",
    "type": ["string", "integer", "boolean", "null"],
}
_BLOCK = {"description": "DSL statements, one per line (use a | block for several lines).", "type": "string"}
_TEXT = {"type": "string"}


def _text(description: str) -> dict[str, Any]:
    return {"type": "string", "description": description}


def _expr(description: str) -> dict[str, Any]:
    return {**_EXPR, "description": description}


def _block(description: str) -> dict[str, Any]:
    return {**_BLOCK, "description": description}


def _obj(properties: dict[str, Any], description: str = "", **extra: Any) -> dict[str, Any]:
    result: dict[str, Any] = {"type": "object"}
    if description:
        result["description"] = description
    result["properties"] = properties
    result["additionalProperties"] = False
    result.update(extra)
    return result


def _names_of(ref: str, description: str) -> dict[str, Any]:
    return {
        "type": "object",
        "description": description,
        "propertyNames": {"$ref": "#/$defs/name"},
        "additionalProperties": {"$ref": ref},
    }


def _list_or_one(item: dict[str, Any], description: str) -> dict[str, Any]:
    return {"description": description, "anyOf": [item, {"type": "array", "items": item}]}


def definitions() -> dict[str, Any]:
    """The shared ``$defs`` of every schema."""
    step_ref = {"$ref": "#/$defs/flow_step"}
    steps = {"type": "array", "description": "Flow steps, run in order.", "items": step_ref}
    return {
        "name": {"type": "string", "pattern": "^[A-Za-z_][A-Za-z0-9_]*$"},
        "players": _obj(
            {
                "min": {"type": "integer", "minimum": 1, "description": "Fewest players."},
                "max": {"type": "integer", "minimum": 1, "description": "Most players."},
            },
            "Allowed player counts.",
        ),
        "constant": {
            "description": "A constant: any value, or {type: list[city], value: [...]} to have ids checked.",
        },
        "component_kind": _obj(
            {
                "collection": _text("Name of the list of all items (default: the kind name + 's')."),
                "attributes": {
                    "type": "object",
                    "description": "Static attributes and their types (int, str, bool, list[int], a kind).",
                    "additionalProperties": {"type": "string"},
                },
                "items": {
                    "type": "array",
                    "description": "The components: {id: ..., attribute: value, ...}.",
                    "items": {
                        "type": "object",
                        "required": ["id"],
                        "properties": {"id": {"$ref": "#/$defs/name", "description": "Unique component id."}},
                    },
                },
                "doc": _text("What this kind of component is."),
            },
            "A kind of component: its attributes and items.",
        ),
        "field": {
            "description": "A state field: a type (int, player?, list[card]...) or {type, initial}.",
            "anyOf": [
                {"type": "string"},
                _obj(
                    {
                        "type": _text(
                            "int bool str player owner map grid tuple any <kind> list[T]; T? may be none."
                        ),
                        "initial": {"description": "Initial value: a literal or a DSL expression."},
                        "visibility": {
                            "enum": ["public", "owner", "hidden"],
                            "description": "Who sees the value (owner: player fields only).",
                        },
                        "doc": _text("What this field holds."),
                    }
                ),
            ],
        },
        "state": {
            "type": "object",
            "description": "State fields by scope: game, turn, player or a component kind.",
            "additionalProperties": _names_of("#/$defs/field", "Fields of this scope."),
        },
        "function": {
            "description": "A pure function: an expression body, or {params: {p: type}, body: EXPR}.",
            "anyOf": [
                {"type": "string"},
                _obj(
                    {
                        "params": {
                            "type": "object",
                            "description": "Parameters and their types.",
                            "additionalProperties": {"type": "string"},
                        },
                        "body": _expr("The function's value."),
                        "doc": _text("What the function computes."),
                    }
                ),
            ],
        },
        "event": {
            "type": ["object", "null"],
            "description": "An event's fields and their types.",
            "additionalProperties": {"type": "string"},
        },
        "requirement": {
            "anyOf": [
                _text("A condition the action needs."),
                _obj(
                    {
                        "if": _expr("The condition."),
                        "else": _text("The message shown when it fails."),
                        "cite": _text("The rule it comes from, e.g. §4.3."),
                    },
                    required=["if"],
                ),
            ]
        },
        "action": _obj(
            {
                "params": {
                    "type": "object",
                    "description": "Parameters and the DSL list of their possible values.",
                    "additionalProperties": _EXPR,
                },
                "require": _list_or_one({"$ref": "#/$defs/requirement"}, "Conditions, each with a message."),
                "cost": _expr("Paid to the bank from the money field; unaffordable means illegal."),
                "effect": _block("What the action does."),
                "ends_turn": {"type": "boolean", "description": "The action ends the player's turn."},
                "prompt": {"type": "boolean", "description": "Only when asked (ask) or listed in a turn."},
                "ensures": _list_or_one(
                    {"$ref": "#/$defs/property"},
                    "Postconditions checked by verify after the action (before(...) and after(...)).",
                ),
                "offered_with": _list_or_one(
                    {"$ref": "#/$defs/name"},
                    "Also offered in every turn whose explicit actions list names one of these actions.",
                ),
                "cite": _text("The rule it comes from."),
                "doc": _text("What the action is."),
            },
            "Something a player may do.",
        ),
        "trigger": _obj(
            {
                "after": _text("The action or event after which it runs."),
                "before": _text("The action before which it runs."),
                "when": _expr("Runs only when this holds."),
                "effect": _block("What happens."),
                "cite": _text("The rule it comes from."),
                "doc": _text("What the trigger does."),
            },
            "Effects run before or after an action or event.",
        ),
        "invariant": {
            "anyOf": [
                _text("A condition that holds in every reachable state."),
                _obj(
                    {
                        "holds": _expr("The condition."),
                        "message": _text("What it means when it fails."),
                        "cite": _text("The rule it comes from."),
                    }
                ),
            ]
        },
        "property": {
            "anyOf": [
                _text("A condition over the states before and after (before(...), after(...))."),
                _obj(
                    {
                        "holds": _expr("The condition."),
                        "message": _text("What it means when it fails."),
                        "cite": _text("The rule it comes from."),
                        "over": {
                            "enum": ["action", "turn"],
                            "description": "Compare across an action or a turn.",
                        },
                    }
                ),
            ]
        },
        "flow_step": _obj(
            {
                "do": _block("Run an effect."),
                "repeat": _obj(
                    {
                        "times": _expr("How many times."),
                        "while": _expr("Repeat while this holds."),
                        "until": _expr("Repeat until this holds."),
                        "counter": _text("A game field counting the rounds."),
                        "steps": steps,
                    }
                ),
                "for_each": _obj(
                    {
                        "in": _expr("The list."),
                        "as": _text("A game field holding the element."),
                        "steps": steps,
                    }
                ),
                "turn": {
                    "description": "A turn: a player expression or {player, actions, once, until...}.",
                    "anyOf": [
                        {"type": "string"},
                        _obj(
                            {
                                "player": _expr("Whose turn."),
                                "actions": {
                                    "type": "array",
                                    "items": _TEXT,
                                    "description": "Allowed actions.",
                                },
                                "once": {"type": "boolean", "description": "One action, then the turn ends."},
                                "until": _expr("The turn ends when this holds."),
                                "on_start": _block("Run when the turn starts."),
                                "on_end": _block("Run when the turn ends."),
                            }
                        ),
                    ],
                },
                "if": _expr("Condition of an if step."),
                "then": steps,
                "else": steps,
            },
            "One step: do, repeat, for_each, turn or if.",
            minProperties=1,
        ),
        "flow": {**steps, "description": "The game structure: a list of steps."},
        "scoring": _obj(
            {
                "score": _expr("Each player's score (`player` is bound)."),
                "tiebreak": _list_or_one(_EXPR, "Tie-breaks, in order (highest wins)."),
                "end_when": _expr("The game ends as soon as this holds."),
            },
            "Final standings.",
        ),
        "display": {"type": "object", "description": "How `rulekit play` draws the state (panels)."},
        "view": _view_schema(),
        "bots": _obj(
            {
                "weights": {
                    "type": "object",
                    "description": (
                        "Relative weight of each action for random bots and verify (default 1): "
                        "a whole number, or a DSL expression over `me` and the action's parameters."
                    ),
                    "additionalProperties": {
                        "anyOf": [{"type": "integer", "minimum": 0}, {"type": "string"}]
                    },
                },
                "evaluate": _expr(
                    "How good the state is for `me` (an int): the heuristic bot plays the action "
                    "rated best, MCTS rates the states where it cuts a play-out off."
                ),
                "doc": _text("Why these weights and this evaluation."),
            },
            "Hints for bots and for `rulekit verify`'s exploration.",
        ),
        "spaces": _obj(
            {
                "bound": {
                    "type": "integer",
                    "minimum": 0,
                    "maximum": 1000,
                    "description": (
                        "Open action parameters (ints, pairs of ints) lie within -bound..bound "
                        "in the integer action space of OpenSpiel and PettingZoo (default 12)."
                    ),
                },
                "doc": _text("Why this bound."),
            },
            "How moves are numbered for OpenSpiel and PettingZoo.",
        ),
    }


def section_properties() -> dict[str, Any]:
    """The schema of each rules section."""
    return {
        "constants": _names_of("#/$defs/constant", "Named constants."),
        "components": _names_of("#/$defs/component_kind", "Component kinds."),
        "state": {"$ref": "#/$defs/state"},
        "functions": _names_of("#/$defs/function", "Pure functions."),
        "events": _names_of("#/$defs/event", "Events that effects emit and triggers listen to."),
        "actions": _names_of("#/$defs/action", "What players may do."),
        "triggers": _names_of("#/$defs/trigger", "Effects that run before/after actions and events."),
        "invariants": _names_of("#/$defs/invariant", "Conditions true in every reachable state."),
        "properties": _names_of("#/$defs/property", "Conditions over the states before and after."),
        "setup": _block("Run once after the fields get their initial values."),
        "flow": {"$ref": "#/$defs/flow"},
        "scoring": {"$ref": "#/$defs/scoring"},
        "players": {"$ref": "#/$defs/players"},
        "money": _text("The player field used by costs and transfers."),
        "display": {"$ref": "#/$defs/display"},
        "bots": {"$ref": "#/$defs/bots"},
        "view": {"$ref": "#/$defs/view"},
        "spaces": {"$ref": "#/$defs/spaces"},
    }


def _view_schema() -> dict[str, Any]:
    """The ``view`` section: canvas, colours and layers of shapes (rules/view.py checks the rest)."""
    value = {
        "description": "A literal or a DSL expression.",
        "type": ["string", "integer", "number", "boolean", "array"],
    }
    shapes = {
        kind: _obj(dict.fromkeys(attrs, value) | {"doc": _text("A description.")}, f"A {kind}.")
        for kind, attrs in view_decl.SHAPES.items()
    }
    layer = _obj(
        {
            "name": _text("The layer's name (the SVG group id layer-NAME)."),
            "each": _expr("Draw the shape once per element of this list."),
            "as": _text("The name of the element in the shape's expressions."),
            "when": _expr("Draw only when this holds."),
            "seat": {"type": "boolean", "description": "Only in a seat's own picture (me = that seat)."},
            "doc": _text("A description."),
            **shapes,
        },
        "One layer: exactly one shape, drawn once or once per element.",
    )
    colours = {"type": "object", "additionalProperties": {"type": "string"}, "description": "Named colours."}
    return _obj(
        {
            "width": _expr("Canvas width in pixels."),
            "height": _expr("Canvas height in pixels."),
            "background": _text("The background colour."),
            "players": {"type": "array", "items": {"type": "string"}, "description": "A colour per seat."},
            "palette": colours,
            "layers": {"type": "array", "items": layer, "description": "Drawn in order."},
            "doc": _text("A description."),
        },
        "How a state is drawn as a picture (rulekit render, replay --html, serve).",
    )


def _extend() -> dict[str, Any]:
    properties = {
        section: {
            "type": "object",
            "description": f"Existing {section} by name, and the lists to append to.",
            "additionalProperties": _obj(
                {key: {"type": "array", "description": f"Entries appended to '{key}'."} for key in keys}
            ),
        }
        for section, keys in EXTENDABLE.items()
    }
    properties["view"] = _obj(
        {"layers": {"type": "array", "description": "Layers drawn after the base view's."}},
        "Layers a module draws on top of the ruleset's view.",
    )
    return _obj(properties, "Append to list-valued keys of existing entries, e.g. an action's require.")


def _names_list(description: str) -> dict[str, Any]:
    return _list_or_one({"type": "string"}, description)


def _schema(
    kind: str, title: str, description: str, properties: dict[str, Any], **extra: Any
) -> dict[str, Any]:
    return {
        "$schema": DRAFT,
        "$id": f"{BASE_ID}{kind}.schema.json",
        "title": title,
        "description": description,
        "type": "object",
        "properties": properties,
        "additionalProperties": False,
        **extra,
        "$defs": definitions(),
    }


def build_schemas() -> dict[str, dict[str, Any]]:
    """Every schema by kind."""
    sections = section_properties()
    named = {k: v for k, v in sections.items() if k in NAMED_SECTIONS}
    replaceable = {k: v for k, v in sections.items() if k in (*NAMED_SECTIONS, *SINGLE_SECTIONS)}
    include = _names_list("Files of sections to merge in (paths relative to this file).")
    ruleset_props = {
        "ruleset": _text("The ruleset's name."),
        "title": _text("The game's title."),
        "description": _text("What the game is."),
        "version": {"type": ["string", "number"], "description": "The ruleset's version."},
        "include": include,
        **sections,
    }
    module_props = {
        "module": _text("The module's name."),
        "title": _text("The module's title."),
        "description": _text("What the module adds."),
        "requires": _names_list("Modules this one needs."),
        "conflicts": _names_list("Modules or variants it cannot be combined with."),
        "players": {"$ref": "#/$defs/players"},
        "include": include,
        "override": _obj(replaceable, "Replace entries by name (and setup, flow, scoring)."),
        "extend": _extend(),
        "remove": {"type": "array", "items": _text("SECTION.NAME"), "description": "Entries to remove."},
        **named,
    }
    variant_props = {
        "variant": _text("The variant's name."),
        "title": _text("A short title."),
        "description": _text("One paragraph: what changes and why a group would play it."),
        "ruleset": _text("The ruleset it extends (checked)."),
        "requires": _names_list("Modules (or other variants) it needs."),
        "conflicts": _names_list("Modules or variants it cannot be combined with."),
        "players": {"$ref": "#/$defs/players"},
        "cite": _text("Where the house rule comes from."),
        "set": {
            "type": "object",
            "description": "Values by path, e.g. constants.START_MONEY: 30, components.city.ID.ATTR: [3, 4], "
            "actions.NAME.cost: EXPR.",
            "propertyNames": {"pattern": "^[A-Za-z_][A-Za-z0-9_]*(\\.[A-Za-z0-9_]+)+$"},
        },
        "replace": _obj(replaceable, "Replace entries by name (and setup, flow, scoring, players)."),
        "remove": _list_or_one(
            {"type": "string", "pattern": "^[A-Za-z_][A-Za-z0-9_]*(\\.[A-Za-z0-9_]+)+$"},
            "Entries or values to remove, by path: triggers.NAME, components.KIND.ID ...",
        ),
        "add": _obj(named, "New entries (and items/fields added to existing component kinds/state scopes)."),
        "extend": _extend(),
    }
    expectation = {
        "anyOf": [
            _text("A DSL condition."),
            _obj(
                {
                    "expr": _text("A DSL expression."),
                    "equals": {"description": "Its expected value (P1.. are players, none is none)."},
                },
                required=["expr"],
            ),
        ]
    }
    expect = {
        "description": "DSL conditions on the state, or {expr, equals}.",
        "anyOf": [expectation, {"type": "array", "items": expectation}],
    }
    checks = {
        "expect": expect,
        "expect_legal": _names_list("Actions that must be legal now."),
        "expect_not_legal": _names_list("Actions that must not be legal now."),
    }
    action_entry = {
        "anyOf": [
            _text("An action in the log notation, e.g. place(b2)."),
            _obj(
                {
                    "action": _text("The action, e.g. buy(card_3)."),
                    "reject": _text("Expect a rejection whose message contains this text."),
                    "by": _text("The player who must be deciding, e.g. P2."),
                    **checks,
                },
                "An action, then expectations checked right after it (a checkpoint).",
                required=["action"],
            ),
            _obj(
                {"event": _text("An event fired now, e.g. payday() or built(city=lyon)."), **checks},
                "An event fired between actions; its triggers run.",
                required=["event"],
            ),
            _obj(
                {"effect": _block("DSL statements run now, as a rule's effect would."), **checks},
                "An effect run between actions.",
                required=["effect"],
            ),
            _obj(checks, "A checkpoint: expectations on the state at this point.", minProperties=1),
        ]
    }
    player = {"type": "string", "pattern": "^P[1-9][0-9]*$", "description": "A player: P1, P2..."}
    scenario_props = {
        "scenario": _text("What the scenario shows."),
        "cite": _text("The rule or example it comes from."),
        "doc": _text("More explanation."),
        "ruleset": _text("The ruleset (optional inside the ruleset's directory)."),
        "modules": _names_list("Modules to use."),
        "variants": _names_list("Variant files or shipped variant names to apply."),
        "players": {"type": "integer", "minimum": 1, "description": "Number of players."},
        "seed": {"type": "integer", "description": "Random seed."},
        "setup": {
            "type": "object",
            "description": "State by path before the actions, e.g. P1.money: 30, game.round: 2.",
        },
        "setup_effect": _block("A DSL effect run after setup."),
        "actions": {"type": "array", "items": action_entry, "description": "Actions, in order."},
        "expect": {**expect, "description": "DSL conditions on the final state, or {expr, equals}."},
        "expect_legal": _names_list("Actions that must be legal at the end."),
        "expect_not_legal": _names_list("Actions that must not be legal at the end."),
        "before_setup": {
            "type": "object",
            "description": "State by path set before the ruleset's own setup runs (e.g. a deck's order).",
        },
        "keep_order": {"type": "boolean", "description": "Shuffles keep the order given (default false)."},
        "start": {
            "type": "object",
            "description": "Who decides first (player: P2) and where the flow's counters stand (round: 3).",
            "properties": {"player": player},
            "additionalProperties": {"type": "integer", "minimum": 1},
        },
        "check_invariants": {
            "type": "boolean",
            "description": "Check the rules' invariants after the set-up and every step (default true).",
        },
        "skip_invariants": _names_list("Invariants not checked (the set-up leaves their world on purpose)."),
        "expect_terminal": {"type": "boolean", "description": "The game is over at the end (or not)."},
        "expect_winners": {
            "description": "The players tied for first at the end.",
            "anyOf": [player, {"type": "array", "items": player}],
        },
        "expect_standings": {"type": "array", "items": player, "description": "All players, first to last."},
        "expect_scores": {
            "type": "object",
            "description": "Final scores: P1: 30, P2: 12.",
            "propertyNames": {"pattern": "^P[1-9][0-9]*$"},
            "additionalProperties": {"type": "integer"},
        },
    }
    schemas = {
        "ruleset": _schema(
            "ruleset", "rulekit ruleset", "A ruleset.yaml: the base rules of a game.", ruleset_props
        ),
        "module": _schema(
            "module",
            "rulekit module",
            "A module: adds, overrides or removes rules.",
            module_props,
            required=["module"],
        ),
        "variant": _schema(
            "variant",
            "rulekit variant",
            "A house-rule variant: checked operations on the rules.",
            variant_props,
            required=["variant", "ruleset"],
        ),
        "scenario": _schema(
            "scenario",
            "rulekit scenario",
            "A scenario: a rules example as a test.",
            scenario_props,
            required=["scenario"],
        ),
        "sections": _schema(
            "sections", "rulekit sections file", "A file of sections included by a ruleset.", sections
        ),
    }
    _check_keys(schemas)
    return schemas


def _check_keys(schemas: dict[str, dict[str, Any]]) -> None:
    """The schemas know exactly the keys the loader knows."""
    from rulekit.tools.scenario import SCENARIO_KEYS

    expected = {
        "ruleset": set(RULESET_KEYS),
        "module": set(MODULE_KEYS),
        "variant": set(VARIANT_KEYS),
        "scenario": set(SCENARIO_KEYS),
        "sections": {*NAMED_SECTIONS, *SINGLE_SECTIONS},
    }
    for kind, keys in expected.items():
        have = set(schemas[kind]["properties"])
        if have != keys:
            raise AssertionError(f"{kind} schema keys differ from the loader's: {sorted(have ^ keys)}")


def schema_path(kind: str) -> Path:
    """The shipped schema file for ``kind`` (ruleset, module, variant, scenario, sections)."""
    return SCHEMA_DIR / f"{kind}.schema.json"


def render_schema(schema: dict[str, Any]) -> str:
    return json.dumps(schema, indent=2, ensure_ascii=False) + "\n"


def write_schemas(directory: Path = SCHEMA_DIR) -> list[Path]:
    directory.mkdir(parents=True, exist_ok=True)
    written = []
    for kind, schema in build_schemas().items():
        path = directory / f"{kind}.schema.json"
        path.write_text(render_schema(schema), encoding="utf-8")
        written.append(path)
    return written


if __name__ == "__main__":  # pragma: no cover
    for written_path in write_schemas(Path(sys.argv[1]) if len(sys.argv) > 1 else SCHEMA_DIR):
        print(written_path)
