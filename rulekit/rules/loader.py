"""Build the typed :class:`RulesModel` from composed YAML data.

Checks the shape of every section and parses every DSL snippet, collecting
all problems (each at its file:line:col) instead of stopping at the first.
"""

from __future__ import annotations

import math
from typing import Any

from rulekit.dsl import ast, parse_block, parse_expression
from rulekit.dsl.names import is_name
from rulekit.errors import DiagnosticBag, DslSyntaxError, Span, did_you_mean
from rulekit.rules import model as m
from rulekit.rules.compose import check_keys
from rulekit.rules.view import parse_view
from rulekit.rules.yaml_source import LocDict, LocList, LocStr, span_of

RESERVED_SCOPES = ("game", "turn", "player")
RESERVED_NAMES = frozenset(
    {
        "me",
        "players",
        "bank",
        "game",
        "turn",
        "player",
        "num_players",
        "true",
        "false",
        "none",
        "_",
    }
)
_ACTION_KEYS = (
    "params",
    "require",
    "cost",
    "effect",
    "ends_turn",
    "prompt",
    "offered_with",
    "cite",
    "doc",
    "ensures",
)
_TRIGGER_KEYS = ("after", "before", "when", "effect", "cite", "doc")
_FIELD_KEYS = ("type", "initial", "visibility", "doc")
_STEP_KEYS = ("do", "repeat", "for_each", "turn", "if")


class _Builder:
    def __init__(self, data: LocDict) -> None:
        self.data = data
        self.bag = DiagnosticBag()

    # -- helpers
    def where(self, value: Any, parent: LocDict | None = None, key: str | None = None) -> Span | None:
        span = span_of(value)
        if span is None and parent is not None and key is not None:
            span = parent.key_spans.get(key) or parent.span
        return span

    def expr(
        self, value: Any, what: str, parent: LocDict | None = None, key: str | None = None
    ) -> ast.Expr | None:
        if isinstance(value, bool | int) or value is None:
            return ast.Literal(value, span=self.where(value, parent, key) or Span("<rules>", 1, 1))
        if not isinstance(value, str):
            self.bag.error(f"{what} must be a DSL expression (a string)", self.where(value, parent, key))
            return None
        origin = value.origin if isinstance(value, LocStr) else None
        try:
            return parse_expression(str(value), origin)
        except DslSyntaxError as error:
            self.bag.extend(error.diagnostics)
            return None

    def block(
        self, value: Any, what: str, parent: LocDict | None = None, key: str | None = None
    ) -> ast.Block | None:
        if not isinstance(value, str):
            self.bag.error(f"{what} must be DSL statements (a string)", self.where(value, parent, key))
            return None
        origin = value.origin if isinstance(value, LocStr) else None
        try:
            return parse_block(str(value), origin)
        except DslSyntaxError as error:
            self.bag.extend(error.diagnostics)
            return None

    def mapping(
        self, value: Any, what: str, parent: LocDict | None = None, key: str | None = None
    ) -> LocDict:
        if isinstance(value, LocDict):
            return value
        if value is not None:
            self.bag.error(f"{what} must be a mapping", self.where(value, parent, key))
        empty = LocDict()
        empty.span = self.where(value, parent, key) or Span("<rules>", 1, 1)
        empty.key_spans = {}
        return empty

    def keys(self, data: LocDict, allowed: tuple[str, ...], what: str) -> None:
        check_keys(data, allowed, what, self.bag)

    def ident(self, name: Any, what: str, span: Span | None) -> bool:
        if not is_name(name):
            self.bag.error(f"{what} '{name}' is not a valid name (letters, digits, _)", span)
            return False
        if name in RESERVED_NAMES:
            self.bag.error(
                f"'{name}' is reserved and cannot name {'an' if what[:1] in 'aeiou' else 'a'} {what}", span
            )
            return False
        return True

    def typed_names(self, spec: LocDict, what: str) -> tuple[tuple[str, str], ...]:
        """``{name: type}`` pairs (function parameters, event fields); bad names refused where written."""
        result = []
        for key, type_text in spec.items():
            if self.ident(key, what, spec.key_spans.get(key)):
                result.append((str(key), str(type_text)))
        return tuple(result)

    # -- sections
    def build(self, fingerprint: str, modules: tuple[str, ...]) -> m.RulesModel:
        data = self.data
        players = self.mapping(data.get("players"), "players", data, "players")
        low = players.get("min", 2)
        high = players.get("max", low)
        if not isinstance(low, int) or not isinstance(high, int) or not 1 <= low <= high:
            self.bag.error("players needs integers 1 <= min <= max", self.where(players, data, "players"))
            low, high = 2, 2
        constants = self.constants()
        kinds = self.components()
        fields = self.state(kinds)
        functions = self.functions()
        events = self.events()
        actions = self.actions()
        triggers = self.triggers()
        invariants = self.invariants()
        properties = self.properties()
        setup = None
        if data.get("setup") is not None:
            setup = self.block(data["setup"], "setup", data, "setup")
        flow = self.steps(data.get("flow"), data, "flow")
        if not flow and "flow" not in data:
            self.bag.error("a ruleset needs a 'flow' section (the game structure)", data.span)
        scoring = self.scoring()
        money = data.get("money")
        if money is not None and not isinstance(money, str):
            self.bag.error("money must name a player field", self.where(money, data, "money"))
            money = None
        display = data.get("display") or {}
        bot_weights = self.bots(actions)
        for key in ("ruleset", "title"):
            text = data.get(key)
            if isinstance(text, str) and (not text.isprintable() or len(text) > 200):
                self.bag.error(
                    f"the {key} must be printable text of at most 200 characters", self.where(text, data, key)
                )
        return m.RulesModel(
            name=str(data.get("ruleset") or "ruleset"),
            title=str(data.get("title") or data.get("ruleset") or "ruleset"),
            description=str(data.get("description") or ""),
            min_players=low,
            max_players=high,
            constants=constants,
            kinds=kinds,
            fields=fields,
            functions=functions,
            events=events,
            actions=actions,
            triggers=triggers,
            invariants=invariants,
            setup=setup,
            flow=flow,
            scoring=scoring,
            money=str(money) if money else None,
            display=dict(display) if isinstance(display, dict) else {},
            bot_weights=bot_weights,
            properties=properties,
            view=parse_view(data.get("view"), self.bag, data.span),
            bot_evaluate=self.bot_evaluate(),
            space_bound=self.space_bound(),
            modules=modules,
            fingerprint=fingerprint,
        )

    def bots(self, actions: dict[str, m.ActionDecl]) -> dict[str, ast.Expr]:
        """``bots: {weights: {action: INT or EXPR}}``: how likely random bots and verify pick
        each action; an expression sees ``me`` and the action's parameters."""
        spec = self.mapping(self.data.get("bots"), "bots", self.data, "bots")
        self.keys(spec, ("weights", "evaluate", "doc"), "bots")
        weights = self.mapping(spec.get("weights"), "weights", spec, "weights")
        result = {}
        for name, weight in weights.items():
            span = weights.key_spans.get(name)
            if name not in actions:
                hint = did_you_mean(str(name), actions)
                self.bag.error(f"bots.weights names unknown action '{name}'", span, hint=hint)
                continue
            negative = isinstance(weight, int) and weight < 0
            if isinstance(weight, bool) or negative or not isinstance(weight, int | str):
                self.bag.error(
                    f"the weight of '{name}' must be a whole number >= 0 or an expression (got {weight!r})",
                    self.where(weight, weights, name),
                )
                continue
            expr = self.expr(weight, f"the weight of '{name}'", weights, name)
            if expr is not None:
                result[str(name)] = expr
        return result

    def bot_evaluate(self) -> ast.Expr | None:
        """``bots: {evaluate: EXPR}``: an int expression of ``me``, how good the state is for
        that player (read by the heuristic and MCTS bots)."""
        spec = self.mapping(self.data.get("bots"), "bots", self.data, "bots")
        if spec.get("evaluate") is None:
            return None
        return self.expr(spec["evaluate"], "bots.evaluate", spec, "evaluate")

    def space_bound(self) -> int | None:
        """``spaces: {bound: INT}``: open action parameters (ints, pairs of ints) lie within
        ``-bound..bound`` when moves are numbered for OpenSpiel and PettingZoo."""
        spec = self.mapping(self.data.get("spaces"), "spaces", self.data, "spaces")
        self.keys(spec, ("bound", "doc"), "spaces")
        bound = spec.get("bound")
        if bound is None:
            return None
        if isinstance(bound, bool) or not isinstance(bound, int) or not 0 <= bound <= 1000:
            self.bag.error(
                f"spaces.bound must be a whole number from 0 to 1000 (got {bound!r})",
                self.where(bound, spec, "bound"),
            )
            return None
        return bound

    def constants(self) -> dict[str, m.Constant]:
        section = self.mapping(self.data.get("constants"), "constants", self.data, "constants")
        result = {}
        for name, value in section.items():
            span = section.key_spans.get(name)
            if not self.ident(name, "constant", span):
                continue
            if isinstance(value, LocDict) and set(value) == {"type", "value"}:
                result[name] = m.Constant(name, _plain(value["value"]), span, str(value["type"]))
            else:
                result[name] = m.Constant(name, _plain(value), span)
        return result

    def components(self) -> dict[str, m.ComponentKind]:
        section = self.mapping(self.data.get("components"), "components", self.data, "components")
        kinds = {}
        seen_ids: dict[str, Span | None] = {}
        for kind, spec in section.items():
            span = section.key_spans.get(kind)
            if not self.ident(kind, "component kind", span) or kind in RESERVED_SCOPES:
                if kind in RESERVED_SCOPES:
                    self.bag.error(f"'{kind}' is reserved and cannot name a component kind", span)
                continue
            spec = self.mapping(spec, f"component kind '{kind}'", section, kind)
            self.keys(spec, ("collection", "attributes", "items", "doc"), "component")
            collection = str(spec.get("collection") or f"{kind}s")
            attributes = self.mapping(spec.get("attributes"), "attributes", spec, "attributes")
            attrs = {str(k): str(v) for k, v in attributes.items()}
            items = []
            raw_items = spec.get("items") or []
            if not isinstance(raw_items, list):
                self.bag.error("items must be a list", self.where(raw_items, spec, "items"))
                raw_items = []
            for raw in raw_items:
                if not isinstance(raw, LocDict) or "id" not in raw:
                    self.bag.error(f"each {kind} item needs an 'id'", self.where(raw, spec, "items"))
                    continue
                item_id = raw["id"]
                item_span = raw.key_spans.get("id")
                if not self.ident(item_id, f"{kind} id", item_span):
                    continue
                if item_id in seen_ids:
                    self.bag.error(
                        f"duplicate component id '{item_id}' (first at {seen_ids[item_id]})", item_span
                    )
                    continue
                seen_ids[item_id] = item_span
                values = {}
                for key, value in raw.items():
                    if key == "id":
                        continue
                    if key not in attrs:
                        self.bag.error(
                            f"'{key}' is not an attribute of {kind}",
                            raw.key_spans.get(key),
                            hint=did_you_mean(str(key), attrs)
                            or f"declare it under components.{kind}.attributes",
                        )
                        continue
                    values[str(key)] = _plain(value)
                for attr in attrs:
                    if attr not in values:
                        self.bag.error(f"{kind} '{item_id}' has no value for attribute '{attr}'", raw.span)
                items.append(m.Item(str(item_id), values, raw.span))
            kinds[kind] = m.ComponentKind(kind, collection, attrs, tuple(items), span)
        return kinds

    def state(self, kinds: dict[str, m.ComponentKind]) -> dict[str, dict[str, m.FieldDecl]]:
        section = self.mapping(self.data.get("state"), "state", self.data, "state")
        result: dict[str, dict[str, m.FieldDecl]] = {s: {} for s in RESERVED_SCOPES}
        for kind in kinds:
            result.setdefault(kind, {})
        for scope, fields in section.items():
            span = section.key_spans.get(scope)
            if scope not in result:
                self.bag.error(
                    f"unknown state scope '{scope}'",
                    span,
                    hint=did_you_mean(str(scope), result)
                    or "scopes are game, turn, player and component kinds",
                )
                continue
            fields = self.mapping(fields, f"state.{scope}", section, scope)
            for name, spec in fields.items():
                fspan = fields.key_spans.get(name)
                if not self.ident(name, "field", fspan):
                    continue
                if isinstance(spec, str):
                    spec_map = LocDict(type=spec)
                    spec_map.span = span_of(spec) or fspan or section.span
                    spec_map.key_spans = {}
                    spec = spec_map
                spec = self.mapping(spec, f"field '{name}'", fields, name)
                self.keys(spec, _FIELD_KEYS, "field")
                type_text = str(spec.get("type") or "any")
                initial = None
                if "initial" in spec:
                    raw = spec["initial"]
                    if isinstance(raw, LocStr):
                        initial = self.expr(raw, "initial", spec, "initial")
                    elif _finite(raw):
                        initial = ast.Literal(_plain(raw), span=self.where(raw, spec, "initial") or fspan)  # type: ignore[arg-type]
                    else:
                        self.bag.error(
                            "an initial value must be a finite number, text, a list or a mapping of them",
                            self.where(raw, spec, "initial") or fspan,
                        )
                visibility = str(spec.get("visibility") or "public")
                if visibility not in ("public", "owner", "hidden"):
                    self.bag.error(
                        f"visibility must be public, owner or hidden (got '{visibility}')",
                        self.where(spec.get("visibility"), spec, "visibility"),
                    )
                if visibility == "owner" and scope != "player":
                    self.bag.error("visibility 'owner' is for player fields only", fspan)
                result[scope][name] = m.FieldDecl(scope, name, type_text, initial, visibility, fspan)
        return result

    def functions(self) -> dict[str, m.FunctionDecl]:
        section = self.mapping(self.data.get("functions"), "functions", self.data, "functions")
        result = {}
        for name, spec in section.items():
            span = section.key_spans.get(name)
            if not self.ident(name, "function", span):
                continue
            if isinstance(spec, str):
                params: tuple[tuple[str, str], ...] = ()
                body = self.expr(spec, "function body", section, name)
            else:
                spec = self.mapping(spec, f"function '{name}'", section, name)
                self.keys(spec, ("params", "body", "doc"), "function")
                raw_params = self.mapping(spec.get("params"), "params", spec, "params")
                params = self.typed_names(raw_params, "parameter")
                body = self.expr(spec.get("body"), "function body", spec, "body")
            if body is not None:
                result[name] = m.FunctionDecl(name, params, body, span)
        return result

    def events(self) -> dict[str, m.EventDecl]:
        section = self.mapping(self.data.get("events"), "events", self.data, "events")
        result = {}
        for name, spec in section.items():
            span = section.key_spans.get(name)
            if not self.ident(name, "event", span):
                continue
            spec = self.mapping(spec, f"event '{name}'", section, name)
            result[name] = m.EventDecl(name, self.typed_names(spec, "event field"), span)
        return result

    def actions(self) -> dict[str, m.ActionDecl]:
        section = self.mapping(self.data.get("actions"), "actions", self.data, "actions")
        result = {}
        for name, spec in section.items():
            span = section.key_spans.get(name)
            if not self.ident(name, "action", span):
                continue
            spec = self.mapping(spec, f"action '{name}'", section, name)
            self.keys(spec, _ACTION_KEYS, "action")
            params = []
            raw_params = self.mapping(spec.get("params"), "params", spec, "params")
            for pname, domain in raw_params.items():
                pspan = raw_params.key_spans.get(pname)
                if not self.ident(pname, "parameter", pspan):
                    continue
                expr = self.expr(domain, f"domain of parameter '{pname}'", raw_params, pname)
                if expr is not None:
                    params.append(m.Param(str(pname), expr, pspan))
            requires = self.requirements(spec.get("require"), spec)
            cost = None
            if spec.get("cost") is not None:
                cost = self.expr(spec["cost"], "cost", spec, "cost")
            effect = None
            if spec.get("effect") is not None:
                effect = self.block(spec["effect"], "effect", spec, "effect")
            result[name] = m.ActionDecl(
                name=str(name),
                params=tuple(params),
                requires=requires,
                cost=cost,
                effect=effect,
                ends_turn=bool(spec.get("ends_turn", False)),
                prompt_only=bool(spec.get("prompt", False)),
                cite=_opt_str(spec.get("cite")),
                doc=str(spec.get("doc") or ""),
                span=span,
                cost_span=self.where(spec.get("cost"), spec, "cost"),
                offered_with=_names(spec.get("offered_with")),
                ensures=self.ensures(str(name), spec),
            )
        return result

    def properties(self) -> dict[str, m.PropertyDecl]:
        """The ``properties:`` section: conditions over the states before and after an action or turn."""
        section = self.mapping(self.data.get("properties"), "properties", self.data, "properties")
        result = {}
        for name, spec in section.items():
            span = section.key_spans.get(name)
            if not self.ident(name, "property", span):
                continue
            decl = self.property(str(name), spec, section, name, ("holds", "message", "cite", "over"))
            if decl is not None:
                result[str(name)] = decl
        return result

    def ensures(self, action: str, spec: LocDict) -> tuple[m.PropertyDecl, ...]:
        """An action's ``ensures:`` list (its postconditions)."""
        raw = spec.get("ensures")
        if raw is None:
            return ()
        if not isinstance(raw, list):
            raw = [raw]
        found = []
        for i, item in enumerate(raw):
            decl = self.property(
                f"{action}.ensures[{i + 1}]", item, spec, "ensures", ("holds", "message", "cite")
            )
            if decl is not None:
                found.append(decl)
        return tuple(found)

    def property(
        self, name: str, spec: Any, parent: LocDict, key: Any, keys: tuple[str, ...]
    ) -> m.PropertyDecl | None:
        if isinstance(spec, str):
            cond = self.expr(spec, "property", parent, key)
            if cond is None:
                return None
            return m.PropertyDecl(name, cond, f"property '{name}' does not hold", None, span_of(spec))
        spec = self.mapping(spec, f"property '{name}'", parent, key)
        self.keys(spec, keys, "property")
        cond = self.expr(spec.get("holds"), "property", spec, "holds")
        over = str(spec.get("over") or "action")
        if over not in ("action", "turn"):
            self.bag.error("over is 'action' or 'turn'", self.where(spec.get("over"), spec, "over"))
        if cond is None:
            return None
        message = str(spec.get("message") or f"property '{name}' does not hold")
        return m.PropertyDecl(name, cond, message, _opt_str(spec.get("cite")), span_of(spec), over)

    def requirements(self, raw: Any, parent: LocDict) -> tuple[m.Requirement, ...]:
        if raw is None:
            return ()
        if not isinstance(raw, list):
            raw = [raw]
        result = []
        for entry in raw:
            if isinstance(entry, str):
                cond = self.expr(entry, "requirement", parent, "require")
                if cond is not None:
                    result.append(m.Requirement(cond, f"requires {entry}", None, span_of(entry)))
                continue
            entry = self.mapping(entry, "a requirement", parent, "require")
            self.keys(entry, ("if", "else", "cite"), "requirement")
            if "if" not in entry:
                self.bag.error("a requirement needs 'if: CONDITION' and 'else: MESSAGE'", entry.span)
                continue
            cond = self.expr(entry["if"], "requirement", entry, "if")
            message = str(entry.get("else") or f"requires {entry['if']}")
            if cond is not None:
                result.append(
                    m.Requirement(
                        cond, message, _opt_str(entry.get("cite")), span_of(entry["if"]) or entry.span
                    )
                )
        return tuple(result)

    def triggers(self) -> dict[str, m.TriggerDecl]:
        section = self.mapping(self.data.get("triggers"), "triggers", self.data, "triggers")
        result = {}
        for name, spec in section.items():
            span = section.key_spans.get(name)
            if not self.ident(name, "trigger", span):
                continue
            spec = self.mapping(spec, f"trigger '{name}'", section, name)
            self.keys(spec, _TRIGGER_KEYS, "trigger")
            timing = "after" if "after" in spec else "before" if "before" in spec else None
            if timing is None:
                self.bag.error("a trigger needs 'after: EVENT' or 'before: ACTION'", span)
                continue
            condition = None
            if spec.get("when") is not None:
                condition = self.expr(spec["when"], "when", spec, "when")
            effect = self.block(spec.get("effect"), "effect", spec, "effect")
            if effect is None:
                continue
            result[name] = m.TriggerDecl(
                str(name), timing, str(spec[timing]), condition, effect, _opt_str(spec.get("cite")), span
            )
        return result

    def invariants(self) -> dict[str, m.InvariantDecl]:
        section = self.mapping(self.data.get("invariants"), "invariants", self.data, "invariants")
        result = {}
        for name, spec in section.items():
            span = section.key_spans.get(name)
            if not self.ident(name, "invariant", span):
                continue
            if isinstance(spec, str):
                cond = self.expr(spec, "invariant", section, name)
                message, cite = f"invariant '{name}' does not hold", None
            else:
                spec = self.mapping(spec, f"invariant '{name}'", section, name)
                self.keys(spec, ("holds", "message", "cite"), "invariant")
                cond = self.expr(spec.get("holds"), "invariant", spec, "holds")
                message = str(spec.get("message") or f"invariant '{name}' does not hold")
                cite = _opt_str(spec.get("cite"))
            if cond is not None:
                result[name] = m.InvariantDecl(str(name), cond, message, cite, span_of(spec) or span)
        return result

    def steps(self, raw: Any, parent: LocDict, key: str) -> tuple[m.FlowStep, ...]:
        if raw is None:
            return ()
        if not isinstance(raw, list):
            self.bag.error("flow steps must be a list", self.where(raw, parent, key))
            return ()
        result = []
        for entry in raw:
            step = self.step(entry, parent, key)
            if step is not None:
                result.append(step)
        return tuple(result)

    def step(self, entry: Any, parent: LocDict, key: str) -> m.FlowStep | None:
        entry = self.mapping(entry, "a flow step", parent, key)
        kinds = [k for k in entry if k in _STEP_KEYS]
        if len(kinds) != 1:
            self.bag.error(
                "a flow step needs exactly one of: " + ", ".join(_STEP_KEYS),
                entry.span,
                hint=did_you_mean(str(next(iter(entry), "")), _STEP_KEYS),
            )
            return None
        kind = kinds[0]
        span = entry.key_spans.get(kind)
        body = entry[kind]
        if kind == "do":
            effect = self.block(body, "do", entry, kind)
            return m.DoStep(effect, span) if effect is not None else None
        if kind == "if":
            self.keys(entry, ("if", "then", "else"), "if step")
            cond = self.expr(body, "condition", entry, kind)
            then = self.steps(entry.get("then"), entry, "then")
            otherwise = self.steps(entry.get("else"), entry, "else")
            return m.IfStep(cond, then, otherwise, span) if cond is not None else None
        if kind == "turn" and isinstance(body, str):
            spec = LocDict(player=body)
            spec.span = span_of(body) or span
            spec.key_spans = {"player": span}
        else:
            spec = self.mapping(body, kind, entry, kind)
        if kind == "repeat":
            self.keys(spec, ("times", "while", "until", "counter", "steps"), "repeat")
            times = self.expr(spec["times"], "times", spec, "times") if "times" in spec else None
            while_ = self.expr(spec["while"], "while", spec, "while") if "while" in spec else None
            until = self.expr(spec["until"], "until", spec, "until") if "until" in spec else None
            if times is None and while_ is None and until is None:
                self.bag.error("repeat needs 'times', 'while' or 'until'", span)
            counter = spec.get("counter")
            return m.RepeatStep(
                self.steps(spec.get("steps"), spec, "steps"),
                times,
                while_,
                until,
                str(counter) if counter else None,
                span,
            )
        if kind == "for_each":
            self.keys(spec, ("in", "as", "steps"), "for_each")
            items = self.expr(spec.get("in"), "in", spec, "in")
            var = spec.get("as")
            if not isinstance(var, str):
                self.bag.error("for_each needs 'as: FIELD' (a game field that holds the element)", span)
                return None
            if items is None:
                return None
            return m.ForEachStep(items, str(var), self.steps(spec.get("steps"), spec, "steps"), span)
        # turn
        self.keys(spec, ("player", "actions", "once", "until", "on_start", "on_end"), "turn")
        player = self.expr(spec.get("player"), "player", spec, "player")
        actions = spec.get("actions")
        action_names = None
        if actions is not None:
            if not isinstance(actions, list):
                self.bag.error("actions must be a list of action names", self.where(actions, spec, "actions"))
            else:
                action_names = tuple(str(a) for a in actions)
        until = self.expr(spec["until"], "until", spec, "until") if "until" in spec else None
        on_start = self.block(spec["on_start"], "on_start", spec, "on_start") if "on_start" in spec else None
        on_end = self.block(spec["on_end"], "on_end", spec, "on_end") if "on_end" in spec else None
        if player is None:
            return None
        return m.TurnStep(player, action_names, bool(spec.get("once", False)), until, on_start, on_end, span)

    def scoring(self) -> m.Scoring:
        spec = self.mapping(self.data.get("scoring"), "scoring", self.data, "scoring")
        self.keys(spec, ("score", "tiebreak", "end_when"), "scoring")
        score = self.expr(spec["score"], "score", spec, "score") if "score" in spec else None
        tiebreak = []
        raw = spec.get("tiebreak") or []
        if not isinstance(raw, list):
            raw = [raw]
        for entry in raw:
            expr = self.expr(entry, "tiebreak", spec, "tiebreak")
            if expr is not None:
                tiebreak.append(expr)
        end_when = self.expr(spec["end_when"], "end_when", spec, "end_when") if "end_when" in spec else None
        return m.Scoring(score, tuple(tiebreak), end_when, spec.span)


def _names(value: Any) -> tuple[str, ...]:
    """A name or a list of names as a tuple of strings."""
    if value is None:
        return ()
    return tuple(str(v) for v in value) if isinstance(value, list) else (str(value),)


def _finite(value: Any) -> bool:
    """Whether YAML data holds only finite numbers (``.inf`` and ``.nan`` have no DSL literal)."""
    if isinstance(value, float):
        return math.isfinite(value)
    if isinstance(value, dict):
        return all(_finite(k) and _finite(v) for k, v in value.items())
    if isinstance(value, list | tuple):
        return all(_finite(v) for v in value)
    return True


def _opt_str(value: Any) -> str | None:
    return None if value is None else str(value)


def _plain(value: Any) -> Any:
    """YAML data as plain run-time values: lists become tuples."""
    if isinstance(value, dict):
        return {_plain_key(k): _plain(v) for k, v in value.items()}
    if isinstance(value, LocList | list):
        return tuple(_plain(v) for v in value)
    if isinstance(value, LocStr):
        return str(value)
    return value


def _plain_key(key: Any) -> Any:
    return str(key) if isinstance(key, LocStr) else key


def build_model(data: LocDict, fingerprint: str, modules: tuple[str, ...] = ()) -> m.RulesModel:
    """Build the rules model from composed data.

    Raises:
        RulesetError: with every structural and syntax problem found.
    """
    builder = _Builder(data)
    model = builder.build(fingerprint, modules)
    builder.bag.raise_if_any()
    return model


def plain(value: Any) -> Any:
    """Public alias of the YAML-to-runtime value conversion."""
    return _plain(value)
