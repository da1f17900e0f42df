"""The rules format, declared once: every section, key and value shape of a rules file.

Each entry of a section is a :class:`Table` of :class:`Key` s; a key carries its YAML
name, the :data:`Shape` of its value (DSL expression or block, a type, a flag, a
nested table ...), whether it is required (and the message when it is missing), its
default, whether a module's ``extend:`` may append to it, and a one-line doc.

Everything that needs to know "what is a rules file" reads this module:

* :mod:`rulekit.rules.structure` walks the located YAML against it (one pass,
  every problem at its ``file:line:col``) and :mod:`rulekit.rules.loader` builds the
  typed model from the result;
* :mod:`rulekit.rules.compose` and :mod:`rulekit.rules.variants` take the section
  lists, the extendable keys and the paths a variant may ``set`` from it;
* :mod:`rulekit.tools.schema` generates the JSON Schemas in ``rulekit/schema/``;
* ``tests/unit/test_schema_tables.py`` checks docs/rules-format.md's key tables.

Adding a key to an existing entry is one line in its table in
:mod:`rulekit.rules.schema_entries` (then the model
field and the loader line that reads it).  Adding a section is one :class:`Key` in
:data:`SECTIONS` with ``section="named"`` (a map of names to entries: modules add,
override and remove entries) or ``section="single"`` (one value: modules override
it), then ``python -m rulekit.tools.schema`` to regenerate the JSON Schemas.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

from rulekit.errors import did_you_mean
from rulekit.rules.shapes import (
    Block,
    Custom,
    Data,
    Either,
    Enum,
    Expr,
    Flag,
    Int,
    Key,
    ListOf,
    MapOf,
    Name,
    Names,
    Ref,
    Shape,
    Table,
    Tagged,
    Text,
    TypeText,
)

__all__ = [
    "ACTION",
    "DEFS",
    "EXTENDABLE",
    "FIELD",
    "FLOW_STEP",
    "MODULE",
    "NAMED_SECTIONS",
    "RULESET",
    "SECTIONS",
    "SINGLE_SECTIONS",
    "VARIANT",
    "Block",
    "Custom",
    "Data",
    "Either",
    "Enum",
    "Expr",
    "Flag",
    "Int",
    "Key",
    "ListOf",
    "MapOf",
    "Name",
    "Names",
    "Ref",
    "Shape",
    "Table",
    "Tagged",
    "Text",
    "TypeText",
    "resolve",
    "section",
    "shape_at",
    "table_of",
]

if TYPE_CHECKING:
    from rulekit.errors import DiagnosticBag
    from rulekit.rules.yaml_source import LocDict

from rulekit.rules.schema_entries import (
    ACTION,
    BOTS,
    COMPONENT_KIND,
    DEFS,
    ENSURES,
    FIELD,
    FLOW_STEP,
    FUNCTION,
    INVARIANT,
    PARAMETER,
    PLAYERS,
    PROCEDURE,
    PROPERTY,
    REQUIREMENT_GROUP,
    SCORING,
    SPACES,
    STEPS,
    SYMMETRY,
    TRIGGER,
    VISIBILITY_EXPECTATION,
)

# ---------------------------------------------------------------- files

#: The sections of a rules file, in the order the model is built.
SECTIONS: tuple[Key, ...] = (
    Key("constants", MapOf(Data(), "constant"), "Named constants.", section="named"),
    Key(
        "parameters",
        MapOf(PARAMETER, "parameter"),
        "Game parameters (a board size): read as constants, chosen with --param NAME=VALUE.",
        section="named",
    ),
    Key("components", MapOf(COMPONENT_KIND, "component kind"), "Component kinds.", section="named"),
    Key(
        "state",
        MapOf(MapOf(Either(FIELD), "field"), "state scope", free=True),
        "State fields by scope: game, turn, player or a component kind.",
        section="named",
    ),
    Key("functions", MapOf(Either(FUNCTION), "function"), "Pure functions.", section="named"),
    Key(
        "enums",
        MapOf(Names(one_ok=False), "enumeration"),
        "Enumerations: each a list of value names (colour.red).",
        section="named",
    ),
    Key(
        "records",
        MapOf(MapOf(TypeText(), "record field", reserved_ok=True), "record"),
        "Named record types: each field and its type.",
        section="named",
    ),
    Key(
        "procedures",
        MapOf(Either(PROCEDURE), "procedure"),
        "Named effect blocks, called as statements.",
        section="named",
    ),
    Key(
        "requirements",
        MapOf(REQUIREMENT_GROUP, "requirement group"),
        "Named groups of requirements that actions use.",
        section="named",
    ),
    Key(
        "events",
        MapOf(MapOf(TypeText(), "event field"), "event"),
        "Events that effects emit and triggers listen to.",
        section="named",
    ),
    Key("actions", MapOf(ACTION, "action"), "What players may do.", section="named"),
    Key(
        "triggers",
        MapOf(TRIGGER, "trigger"),
        "Effects that run before/after actions and events.",
        section="named",
    ),
    Key(
        "invariants",
        MapOf(Either(INVARIANT), "invariant"),
        "Conditions true in every reachable state.",
        section="named",
    ),
    Key(
        "properties",
        MapOf(Either(PROPERTY), "property"),
        "Conditions over the states before and after.",
        section="named",
    ),
    Key(
        "visibility",
        MapOf(VISIBILITY_EXPECTATION, "visibility expectation"),
        "Who may see a field at most (nobody, its owner, the others), checked by verify on "
        "the information model in every state it reaches.",
        section="named",
    ),
    Key(
        "postconditions",
        MapOf(ListOf(Either(ENSURES), one_ok=True), "action's postconditions"),
        "Postconditions of actions and triggers kept apart from them (a file of properties mined "
        "by verify --suggest): by action or trigger name, checked as its own ensures.",
        section="named",
    ),
    Key(
        "symmetries",
        MapOf(SYMMETRY, "symmetry"),
        "Relabellings of components (and board positions) the rules claim they cannot tell "
        "apart: a mirror, a rotation; checked by rulekit verify (engine:declared-symmetry).",
        section="named",
    ),
    Key("setup", Block(), "Run once after the fields get their initial values.", section="single"),
    Key(
        "flow",
        STEPS,
        "The game structure: a list of steps.",
        section="single",
        required=True,
        missing="a ruleset needs a 'flow' section (the game structure)",
    ),
    Key("scoring", SCORING, "Final standings.", section="single"),
    Key("players", PLAYERS, "Allowed player counts.", section="single"),
    Key("money", Name(), "The player field used by costs and transfers.", section="single"),
    Key("display", Data(), "How `rulekit play` draws the state (panels).", section="single"),
    Key("bots", BOTS, "Hints for bots and for `rulekit verify`'s exploration.", section="single"),
    Key("view", Custom("view"), "The picture of a state (rules/view.py).", section="single"),
    Key("spaces", SPACES, "How moves are numbered for OpenSpiel and PettingZoo.", section="single"),
)

NAMED_SECTIONS = tuple(k.name for k in SECTIONS if k.section == "named")
SINGLE_SECTIONS = tuple(k.name for k in SECTIONS if k.section == "single")

_INCLUDE = Key("include", Names(), "Files of sections to merge in (paths relative to this file).")

RULESET = Table(
    "ruleset",
    (
        Key("ruleset", Text(200), "The ruleset's name."),
        Key("title", Text(200), "The game's title."),
        Key("description", Text(), "What the game is."),
        Key("version", Data(), "The ruleset's version."),
        _INCLUDE,
        *SECTIONS,
    ),
    "A ruleset.yaml: the base rules of a game.",
)

SECTIONS_FILE = Table("section", SECTIONS, "A file of sections included by a ruleset.")

#: The operations of modules and variants (rules/patch.py), one language for both.
OPERATION_KEYS = (
    Key("add", Data(), "New entries (and items/fields added to existing component kinds/state scopes)."),
    Key("replace", Data(), "Replace entries by name (and setup, flow, scoring, players)."),
    Key("override", Data(), "The same as replace (the name modules have always used)."),
    Key("extend", Data(), "Append to list-valued keys of existing entries, e.g. an action's require."),
    Key("remove", Names(), "Entries or values to remove, by path: triggers.NAME, components.KIND.ID ..."),
    Key("set", Data(), "Values by path, e.g. constants.START_MONEY: 30, actions.NAME.cost: EXPR."),
    Key("adjust", Data(), 'Whole numbers by path, relative to the old value: constants.X: "old + 1".'),
)

MODULE = Table(
    "module",
    (
        Key("module", Text(), "The module's name."),
        Key("title", Text(), "The module's title."),
        Key("description", Text(), "What the module adds."),
        Key("requires", Names(), "Modules (or variants) this one needs."),
        Key("conflicts", Names(), "Modules or variants it cannot be combined with."),
        Key("players", PLAYERS, "Player counts the module allows (narrows the game's)."),
        _INCLUDE,
        *OPERATION_KEYS,
        *(k for k in SECTIONS if k.section == "named"),
    ),
    "A module: new sections' entries, and operations on the rules.",
)

VARIANT = Table(
    "variant",
    (
        Key("variant", Text(), "The variant's name.", required=True),
        Key("title", Text(), "A short title."),
        Key("description", Text(), "One paragraph: what changes and why a group would play it."),
        Key("ruleset", Text(), "The ruleset it extends (checked).", required=True),
        Key("requires", Names(), "Modules (or other variants) it needs."),
        Key("conflicts", Names(), "Modules or variants it cannot be combined with."),
        Key("players", PLAYERS, "Player counts the variant allows (narrows the game's)."),
        Key("cite", Text(), "Where the house rule comes from."),
        *OPERATION_KEYS,
    ),
    "A house-rule variant: checked operations on the rules.",
)

#: What a module's or variant's ``extend:`` may append to: section -> list-valued keys of its entries.
EXTENDABLE: dict[str, tuple[str, ...]] = {
    key.name: tuple(k.name for k in entry.keys if k.extend)
    for key in SECTIONS
    if isinstance(key.shape, MapOf)
    for entry in [key.shape.value.table if isinstance(key.shape.value, Either) else key.shape.value]
    if isinstance(entry, Table) and any(k.extend for k in entry.keys)
}


def check_keys(data: LocDict, allowed: tuple[str, ...], what: str, bag: DiagnosticBag) -> None:
    """Report every key of ``data`` that is not ``allowed``, at its position, with the nearest names."""
    for key in data:
        if key not in allowed:
            bag.error(
                f"unknown {what} key '{key}'",
                data.key_spans.get(key),
                hint=did_you_mean(str(key), allowed),
                expected=allowed,
            )


def section(name: str) -> Key | None:
    """The section called ``name``, if there is one."""
    for key in SECTIONS:
        if key.name == name:
            return key
    return None


def resolve(shape: Shape) -> Shape:
    """``shape`` with references looked up."""
    while isinstance(shape, Ref):
        shape = DEFS[shape.name]
    return shape


def table_of(shape: Shape) -> Table | None:
    """The table a shape is, or stands for (``Either``), if any."""
    shape = resolve(shape)
    if isinstance(shape, Either):
        return shape.table
    return shape if isinstance(shape, Table) else None


def shape_at(path: list[str]) -> Shape | None:
    """The shape of the value at a dotted path of composed rules (``actions.buy.cost``), if known.

    Named entries take any name; list elements any index or id.  Returns None where
    the schema does not describe the value (game data, view internals).
    """
    shape: Shape = RULESET
    for segment in path:
        shape = resolve(shape)
        if isinstance(shape, Either):
            shape = shape.table
        if isinstance(shape, Table):
            key = shape.key(segment)
            if key is None:
                return None
            shape = key.shape
        elif isinstance(shape, Tagged):
            tables = [table for _, table in shape.tables if table.key(segment) is not None]
            if not tables:
                return None
            shape = tables[0].key(segment).shape  # type: ignore[union-attr]
        elif isinstance(shape, MapOf):
            shape = shape.value
        elif isinstance(shape, ListOf):
            shape = shape.item
        else:
            return None
    return resolve(shape)
