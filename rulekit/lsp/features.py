"""What the language server answers, as plain data: what a name is, its hover text, its
declaration and uses, completions at a position, and the edits that fix a hinted mistake.

Positions are 1-based (line, column) as in :class:`~rulekit.errors.Span`; :mod:`.server`
converts them to the protocol's.
"""

from __future__ import annotations

import re
from collections.abc import Iterable
from pathlib import Path
from typing import Any

from attrs import frozen

from rulekit.dsl.habits import LITERALS
from rulekit.lsp.index import SECTIONS, Occurrence
from rulekit.rules.model import RulesModel
from rulekit.runtime.registry import BUILTINS, Builtin

#: Names the DSL itself gives a snippet.
KEYWORDS = ("me", "game", "turn", "players", "true", "false", "none", "not", "and", "or", "in", "if", "else")
#: Sections by the attribute of :class:`RulesModel` that holds their entries.
_TABLES = {
    "constant": "constants",
    "action": "actions",
    "function": "functions",
    "procedure": "procedures",
    "event": "events",
    "trigger": "triggers",
    "invariant": "invariants",
    "property": "properties",
    "kind": "kinds",
    "enum": "enums",
    "record": "records",
}
_SCOPES = {"game": "game", "turn": "turn"}
_PLAIN_ORDER = ("constant", "action", "function", "procedure", "event", "kind", "enum", "record")
#: What may be renamed (the names the index finds in every place they are written).
RENAMABLE = frozenset({"constant", "field"})


@frozen
class Symbol:
    """A named thing of the rules: ``kind`` (constant, field, action, builtin...), its name and,
    for a field its scope (``player``, ``game``, ``turn``, a component kind), for an enum value
    its enumeration, for an attribute its component kind."""

    kind: str
    name: str
    scope: str | None = None


def classify(model: RulesModel, occ: Occurrence) -> Symbol | None:
    """What the name written at ``occ`` is, in ``model`` (None: a local, a keyword, prose)."""
    name, qualifier = occ.name, occ.qualifier
    if occ.declares is not None:
        if occ.declares.startswith("field:"):
            return Symbol("field", name, occ.declares.split(":", 1)[1])
        return Symbol(occ.declares, name)
    if occ.key and qualifier is None:
        return None  # a key that declares nothing (if:, effect:...)
    if qualifier is None or qualifier in SECTIONS:
        wanted = (SECTIONS[qualifier],) if qualifier in SECTIONS else _PLAIN_ORDER
        for kind in wanted:
            if name in getattr(model, _TABLES[kind]):
                return Symbol(kind, name)
        if qualifier is None and name in BUILTINS:
            return Symbol("builtin", name)
        return None
    enum = model.enums.get(qualifier)
    if enum is not None and name in (enum.members or ()):
        return Symbol("enum_value", name, qualifier)
    scope = _SCOPES.get(qualifier)
    if scope is not None:
        return Symbol("field", name, scope) if name in model.fields.get(scope, {}) else None
    if name in model.fields.get("player", {}):
        return Symbol("field", name, "player")
    for kind, fields in model.fields.items():
        if kind not in ("game", "turn", "player") and name in fields:
            return Symbol("field", name, kind)
    for component in model.kinds.values():
        if name in component.attributes:
            return Symbol("attribute", name, component.name)
    return None


def occurrence_at(occurrences: Iterable[Occurrence], file: Path, line: int, column: int) -> Occurrence | None:
    """The name written at ``file:line:column`` (the column may be just after it)."""
    for occ in occurrences:
        if occ.file == file and occ.line == line and occ.column <= column <= occ.end:
            return occ
    return None


def references(model: RulesModel, occurrences: Iterable[Occurrence], symbol: Symbol) -> list[Occurrence]:
    """Every place ``symbol`` is written (declarations included), in file order."""
    found = [occ for occ in occurrences if occ.name == symbol.name and classify(model, occ) == symbol]
    return sorted(found, key=lambda o: (str(o.file), o.line, o.column))


def definitions(model: RulesModel, occurrences: Iterable[Occurrence], symbol: Symbol) -> list[Occurrence]:
    """Where ``symbol`` is declared: the ruleset's key, and a module's or variant's."""
    return [occ for occ in references(model, occurrences, symbol) if occ.declares is not None]


def rename_edits(
    model: RulesModel, occurrences: Iterable[Occurrence], symbol: Symbol, new_name: str
) -> list[Occurrence]:
    """The places to write ``new_name`` instead of a field's or constant's name.

    Raises:
        ValueError: that kind of name cannot be renamed, or ``new_name`` is not a name.
    """
    if symbol.kind not in RENAMABLE:
        raise ValueError(f"only fields and constants can be renamed, not a {symbol.kind}")
    if not re.fullmatch(r"[A-Za-z_]\w*", new_name) or new_name in KEYWORDS:
        raise ValueError(f"{new_name!r} is not a name")
    return references(model, occurrences, symbol)


# ------------------------------------------------------------------ hover


def signature(builtin: Builtin) -> str:
    """``name(a: int, b: list?) -> int`` (a ``?`` marks a parameter that may be left out)."""
    count = len(builtin.params)
    params = [
        f"{name}: {kind}{'?' if i >= count - builtin.optional else ''}"
        for i, (name, kind) in enumerate(builtin.params)
    ]
    if builtin.variadic:
        params.append("...")
    returns = "" if callable(builtin.returns) else f" -> {builtin.returns}"
    return f"{builtin.name}({', '.join(params)}){returns}"


def hover_text(model: RulesModel, symbol: Symbol) -> str | None:
    """Markdown describing ``symbol``."""
    kind, name = symbol.kind, symbol.name
    if kind == "builtin":
        builtin = BUILTINS[name]
        effect = " (effect)" if builtin.effect else ""
        example = f"\n\nExample: `{builtin.example}`" if builtin.example else ""
        return f"```\n{signature(builtin)}\n```\nbuilt-in{effect}: {builtin.doc}{example}"
    if kind == "field" and symbol.scope is not None:
        field = model.fields.get(symbol.scope, {}).get(name)
        if field is None:
            return None
        return (
            f"```\n{symbol.scope}.{name}: {field.declared}\n```\n"
            f"{symbol.scope} field, visibility: {field.visibility}{_where(field.span)}"
        )
    if kind == "constant":
        constant = model.constants[name]
        origin = model.origins.get("constants", {}).get(name, "ruleset")
        return f"```\n{name} = {constant.value!r}\n```\nconstant, set by {origin}{_where(constant.span)}"
    if kind == "action":
        action = model.actions[name]
        lines = [f"**action {name}**" + (f" ({action.cite})" if action.cite else ""), action.doc]
        lines += [f"- requires: {r.message}" + (f" ({r.cite})" if r.cite else "") for r in action.requires]
        return "\n\n".join(line for line in lines if line)
    if kind in ("trigger", "invariant", "property"):
        rule = getattr(model, _TABLES[kind])[name]
        message = getattr(rule, "message", "")
        cite = f" ({rule.cite})" if rule.cite else ""
        return f"**{kind} {name}**{cite}" + (f"\n\n{message}" if message else "")
    if kind == "kind":
        component = model.kinds[name]
        attributes = ", ".join(f"{a}: {t}" for a, t in component.attributes.items())
        return f"**component kind {name}**: {len(component.items)} items\n\n{attributes}"
    if kind == "attribute" and symbol.scope in model.kinds:
        return f"```\n{symbol.scope}.{name}: {model.kinds[symbol.scope].attributes[name]}\n```\nattribute"
    if kind == "function":
        function = model.functions[name]
        params = ", ".join(f"{p}: {t}" for p, t in function.params)
        returns = f" -> {function.returns}" if function.returns else ""
        return f"```\n{name}({params}){returns}\n```\nfunction{_where(function.span)}"
    if kind == "enum_value":
        return f"```\n{symbol.scope}.{name}\n```\nvalue of the enumeration {symbol.scope}"
    return f"**{kind} {name}**"


def _where(span: Any) -> str:
    return "" if span is None else f" at {span.file}:{span.line}"


# ------------------------------------------------------------------ completion


@frozen
class Completion:
    """One completion: the text, its kind (as for :class:`Symbol`) and a one-line detail."""

    label: str
    kind: str
    detail: str = ""


_AFTER_DOT = re.compile(r"([A-Za-z_]\w*)\.(\w*)$")
_WORD = re.compile(r"\w*$")


def complete(
    model: RulesModel | None, before: str, file_kind: str, top_keys: Iterable[str]
) -> list[Completion]:
    """Completions for the text ``before`` the cursor on its line: after ``x.`` the fields,
    attributes or values ``x`` has (by its type where known), at the start of a top-level line
    the file's keys, else the names a snippet can use."""
    if not before.strip() or re.fullmatch(r"[A-Za-z_]\w*", before):
        keys = [Completion(k, "key", f"{file_kind} key") for k in top_keys]
        if keys:
            return keys
    if model is None:
        return [Completion(k, "keyword") for k in KEYWORDS]
    dotted = _AFTER_DOT.search(before)
    if dotted:
        return _members(model, dotted.group(1))
    out = [Completion(name, "builtin", signature(b)) for name, b in sorted(BUILTINS.items())]
    out += [Completion(n, "constant", repr(c.value)) for n, c in model.constants.items()]
    for kind in ("action", "function", "procedure", "event", "kind", "enum"):
        out += [Completion(n, kind) for n in getattr(model, _TABLES[kind])]
    out += [Completion(k, "keyword") for k in KEYWORDS]
    return out


def _members(model: RulesModel, qualifier: str) -> list[Completion]:
    enum = model.enums.get(qualifier)
    if enum is not None:
        return [Completion(m, "enum_value", qualifier) for m in enum.members or ()]
    scope = _SCOPES.get(qualifier)
    if scope is not None:
        return _fields(model, scope)
    if qualifier in model.kinds:
        kind = model.kinds[qualifier]
        out = [Completion(a, "attribute", str(t)) for a, t in kind.attributes.items()]
        return out + _fields(model, qualifier)
    out = _fields(model, "player")  # me, a player (the commonest), then any component's
    if qualifier in ("me", "player") or re.fullmatch(r"P\d+", qualifier):
        return out
    for name, kind in model.kinds.items():
        out += [Completion(a, "attribute", f"{name}: {t}") for a, t in kind.attributes.items()]
        out += _fields(model, name)
    return out


def _fields(model: RulesModel, scope: str) -> list[Completion]:
    return [
        Completion(n, "field", f"{f.declared} ({f.visibility})")
        for n, f in model.fields.get(scope, {}).items()
    ]


# ------------------------------------------------------------------ code actions


@frozen
class Fix:
    """A quick fix: its title and the edit (1-based start, end exclusive, new text)."""

    title: str
    line: int
    column: int
    end_line: int
    end_column: int
    text: str


def fixes(lines: list[str], line: int, column: int, end_column: int, hint: str) -> list[Fix]:
    """The fixes a hint offers for the mistake at ``line:column`` (``end_column`` on that line)."""
    text = lines[line - 1] if 0 < line <= len(lines) else ""
    written = text[column - 1 : end_column - 1] if end_column > column else ""
    word = re.match(r"[A-Za-z_]\w*", text[column - 1 :])
    out = []
    if "the DSL's literals are lower case" in hint and word and word.group() in LITERALS:
        found = word.group()
        out.append(
            Fix(f"write '{LITERALS[found]}'", line, column, line, column + len(found), LITERALS[found])
        )
    prefix = re.search(r"add '(\w+\.)'", hint)
    if prefix and not written.startswith(prefix.group(1)):
        out.append(Fix(f"add '{prefix.group(1)}'", line, column, line, column, prefix.group(1)))
    if "quote this value" in hint:
        span = flow_value(text, column)
        if span is not None:
            start, end = span
            value = text[start - 1 : end - 1]
            quoted = '"' + value.replace("\\", "\\\\").replace('"', '\\"') + '"'
            out.append(Fix("quote this value", line, start, line, end, quoted))
    return out


def flow_value(text: str, column: int) -> tuple[int, int] | None:
    """The columns (start, end exclusive) of the plain value of a YAML flow collection that a
    ``,`` at ``column`` cut: from after its ``key:`` (or ``[``/``,``) to the next ``,``, ``}``
    or ``]`` outside brackets."""
    index = min(column - 1, len(text))
    depth = 0
    start = index - 1
    while start >= 0:
        char = text[start]
        if char in ")]" and not (char == "]" and depth == 0):
            depth += 1
        elif char in "(":
            depth -= 1
        elif depth <= 0 and (char in "[{," or (char == ":" and text[start + 1 : start + 2] == " ")):
            break
        start -= 1
    if start < 0:
        return None
    start += 1
    while start < len(text) and text[start] == " ":
        start += 1
    depth = 0
    end = start
    while end < len(text):
        char = text[end]
        if char in "([":
            depth += 1
        elif char in ")]" and depth > 0:
            depth -= 1
        elif depth == 0 and char in ",}]" and (char != "," or end >= index):
            break
        end += 1
    value_end = end
    while value_end > start and text[value_end - 1] == " ":
        value_end -= 1
    return (start + 1, value_end + 1) if value_end > start else None
