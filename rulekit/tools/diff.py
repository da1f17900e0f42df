"""``rulekit diff``: what a variant (or a set of modules) changes in a ruleset.

Compares two composed rulesets (base + modules + variants) and lists constants
and component attributes changed (old -> new); actions, triggers, functions,
invariants, events, state fields, setup, flow and scoring added, removed or
replaced (with a unified diff of their text); each with the file:line it comes
from, and for what a change touches (a constant, function, state field, component or
component attribute, event or action) the rules that use it, of the new side (of the old
side for a removal; :mod:`rulekit.tools.impact`: directly or through functions).  ``--json``
prints the same for tools.

    rulekit diff tic_tac_toe --variant misere                   # against the plain ruleset
    rulekit diff my_game --with tiles --variant a.yaml --against --with tiles --variant b.yaml
"""

from __future__ import annotations

import argparse
import json
from typing import Any

from attrs import define, field

from rulekit.errors import Diagnostic, Span, UsageError
from rulekit.load import load_composed
from rulekit.rules.compose import fingerprint, plain_data
from rulekit.rules.model import RulesModel
from rulekit.rules.yaml_source import LocDict, span_of
from rulekit.tools.diff_text import INLINE, dump, fits_inline, inline, unified
from rulekit.tools.impact import users
from rulekit.tools.options import add_rules_options, module_names, parse_against, ruleset_label

#: Sections compared entry by entry, in the order they are reported.
ENTRY_SECTIONS = ("functions", "events", "state", "actions", "triggers", "invariants")
WHOLE_SECTIONS = ("setup", "flow", "scoring")
META_KEYS = ("players", "money")


@define
class Side:
    """One side of a diff: a ruleset with modules and variants."""

    ruleset: str
    modules: list[str] = field(factory=list)
    variants: list[str] = field(factory=list)
    players: int | None = None

    def describe(self) -> str:
        parts = [ruleset_label(self.ruleset) + (" with " + ", ".join(self.modules) if self.modules else "")]
        if self.variants:
            parts.append("variant " + ", ".join(self.variants))
        return " + ".join(parts)


@define
class Change:
    """One difference: ``kind`` is added, removed or changed."""

    section: str
    name: str
    kind: str
    old: Any = None
    new: Any = None
    old_at: str | None = None
    new_at: str | None = None
    diff: str = ""
    #: The rules that read what changed (constants, functions, state fields, components and
    #: their attributes, events, actions): of the new side, or of the old one for a removal.
    used_by: list[str] = field(factory=list)
    #: Who wrote the entry on the new side, from the loaded model's ``origins``
    #: (``"ruleset"``, ``"module NAME"``, ``"variant PATH"``); None for whole sections.
    origin: str | None = None

    def to_json(self) -> dict[str, Any]:
        result: dict[str, Any] = {"section": self.section, "name": self.name, "change": self.kind}
        if self.kind != "added":
            result["old"] = self.old
            result["old_at"] = self.old_at
        if self.kind != "removed":
            result["new"] = self.new
            result["new_at"] = self.new_at
        if self.diff:
            result["diff"] = self.diff
        if self.used_by:
            result["used_by"] = self.used_by
        if self.origin is not None:
            result["origin"] = self.origin
        return result


@define
class RulesDiff:
    """All differences between two composed rulesets."""

    left: Side
    right: Side
    left_fingerprint: str
    right_fingerprint: str
    changes: list[Change]
    variants: list[dict[str, Any]] = field(factory=list)

    def to_json(self) -> dict[str, Any]:
        return {
            "left": {**_side_json(self.left), "fingerprint": self.left_fingerprint},
            "right": {**_side_json(self.right), "fingerprint": self.right_fingerprint},
            "variants": self.variants,
            "changes": [c.to_json() for c in self.changes],
        }


def _side_json(side: Side) -> dict[str, Any]:
    return {"ruleset": side.ruleset, "modules": side.modules, "variants": side.variants}


# ---------------------------------------------------------------- computing


def diff_sides(left: Side, right: Side) -> RulesDiff:
    """Compose both sides and compare them.

    Raises:
        RulesetError: either side does not compose.
    """
    before = load_composed(left.ruleset, left.modules, left.variants, players=left.players)
    old = before.data
    composed = load_composed(right.ruleset, right.modules, right.variants, players=right.players)
    new, rules = composed.data, composed.program.rules
    infos = [v.info() for v in composed.variants]
    changes = diff_data(old, new)
    _add_origins(changes, rules)
    _add_users([c for c in changes if c.kind != "removed"], rules, old, new)
    # what is gone is read by rules of the old side only
    _add_users([c for c in changes if c.kind == "removed"], before.program.rules, old, new)
    return RulesDiff(left, right, fingerprint(old), fingerprint(new), changes, infos)


def _add_origins(changes: list[Change], rules: RulesModel) -> None:
    """Fill ``origin`` of the added and changed named entries from the composed model."""
    for change in changes:
        if change.kind != "removed":
            entry = change.name.partition(".")[0]  # a state scope or component kind
            change.origin = rules.origins.get(change.section, {}).get(entry)


def _add_users(changes: list[Change], rules: RulesModel, old: LocDict, new: LocDict) -> None:
    """Fill ``used_by`` of the changes with the rules (of ``rules``) that read what they touch."""
    subjects = {id(c): _subjects(c, old, new) for c in changes}
    wanted = {name for names in subjects.values() for name in names}
    if not wanted:
        return
    found = users(rules, wanted)
    for change in changes:
        listed: list[str] = []
        for name in subjects[id(change)]:
            listed += [label for label in found[name] if label not in listed]
        change.used_by = listed


def _subjects(change: Change, old: LocDict, new: LocDict) -> list[str]:
    """The names a change touches, as rules read them: a constant, function, state field,
    event or action by its name; a component attribute by the attribute's name; a component
    by its id and its kind's collection."""
    if change.section in ("constants", "parameters", "functions", "state", "events", "actions"):
        return [change.name.rpartition(".")[2]]
    if change.section != "components":
        return []
    kind, _, rest = change.name.partition(".")
    collections = [
        str(k.get("collection") or f"{kind}s")
        for side in (old, new)
        if isinstance(k := _mapping(side.get("components")).get(kind), dict)
    ]
    item, _, attribute = rest.partition(".")
    if not rest or item == "collection":
        return list(dict.fromkeys(collections))
    if item == "doc":
        return []
    if item == "attributes":
        a, b = _mapping(change.old), _mapping(change.new)
        return [
            str(n)
            for n in _names(a, b)
            if plain_data(a.get(n)) != plain_data(b.get(n)) or (n in a) != (n in b)
        ]
    if attribute:
        return [attribute]
    return list(dict.fromkeys([item, *collections]))


def diff_data(old: LocDict, new: LocDict) -> list[Change]:
    """The differences between two composed rules data, in report order."""
    changes: list[Change] = []
    for key in META_KEYS:
        if plain_data(old.get(key)) != plain_data(new.get(key)):
            changes.append(_change("ruleset", key, old, new, key))
    changes += _constants(old, new)
    changes += _parameters(old, new)
    changes += _components(old, new)
    for section in ENTRY_SECTIONS:
        old_section, new_section = _mapping(old.get(section)), _mapping(new.get(section))
        if section == "state":
            changes += _state(old_section, new_section)
            continue
        for name in _names(old_section, new_section):
            if plain_data(old_section.get(name)) != plain_data(new_section.get(name)):
                changes.append(_change(section, str(name), old_section, new_section, name, text=True))
    for section in WHOLE_SECTIONS:
        if plain_data(old.get(section)) != plain_data(new.get(section)):
            changes.append(_change(section, section, old, new, section, text=True))
    return changes


def _mapping(value: Any) -> dict[Any, Any]:
    return value if isinstance(value, dict) else {}


def _names(old: dict[Any, Any], new: dict[Any, Any]) -> list[Any]:
    return [*old, *(k for k in new if k not in old)]


def _constants(old: LocDict, new: LocDict) -> list[Change]:
    result = []
    old_c, new_c = _mapping(old.get("constants")), _mapping(new.get("constants"))
    for name in _names(old_c, new_c):
        a, b = _constant_value(old_c.get(name)), _constant_value(new_c.get(name))
        if plain_data(a) != plain_data(b) or (name in old_c) != (name in new_c):
            change = _change("constants", str(name), old_c, new_c, name)
            change.old, change.new = plain_data(a), plain_data(b)
            if change.kind == "changed" and not fits_inline(change.old, change.new):
                change.diff = unified(dump(change.old), dump(change.new), change.old_at, change.new_at)
            result.append(change)
    return result


def _parameters(old: LocDict, new: LocDict) -> list[Change]:
    """A parameter whose default changed shows the two defaults; any other change, the entries."""
    result = []
    old_p, new_p = _mapping(old.get("parameters")), _mapping(new.get("parameters"))
    for name in _names(old_p, new_p):
        a, b = plain_data(old_p.get(name)), plain_data(new_p.get(name))
        if a == b:
            continue
        change = _change("parameters", str(name), old_p, new_p, name)
        if isinstance(a, dict) and isinstance(b, dict) and {**a, "default": None} == {**b, "default": None}:
            a, b = a.get("default"), b.get("default")
        change.old, change.new = a, b
        if change.kind == "changed" and not fits_inline(change.old, change.new):
            change.diff = unified(dump(change.old), dump(change.new), change.old_at, change.new_at)
        result.append(change)
    return result


def _constant_value(value: Any) -> Any:
    if isinstance(value, dict) and set(value) == {"type", "value"}:
        return value["value"]
    return value


def _components(old: LocDict, new: LocDict) -> list[Change]:
    result = []
    old_k, new_k = _mapping(old.get("components")), _mapping(new.get("components"))
    for kind in _names(old_k, new_k):
        if kind not in old_k or kind not in new_k:
            result.append(_change("components", str(kind), old_k, new_k, kind, text=True))
            continue
        a, b = old_k[kind], new_k[kind]
        for key in ("collection", "attributes", "doc"):
            if plain_data(a.get(key)) != plain_data(b.get(key)):
                result.append(_change("components", f"{kind}.{key}", a, b, key))
        old_items = {str(i.get("id")): i for i in a.get("items") or () if isinstance(i, dict)}
        new_items = {str(i.get("id")): i for i in b.get("items") or () if isinstance(i, dict)}
        for item_id in _names(old_items, new_items):
            if item_id not in old_items or item_id not in new_items:
                change = _change("components", f"{kind}.{item_id}", old_items, new_items, item_id)
                result.append(change)
                continue
            x, y = old_items[item_id], new_items[item_id]
            for attr in _names(x, y):
                if attr == "id":
                    continue
                if plain_data(x.get(attr)) != plain_data(y.get(attr)) or (attr in x) != (attr in y):
                    result.append(_change("components", f"{kind}.{item_id}.{attr}", x, y, attr))
    return result


def _state(old: dict[Any, Any], new: dict[Any, Any]) -> list[Change]:
    result = []
    for scope in _names(old, new):
        a, b = _mapping(old.get(scope)), _mapping(new.get(scope))
        for name in _names(a, b):
            if plain_data(a.get(name)) != plain_data(b.get(name)) or (name in a) != (name in b):
                result.append(_change("state", f"{scope}.{name}", a, b, name, text=True))
    return result


def _change(
    section: str, name: str, old_parent: Any, new_parent: Any, key: Any, *, text: bool = False
) -> Change:
    has_old = isinstance(old_parent, dict) and key in old_parent
    has_new = isinstance(new_parent, dict) and key in new_parent
    kind = "changed" if has_old and has_new else "added" if has_new else "removed"
    old_value = old_parent.get(key) if has_old else None
    new_value = new_parent.get(key) if has_new else None
    old_at = _where(old_parent, key, old_value) if has_old else None
    new_at = _where(new_parent, key, new_value, old_parent) if has_new else None
    change = Change(section, name, kind, plain_data(old_value), plain_data(new_value), old_at, new_at)
    if kind == "changed" and (text or not fits_inline(change.old, change.new)):
        change.diff = unified(dump(change.old), dump(change.new), old_at, new_at)
    return change


def _where(parent: Any, key: Any, value: Any, old_parent: Any = None) -> str | None:
    """file:line of a value; for a changed one, where the change was made (a span the old value lacks)."""
    own = _key_span(parent, key)
    spans = ([own] if own is not None else []) + _spans(value)
    if isinstance(old_parent, dict) and key in old_parent:
        old_own = _key_span(old_parent, key)
        before = {(s.file, s.line) for s in _spans(old_parent[key])}
        if old_own is not None:
            before.add((old_own.file, old_own.line))
        fresh = [s for s in spans if (s.file, s.line) not in before]
        if fresh:
            spans = fresh
    span = spans[0] if spans else span_of(parent)
    return f"{span.file}:{span.line}" if span else None


def _key_span(parent: Any, key: Any) -> Span | None:
    return parent.key_spans.get(key) if isinstance(parent, LocDict) else None


def _spans(value: Any) -> list[Span]:
    found: list[Span] = []

    def visit(node: Any) -> None:
        span = span_of(node)
        if span is not None:
            found.append(span)
        if isinstance(node, dict):
            if isinstance(node, LocDict):
                found.extend(s for s in node.key_spans.values() if s is not None)
            for child in node.values():
                visit(child)
        elif isinstance(node, list):
            found.extend(getattr(node, "item_spans", {}).values())
            for child in node:
                visit(child)

    visit(value)
    return found


# ---------------------------------------------------------------- rendering


_MARK = {"added": "+", "removed": "-", "changed": "~"}


def render(result: RulesDiff) -> str:
    """The diff as text for a terminal."""
    lines = [
        f"--- {result.left.describe()}  (fingerprint {result.left_fingerprint})",
        f"+++ {result.right.describe()}  (fingerprint {result.right_fingerprint})",
    ]
    for info in result.variants:
        lines.append(f"variant {info['variant']}: {info['title']}  ({info['path']}, {info['fingerprint']})")
        if info.get("description"):
            lines.append(f"    {info['description']}")
    if not result.changes:
        lines.append("")
        lines.append("no differences")
        return "\n".join(lines)
    section = None
    for change in result.changes:
        if change.section != section:
            section = change.section
            lines.append("")
            lines.append(f"{section}:")
        lines.append(_render_change(change))
    added = sum(1 for c in result.changes if c.kind == "added")
    removed = sum(1 for c in result.changes if c.kind == "removed")
    changed = len(result.changes) - added - removed
    lines.append("")
    lines.append(f"{changed} changed, {added} added, {removed} removed")
    return "\n".join(lines)


def _render_change(change: Change) -> str:
    text = _render_entry(change)
    if change.used_by:
        label = "was used by" if change.kind == "removed" else "used by"
        text += f"\n      {label}: " + ", ".join(change.used_by)
    return text


def _render_entry(change: Change) -> str:
    mark = _MARK[change.kind]
    if change.kind == "added":
        head = f"  {mark} {change.name}  (added at {change.new_at})"
        body = "" if change.diff else _indent(dump(change.new)) if not _simple(change.new) else ""
        if _simple(change.new):
            head = f"  {mark} {change.name}: {inline(change.new)}  (added at {change.new_at})"
        return head + body
    if change.kind == "removed":
        return f"  {mark} {change.name}  (removed; was at {change.old_at})"
    if change.diff:
        where = f"(changed at {change.new_at}; was at {change.old_at})"
        return f"  {mark} {change.name}  {where}" + _indent(change.diff)
    where = f"({change.new_at}; was at {change.old_at})"
    return f"  {mark} {change.name}: {inline(change.old)} → {inline(change.new)}  {where}"


def _simple(value: Any) -> bool:
    return not isinstance(value, dict | list) and len(inline(value)) <= INLINE


def _indent(text: str) -> str:
    return "".join("\n      " + line for line in text.rstrip("\n").split("\n")) if text.strip() else ""


# ---------------------------------------------------------------- command line


def add_parser(subparsers: Any) -> None:
    """Add the ``diff`` subcommand."""
    p = subparsers.add_parser(
        "diff",
        help="show what variants or modules change in a ruleset",
        description=(
            "Compare two composed rulesets. Without --against, the ruleset with the given modules and "
            "variants is compared with the plain ruleset (same modules, no variants)."
        ),
        epilog=(
            "examples:\n"
            "  rulekit diff tic_tac_toe --variant misere\n"
            "  rulekit diff my_game --with tiles --variant a.yaml \\\n"
            "                       --against --with tiles --variant b.yaml"
        ),
        formatter_class=argparse.RawDescriptionHelpFormatter,
    )
    p.add_argument("ruleset", metavar="RULESET", help="a bundled ruleset's name or a directory")
    add_rules_options(p)
    p.add_argument("--players", type=int, metavar="N", help="check constraints for N players")
    p.add_argument("--json", action="store_true", help="print JSON for tools")
    p.add_argument(
        "--against",
        nargs=argparse.REMAINDER,
        metavar="[RULESET] [--with M] [--variant V]",
        help="the other side (everything after it): its own --with/--variant, and optionally another ruleset",
    )


def sides_from_args(args: argparse.Namespace) -> tuple[Side, Side]:
    """The two sides named on the command line: (before, after).

    Without ``--against``: before = the ruleset with the modules and no variants,
    after = with the variants.  With it: before = the first side, after = the ``--against`` side.

    Raises:
        UsageError: the --against part cannot be read.
    """
    first = Side(args.ruleset, module_names(args.modules), list(args.variants or ()), args.players)
    if args.against is None:
        if not first.variants:
            raise UsageError(
                Diagnostic(
                    "nothing to compare: give --variant FILE, or --against ...",
                    hint="e.g. rulekit diff tic_tac_toe --variant misere",
                )
            )
        return Side(first.ruleset, list(first.modules), [], first.players), first
    other = parse_against("diff", args.against)
    if other.json:
        args.json = True
    second = Side(
        other.ruleset or first.ruleset, module_names(other.modules), list(other.variants), args.players
    )
    return first, second


def run(args: argparse.Namespace) -> int:
    """Run ``rulekit diff``; 0 whether or not there are differences."""
    left, right = sides_from_args(args)
    result = diff_sides(left, right)
    if args.json:
        print(json.dumps(result.to_json(), indent=2, ensure_ascii=False))
    else:
        print(render(result))
    return 0


__all__ = ["Change", "RulesDiff", "Side", "add_parser", "diff_data", "diff_sides", "render", "run"]
