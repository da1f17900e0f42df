"""Build the typed :class:`RulesModel` from composed YAML data.

The shape of every section is declared in :mod:`rulekit.rules.schema` and checked
in one pass by :mod:`rulekit.rules.structure` (every problem at its file:line:col,
DSL and types parsed).  This module adds what a schema cannot say alone: names
that must be unique or known (component ids, state scopes, bot weights' actions)
and game data checked against its declared type (component attributes, typed
constants, literal initial values), then assembles the model.
"""

from __future__ import annotations

import re
from typing import Any

import attrs

from rulekit.dsl import ast
from rulekit.dsl import types as t
from rulekit.dsl.names import is_name
from rulekit.errors import DiagnosticBag, Span, did_you_mean
from rulekit.rules import groups, records
from rulekit.rules import model as m
from rulekit.rules import schema as s
from rulekit.rules.generate import expand_copies, generate_items
from rulekit.rules.parameters import constant_of, read_parameters
from rulekit.rules.relax import relaxed
from rulekit.rules.structure import FAILED, RESERVED_NAMES, Entries, Node, Structurer
from rulekit.rules.symmetries import resolve_symmetry
from rulekit.rules.values import (
    DataContext,
    DataProblem,
    Declared,
    TypeProblem,
    convert,
    finite,
    parse_declared,
    plain,
)
from rulekit.rules.view import parse_view
from rulekit.rules.wrap import call_original, run_original, score_original
from rulekit.rules.yaml_source import LocDict, LocStr, span_of

RESERVED_SCOPES = ("game", "turn", "player")
_PLAYER_TEXT = re.compile(r"P[0-9]+")

__all__ = ["RESERVED_NAMES", "RESERVED_SCOPES", "build_model", "plain"]


def build_model(data: LocDict, fingerprint: str, modules: tuple[str, ...] = ()) -> m.RulesModel:
    """Build the rules model from composed data.

    Raises:
        RulesetError: with every structural, type and syntax problem found.
    """
    bag = DiagnosticBag()
    raw_kinds = data.get("components")
    kinds = frozenset(str(k) for k in raw_kinds if is_name(k)) if isinstance(raw_kinds, dict) else frozenset()
    structurer = Structurer(bag, records.type_names(data.get("records"), kinds, data.get("enums")))
    root = structurer.value(s.RULESET, data, data.span, "")
    if root is FAILED:  # pragma: no cover - compose hands over a mapping
        bag.raise_if_any()
    model = _Builder(root, structurer, bag).build(fingerprint, modules)
    bag.raise_if_any()
    return model


def _section(root: Node, name: str) -> Entries:
    found = root.get(name)
    return found if isinstance(found, Entries) else _empty_entries(root.where(name))


def _parameters(spec: Node) -> tuple[tuple[str, Declared], ...] | None:
    """The typed parameters of a function or procedure entry; None when the entry has no body or a
    parameter failed (both already reported)."""
    params = spec.get("params") or {}
    raw_params = spec.raw.get("params")
    if spec.get("body") is None or len(params) != (len(raw_params) if isinstance(raw_params, dict) else 0):
        return None
    return tuple(params.items())


def _empty_entries(span: Span) -> Entries:
    empty = Entries()
    empty.spans, empty.span = {}, span
    return empty


class _Builder:
    def __init__(self, root: Node, structurer: Structurer, bag: DiagnosticBag) -> None:
        self.root = root
        self.st = structurer
        self.bag = bag
        self.data = DataContext({}, 99)
        self.parameters = read_parameters(_section(root, "parameters"), bag)

    def build(self, fingerprint: str, modules: tuple[str, ...]) -> m.RulesModel:
        root = self.root
        low, high = self.players()
        kinds = self.components()
        self.data = DataContext({i.id: k.name for k in kinds.values() for i in k.items}, high)
        self.item_values(kinds)
        actions = self.actions()
        triggers = self.triggers()
        self.postconditions(actions, triggers)
        display = root.get("display")
        fields = self.state(kinds)
        money = root.get("money")
        if money is not None and money not in fields["player"]:
            self.bag.error(
                f"money field '{money}' is not a player field",
                root.where("money"),
                hint=did_you_mean(str(money), fields["player"]) or "name an int field of state.player",
            )
        return m.RulesModel(
            name=str(root.get("ruleset") or "ruleset"),
            title=str(root.get("title") or root.get("ruleset") or "ruleset"),
            description=str(root.get("description") or ""),
            min_players=low,
            max_players=high,
            constants=self.constants(),
            parameters=self.parameters,
            kinds=kinds,
            fields=fields,
            functions=self.functions(),
            procedures=self.procedures(),
            records=self.records(kinds),
            enums=self.enums(kinds),
            events=self.events(),
            actions=actions,
            triggers=triggers,
            invariants=self.invariants(),
            setup=root.get("setup"),
            flow=self.steps(root.get("flow", [])),
            scoring=self.scoring(),
            money=money,
            display=display if isinstance(display, dict) else {},  # located: errors name it
            bot_weights=self.bot_weights(actions),
            properties=self.properties(),
            visibility=self.visibility_expectations(fields),
            view=parse_view(root.raw.get("view"), self.bag, root.span),
            symmetries=self.symmetries(kinds),
            bot_evaluate=self.bots().get("evaluate"),
            space_bound=self.node("spaces").get("bound"),
            modules=modules,
            fingerprint=fingerprint,
        )

    def node(self, name: str) -> Node:
        """A single section's table (an empty one when it is not written or was wrong)."""
        found = self.root.get(name)
        if isinstance(found, Node):
            return found
        table = s.table_of(s.RULESET.key(name).shape)  # type: ignore[union-attr]
        assert table is not None, f"section {name} is a table"
        return Node(table, self.root.where(name))

    def bots(self) -> Node:
        return self.node("bots")

    # -- players, components and data
    def players(self) -> tuple[int, int]:
        players = self.node("players")
        if {"min", "max"} & (players.written - set(players.values)):
            return 2, 2  # a bad bound, already reported
        low = players.get("min", 2)
        high = players.get("max", low)
        if not 1 <= low <= high:
            self.bag.error("players needs integers 1 <= min <= max", self.root.where("players"))
            return 2, 2
        return low, high

    def components(self) -> dict[str, m.ComponentKind]:
        kinds = {}
        seen: dict[str, Span | None] = {}
        section = _section(self.root, "components")
        for kind, spec in section.items():
            raw_attributes = spec.raw.get("attributes")
            attributes = spec.get("attributes") or {}
            names = set(raw_attributes) if isinstance(raw_attributes, dict) else set()
            items = []
            listed = expand_copies(kind, spec.get("items") or [], self.bag)
            for raw in [*listed, *self.generated(kind, spec, raw_attributes)]:
                if not isinstance(raw, LocDict) or "id" not in raw:
                    self.bag.error(f"each {kind} item needs an 'id'", span_of(raw) or spec.where("items"))
                    continue
                item_id, item_span = raw["id"], raw.key_spans.get("id")
                if not self.st.ident(item_id, f"{kind} id", item_span):
                    continue
                if item_id in seen:
                    self.bag.error(
                        f"duplicate component id '{item_id}' (first at {seen[item_id]})", item_span
                    )
                    continue
                seen[item_id] = item_span
                for key in raw:
                    if key != "id" and key not in names:
                        self.bag.error(
                            f"'{key}' is not an attribute of {kind}",
                            raw.key_spans.get(key),
                            hint=did_you_mean(str(key), names)
                            or f"declare it under components.{kind}.attributes",
                        )
                for attr in names:
                    if attr not in raw:
                        self.bag.error(f"{kind} '{item_id}' has no value for attribute '{attr}'", raw.span)
                items.append(m.Item(str(item_id), {str(k): v for k, v in raw.items() if k != "id"}, raw.span))
            types = dict(attributes)
            collection = spec.get("collection") or f"{kind}s"
            kinds[kind] = m.ComponentKind(kind, collection, types, tuple(items), section.spans[kind])
        return kinds

    def generated(self, kind: str, spec: Node, attributes: Any) -> list[LocDict]:
        """The items ``generate:`` makes (located; problems reported once)."""
        generate = spec.get("generate")
        if not isinstance(generate, Node) or {"for", "id"} - set(generate.values):
            return []  # not written, or already reported
        loops = generate.get("for")
        constants = self.constant_values()
        return generate_items(
            kind,
            loops,
            loops.spans,
            str(generate.get("id")),
            generate.where("id"),
            list(attributes) if isinstance(attributes, dict) else [],
            constants,
            self.bag,
            generate.get("copies"),
        )

    def constant_values(self) -> dict[str, Any]:
        """The constants' plain values (and the parameters'), for what is worked out at load."""
        return {
            str(name): plain(
                value["value"] if isinstance(value, LocDict) and set(value) == {"type", "value"} else value
            )
            for name, value in _section(self.root, "constants").items()
        } | {name: p.value for name, p in self.parameters.items()}

    def symmetries(self, kinds: dict[str, m.ComponentKind]) -> dict[str, m.SymmetryDecl]:
        """``symmetries:``, each worked out into a permutation (rules/symmetries.py)."""
        section = _section(self.root, "symmetries")
        if not section:
            return {}
        constants = self.constant_values()
        result = {}
        for name, node in section.items():
            found = resolve_symmetry(
                name,
                node.get("components") or {},
                node.get("points") or {},
                kinds,
                constants,
                self.bag,
                doc=node.get("doc"),
                cite=node.get("cite"),
                span=section.spans.get(name) or node.span,
            )
            if found is not None:
                result[name] = found
        return result

    def item_values(self, kinds: dict[str, m.ComponentKind]) -> None:
        """Check every item's attribute values against their declared types (in place)."""
        section = _section(self.root, "components")
        for kind in kinds.values():
            attributes: dict[str, Declared] = section[kind.name].get("attributes") or {}
            for item in kind.items:
                raw_values = dict(item.values)
                item.values.clear()
                for key, raw in raw_values.items():
                    if key not in attributes:
                        item.values[key] = plain(raw)
                        continue
                    try:
                        item.values[key] = convert(raw, attributes[key], self.data)
                    except DataProblem as problem:
                        self.bag.error(
                            f"{kind.name} '{item.id}': {key} {problem}",
                            problem.span or span_of(raw) or item.span,
                            hint=problem.hint,
                        )

    def constants(self) -> dict[str, m.Constant]:
        """The constants, and the parameters (each read as a constant of its name)."""
        result = {name: constant_of(p) for name, p in self.parameters.items()}
        section = _section(self.root, "constants")
        for name, value in section.items():
            span = section.spans[name]
            if name in self.parameters:
                self.bag.error(f"'{name}' is both a constant and a parameter", span)
                continue
            if not (isinstance(value, LocDict) and set(value) == {"type", "value"}):
                result[name] = m.Constant(name, plain(value), span)
                continue
            try:
                declared = parse_declared(value["type"], self.st.kinds)
            except TypeProblem as problem:
                self.bag.error(
                    f"constants.{name}.type: {problem}", span_of(value["type"]) or span, hint=problem.hint
                )
                continue
            raw = value["value"]
            try:
                converted = convert(raw, declared, self.data)
            except DataProblem as problem:
                where = problem.span or span_of(raw) or value.key_spans.get("value") or span
                self.bag.error(f"constant '{name}': {problem}", where, hint=problem.hint)
                continue
            result[name] = m.Constant(name, converted, span, declared)
        return result

    def state(self, kinds: dict[str, m.ComponentKind]) -> dict[str, dict[str, m.FieldDecl]]:
        result: dict[str, dict[str, m.FieldDecl]] = {scope: {} for scope in RESERVED_SCOPES}
        for kind in kinds:
            result.setdefault(kind, {})
        section = _section(self.root, "state")
        for scope, fields in section.items():
            if scope not in result:
                self.bag.error(
                    f"unknown state scope '{scope}'",
                    section.spans[scope],
                    hint=did_you_mean(scope, result) or "scopes are game, turn, player and component kinds",
                )
                continue
            for name, spec in fields.items():
                span = fields.spans[name]
                declared: Declared | None = spec.values.get("type")
                if declared is None:
                    if "type" in spec.written:
                        continue  # an unknown type, already reported
                    declared = parse_declared("any", self.st.kinds)
                visibility, visible_to = self.visibility(spec.get("visibility"))
                if visibility in ("owner", "others") and scope != "player":
                    self.bag.error(f"visibility '{visibility}' is for player fields only", span)
                initial = self.initial(spec, declared, f"state.{scope}.{name}")
                if initial is FAILED:
                    continue
                result[scope][name] = m.FieldDecl(
                    scope, name, declared, initial, visibility, span, visible_to, spec.get("sample")
                )
        return result

    @staticmethod
    def visibility(written: Any) -> tuple[str, Any]:
        """A field's visibility word and its ``to`` condition (None when it has none)."""
        if written is None or isinstance(written, str):
            return str(written or "public"), None
        word = written.get("is")
        return str(word or "hidden"), written.get("to")

    def initial(self, spec: Node, declared: Declared, path: str) -> Any:
        """A field's initial value: a DSL expression, or a literal checked against the field's type."""
        if "initial" not in spec.written:
            return None
        raw = spec.raw.get("initial")
        where = spec.where("initial")
        player_text = isinstance(raw, str) and _PLAYER_TEXT.fullmatch(raw)
        if isinstance(raw, LocStr) and not (player_text and declared.type.name in ("player", "owner")):
            return self.st.value(s.Expr(), raw, where, f"{path}.initial")
        if not finite(raw):
            self.bag.error(
                "an initial value must be a finite number, text, a list or a mapping of them", where
            )
            return FAILED
        try:
            value = None if raw is None else convert(raw, declared, self.data)
        except DataProblem as problem:
            self.bag.error(f"{path}.initial {problem}", problem.span or where, hint=problem.hint)
            return FAILED
        return ast.Literal(value, span=where)

    # -- definitions
    def functions(self) -> dict[str, m.FunctionDecl]:
        result = {}
        section = _section(self.root, "functions")
        for name, spec in section.items():
            typed = _parameters(spec)
            if typed is None:
                continue  # reported
            body = call_original(spec.get("body"), spec.get("wraps"))
            returns = spec.get("returns")
            result[name] = m.FunctionDecl(name, typed, body, section.spans[name], returns)
        return result

    def records(self, kinds: dict[str, m.ComponentKind]) -> dict[str, t.Type]:
        """Declared record types (their names were read before structuring: see rules/records.py)."""
        result = {}
        section = _section(self.root, "records")
        for name, fields in section.items():
            declared = self.st.kinds.get(name) if isinstance(self.st.kinds, dict) else None
            if name in kinds:
                self.bag.error(f"record '{name}' has the name of a component kind", section.spans[name])
            elif declared is not None and declared.is_record and len(fields) == len(declared.fields or ()):
                result[name] = declared
            elif fields and declared is None:
                self.bag.error(
                    f"record '{name}' uses a record declared after it",
                    section.spans[name],
                    hint="declare the records a record uses before it",
                )
        return result

    def enums(self, kinds: dict[str, m.ComponentKind]) -> dict[str, t.Type]:
        """Enumerations: names of value sets (read before structuring, see rules/records.py)."""
        result = {}
        section = _section(self.root, "enums")
        for name, members in section.items():
            declared = self.st.kinds.get(name) if isinstance(self.st.kinds, dict) else None
            if name in kinds:
                self.bag.error(f"enumeration '{name}' has the name of a component kind", section.spans[name])
            elif len(set(members)) != len(members):
                self.bag.error(f"enumeration '{name}' names a value twice", section.spans[name])
            elif declared is not None and declared.name == "enum":
                result[name] = declared
        return result

    def procedures(self) -> dict[str, m.ProcedureDecl]:
        result = {}
        section = _section(self.root, "procedures")
        for name, spec in section.items():
            typed = _parameters(spec)
            if typed is None:
                continue  # reported
            result[name] = m.ProcedureDecl(name, typed, spec.get("body"), section.spans[name])
        return result

    def requirement_groups(self) -> dict[str, groups.RequirementGroup]:
        result = {}
        section = _section(self.root, "requirements")
        for name, spec in section.items():
            params = spec.get("params") or {}
            raw_params = spec.raw.get("params")
            if len(params) != (len(raw_params) if isinstance(raw_params, dict) else 0):
                continue  # reported
            items = tuple(self.requirement_items(spec.get("require", [])))
            typed = tuple((p, d.text) for p, d in params.items())
            result[name] = groups.RequirementGroup(name, typed, items, section.spans[name])
        groups.check(result, self.bag)
        return result

    def requirement_items(self, nodes: list[Node]) -> list[m.Requirement | groups.Use]:
        """A requirement list as written: requirements and uses of groups."""
        items: list[m.Requirement | groups.Use] = []
        for node in nodes:
            if "if" in node.values:
                items.append(self.requirement(node))
            elif "use" in node.values:
                call = node.values["use"]
                if isinstance(call, ast.Call):
                    items.append(groups.Use(call, node.where("use")))
                else:
                    self.bag.error(
                        "'use' names a requirement group with its arguments, e.g. use: at_harbor(me)",
                        node.where("use"),
                    )
        return items

    def events(self) -> dict[str, m.EventDecl]:
        section = _section(self.root, "events")
        return {
            name: m.EventDecl(name, tuple(fields.items()), section.spans[name])
            for name, fields in section.items()
        }

    def actions(self) -> dict[str, m.ActionDecl]:
        result = {}
        section = _section(self.root, "actions")
        requirement_groups = self.requirement_groups()
        for name, spec in section.items():
            params = spec.get("params") or _empty_entries(spec.span)
            written = self.requirement_items(spec.get("require", []))
            fallback = spec.get("only_if_nothing_else")
            ignored = [n for n in spec.get("ignoring") or () if n.get("action") is not None]
            result[name] = m.ActionDecl(
                name=name,
                params=tuple(m.Param(p, domain, params.spans[p]) for p, domain in params.items()),
                requires=groups.expand(written, requirement_groups, self.bag),
                fallback=fallback,
                fallback_ignoring=tuple(str(n.get("action")) for n in ignored),
                fallback_ignored_when=tuple(
                    (str(n.get("action")), n.get("when")) for n in ignored if n.get("when") is not None
                ),
                cost=spec.get("cost"),
                effect=spec.get("effect"),
                ends_turn=spec.get("ends_turn"),
                prompt_only=spec.get("prompt"),
                cite=spec.get("cite"),
                doc=spec.get("doc") or "",
                span=section.spans[name],
                cost_span=spec.where("cost") if "cost" in spec.values else None,
                offered_with=spec.get("offered_with") or (),
                ensures=self.ensures(name, spec.get("ensures", [])),
            )
        return result

    def postconditions(self, actions: dict[str, m.ActionDecl], triggers: dict[str, m.TriggerDecl]) -> None:
        """Append the ``postconditions:`` section's entries to the actions (or triggers) they name."""
        section = _section(self.root, "postconditions")
        for name, nodes in section.items():
            entry: m.ActionDecl | m.TriggerDecl | None = actions.get(name) or triggers.get(name)
            if entry is None:
                self.bag.error(
                    f"postconditions of an unknown action or trigger '{name}'",
                    section.spans[name],
                    hint=did_you_mean(name, [*actions, *triggers]),
                )
                continue
            more = tuple(
                self.property(f"{name}.ensures[{len(entry.ensures) + i + 1}]", node)
                for i, node in enumerate(nodes)
                if "holds" in node.values
            )
            if isinstance(entry, m.ActionDecl):
                actions[name] = attrs.evolve(entry, ensures=entry.ensures + more)
            else:
                triggers[name] = attrs.evolve(entry, ensures=entry.ensures + more)

    def requirement(self, node: Node) -> m.Requirement:
        written = node.raw["if"]
        message = node.get("else") or f"requires {written}"
        return m.Requirement(node.values["if"], message, node.get("cite"), span_of(written) or node.span)

    def ensures(self, action: str, nodes: list[Node]) -> tuple[m.PropertyDecl, ...]:
        return tuple(
            self.property(f"{action}.ensures[{i + 1}]", node)
            for i, node in enumerate(nodes)
            if "holds" in node.values
        )

    def property(self, name: str, node: Node) -> m.PropertyDecl:
        message = node.get("message") or f"property '{name}' does not hold"
        over = node.get("over", "action")
        return m.PropertyDecl(name, node.values["holds"], message, node.get("cite"), node.span, over)

    def properties(self) -> dict[str, m.PropertyDecl]:
        section = _section(self.root, "properties")
        return {name: self.property(name, node) for name, node in section.items() if "holds" in node.values}

    def visibility_expectations(
        self, fields: dict[str, dict[str, m.FieldDecl]]
    ) -> dict[str, m.VisibilityDecl]:
        """``visibility:``: who may see a field at most; the field must exist, and ``owner`` or
        ``others`` be said of a player's field."""
        result = {}
        section = _section(self.root, "visibility")
        for name, node in section.items():
            written, seen_by = node.get("field"), node.get("seen_by")
            if not isinstance(written, str) or seen_by is None:
                continue  # reported
            where = node.where("field")
            scope, _, field_name = written.partition(".")
            if scope not in fields:
                self.bag.error(
                    f"visibility '{name}': no state scope or component kind '{scope}' (write SCOPE.FIELD)",
                    where,
                    hint=did_you_mean(scope, fields),
                )
                continue
            if field_name not in fields[scope]:
                self.bag.error(
                    f"visibility '{name}': {scope} has no field '{field_name}'",
                    where,
                    hint=did_you_mean(field_name, fields[scope]),
                )
                continue
            if seen_by != "nobody" and scope != "player":
                self.bag.error(
                    f"visibility '{name}': only a player's field has an owner to be seen by "
                    f"('{seen_by}' said of {written}); write seen_by: nobody",
                    node.where("seen_by"),
                )
                continue
            message = node.get("message") or f"{written} is seen by more than {seen_by}"
            result[name] = m.VisibilityDecl(
                name, scope, field_name, seen_by, message, node.get("cite"), section.spans[name]
            )
        return result

    def invariants(self) -> dict[str, m.InvariantDecl]:
        result = {}
        section = _section(self.root, "invariants")
        for name, node in section.items():
            if "holds" in node.values:
                message = node.get("message") or f"invariant '{name}' does not hold"
                condition, message = relaxed(node.values["holds"], message, node.get("relax", []))
                result[name] = m.InvariantDecl(name, condition, message, node.get("cite"), node.span)
        return result

    def triggers(self) -> dict[str, m.TriggerDecl]:
        result = {}
        section = _section(self.root, "triggers")
        for name, node in section.items():
            timing = "after" if "after" in node.written else "before" if "before" in node.written else None
            if timing is None or timing not in node.values or "effect" not in node.values:
                continue  # reported
            result[name] = m.TriggerDecl(
                name,
                timing,
                node.values[timing],
                node.get("when"),
                run_original(node.values["effect"], node.get("original") or ()),
                node.get("cite"),
                section.spans[name],
                ensures=self.ensures(name, node.get("ensures", [])),
            )
        return result

    def bot_weights(self, actions: dict[str, m.ActionDecl]) -> dict[str, ast.Expr]:
        """``bots.weights``: a whole number >= 0 or an expression per known action."""
        weights: Entries = self.bots().get("weights") or _empty_entries(self.root.span)
        result = {}
        for name, weight in weights.items():
            span = weights.spans[name]
            if name not in actions:
                self.bag.error(
                    f"bots.weights names unknown action '{name}'", span, hint=did_you_mean(name, actions)
                )
                continue
            negative = isinstance(weight, int) and weight < 0
            if isinstance(weight, bool) or negative or not isinstance(weight, int | str):
                self.bag.error(
                    f"the weight of '{name}' must be a whole number >= 0 or an expression "
                    f"(got {plain(weight)!r})",
                    span_of(weight) or span,
                )
                continue
            expr = self.st.value(s.Expr(), weight, span, f"the weight of '{name}'")
            if expr is not FAILED:
                result[name] = expr
        return result

    # -- flow and scoring
    def steps(self, raw: list[tuple[str, Node]]) -> tuple[m.FlowStep, ...]:
        found = (self.step(tag, node) for tag, node in raw)
        return tuple(step for step in found if step is not None)

    def step(self, tag: str, node: Node) -> m.FlowStep | None:
        span = node.key_spans.get(tag)
        body = node.values.get(tag)
        if body is None:
            return None  # reported
        if tag == "do":
            return m.DoStep(body, span)
        if tag == "if":
            then, otherwise = self.steps(node.get("then", [])), self.steps(node.get("else", []))
            return m.IfStep(body, then, otherwise, span)
        steps = self.steps(body.get("steps", []))
        if tag == "repeat":
            times, while_, until = body.get("times"), body.get("while"), body.get("until")
            return m.RepeatStep(steps, times, while_, until, body.get("counter"), span)
        if tag == "for_each":
            if "in" not in body.values or "as" not in body.values:
                return None
            return m.ForEachStep(body.values["in"], body.values["as"], steps, span)
        if tag == "simultaneous":
            return m.SimultaneousStep(body.get("players"), body.get("actions"), span)
        if "player" not in body.values:
            return None
        on_start, on_end = body.get("on_start"), body.get("on_end")
        once, until = body.get("once"), body.get("until")
        return m.TurnStep(body.values["player"], body.get("actions"), once, until, on_start, on_end, span)

    def scoring(self) -> m.Scoring:
        node = self.node("scoring")
        score = score_original(node.get("score"), node.get("original") or ())
        outcome = str(node.get("outcome") or "competitive")
        success, team, tiebreak = node.get("success"), node.get("team"), node.get("tiebreak", [])
        for key, present, needs in (
            ("success", success is not None, "cooperative"),
            ("team", team is not None, "teams"),
        ):
            if present and outcome != needs:
                self.bag.error(f"scoring.{key} is for outcome: {needs} only", node.where(key))
        if outcome == "teams" and team is None:
            self.bag.error("outcome: teams needs scoring.team (each player's team)", node.where("outcome"))
        if outcome == "cooperative" and tiebreak:
            self.bag.error("a cooperative game has one shared score: no tiebreak", node.where("tiebreak"))
        return m.Scoring(
            score,
            tuple(tiebreak),
            node.get("end_when"),
            node.span,
            bool(node.get("public")),
            returns=self.returns(node, score),
            outcome=outcome,
            success=success if isinstance(success, int) else None,
            team=team,
        )

    def returns(self, scoring: Node, score: Any) -> tuple[int, int, int | None] | None:
        """``scoring.returns``: the bounds of the scores that are the returns (checked)."""
        node = scoring.get("returns")
        if not isinstance(node, Node) or {"min", "max"} - set(node.values):
            return None  # not written, or a bad value already reported
        low, high, total = node.values["min"], node.values["max"], node.values.get("sum")
        where = scoring.where("returns")
        if score is None:
            self.bag.error("scoring.returns needs a score (the returns are the scores)", where)
        elif low > high:
            self.bag.error(f"scoring.returns needs min <= max, not {low} > {high}", where)
        return low, high, total
