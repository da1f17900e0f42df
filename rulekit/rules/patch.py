"""The one patch language: the operations by which modules and variants change composed rules.

A module and a variant are both *patches*: a file of operations on the rules composed so far
(:mod:`rulekit.rules.patch_files` reads both).  The operations, the same in both:

* ``add`` (:func:`add_entries`) adds new names to named sections
  (:data:`rulekit.rules.schema.NAMED_SECTIONS`); a module's own top-level sections are an
  ``add`` that comes first;
* ``replace`` (:func:`override_entries`; ``override`` is the same operation under the name
  modules have always used) replaces entries by name, and the single sections whole;
* ``extend`` (:func:`extend_entries`) appends to the list-valued keys the schema marks extendable;
* ``remove`` (:func:`remove_paths`) deletes an entry (``SECTION.NAME``) or any value by path;
* ``set`` (:mod:`rulekit.rules.paths`) changes one value by path;
* ``adjust`` (:mod:`rulekit.rules.adjust`) sets a whole number relative to its old value.

:func:`apply_operations` runs them in the order the file writes them.  Every problem goes to
one bag at the file's line and column, and every piece keeps its span, so later errors point
into the module or variant that wrote it.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

from rulekit.errors import DiagnosticBag, Span, did_you_mean
from rulekit.rules.adjust import apply_adjust
from rulekit.rules.parameters import apply_setting
from rulekit.rules.paths import apply_set, resolve
from rulekit.rules.schema import EXTENDABLE, NAMED_SECTIONS, SINGLE_SECTIONS
from rulekit.rules.wrap import wrap_original, wrap_scoring, wrap_trigger
from rulekit.rules.yaml_source import LocDict, LocList, span_of

#: The operations of modules and variants, in the order the format documents them.
OPERATIONS = ("add", "replace", "extend", "remove", "set", "adjust")
#: Other names of operations: a module's ``override:`` is ``replace:``.
ALIASES = {"override": "replace"}


REPLACE_HINT = "use 'replace:' to replace it"


def known_section(section: Any, mapping: LocDict, bag: DiagnosticBag) -> bool:
    """Whether ``section`` (a key of ``mapping``) names a rules section; if not, report it there."""
    sections = (*NAMED_SECTIONS, *SINGLE_SECTIONS)
    if section in sections:
        return True
    bag.error(
        f"unknown section '{section}'",
        mapping.key_spans.get(section),
        hint=did_you_mean(str(section), sections),
        expected=sections,
    )
    return False


def _section(base: LocDict, section: str, like: Any) -> LocDict:
    current = base.get(section)
    if current is None:
        current = LocDict()
        current.span = span_of(like) or Span("<composed>", 1, 1)
        current.key_spans = {}
        base[section] = current
        base.key_spans[section] = current.span
    return current


def add_entries(
    base: LocDict, section: str, entries: Any, bag: DiagnosticBag, where: Span | None = None
) -> None:
    """Add new named entries to a section; an existing name is a conflict.

    ``components`` and ``state`` are two-level: adding items to an existing
    component kind or fields to an existing state scope is allowed.  ``where`` (the
    section's key) locates a value that has no position of its own (a number, a flag).
    """
    if entries is None:
        return
    if not isinstance(entries, LocDict):
        bag.error(f"section '{section}' must be a mapping of names", span_of(entries) or where)
        return
    target = _section(base, section, entries)
    if not isinstance(target, LocDict):  # the ruleset's own section is not a mapping
        bag.error(
            f"section '{section}' must be a mapping of names", span_of(target) or base.key_spans.get(section)
        )
        return
    for name, entry in entries.items():
        existing = target.get(name)
        if existing is None:
            target[name] = entry
            target.key_spans[name] = entries.key_spans.get(name)  # type: ignore[assignment]
        elif section == "state" and isinstance(existing, LocDict) and isinstance(entry, LocDict):
            for fname, fspec in entry.items():
                if fname in existing:
                    bag.error(
                        f"state field '{name}.{fname}' is already defined at "
                        f"{span_of(existing[fname]) or existing.key_spans.get(fname)}",
                        entry.key_spans.get(fname),
                        hint=REPLACE_HINT,
                    )
                else:
                    existing[fname] = fspec
                    existing.key_spans[fname] = entry.key_spans.get(fname)  # type: ignore[assignment]
        elif section == "components" and isinstance(existing, LocDict) and isinstance(entry, LocDict):
            _extend_component(existing, entry, bag)
        else:
            bag.error(
                f"{section.removesuffix('s')} '{name}' is already defined at {existing_span(target, name)}",
                entries.key_spans.get(name),
                hint=REPLACE_HINT,
            )


def existing_span(section: LocDict, name: str) -> str:
    span = section.key_spans.get(name) or span_of(section.get(name))
    return str(span) if span else "an earlier file"


def _extend_component(existing: LocDict, entry: LocDict, bag: DiagnosticBag) -> None:
    for key, value in entry.items():
        if key == "items" and isinstance(value, list):
            items = existing.get("items")
            if not isinstance(items, list):
                items = LocList()
                items.span = span_of(value) or Span("<composed>", 1, 1)
                existing["items"] = items
            merged = LocList([*items, *value])
            merged.span = span_of(items) or span_of(value) or Span("<composed>", 1, 1)
            existing["items"] = merged
        elif key == "attributes" and isinstance(value, LocDict):
            attrs = existing.setdefault("attributes", value)
            if attrs is not value:
                for aname, atype in value.items():
                    if aname in attrs:
                        bag.error(f"attribute '{aname}' is already defined", value.key_spans.get(aname))
                    else:
                        attrs[aname] = atype
                        attrs.key_spans[aname] = value.key_spans.get(aname)
        else:
            bag.error(
                f"'add' can add 'items' or 'attributes' to a component kind; '{key}' needs 'replace:'",
                entry.key_spans.get(key),
            )


def override_entries(
    base: LocDict, section: str, entries: Any, bag: DiagnosticBag, where: Span | None = None
) -> None:
    """Replace existing entries by name; a name that does not exist is an error.  ``where``
    (the section's key) locates a value that has no position of its own."""
    at = span_of(entries) or where
    if section in SINGLE_SECTIONS:
        if section not in base:
            bag.error(
                f"cannot replace '{section}': the ruleset has none",
                where or at,
                hint=f"use 'add' for new entries; '{section}' can only be replaced",
            )
            return
        base[section] = wrap_scoring(base.get(section), entries) if section == "scoring" else entries
        base.key_spans[section] = where  # type: ignore[assignment]
        return
    if not isinstance(entries, LocDict):
        bag.error(f"replace of '{section}' must be a mapping of names", at)
        return
    target = base.get(section)
    if not isinstance(target, LocDict):
        bag.error(f"cannot replace '{section}': the ruleset has none", at)
        return
    for name, entry in entries.items():
        if name not in target:
            bag.error(
                f"cannot replace {section} '{name}': no such entry",
                entries.key_spans.get(name),
                hint=did_you_mean(str(name), [str(k) for k in target]),
            )
            continue
        if section == "state" and isinstance(entry, LocDict):
            scope = target[name]
            for fname, fspec in entry.items():
                if fname not in scope:
                    bag.error(
                        f"cannot replace state field '{name}.{fname}': no such field",
                        entry.key_spans.get(fname),
                        hint=did_you_mean(str(fname), [str(k) for k in scope]),
                    )
                    continue
                scope[fname] = fspec
            continue
        entry = _keep_documentation(target[name], entry)
        if section == "functions":
            entry = wrap_original(target, str(name), entry)
        elif section == "triggers":
            entry = wrap_trigger(target, str(name), entry)
        target[name] = entry
        target.key_spans[name] = entries.key_spans.get(name)  # type: ignore[assignment]


DOCUMENTATION_KEYS = ("doc", "cite")


def _keep_documentation(old: Any, new: Any) -> Any:
    """A replaced entry keeps the ``doc`` and ``cite`` of the entry it replaces unless it gives
    its own (a house rule changes what a rule does, not which rule of the book it is)."""
    if not isinstance(old, LocDict) or not isinstance(new, LocDict):
        return new
    missing = [key for key in DOCUMENTATION_KEYS if key in old and key not in new]
    if not missing:
        return new
    kept = LocDict(new)
    if hasattr(new, "span"):
        kept.span = new.span
    kept.key_spans = dict(getattr(new, "key_spans", {}))
    for key in missing:
        kept[key] = old[key]
        kept.key_spans[key] = old.key_spans.get(key)  # type: ignore[assignment]
    return kept


def remove_entry(base: LocDict, path: Any, bag: DiagnosticBag) -> None:
    text = str(path)
    section, _, name = text.partition(".")
    target = base.get(section)
    if section not in NAMED_SECTIONS or not name:
        bag.error(
            f"cannot remove '{text}': write SECTION.NAME or a path, e.g. triggers.end_of_round",
            span_of(path),
            expected=NAMED_SECTIONS,
        )
        return
    if not isinstance(target, LocDict) or name not in target:
        bag.error(
            f"cannot remove '{text}': no such entry",
            span_of(path),
            hint=did_you_mean(name, [str(k) for k in target] if isinstance(target, dict) else []),
        )
        return
    del target[name]


def _extend_view(base: LocDict, entries: Any, where: Span | None, bag: DiagnosticBag) -> None:
    """``extend: {view: {layers: [...], controls: {...}}}``: a module draws its own pieces on top
    of the base view, and labels the controls of its actions' parameters."""
    view = base.get("view")
    layers = entries.get("layers", []) if isinstance(entries, LocDict) else None
    controls = entries.get("controls", LocDict()) if isinstance(entries, LocDict) else None
    if (
        not isinstance(entries, LocDict)
        or not entries
        or not set(entries) <= {"layers", "controls"}
        or not isinstance(layers, list)
        or not isinstance(controls, LocDict)
    ):
        bag.error(
            "extend of 'view' takes {layers: [...], controls: {...}}: layers drawn after the base "
            "view's, labels of controls",
            where,
        )
        return
    if not isinstance(view, LocDict):
        bag.error("cannot extend 'view': the ruleset has none", where)
        return
    if layers:
        merged = LocList([*(view.get("layers") or []), *layers])
        merged.span = span_of(layers) or view.span
        view["layers"] = merged
    if controls:
        known = view.get("controls")
        combined = LocDict({**(known if isinstance(known, LocDict) else {}), **controls})
        combined.span = controls.span
        combined.key_spans = {**(known.key_spans if isinstance(known, LocDict) else {}), **controls.key_spans}
        view["controls"] = combined


def extend_entries(base: LocDict, extend: Any, bag: DiagnosticBag) -> None:
    """A module's ``extend:``: append to list-valued keys of existing entries.

    Only the keys in :data:`EXTENDABLE` can be extended, e.g. a module adds a
    requirement to a base action without copying the action::

        extend:
          actions:
            move:
              require:
                - {if: "not turn.frozen", else: "nobody moves this turn", cite: "§5"}
    """
    if not isinstance(extend, LocDict):
        bag.error("'extend' must be a mapping of sections", span_of(extend))
        return
    for section, entries in extend.items():
        if section == "view":
            _extend_view(base, entries, extend.key_spans.get(section), bag)
            continue
        keys = EXTENDABLE.get(str(section))
        if keys is None:
            bag.error(
                f"cannot extend section '{section}'",
                extend.key_spans.get(section),
                expected=tuple(f"{s}.NAME.{k}" for s, ks in EXTENDABLE.items() for k in ks),
            )
            continue
        target = base.get(section)
        if not isinstance(entries, LocDict) or not isinstance(target, LocDict):
            bag.error(f"extend of '{section}' must be a mapping of existing names", span_of(entries))
            continue
        for name, additions in entries.items():
            entry = target.get(name)
            if not isinstance(entry, LocDict):
                bag.error(
                    f"cannot extend {section} '{name}': no such entry",
                    entries.key_spans.get(name),
                    hint=did_you_mean(str(name), [str(k) for k in target]),
                )
                continue
            if not isinstance(additions, LocDict):
                bag.error(f"extend of {section} '{name}' must be a mapping of keys", span_of(additions))
                continue
            for key, values in additions.items():
                if key not in keys:
                    bag.error(
                        f"cannot extend '{key}' of {section} '{name}'",
                        additions.key_spans.get(key),
                        expected=keys,
                    )
                    continue
                current = entry.get(key)
                merged = LocList(
                    [] if current is None else current if isinstance(current, list) else [current]
                )
                merged.span = span_of(current) or span_of(values) or Span("<composed>", 1, 1)
                merged.extend(values if isinstance(values, list) else [values])
                entry[key] = merged
                entry.key_spans.setdefault(key, additions.key_spans.get(key))  # type: ignore[arg-type]


# ---------------------------------------------------------------- the operations of a file


def add_sections(data: LocDict, ops: Any, owner: LocDict, bag: DiagnosticBag) -> None:
    """``add: {SECTION: {NAME: ...}}``: new entries of named sections."""
    if not isinstance(ops, LocDict):
        bag.error("'add' must be a mapping of sections", span_of(ops) or owner.key_spans.get("add"))
        return
    for section, entries in ops.items():
        if section in SINGLE_SECTIONS:
            bag.error(
                f"'{section}' holds one value and cannot be added to",
                ops.key_spans.get(section),
                hint=f"use 'replace: {{{section}: ...}}'",
            )
            continue
        if not known_section(section, ops, bag):
            continue
        add_entries(data, str(section), entries, bag, ops.key_spans.get(section))


def replace_sections(
    data: LocDict, ops: Any, owner: LocDict, bag: DiagnosticBag, name: str = "replace"
) -> None:
    """``replace:`` (or ``override:``): entries by name, the single sections whole."""
    if not isinstance(ops, LocDict):
        bag.error(f"'{name}' must be a mapping of sections", span_of(ops) or owner.key_spans.get(name))
        return
    for section, entries in ops.items():
        if known_section(section, ops, bag):
            override_entries(data, str(section), entries, bag, ops.key_spans.get(section))


def remove_paths(data: LocDict, ops: Any, owner: LocDict, bag: DiagnosticBag) -> None:
    """``remove: [SECTION.NAME, PATH, ...]``: entries by name, or any value by path."""
    if isinstance(ops, str):
        ops = [ops]
    if not isinstance(ops, list):
        bag.error(
            "'remove' must be a list of paths, e.g. [triggers.NAME]",
            span_of(ops) or owner.key_spans.get("remove"),
        )
        return
    for path in ops:
        if not isinstance(path, str):
            bag.error("each entry of 'remove' must be a path (actions.NAME)", span_of(path) or span_of(ops))
            continue
        parts = str(path).split(".")
        if len(parts) == 1 or (len(parts) == 2 and parts[0] in NAMED_SECTIONS):
            remove_entry(data, path, bag)
            continue
        found = resolve(data, str(path), span_of(path), bag, for_set=False)
        if found is None:
            continue
        parent, key, _trail = found
        del parent[key]
        if isinstance(parent, LocDict):
            parent.key_spans.pop(key, None)


def _extend(data: LocDict, ops: Any, owner: LocDict, bag: DiagnosticBag) -> None:
    if ops is None:
        bag.error("'extend' must be a mapping of sections", owner.key_spans.get("extend"))
        return
    extend_entries(data, ops, bag)


def _setting(data: LocDict, ops: Any, owner: LocDict, bag: DiagnosticBag) -> None:
    apply_setting(data, ops, bag)


Operation = Callable[[LocDict, Any, LocDict, DiagnosticBag], None]

#: What each key of a module or variant does (``parameter`` is a ``--param`` setting,
#: rules/parameters.py, never written in a file).
APPLY: dict[str, Operation] = {
    "add": add_sections,
    "replace": replace_sections,
    "extend": _extend,
    "remove": remove_paths,
    "set": apply_set,
    "adjust": apply_adjust,
    "parameter": _setting,
}


def implicit_add(patch: LocDict) -> LocDict | None:
    """A module's own top-level named sections, as the ``add:`` it stands for (None: it has none)."""
    sections = [section for section in NAMED_SECTIONS if section in patch]
    if not sections:
        return None
    added = LocDict((section, patch[section]) for section in sections)
    added.span = patch.span
    added.key_spans = {section: patch.key_spans.get(section) for section in sections}  # type: ignore[misc]
    return added


def apply_operations(data: LocDict, patch: LocDict, bag: DiagnosticBag) -> None:
    """Run a module's or variant's operations on ``data``, in the order the file writes them
    (a module's own top-level sections first, as an ``add``), every problem into ``bag``."""
    added = implicit_add(patch)
    if added is not None:
        add_sections(data, added, patch, bag)
    for key, value in patch.items():
        if key in ALIASES:
            replace_sections(data, value, patch, bag, name=str(key))
        elif key in APPLY:
            APPLY[str(key)](data, value, patch, bag)
