"""Interchangeable components (``engine:component-symmetry``): a metamorphic test that needs no oracle.

Two components of one kind whose declared data (attributes) are equal, and which nothing in the
rules tells apart, are interchangeable: swapping them everywhere in a state and in an action
must swap the result the same way.  :func:`symmetric_groups` finds such groups in the compiled
rules, conservatively (a group it is unsure of is left out, and the verdict says why):

1. the items are of one kind and their attributes are equal;
2. no declaration names an item (its id is no text of a constant, a parameter, an enumeration, a
   record, an event or another item's data); an item of a group of *copies* (the ``copies: N``
   of one item entry: equal data and one declaration) may be named by a rule (an action,
   trigger, function, procedure, the flow, the scoring, a turn field's initial value): the
   author said they are copies, so a rule that treats one copy apart is what the check is for;
   an item declared on its own and named by a rule is left out;
3. no rule reads the kind's collection (``cards``) in its declared order: only counting
   aggregates (``count``, ``sum``, ``any``, ``all``, and ``min``/``max`` of numbers) may loop
   over it, and ``cards.x`` names the item ``x``;
4. no rule orders values that may be components (ordered by their ids): ``sort(...)``,
   ``min``/``max`` of anything but numbers and ``sorted``/``rank`` by anything but a number
   leave every group out (``<`` and the like compare numbers only), as does reading a
   component's ``id`` anywhere but in text (``note``, ``tell``, ``concat``, ...);
5. the set-up (``setup``, field initial values other than the turn's) is not checked: only
   actions are, so naming an item there does not count.

Before an action (sampled like seat symmetry), one group's ids are shifted (each as the next
of its group, the last as the first) in every value the field types say holds a component of
the kind (lists, map keys and values, records, the components' own fields), and in the
action's parameters.  A state is skipped when one of its group's ids lies where no type says
so (an untyped value, a text holding one, the engine's own bookkeeping: a ``for_each`` under
way; notes aside).  Chance
needs nothing: every draw picks a position (a shuffle is positional, ``roll`` and ``pick``
draw an index with the state's own generator, which is left as it is), so the relabelled game
draws the relabelled outcome.
"""

from __future__ import annotations

from collections.abc import Iterable, Iterator, Mapping
from typing import Any

from attrs import frozen

from rulekit.compiler.program import Program
from rulekit.dsl import ast
from rulekit.dsl import types as t
from rulekit.engine.game import Action
from rulekit.errors import Span

#: Aggregates whose result does not depend on the order of what they loop over.
ORDER_FREE = frozenset({"count", "sum", "any", "all"})
#: Calls whose arguments are made text (a state holding such a text is skipped: see ``holds``).
TEXT_CALLS = frozenset({"note", "tell", "concat", "join", "str", "pad", "pad_left", "center", "repeat_text"})
#: Built-in calls that give a number (or numbers).
NUMBER_CALLS = frozenset(
    {"count", "len", "sum", "abs", "least", "greatest", "clamp", "roll", "manhattan", "count_of", "index_of"}
)
ARITHMETIC = frozenset({"+", "-", "*", "//", "%"})


@frozen
class Group:
    """Components of one kind that the rules treat alike (as far as they show)."""

    kind: str
    ids: tuple[str, ...]
    copies: bool

    def describe(self) -> str:
        shown = ", ".join(self.ids[:4]) + (", ..." if len(self.ids) > 4 else "")
        return f"{self.kind} {shown} ({'copies' if self.copies else 'items'} with equal data)"


@frozen
class Analysis:
    """The groups found, and why other components of equal data were left out."""

    groups: tuple[Group, ...]
    left_out: tuple[str, ...]
    #: Sets of two or more components of one kind with equal data.
    candidates: int = 0

    def summary(self, checks: int, skipped: int) -> str:
        if not self.candidates:
            return "component symmetry not checked: no two components of a kind have equal data"
        if not self.groups:
            why = f" ({'; '.join(self.left_out[:3])})" if self.left_out else ""
            return (
                f"component symmetry not checked: {self.candidates} set(s) of components with equal "
                f"data, none sure to be interchangeable{why}"
            )
        groups = "; ".join(g.describe() for g in self.groups[:4])
        more = f" and {len(self.groups) - 4} more" if len(self.groups) > 4 else ""
        text = (
            f"component symmetry: {len(self.groups)} group(s) of interchangeable components "
            f"({groups}{more}), {checks} check(s)"
        )
        if skipped:
            text += f", {skipped} state(s) skipped (a group's id where no type says)"
        if self.left_out:
            text += f"; left out: {'; '.join(self.left_out[:3])}"
        return text


def symmetric_groups(program: Program) -> Analysis:
    """The groups of interchangeable components of ``program`` (see the module's doc)."""
    rules = program.rules
    reader = _Reader(program)
    parts = list(_transitions(program))
    reader.bind_locals(parts)
    for part in parts:
        reader.walk(part, text=False)
    declared = _Strings()
    for part in (rules.constants, rules.parameters, rules.enums, rules.records, rules.events):
        declared.walk(part)
    for kind in rules.kinds.values():
        for item in kind.items:
            declared.walk(item.values)
    left_out: list[str] = list(reader.problems[:1])
    groups: list[Group] = []
    candidates = 0
    for kind in rules.kinds.values():
        by_data: dict[str, list[Any]] = {}
        for item in kind.items:
            by_data.setdefault(repr(sorted(item.values.items())), []).append(item)
        for items in by_data.values():
            if len(items) < 2:
                continue
            candidates += 1
            copies = items[0].span is not None and all(i.span == items[0].span for i in items)
            if reader.problems:
                continue
            if kind.name in reader.ordered:
                left_out.append(f"{kind.name}: {reader.ordered[kind.name]}")
                continue
            named = declared.found | (set() if copies else reader.strings)
            ids = tuple(i.id for i in items if i.id not in named)
            if len(ids) < len(items):
                shown = ", ".join(i.id for i in items if i.id in named)
                left_out.append(f"{kind.name}: the rules name {shown}")
            if len(ids) >= 2:
                groups.append(Group(kind.name, ids, copies))
    return Analysis(tuple(groups), tuple(dict.fromkeys(left_out)), candidates)


def _transitions(program: Program) -> Iterator[Any]:
    """The parts of the rules an action runs: actions, triggers, functions, procedures, the
    flow, the scoring and the turn fields' initial values."""
    rules = program.rules
    for action in rules.actions.values():
        yield (action.params, action.requires, action.cost, action.effect, action.fallback_ignored_when)
    yield from rules.triggers.values()
    yield from rules.functions.values()
    yield from rules.procedures.values()
    yield rules.flow
    yield rules.scoring
    yield tuple(decl.initial for decl in rules.fields.get("turn", {}).values())


class _Strings:
    """Every text in a part of the rules (spans aside)."""

    def __init__(self) -> None:
        self.found: set[str] = set()

    def walk(self, node: Any, depth: int = 0) -> None:
        if depth > 200 or isinstance(node, Span):
            return
        if isinstance(node, str):
            self.found.add(node)
        elif isinstance(node, (tuple, list, set, frozenset)):
            for item in node:
                self.walk(item, depth + 1)
        elif isinstance(node, Mapping):
            for key, item in node.items():
                self.walk(key, depth + 1)
                self.walk(item, depth + 1)
        elif hasattr(node, "__attrs_attrs__"):
            for attribute in node.__attrs_attrs__:
                self.walk(getattr(node, attribute.name), depth + 1)


class _Reader:
    """What the rules an action runs do with components: the texts they hold, the kinds whose
    collection order they read, and uses that may order components (``problems``)."""

    def __init__(self, program: Program) -> None:
        rules = program.rules
        self.collections = {kind.collection: kind.name for kind in rules.kinds.values()}
        self.functions = rules.functions
        self.strings: set[str] = set()
        self.ordered: dict[str, str] = {}
        self.problems: list[str] = []
        declared: dict[str, list[t.Type]] = {}
        for kind in rules.kinds.values():
            for name, decl in kind.attributes.items():
                declared.setdefault(name, []).append(decl.type)
        for fields in program.field_types.values():
            for name, type_ in fields.items():
                declared.setdefault(name, []).append(type_)
        types = [*rules.records.values(), *(d.type for d in _declared_types(rules))]
        for fields in program.field_types.values():
            types += fields.values()
        for type_ in types:
            for name, field_type in _record_fields(type_):
                declared.setdefault(name, []).append(field_type)
        self.plain_constants = {
            name
            for name, constant in rules.constants.items()
            if (constant.declared is not None and _plain_type(constant.declared.type))
            or (constant.declared is None and isinstance(constant.value, (int, bool)))
        }
        self.plain_constants |= {"me", "players", "num_players", "bank", *rules.enums}
        for event in rules.events.values():
            for name, decl in event.fields:
                declared.setdefault(name, []).append(decl.type)
        self.plain_names = {n for n, types in declared.items() if n != "id" and all(map(_plain_type, types))}
        #: How each local name is bound anywhere in the rules: a declared type, a value, or
        #: an element of a collection.
        self.bindings: dict[str, list[tuple[str, Any]]] = {}
        params = [p for f in rules.functions.values() for p in f.params]
        params += [p for f in rules.procedures.values() for p in f.params]
        for name, decl in params:
            self._bind(name, "type", decl.type)
        for compiled in program.actions.values():
            for param, type_ in zip(compiled.params, compiled.param_types, strict=False):
                self._bind(param, "type", type_)
        self._in_progress: set[str] = set()
        self._known: dict[str, bool] = {}

    def _bind(self, name: Any, how: str, what: Any) -> None:
        if isinstance(name, str):
            self.bindings.setdefault(name, []).append((how, what))
        else:  # a tuple of names taking an element apart: nothing is known of them
            for part in name:
                self._bind(part, "type", t.ANY)

    def bind_locals(self, node: Any, depth: int = 0) -> None:
        """Record every local binding (let, where, loops) in ``node``."""
        if depth > 300 or isinstance(node, (Span, str)) or node is None:
            return
        if isinstance(node, (ast.Let, ast.LetIn, ast.Where)):
            self._bind(node.name, "value", node.value)
        elif isinstance(node, ast.For):
            self._bind(node.var, "element", node.iterable)
        elif isinstance(node, ast.Comprehension):
            for target, source in node.loops:
                self._bind(target, "element", source)
            for name, value in node.bindings:
                self._bind(name, "value", value)
        if isinstance(node, (tuple, list)):
            for item in node:
                self.bind_locals(item, depth + 1)
        elif isinstance(node, dict):
            for item in node.values():
                self.bind_locals(item, depth + 1)
        elif hasattr(node, "__attrs_attrs__"):
            for attribute in node.__attrs_attrs__:
                self.bind_locals(getattr(node, attribute.name), depth + 1)

    def walk(self, node: Any, *, text: bool, free: frozenset[int] = frozenset(), depth: int = 0) -> None:
        if depth > 300 or isinstance(node, Span) or node is None:
            return
        deeper = depth + 1
        if isinstance(node, str):
            self.strings.add(node)
        elif isinstance(node, (tuple, list)):
            for item in node:
                self.walk(item, text=text, free=free, depth=deeper)
        elif isinstance(node, dict):
            for item in node.values():
                self.walk(item, text=text, free=free, depth=deeper)
        elif isinstance(node, ast.Name):
            self.strings.add(node.id)
            kind = self.collections.get(node.id)
            if kind is not None and id(node) not in free:
                self.ordered.setdefault(kind, f"its collection {node.id} is read in order at {_at(node)}")
        elif isinstance(node, ast.Attribute):
            self.strings.add(node.name)
            if node.name == "id" and not text:
                self._problem(f"a component's id is read as text at {_at(node)}")
            if not (isinstance(node.subject, ast.Name) and node.subject.id in self.collections):
                self.walk(node.subject, text=text, free=free, depth=deeper)
        elif isinstance(node, ast.Call):
            if node.function == "sort":
                self._problem(f"sort() orders values that may be components at {_at(node)}")
            inner = text or node.function in TEXT_CALLS
            self.walk((node.args, node.keywords), text=inner, free=free, depth=deeper)
        elif isinstance(node, ast.Aggregate):
            comprehension = node.comprehension
            function = node.function
            if function in ("min", "max") and not self.plain(comprehension.element):
                self._problem(f"{function}() may order components at {_at(node)}")
            if function in ("sorted", "rank") and not self.plain(comprehension.key or comprehension.element):
                self._problem(f"{function}() may order components at {_at(node)}")
            if function in ORDER_FREE or function in ("min", "max"):
                free = free | {
                    id(source) for _, source in comprehension.loops if isinstance(source, ast.Name)
                }
            self.walk(comprehension, text=text, free=free, depth=deeper)
        elif hasattr(node, "__attrs_attrs__"):
            for attribute in node.__attrs_attrs__:
                self.walk(getattr(node, attribute.name), text=text, free=free, depth=deeper)

    def _problem(self, why: str) -> None:
        if not self.problems:
            self.problems.append(why)

    def plain(self, node: Any, depth: int = 0) -> bool:
        """Whether ``node`` is sure to be no component (a number, a truth value, a seat)."""
        if depth > 100:
            return False
        deeper = depth + 1
        if isinstance(node, ast.Literal):
            return not isinstance(node.value, str)
        if isinstance(node, ast.Unary):
            return True
        if isinstance(node, ast.Binary):
            if node.op in ARITHMETIC:
                return self.plain(node.left, deeper) and self.plain(node.right, deeper)
            return True  # a comparison, and, or
        if isinstance(node, ast.Aggregate):
            if node.function in ORDER_FREE:
                return True
            return node.function in ("min", "max") and self.plain(node.comprehension.element, deeper)
        if isinstance(node, ast.Call):
            if node.function in NUMBER_CALLS:
                return True
            return self._plain_function(node.function, deeper)
        if isinstance(node, ast.Attribute):
            return node.name in self.plain_names
        if isinstance(node, ast.Name):
            return node.id in self.plain_constants or self._plain_local(node.id, deeper)
        if isinstance(node, (ast.ListExpr, ast.TupleExpr)):
            return all(self.plain(item, deeper) for item in node.items)
        if isinstance(node, ast.ListComprehension):
            return self.plain(node.comprehension.element, deeper)
        if isinstance(node, ast.Conditional):
            return self.plain(node.then, deeper) and self.plain(node.otherwise, deeper)
        if isinstance(node, (ast.Where, ast.LetIn)):
            return self.plain(node.body, deeper)
        return False

    def _plain_local(self, name: str, depth: int) -> bool:
        key = f"local {name}"
        if key in self._known:
            return self._known[key]
        bindings = self.bindings.get(name)
        if not bindings or key in self._in_progress:
            return False
        self._in_progress.add(key)
        try:
            result = all(self._plain_binding(how, what, depth) for how, what in bindings)
        finally:
            self._in_progress.discard(key)
        self._known[key] = result  # once each: a hostile rule's bindings cannot make this exponential
        return result

    def _plain_binding(self, how: str, what: Any, depth: int) -> bool:
        if how == "type":
            return _plain_type(what)
        if how == "element" and isinstance(what, ast.Call) and what.function == "range":
            return True
        return self.plain(what, depth)

    def _plain_function(self, name: str, depth: int) -> bool:
        function = self.functions.get(name)
        key = f"function {name}"
        if function is None or key in self._in_progress:
            return False
        if key not in self._known:
            if function.returns is not None:
                self._known[key] = _plain_type(function.returns.type)
            else:
                self._in_progress.add(key)
                try:
                    self._known[key] = self.plain(function.body, depth)
                finally:
                    self._in_progress.discard(key)
        return self._known[key]


def _declared_types(rules: Any) -> Iterator[Any]:
    """Every declared type of the rules (attributes, constants, functions' parameters and results)."""
    for kind in rules.kinds.values():
        yield from kind.attributes.values()
    for constant in rules.constants.values():
        if constant.declared is not None:
            yield constant.declared
    for callable_ in (*rules.functions.values(), *rules.procedures.values()):
        yield from (decl for _, decl in callable_.params)
        returns = getattr(callable_, "returns", None)
        if returns is not None:
            yield returns


def _record_fields(type_: t.Type, depth: int = 0) -> Iterator[tuple[str, t.Type]]:
    """The fields of every record inside ``type_``."""
    if depth > 50:
        return
    if type_.is_record:
        for name, field_type in type_.fields or ():
            yield name, field_type
            yield from _record_fields(field_type, depth + 1)
    for inner in (type_.element, type_.key):
        if inner is not None:
            yield from _record_fields(inner, depth + 1)


def _plain_type(type_: t.Type) -> bool:
    """A type whose values are no components and hold none: numbers, truth values, seats, enums."""
    if type_.name in ("int", "bool", "player", "owner", "enum", "none"):
        return True
    if type_.name in ("list", "map") and type_.element is not None:
        return _plain_type(type_.element) and (type_.key is None or _plain_type(type_.key))
    if type_.is_record:
        return all(_plain_type(ft) for _, ft in type_.fields or ())
    return False


def _at(node: Any) -> str:
    span = getattr(node, "span", None)
    return f"{span.file}:{span.line}" if span is not None and span.line else "(somewhere in the rules)"


class Unknown(Exception):
    """A group's id lies where no type says it holds a component: the state cannot be relabelled."""


class ComponentRelabeller:
    """Shifts one group's ids (each as the next, the last as the first) in states and actions."""

    def __init__(self, program: Program, group: Group) -> None:
        self.program = program
        self.group = group
        ids = group.ids
        self.mapping = {a: ids[(i + 1) % len(ids)] for i, a in enumerate(ids)}
        self.ids = frozenset(ids)
        self.kinds = frozenset({group.kind})
        self.kind_of = {item.id: kind.name for kind in program.rules.kinds.values() for item in kind.items}

    def permutation(self) -> str:
        pairs = [f"{a} as {b}" for a, b in self.mapping.items()]
        return ", ".join(pairs[:4]) + (", ..." if len(pairs) > 4 else "")

    def value(self, value: Any, type_: t.Type) -> Any:
        if value is None:
            return None
        if type_.name == "entity" and type_.kind is not None:
            return self.mapping.get(value, value) if type_.kind in self.kinds else value
        if type_.name == "tuple" and isinstance(value, tuple):
            image = self.point(value)
            if image is not None:
                return image
        if type_.is_list and type_.element is not None and isinstance(value, tuple):
            return tuple(self.value(v, type_.element) for v in value)
        if type_.is_map and type_.key is not None and isinstance(value, dict):
            element = type_.element or t.ANY
            return {self.value(k, type_.key): self.value(v, element) for k, v in value.items()}
        if type_.is_record and isinstance(value, dict):
            return {k: self.value(v, type_.field(k) or t.ANY) for k, v in value.items()}
        if self.holds(value):
            raise Unknown
        return value

    def point(self, value: tuple[Any, ...]) -> tuple[Any, ...] | None:
        """A position's image (None: positions are not relabelled)."""
        return None

    def holds(self, value: Any) -> bool:
        """Whether ``value`` holds one of the group's ids anywhere."""
        if isinstance(value, str):  # an id, or a text made of one
            return value in self.ids or any(i in value for i in self.ids)
        if isinstance(value, tuple):
            return any(self.holds(v) for v in value)
        if isinstance(value, dict):
            return any(self.holds(k) or self.holds(v) for k, v in value.items())
        return False

    def engine_holds(self, value: Any) -> bool:
        """Whether a value of the engine's own bookkeeping (``_``) holds one of the ids."""
        return self.holds(value)

    def state(self, fields: Mapping[Any, Any]) -> dict[Any, Any] | None:
        """The fields with the group relabelled (``None``: a state this check cannot relabel)."""
        types = self.program.field_types
        out: dict[Any, Any] = {}
        try:
            for (owner, name), value in fields.items():
                if owner == "_":
                    if name not in ("notes", "told") and self.engine_holds(value):
                        return None
                    out[(owner, name)] = value
                elif isinstance(owner, int) and not isinstance(owner, bool):
                    out[(owner, name)] = self.value(value, types.get("player", {}).get(name, t.ANY))
                elif owner in ("game", "turn"):
                    out[(owner, name)] = self.value(value, types.get(owner, {}).get(name, t.ANY))
                else:
                    type_ = types.get(self.kind_of.get(owner, ""), {}).get(name, t.ANY)
                    out[(self.mapping.get(owner, owner), name)] = self.value(value, type_)
        except Unknown:
            return None
        return out

    def action(self, action: Action) -> Action | None:
        compiled = self.program.actions[action.name]
        try:
            args = tuple(self.value(a, ty) for a, ty in zip(action.args, compiled.param_types, strict=False))
        except Unknown:
            return None
        return Action(action.name, args)

    def actions(self, actions: Iterable[Action]) -> list[Action] | None:
        out = []
        for action in actions:
            moved = self.action(action)
            if moved is None:
                return None
            out.append(moved)
        return out
