"""JSON Schemas (draft 2020-12) for rulekit's YAML files, for editors and tests.

The shipped files in ``rulekit/schema/`` are generated from the one declaration of
the rules format, :mod:`rulekit.rules.schema` (each shape becomes its JSON Schema),
so editors and ``rulekit check`` agree about keys and values::

    python -m rulekit.tools.schema          # rewrite rulekit/schema/*.schema.json

A test asserts the shipped files are current.  The schemas are strict about keys
(an unknown key is a typo the loader rejects too) and about flags, numbers and
words; DSL text and game data are checked by the loader.  Scenario files are
declared in :mod:`rulekit.rules.schema_scenario` (their runner is tools/scenario).
"""

from __future__ import annotations

import json
import sys
from pathlib import Path
from typing import Any

from rulekit.rules import schema as s
from rulekit.rules import view as view_decl
from rulekit.rules.compose import EXTENDABLE, MODULE_KEYS, NAMED_SECTIONS, RULESET_KEYS, SINGLE_SECTIONS
from rulekit.rules.migrations import MIGRATIONS
from rulekit.rules.schema_scenario import SCENARIO, SCENARIO_KEYS
from rulekit.rules.variants import VARIANT_KEYS
from rulekit.tools.verify.exclusions import MUTANTS

SCHEMA_DIR = Path(__file__).resolve().parent.parent / "schema"
DRAFT = "https://json-schema.org/draft/2020-12/schema"
BASE_ID = "https://rulekit.invalid/schema/"
#: Schema file per kind of YAML file.
KINDS = ("ruleset", "module", "variant", "scenario", "sections", "migrations", "mutants")

_EXPR = {
    "description": "A DSL expression (a string), or a literal number / true / false / none.",
    "type": ["string", "integer", "boolean", "null"],
}
_BLOCK = {"description": "DSL statements, one per line (use a | block for several lines).", "type": "string"}


def _text(description: str) -> dict[str, Any]:
    return {"type": "string", "description": description}


def _expr(description: str) -> dict[str, Any]:
    return {**_EXPR, "description": description}


def _obj(properties: dict[str, Any], description: str = "", **extra: Any) -> dict[str, Any]:
    result: dict[str, Any] = {"type": "object"}
    if description:
        result["description"] = description
    result["properties"] = properties
    result["additionalProperties"] = False
    result.update(extra)
    return result


def _list_or_one(item: dict[str, Any], description: str) -> dict[str, Any]:
    return {"description": description, "anyOf": [item, {"type": "array", "items": item}]}


def json_of(shape: s.Shape, description: str = "") -> dict[str, Any]:
    """The JSON Schema of one shape of :mod:`rulekit.rules.schema`."""
    result = _shape(shape)
    if description and "$ref" not in result:
        result = {"description": description, **result}
    return result


def _shape(shape: s.Shape) -> dict[str, Any]:
    if isinstance(shape, s.Expr):
        return dict(_EXPR)
    if isinstance(shape, s.Block):
        return dict(_BLOCK)
    if isinstance(shape, s.Text):
        # a number is text too (`cite: 4.3`, `title: 1830`), as the loader reads it
        return {"type": ["string", "number"], **({"maxLength": shape.max_length} if shape.max_length else {})}
    if isinstance(shape, s.Name):
        return {"$ref": "#/$defs/name"}
    if isinstance(shape, s.Flag):
        return {"type": "boolean"}
    if isinstance(shape, s.Int):
        bounds = {"minimum": shape.low, "maximum": shape.high}
        return {"type": "integer", **{k: v for k, v in bounds.items() if v is not None}}
    if isinstance(shape, s.Enum):
        return {"enum": list(shape.choices)}
    if isinstance(shape, s.TypeText):
        return {"type": "string", "description": _TYPE_DOC}
    if isinstance(shape, s.Custom):
        return _CUSTOM[shape.name]()
    if isinstance(shape, s.Data):
        return {}
    if isinstance(shape, s.Names):
        names = {"type": "array", "items": {"type": "string"}}
        return {"anyOf": [{"type": "string"}, names]} if shape.one_ok else names
    if isinstance(shape, s.ListOf):
        many = {"type": "array", "items": json_of(shape.item)}
        return {"anyOf": [json_of(shape.item), many]} if shape.one_ok else many
    if isinstance(shape, s.MapOf):
        names = {} if shape.free else {"propertyNames": {"$ref": "#/$defs/name"}}
        return {"type": "object", **names, "additionalProperties": json_of(shape.value)}
    if isinstance(shape, s.Ref):
        return {"$ref": f"#/$defs/{shape.name}"}
    if isinstance(shape, s.Either):
        short = shape.table.key(shape.table.short or "")
        assert short is not None
        return {"anyOf": [json_of(short.shape), _table(shape.table)]}
    if isinstance(shape, s.Tagged):
        return {
            "type": "object",
            "oneOf": [{**_table(table), "required": [tag]} for tag, table in shape.tables],
        }
    return _table(shape)


def _table(table: s.Table, extra: dict[str, Any] | None = None) -> dict[str, Any]:
    properties = {key.name: json_of(key.shape, key.doc) for key in table.keys}
    required = [key.name for key in table.keys if key.required]
    return _obj({**properties, **(extra or {})}, table.doc, **({"required": required} if required else {}))


_TYPE_DOC = "int bool str player owner map grid tuple any <kind> list[T]; T? may be none."


def definitions() -> dict[str, Any]:
    """The shared ``$defs`` of every schema: names and the recursive shapes (flow steps)."""
    defs = {"name": {"type": "string", "pattern": "^[A-Za-z_][A-Za-z0-9_]*$"}}
    defs.update({name: json_of(shape) for name, shape in s.DEFS.items()})
    defs.update({f"section_{key.name}": json_of(key.shape, key.doc) for key in s.SECTIONS})
    return defs


def section_properties() -> dict[str, Any]:
    """The schema of each rules section (a reference to its definition)."""
    return {key.name: {"$ref": f"#/$defs/section_{key.name}"} for key in s.SECTIONS}


#: ``controls:`` of a view: the served page's buttons for targets no shape stands for.
_CONTROLS = {
    "type": "object",
    "additionalProperties": {"type": "string"},
    "description": "Labels of the served page's controls by target (ACTION.PARAM or action).",
}


def _view_schema() -> dict[str, Any]:
    """The ``view`` section: canvas, colours and layers of shapes (rules/view.py checks the rest)."""
    value = {
        "description": "A literal or a DSL expression.",
        "type": ["string", "integer", "number", "boolean", "array"],
    }
    bind = {
        "description": "What a click on the shape chooses in rulekit serve: ACTION.PARAM or action, "
        "a list of them (the value: the shape's ref), or {TARGET: EXPRESSION}.",
        "type": ["string", "array", "object"],
    }
    shapes = {
        kind: _obj(
            dict.fromkeys(attrs, value)
            | ({"bind": bind} if "bind" in attrs else {})
            | {"doc": _text("A description.")},
            f"A {kind}.",
        )
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
    card = _obj(
        dict.fromkeys(view_decl.CARD, value)
        | {"as": _text("The card's name in its expressions (default card)."), "doc": _text("A description.")},
        "How a component of this kind (or an int or str) is drawn as a card by a track or stack "
        "with shape: card: w and h (pixels), title, value, lines (a list of texts), fill, stroke, "
        "ink (the texts' colour), back (a face-down card's colour).",
    )
    legend_entry = _obj(
        {
            "colour": _text("A colour: #rgb, #rrggbb, a CSS or palette name, or P1, P2..."),
            "shape": {"enum": list(view_decl.LEGEND_SHAPES), "description": "The swatch's shape."},
            "text": {"type": ["string", "integer"], "description": "What the swatch means."},
        },
        "One entry of the legend.",
    )
    return _obj(
        {
            "width": _expr("Canvas width in pixels."),
            "height": _expr("Canvas height in pixels."),
            "background": _text("The background colour."),
            "players": {"type": "array", "items": {"type": "string"}, "description": "A colour per seat."},
            "palette": colours,
            "cards": {
                "type": "object",
                "additionalProperties": card,
                "description": "A card template per component kind (or int, str).",
            },
            "legend": {"type": "array", "items": legend_entry, "description": "Drawn under the picture."},
            "layers": {"type": "array", "items": layer, "description": "Drawn in order."},
            "controls": _CONTROLS,
            "doc": _text("A description."),
        },
        "How a state is drawn as a picture (rulekit render, replay --html, serve).",
    )


def _start_schema() -> dict[str, Any]:
    """A scenario's ``start:``: the first player, and flow counters by name."""
    return {
        "type": "object",
        "properties": {"player": {"type": "string", "pattern": "^P[1-9][0-9]*$", "description": "P1, P2..."}},
        "additionalProperties": {"type": "integer", "minimum": 1},
    }


#: The JSON Schema of each value that its own module checks (:class:`rulekit.rules.shapes.Custom`).
_CUSTOM = {"view": _view_schema, "scenario_start": _start_schema}


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
        {
            "layers": {"type": "array", "description": "Layers drawn after the base view's."},
            "controls": _CONTROLS,
        },
        "Layers a module draws on top of the ruleset's view, and labels of its actions' controls.",
    )
    return _obj(properties, "Append to list-valued keys of existing entries, e.g. an action's require.")


def _file(table: s.Table, **operations: dict[str, Any]) -> dict[str, Any]:
    """The properties of a kind of file: its table's keys, with the operations' own schemas."""
    sections = section_properties()
    return {
        key.name: operations.get(key.name)
        or (sections[key.name] if key.section is not None else json_of(key.shape, key.doc))
        for key in table.keys
    }


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
    remove_path = {"type": "string", "pattern": "^[A-Za-z_][A-Za-z0-9_]*(\\.[A-Za-z0-9_]+)+$"}
    ruleset_props = _file(s.RULESET)
    module_props = _file(
        s.MODULE,
        override=_obj(replaceable, "Replace entries by name (and setup, flow, scoring)."),
        extend=_extend(),
        remove={"type": "array", "items": _text("SECTION.NAME"), "description": "Entries to remove."},
    )
    variant_props = _file(
        s.VARIANT,
        set={
            "type": "object",
            "description": "Values by path, e.g. constants.START_MONEY: 30, components.city.ID.ATTR: [3, 4], "
            "actions.NAME.cost: EXPR.",
            "propertyNames": {"pattern": remove_path["pattern"]},
        },
        replace=_obj(replaceable, "Replace entries by name (and setup, flow, scoring, players)."),
        remove=_list_or_one(
            remove_path, "Entries or values to remove, by path: triggers.NAME, components.KIND.ID ..."
        ),
        add=_obj(named, "New entries (and items/fields added to existing component kinds/state scopes)."),
        extend=_extend(),
    )
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
            SCENARIO.doc,
            _file(SCENARIO),
            required=[k.name for k in SCENARIO.keys if k.required],
        ),
        "sections": _schema(
            "sections", "rulekit sections file", "A file of sections included by a ruleset.", sections
        ),
        "migrations": _schema(
            "migrations",
            "rulekit migrations",
            MIGRATIONS.doc,
            _file(MIGRATIONS),
            required=[k.name for k in MIGRATIONS.keys if k.required],
        ),
        "mutants": _schema(
            "mutants",
            "rulekit mutants",
            MUTANTS.doc,
            _file(MUTANTS),
            required=[k.name for k in MUTANTS.keys if k.required],
        ),
    }
    _check_keys(schemas)
    return schemas


def _check_keys(schemas: dict[str, dict[str, Any]]) -> None:
    """The schemas know exactly the keys the loader knows."""
    expected = {
        "ruleset": set(RULESET_KEYS),
        "module": set(MODULE_KEYS),
        "variant": set(VARIANT_KEYS),
        "scenario": set(SCENARIO_KEYS),
        "sections": {*NAMED_SECTIONS, *SINGLE_SECTIONS},
        "migrations": set(MIGRATIONS.names),
        "mutants": set(MUTANTS.names),
    }
    for kind, keys in expected.items():
        have = set(schemas[kind]["properties"])
        if have != keys:
            raise AssertionError(f"{kind} schema keys differ from the loader's: {sorted(have ^ keys)}")


def schema_path(kind: str) -> Path:
    """The shipped schema file for ``kind`` (ruleset, module, variant, scenario, sections, migrations,
    mutants)."""
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
