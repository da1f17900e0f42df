"""``rulekit rules``: a listing of a ruleset (actions, triggers, modules, constants, functions,
events, invariants), marking what a chosen module added, overrode or removed, with its file:line.

Rule text is shown whole: a line longer than :data:`WIDTH` is wrapped at spaces, its
continuation lines indented under it."""

from __future__ import annotations

import textwrap
from collections.abc import Callable, Sequence
from pathlib import Path
from typing import Any

from rulekit.rules.compose import fingerprint, plain_data
from rulekit.rules.yaml_source import span_of

#: The width the listing's lines are wrapped at.
WIDTH = 100


def _one_line(value: Any) -> str:
    """``value`` as text on one line (line breaks and runs of spaces made one space)."""
    return " ".join(str(value).split())


def _wrapped(line: str) -> list[str]:
    """``line`` wrapped at :data:`WIDTH`, continuation lines indented 4 more than it; a word
    longer than a line is never cut."""
    if len(line) <= WIDTH:
        return [line]
    indent = " " * (len(line) - len(line.lstrip(" ")) + 4)
    return textwrap.wrap(
        line,
        WIDTH,
        subsequent_indent=indent,
        break_long_words=False,
        break_on_hyphens=False,
        drop_whitespace=True,
    )


def _yaml_text(value: Any) -> str:
    if isinstance(value, list):
        return "[" + ", ".join(_yaml_text(v) for v in value) + "]"
    if isinstance(value, dict):
        return "{" + ", ".join(f"{k}: {_yaml_text(v)}" for k, v in value.items()) + "}"
    if value is None:
        return "none"
    if isinstance(value, bool):
        return "true" if value else "false"
    return str(value)


def describe_rules(ruleset: str, modules: Sequence[str] = (), variants: Sequence[str] = ()) -> str:
    """A listing of a ruleset: actions, triggers, modules, constants, functions, events,
    invariants.  Entries that a chosen module added, overrode or removed are marked."""
    from rulekit.load import load_composed

    # One composition: its data is what is listed (the rules' own text), its model says who
    # wrote each named entry (``RulesModel.origins``); the plain ruleset is compared with it.
    composed = load_composed(ruleset, modules, variants)
    program, data, source = composed.program, composed.data, composed.source
    chosen, loaded = composed.modules, composed.variants
    rules = program.rules
    base = load_composed(ruleset).data if chosen or loaded else data
    by_file = {Path(f).resolve(): f"module {m.name}" for m in chosen for f in (str(m.path), *m.files)}
    by_file.update({v.path.resolve(): f"variant {v.display}" for v in loaded})

    def origin(section: str, name: str) -> str:
        who = rules.origins.get(section, {}).get(str(name))
        return who if who and who != "ruleset" else "a module or variant"

    def mark(section: str, name: str) -> str:
        if data is base:
            return ""
        old = (base.get(section) or {}).get(name)
        new = (data.get(section) or {}).get(name)
        if old is None:
            return f"  [added by {origin(section, name)}]"
        if fingerprint(old) != fingerprint(new):
            return f"  [changed by {origin(section, name)}]"
        return ""

    def entries(section: str) -> dict[str, Any]:
        return dict(data.get(section) or {})

    out = [f"{rules.title} ({rules.name}), fingerprint {program.fingerprint}"]
    if rules.description:
        out.append(_one_line(rules.description))
    out.append(
        f"players: {rules.min_players}-{rules.max_players}"
        + (f"; money: {rules.money}" if rules.money else "")
    )
    if source.modules:
        shown = []
        for name, module in sorted(source.modules.items()):
            on = " (on)" if name in rules.modules else ""
            title = module.data.get("title")
            shown.append(f"  {name}{on}" + (f": {_one_line(title)}" if title else ""))
        out.append("modules:")
        out.extend(shown)
    else:
        out.append("modules: none")

    out.append("actions:")
    for name, spec in entries("actions").items():
        spec = spec if isinstance(spec, dict) else {}
        params = spec.get("params") or {}
        head = f"  {name}({', '.join(str(p) for p in params)})"
        flags = [
            f
            for f, on in (("ends turn", spec.get("ends_turn")), ("only when asked", spec.get("prompt")))
            if on
        ]
        if spec.get("cite"):
            flags.append(f"[{spec['cite']}]")
        out.append(head + ("  " + "  ".join(flags) if flags else "") + mark("actions", name))
        if spec.get("doc"):
            out.append(f"      {_one_line(spec['doc'])}")
        for pname, domain in params.items():
            out.append(f"      {pname} in {_one_line(domain)}")
        requires = spec.get("require") or []
        for req in requires if isinstance(requires, list) else [requires]:
            if isinstance(req, dict):
                cite = f" [{req['cite']}]" if req.get("cite") else ""
                message = f' else "{req["else"]}"' if req.get("else") else ""
                out.append(f"      requires {_one_line(req.get('if'))}{message}{cite}")
            else:
                out.append(f"      requires {_one_line(req)}")
        if spec.get("cost") is not None:
            out.append(f"      costs {_one_line(spec['cost'])}")
    for name in base.get("actions") or {}:
        if name not in entries("actions"):
            out.append(f"  {name}  [removed]")

    def simple(section: str, describe: Callable[[str, Any], str]) -> None:
        current = entries(section)
        removed = [n for n in (base.get(section) or {}) if n not in current]
        if not current and not removed:
            return
        out.append(f"{section}:")
        for name, spec in current.items():
            head, *rest = describe(str(name), spec).split("\n")
            out.append(f"  {head}{mark(section, name)}")
            out.extend(rest)
        out.extend(f"  {name}  [removed]" for name in removed)

    def trigger(name: str, spec: Any) -> str:
        spec = spec if isinstance(spec, dict) else {}
        timing = "before" if "before" in spec else "after"
        text = f"{name}: {timing} {spec.get(timing)}"
        if spec.get("when") is not None:
            text += f" when {_one_line(spec['when'])}"
        if spec.get("cite"):
            text += f"  [{spec['cite']}]"
        if spec.get("doc"):
            text += f"\n      {_one_line(spec['doc'])}"
        return text

    def constant(name: str, spec: Any) -> str:
        if isinstance(spec, dict) and "value" in spec:
            return f"{name}: {spec.get('type', '')} = {_one_line(_yaml_text(plain_data(spec['value'])))}"
        return f"{name} = {_one_line(_yaml_text(plain_data(spec)))}"

    def parameter(name: str, spec: Any) -> str:
        spec = spec if isinstance(spec, dict) else {}
        kind = str(spec.get("type", ""))
        default = _one_line(_yaml_text(plain_data(spec.get("default"))))
        allowed = ""
        if kind == "int" and ("min" in spec or "max" in spec):
            allowed = f" ({spec.get('min', '')}..{spec.get('max', '')})"
        elif kind == "choice":
            allowed = f" ({', '.join(str(c) for c in spec.get('choices') or ())})"
        text = f"{name}: {kind} = {default}{allowed}   --param {name}=VALUE"
        if spec.get("doc"):
            text += f"\n      {_one_line(spec['doc'])}"
        return text

    def function(name: str, spec: Any) -> str:
        if isinstance(spec, dict):
            params = ", ".join(f"{k}: {v}" for k, v in (spec.get("params") or {}).items())
            return f"{name}({params}) = {_one_line(spec.get('body'))}"
        return f"{name}() = {_one_line(spec)}"

    def event(name: str, spec: Any) -> str:
        fields = ", ".join(f"{k}: {v}" for k, v in (spec or {}).items()) if isinstance(spec, dict) else ""
        return f"{name}({fields})"

    def invariant(name: str, spec: Any) -> str:
        spec = spec if isinstance(spec, dict) else {}
        cite = f"  [{spec['cite']}]" if spec.get("cite") else ""
        message = f' — "{spec["message"]}"' if spec.get("message") else ""
        return f"{name}: {_one_line(spec.get('holds'))}{message}{cite}"

    simple("triggers", trigger)

    def item_origin(kind: str, item: Any) -> str:
        span = span_of(item)
        who = by_file.get(Path(span.file).resolve()) if span else None
        return who or origin("components", kind)

    _describe_components(out, data, base, item_origin)
    _describe_state(out, data, base, origin)
    simple("parameters", parameter)
    simple("constants", constant)
    simple("functions", function)
    simple("events", event)
    simple("invariants", invariant)
    for section in ("setup", "flow", "scoring", "display"):
        if (
            data is not base
            and section in data
            and fingerprint(data.get(section)) != fingerprint(base.get(section))
        ):
            span = span_of(data.get(section))
            who = by_file.get(Path(span.file).resolve(), span.file) if span else "a module"
            out.append(f"{section}: replaced by {who}")
    return "\n".join(wrapped for line in out for wrapped in _wrapped(line))


def _item_ids(kind_spec: Any) -> list[str]:
    items = kind_spec.get("items") if isinstance(kind_spec, dict) else None
    return [str(i.get("id")) for i in items or () if isinstance(i, dict)]


def _describe_components(
    out: list[str], data: Any, base: Any, item_origin: Callable[[str, Any], str]
) -> None:
    """Component kinds with their items; items a module or variant added are marked, by who
    added them (``item_origin(kind, item)``; ``item`` None for the kind itself)."""
    kinds = data.get("components") or {}
    if not kinds:
        return
    out.append("components:")
    for kind, spec in kinds.items():
        ids = _item_ids(spec)
        old_ids = set(_item_ids((base.get("components") or {}).get(kind)))
        added = [i for i in ids if i not in old_ids] if data is not base else []
        attrs = ", ".join(str(a) for a in (spec.get("attributes") or {})) if isinstance(spec, dict) else ""
        out.append(f"  {kind}: {len(ids)} items" + (f" ({attrs})" if attrs else ""))
        items = {str(i.get("id")): i for i in spec.get("items") or () if isinstance(i, dict)}
        by_who: dict[str, list[str]] = {}
        for item_id in added:
            by_who.setdefault(item_origin(kind, items.get(item_id)), []).append(item_id)
        for who, item_ids in by_who.items():
            out.append(f"      added by {who}: {', '.join(item_ids)}")
        old_spec = (base.get("components") or {}).get(kind)
        if not added and data is not base and fingerprint(spec) != fingerprint(old_spec):
            out.append(f"      changed by {item_origin(kind, None)}")


def _describe_state(out: list[str], data: Any, base: Any, origin: Callable[[str, str], str]) -> None:
    """State fields per scope; fields a module or variant added or changed are marked."""
    scopes = data.get("state") or {}
    if not scopes:
        return
    out.append("state:")
    for scope, fields in scopes.items():
        if not isinstance(fields, dict):
            continue
        old = (base.get("state") or {}).get(scope) or {}
        parts = []
        for name, spec in fields.items():
            text = str(name)
            if data is not base:
                if name not in old:
                    text += f" [added by {origin('state', scope)}]"
                elif fingerprint(spec) != fingerprint(old.get(name)):
                    text += f" [changed by {origin('state', scope)}]"
            parts.append(text)
        out.append(f"  {scope}: {', '.join(parts)}")
